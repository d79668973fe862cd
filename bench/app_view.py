"""What a tool's view (MCP Apps, issue 36) costs the page: the time from a finished call's card to its
view saying it is initialized, against the same view framed the plain way in the same browser.

A Host on a scripted model with the Apps server of the tests (tests/mcp/apps_server.py, the python SDK's
``Apps``) behind the web server; Debian's Chromium driven by Playwright. One call of ``show_counter`` is
made, then, ROUNDS times, alternating:

- **EdgeHost**: the page opened at ``#view=<that call>``; from the view's start (views.js: ``showView``)
  to its ``ui/notifications/initialized``: reading the view (``/api/views``: resources/read on the
  server), framing the sandbox of the second origin, the view's HTML under its CSP, and the
  ``ui/initialize`` round trip through the relay;
- **baseline**: in the same page, the same HTML put straight into a same-origin ``srcdoc`` iframe whose
  ``ui/initialize`` is answered at once (what the cheapest host that skips the sandbox would do, with
  the HTML already in hand).

Prints RESULT app_view_open_ms (median, EdgeHost) with its steps from the same start,
app_view_read_ms (the view read), app_view_sandbox_ready_ms (the sandbox framed and ready) and
app_view_initialize_asked_ms (the view loaded and asking ui/initialize); app_view_baseline_ms and
app_view_ratio (EdgeHost / baseline).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.llm.scripted import ScriptedBackend
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.web.serve import serving

REPO = Path(__file__).resolve().parent.parent

ROUNDS = 15
CHROMIUM = "/usr/bin/chromium"
APPS_SERVER = REPO / "tests" / "mcp" / "apps_server.py"
CALL = '[TOOL_CALL]{"name": "counter__show_counter", "arguments": {}}[END_TOOL_CALL]'
WAIT_MS = 30_000

# The baseline: the view's HTML in a same-origin srcdoc iframe, ui/initialize answered at once.
BASELINE = """async (html) => {
  const started = performance.now();
  const frame = document.createElement("iframe");
  document.body.appendChild(frame);
  const done = new Promise((resolve) => {
    const listen = (event) => {
      if (event.source !== frame.contentWindow) return;
      const m = event.data;
      if (m && m.method === "ui/initialize") {
        frame.contentWindow.postMessage({ jsonrpc: "2.0", id: m.id, result: {
          protocolVersion: "2026-01-26", hostInfo: { name: "baseline", version: "1" }, hostCapabilities: {},
          hostContext: {} } }, "*");
      } else if (m && m.method === "ui/notifications/initialized") {
        window.removeEventListener("message", listen);
        resolve(performance.now() - started);
      }
    };
    window.addEventListener("message", listen);
  });
  frame.srcdoc = html;
  const took = await done;
  frame.remove();
  return took;
}"""


async def main() -> None:
    from playwright.async_api import async_playwright

    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        counter = ServerConfig(name="counter", command=sys.executable, args=[str(APPS_SERVER)], trusted=True)
        host = Host(
            Paths.resolve(None, data),
            Settings(),
            HostOptions(backend=ScriptedBackend([CALL, "Here it is."]), servers=ServersConfig([counter])),
        )
        await host.start()
        try:
            await host.wait_servers_ready(60)
            await host.submit("Show the counter")
            [run] = host.history.executions()
            html = (await host.read_view("counter__show_counter")).html
            async with serving(host, "127.0.0.1", 0, data / "web-token") as server, async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                edgehost: list[float] = []
                read: list[float] = []
                framed: list[float] = []  # until the sandbox said it is ready
                asked: list[float] = []  # until the view sent ui/initialize
                baseline: list[float] = []
                for _ in range(ROUNDS):
                    page = await browser.new_page()
                    await page.goto(f"{server.url}#view={run.id}")
                    await page.wait_for_function("window.edgehost.viewTimings.length > 0", timeout=WAIT_MS)
                    timing: Any = await page.evaluate("window.edgehost.viewTimings[0]")
                    edgehost.append(timing["open_ms"])
                    read.append(timing["read_ms"])
                    framed.append(timing["framed_ms"])
                    asked.append(timing["asked_ms"])
                    baseline.append(await page.evaluate(BASELINE, html))
                    await page.close()
                await browser.close()
        finally:
            await host.aclose()
    opened, plain = statistics.median(edgehost), statistics.median(baseline)
    print(f"EdgeHost {[round(v, 1) for v in edgehost]}", file=sys.stderr)
    print(f"baseline {[round(v, 1) for v in baseline]}", file=sys.stderr)
    print(f"RESULT app_view_open_ms {opened:.1f}")
    print(f"RESULT app_view_read_ms {statistics.median(read):.1f}")
    print(f"RESULT app_view_sandbox_ready_ms {statistics.median(framed):.1f}")
    print(f"RESULT app_view_initialize_asked_ms {statistics.median(asked):.1f}")
    print(f"RESULT app_view_baseline_ms {plain:.1f}")
    print(f"RESULT app_view_ratio {opened / plain:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
