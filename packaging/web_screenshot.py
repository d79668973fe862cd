"""The web page's screenshot for docs/screenshots/web.png: `edgehost web`'s page in Debian's Chromium
(driven by Playwright), after a question to the embedded default model that the board tool answers,
with the Tools panel open.

    .venv/bin/python packaging/web_screenshot.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from playwright.async_api import async_playwright

from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.llm.default_model import default_model_path
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.web.serve import serving

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # Chromium's flags for this machine, shared with the browser tests
from tests.support import CHROMIUM_ARGS  # noqa: E402

QUESTION = "How much memory is free?"


async def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as data:
        host = Host(
            Paths.resolve(None, data),
            Settings(),
            HostOptions(model=str(default_model_path()), backend_name="llamacpp"),
        )
        await host.start()
        try:
            await host.wait_servers_ready(60)
            await host.wait_model()
            async with (
                serving(host, "127.0.0.1", 0, Path(data) / "web-token") as server,
                async_playwright() as pw,
            ):
                browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = await browser.new_page(viewport={"width": 1280, "height": 760})
                await page.goto(server.url)
                await page.wait_for_selector("#link.on")
                await page.fill("#input", QUESTION)
                await page.press("#input", "Enter")
                await page.locator(".msg.user").wait_for()
                await page.wait_for_selector("#send:not([hidden])", timeout=180_000)
                await page.click("button[data-panel=tools]")
                await page.locator("#tools li").first.wait_for()
                await page.screenshot(path=str(out / "web.png"))
                await browser.close()
        finally:
            await host.aclose()
    print(f"wrote {out / 'web.png'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    asyncio.run(main(parser.parse_args().out))
