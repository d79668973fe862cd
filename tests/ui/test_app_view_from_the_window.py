"""MCP Apps from the window: a tool card whose tool has a view offers "Open the view", which opens the
chat page served beside the window (started on 127.0.0.1 for it) at that call's view, in the system
browser; a card whose tool has none does not. The page's side is tests/web/test_app_views_in_a_browser.py."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx2
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from tests.host.conftest import call
from tests.ui.conftest import STEP_S, wait_until

from edgehost.cli.page_beside import PageBeside
from edgehost.host.options import HostOptions
from edgehost.llm.scripted import ScriptedBackend
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.paths import Paths
from edgehost.servers.in_process import builtin_in_process
from edgehost.settings import Settings
from edgehost.ui.app import Desktop

APPS_SERVER = Path(__file__).resolve().parents[1] / "mcp" / "apps_server.py"


class _Browser(QObject):
    """The system browser, as Qt opens it: the URLs given to QDesktopServices.openUrl."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toString())


def test_open_the_view_opens_the_calls_view_on_the_page_beside_the_window(data_dir: Path, run: Any) -> None:
    browser = _Browser()
    QDesktopServices.setUrlHandler("http", browser, "open")
    counter = ServerConfig(name="counter", command=sys.executable, args=[str(APPS_SERVER)], trusted=True)
    replies = [call("counter__show_counter"), "Here it is.", call("counter__reset"), "Reset."]
    desktop = Desktop(
        Paths.resolve(None, data_dir),
        Settings(close_to_tray=False),
        HostOptions(
            backend=ScriptedBackend(replies),
            servers=ServersConfig([counter]),
            servers_in_process=builtin_in_process,
            approver=lambda request: _allow(request),
        ),
    )
    beside = PageBeside(data_dir / "web-token")  # no --web: served on the first link

    async def scenario() -> tuple[str, str]:
        running = asyncio.ensure_future(desktop.run(beside=beside.serve))
        try:
            await wait_until(lambda: desktop.window.page is not None, STEP_S)
            await desktop.host.wait_servers_ready(STEP_S)
            window = desktop.window
            assert beside.server is None  # nothing served until a view is asked for
            window.send("Show the counter")
            await wait_until(
                lambda: window.turn_conversation is None and len(window.chat.cards) == 1, STEP_S * 2
            )
            window.send("Reset it")
            await wait_until(
                lambda: window.turn_conversation is None and len(window.chat.cards) == 2, STEP_S * 2
            )
            shown, reset = window.chat.cards.values()
            assert shown.view_button.isVisibleTo(window) and not reset.view_button.isVisibleTo(window)
            shown.view_button.click()
            await wait_until(lambda: browser.opened, STEP_S)
            [url] = browser.opened
            # What the page at that link reads first: the call, with the link's token.
            base, _, fragment = url.partition("/?token=")[0], "", url.rpartition("#view=")[2]
            token = url.partition("?token=")[2].partition("#")[0]
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as client:
                linked = (await client.get(f"{base}/api/executions/{fragment}")).json()
            assert (linked["tool"], linked["status"]) == ("counter__show_counter", "ok")
            [execution] = [e for e in desktop.host.history.executions() if e.tool == "counter__show_counter"]
            return url, f"{beside.server.token}#view={execution.id}"
        finally:
            desktop.quit()
            await asyncio.wait_for(running, STEP_S * 2)

    try:
        url, expected = run(scenario())
    finally:
        QDesktopServices.unsetUrlHandler("http")
    assert url.startswith("http://127.0.0.1:") and url.endswith(f"/?token={expected}")


async def _allow(_request: Any) -> Any:
    from edgehost.agent.approval import ApprovalDecision

    return ApprovalDecision(allow=True)
