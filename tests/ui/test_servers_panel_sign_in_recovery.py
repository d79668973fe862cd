"""The servers panel when a sign-in does not go the easy way, against a real OAuth-protected server (the
mcp SDK's authorization-server support): no browser opens, the person gives up, the server stops
accepting the stored tokens, the person signs in from a terminal instead."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QGuiApplication
from tests.mcp.oauth_server import InMemoryAuthorizationServer, ScriptedBrowser, protected_server
from tests.ui.conftest import STEP_S, opened_desktop, wait_until

from edgehost.mcp.auth import FileCredentialStore, ServerAuth
from edgehost.mcp.auth._store import CREDENTIALS_FILE
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.ui.app import Desktop
from edgehost.ui.servers_panel import ServersPanel

pytestmark = pytest.mark.usefixtures("no_os_keyring")


class NoBrowser:
    """What QDesktopServices.openUrl does where no browser starts (none installed, Chromium as root)."""

    def __init__(self) -> None:
        self.tried: list[str] = []

    def __call__(self, url: str) -> bool:
        self.tried.append(url)
        return False


@asynccontextmanager
async def _panel_on(
    data_dir: Path, provider: InMemoryAuthorizationServer
) -> AsyncIterator[tuple[ServersPanel, Desktop, ServerConfig]]:
    async with protected_server(provider) as protected:
        server = ServerConfig(name="remote", transport="http", url=protected.url)
        async with opened_desktop(
            data_dir, wait_servers=False, servers=ServersConfig(servers=[server])
        ) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            panel.table.selectRow(0)
            yield panel, desktop, server


def _status(desktop: Desktop) -> str:
    return str(desktop.host.server_states()[0].status.value)


def _shows(panel: ServersPanel, state: str) -> bool:
    panel.refresh()
    return f"sign-in:    {state}" in panel.info.toPlainText()


def test_when_no_browser_opens_the_panel_shows_the_address_to_copy_and_the_sign_in_finishes_from_it(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with _panel_on(data_dir, InMemoryAuthorizationServer()) as (panel, desktop, _server):
            await wait_until(lambda: _shows(panel, "sign-in required"))
            panel.open_url = no_browser = NoBrowser()
            panel.sign_in_button.click()
            await wait_until(lambda: bool(panel.sign_in_address.text()), STEP_S)

            address = panel.sign_in_address.text()
            assert no_browser.tried == [address]
            assert "browser could not be opened" in panel.notice.text()
            assert not panel.sign_in_box.isHidden() and not panel.cancel_sign_in_button.isHidden()
            assert not panel.sign_in_button.isEnabled()
            panel.copy_address_button.click()
            assert QGuiApplication.clipboard().text() == address

            ScriptedBrowser()(address)  # the person pastes it into a browser of their own
            await wait_until(lambda: _status(desktop) == "ready", STEP_S)
            await wait_until(lambda: panel.notice.text() == "Signed in to “remote”; connected, 1 tool.")
            assert panel.sign_in_box.isHidden()

    run(scenario())


def test_after_the_server_refuses_the_stored_tokens_the_panel_offers_sign_in_and_a_cancelled_one_keeps_them(
    data_dir: Path, run: Any
) -> None:
    provider = InMemoryAuthorizationServer()

    async def scenario() -> None:
        async with _panel_on(data_dir, provider) as (panel, desktop, _server):
            panel.open_url = ScriptedBrowser()
            await wait_until(lambda: _shows(panel, "sign-in required"))
            panel.sign_in_button.click()
            await wait_until(lambda: _status(desktop) == "ready", STEP_S)
            assert _shows(panel, "signed in") and panel.sign_in_button.isHidden()

            provider.revoke_all()  # the user revoked EdgeHost's access at the provider
            desktop.host.restart_server("remote")
            await wait_until(lambda: _status(desktop) == "failed", STEP_S)
            assert "sign-in required" in panel.error.text()
            assert _shows(panel, "sign-in required")
            assert not panel.sign_in_button.isHidden() and not panel.sign_out_button.isHidden()
            stored = json.loads((data_dir / CREDENTIALS_FILE).read_text())

            panel.open_url = lambda url: True  # a browser opens; the person walks away
            panel.sign_in_button.click()
            await wait_until(lambda: bool(panel.sign_in_address.text()), STEP_S)
            panel.cancel_sign_in_button.click()
            await wait_until(lambda: "cancelled" in panel.notice.text(), STEP_S)
            assert panel.sign_in_box.isHidden() and panel.sign_in_button.isEnabled()
            assert json.loads((data_dir / CREDENTIALS_FILE).read_text()) == stored

            panel.sign_out_button.click()
            await wait_until(lambda: _shows(panel, "sign-in required"), STEP_S)  # reconnected, and refused
            assert panel.sign_out_button.isHidden() and not panel.sign_in_button.isHidden()
            assert json.loads((data_dir / CREDENTIALS_FILE).read_text()) == {}

    run(scenario())


def test_a_sign_in_made_in_a_terminal_reconnects_the_server_that_waited_for_it(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with _panel_on(data_dir, InMemoryAuthorizationServer()) as (panel, desktop, server):
            await wait_until(lambda: _shows(panel, "sign-in required"))

            terminal = ServerAuth(FileCredentialStore(data_dir / CREDENTIALS_FILE))  # `edgehost auth login`
            async with terminal.browser_authorizer(server, ScriptedBrowser()) as authorizer:
                await asyncio.wait_for(terminal.sign_in(server, authorizer), STEP_S)

            await wait_until(lambda: _status(desktop) == "ready", STEP_S)
            await wait_until(lambda: _shows(panel, "signed in"))

    run(scenario())
