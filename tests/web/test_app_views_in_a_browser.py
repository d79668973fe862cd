"""MCP Apps on the page, in a real browser (Debian's Chromium): a real Apps server's view (the SDK's
``Apps``, tests/mcp/apps_server.py) rendered in the sandbox of a second origin under the CSP its resource
declares; its button's call approved on the page and recorded; another server's tool refused; its
message sent only with the user's consent; its context given to the model; its teardown sent when the
conversation closes; and the link the window's "Open the view" makes."""

from __future__ import annotations

import http.server
import logging
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from tests.host.conftest import call
from tests.web.test_page_in_a_browser import PAGE_S, _ask, _open

from edgehost.host import events as ev
from edgehost.llm.scripted import ScriptedBackend
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.mcp.config.edits import builtin_servers_by_name
from edgehost.paths import Paths

pytestmark = pytest.mark.slow
APPS_SERVER = Path(__file__).resolve().parents[1] / "mcp" / "apps_server.py"
VIEW = "ui://counter/view.html"


class _Answering(http.server.BaseHTTPRequestHandler):
    """Any GET: 200 "ok", readable from any origin (the view's is opaque)."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def two_origins() -> Iterator[tuple[str, str]]:
    """Two local HTTP origins that answer any fetch: the view declares the first, not the second."""
    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answering) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield tuple(f"http://127.0.0.1:{s.server_address[1]}" for s in servers)  # type: ignore[misc]
    for server in servers:
        server.shutdown()
        server.server_close()


def _servers(data_dir: Path, declared: str = "", probes: str = "", *, trusted: bool = False) -> ServersConfig:
    counter = ServerConfig(
        name="counter",
        trusted=trusted,
        command=sys.executable,
        args=[str(APPS_SERVER)],
        env={"COUNTER_CONNECT": declared, "COUNTER_PROBES": probes},
    )
    builtins = builtin_servers_by_name(Paths.resolve(None, data_dir))
    return ServersConfig([builtins["board"], builtins["files"], counter])


def _view(page: Any) -> Any:
    """The view's own document: inside the sandbox's frame, inside the card's view."""
    return page.frame_locator(".view iframe").frame_locator("iframe")


async def test_a_view_renders_in_a_sandbox_of_its_own_origin_and_its_calls_go_through_approval(
    serve: Any, browser: Any, two_origins: tuple[str, str], data_dir: Path
) -> None:
    declared, undeclared = two_origins
    served = await serve(
        ScriptedBackend([call("counter__show_counter"), "Here is the counter."]),
        servers=_servers(
            data_dir, declared, f"{declared}/a {undeclared}/b", trusted=True
        ),  # show_counter runs unasked
    )
    page = await _open(browser, served.server.url)
    await _ask(page, "Show me the counter")
    view = _view(page)
    await view.locator("body[data-probed=yes]").wait_for(timeout=PAGE_S)
    assert await view.locator("#count").inner_text() == "0"  # from the tool's result
    assert await view.locator("#input").inner_text() == "input {}"
    assert await view.locator("body").get_attribute("data-host") == "EdgeHost"  # ui/initialize answered
    # Framed from the second origin; what the view fetched is what its resource declared, no more.
    outer = page.frame_locator(".view iframe")
    assert await outer.locator("iframe").count() == 1
    sandbox = next(f for f in page.frames if "/sandbox?" in f.url)
    assert sandbox.url.startswith(f"http://127.0.0.1:{served.server.sandbox_port}/sandbox")
    assert served.server.sandbox_port != served.server.port
    net = await view.locator("#net").inner_text()
    assert f"{declared}/a fetched" in net and f"{undeclared}/b failed" in net
    assert f"blocked by the CSP: {undeclared}/b" in net
    async with httpx2.AsyncClient() as client:
        policy = (await client.get(sandbox.url)).headers["content-security-policy"]
    assert f"connect-src {declared};" in policy and f"frame-ancestors {served.base}" in policy
    assert "default-src 'none'" in policy and "frame-src 'none'" in policy

    # Its button calls its server's tool only meant for views: asked on the page, then recorded.
    await view.locator("#add").click()
    await page.wait_for_selector("#approval[open]", timeout=PAGE_S)
    assert "asked from the view of counter" in await page.inner_text("#approval-what")
    await page.click("#approval-once")
    await view.locator("#status", has_text="add_one ran").wait_for(timeout=PAGE_S)
    assert await view.locator("#count").inner_text() == "1"
    # Another server's tool, and its own tool not offered to views: refused, nothing asked or run.
    await view.locator("#other").click()
    await view.locator("#status", has_text="files__delete_file refused").wait_for(timeout=PAGE_S)
    assert (
        "may only call counter's tools, not files__delete_file (it is files's)"
        in await view.locator("#status").inner_text()
    )
    await view.locator("#peek").click()
    await view.locator("#status", has_text="peek refused").wait_for(timeout=PAGE_S)
    assert "not offered to views" in await view.locator("#status").inner_text()
    runs = served.host.history.executions()
    conversation = served.host.history.conversations()[0].id
    assert [(r.tool, r.status, r.chosen_by, r.decided_by, r.conversation_id) for r in reversed(runs)] == [
        ("counter__show_counter", "ok", "model", "policy", conversation),
        ("counter__add_one", "ok", "view", "web", conversation),
    ]
    assert await page.locator("#approval[open]").count() == 0
    assert await page.locator(".view").count() == 1  # the view's own call did not open it again
    assert page.errors == []


async def test_a_views_message_waits_for_consent_its_context_reaches_the_model_and_closing_tears_it_down(
    serve: Any, browser: Any, caplog: pytest.LogCaptureFixture, data_dir: Path
) -> None:
    model = ScriptedBackend([call("counter__show_counter"), "Here is the counter.", "It is at 0."])
    served = await serve(model, servers=_servers(data_dir))  # the counter is not trusted: its calls are asked
    page = await _open(browser, served.server.url)
    await _ask(page, "Show me the counter")
    await page.wait_for_selector("#approval[open]", timeout=PAGE_S)
    await page.click("#approval-once")
    view = _view(page)
    await view.locator("body[data-host=EdgeHost]").wait_for(timeout=PAGE_S)
    await page.wait_for_selector("#send:not([hidden])", timeout=PAGE_S)

    await view.locator("#tell").click()  # ui/update-model-context: kept for the next question
    await view.locator("#ask").click()  # ui/message: only once the user agrees
    consent = page.locator(".view-consent")
    await consent.wait_for(timeout=PAGE_S)
    assert "wants to send this message: “What is the counter at?”" in await consent.inner_text()
    await consent.locator("button", has_text="Don't send").click()
    await view.locator("#status", has_text="message refused").wait_for(timeout=PAGE_S)
    assert len(model.requests) == 2  # nothing was sent
    await view.locator("#ask").click()
    await consent.locator("button", has_text="Send it").click()
    await view.locator("#status", has_text="message sent").wait_for(timeout=PAGE_S)
    await served.events.wait_for(lambda e: isinstance(e, ev.TurnCompleted) and e.text == "It is at 0.")
    asked = model.requests[2].messages[-1].content
    assert asked.endswith("What is the counter at?")
    assert f"[resource {VIEW}" in asked and "The counter view shows 0." in asked
    assert await page.locator(".msg.user", has_text="What is the counter at?").count() == 1

    # Closing the conversation tells the view first; it answers after logging it. Its call still
    # waiting for approval is withdrawn: the approval closes, and the call did not run.
    [shown] = [e for e in served.host.history.executions() if e.tool == "counter__show_counter"]
    await view.locator("#add").click()
    await page.wait_for_selector("#approval[open]", timeout=PAGE_S)
    with caplog.at_level(logging.INFO, logger="edgehost.views"):
        await page.evaluate("document.getElementById('new-chat').click()")  # the modal approval covers it
        await page.locator(".view").wait_for(state="detached", timeout=PAGE_S)
        await page.wait_for_selector("#approval", state="hidden", timeout=PAGE_S)
    assert "view of counter: counter view torn down: the conversation was closed" in caplog.text
    [withdrawn] = [e for e in served.host.history.executions() if e.tool == "counter__add_one"]
    assert (withdrawn.status, withdrawn.chosen_by) == ("cancelled", "view")

    # The window's "Open the view" link: the call's conversation opens with its view.
    linked = await _open(browser, served.server.url + f"#view={shown.id}")
    await _view(linked).locator("#count", has_text="0").wait_for(timeout=PAGE_S)
    assert await linked.locator("details.card[open]", has_text="counter__show_counter").count() == 1
    assert page.errors == [] and linked.errors == []
