"""The servers panel's Sign in / Sign out, against a real OAuth-protected server (the mcp SDK's
authorization-server support), with a scripted browser in place of the user's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.mcp.oauth_server import ScriptedBrowser, protected_server
from tests.ui.conftest import STEP_S, opened_desktop, wait_until

from edgehost.mcp.auth._store import CREDENTIALS_FILE
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.ui.servers_panel import ServersPanel

pytestmark = pytest.mark.usefixtures("no_os_keyring")


def test_sign_in_and_sign_out_from_the_servers_panel(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with protected_server() as protected:
            servers = ServersConfig(
                servers=[ServerConfig(name="remote", transport="http", url=protected.url)]
            )
            async with opened_desktop(data_dir, wait_servers=False, servers=servers) as desktop:
                panel = desktop.window.open_panel("servers")
                assert isinstance(panel, ServersPanel)
                panel.table.selectRow(0)

                def shows(state: str) -> bool:
                    panel.refresh()
                    return f"sign-in:    {state}" in panel.info.toPlainText()

                await wait_until(
                    lambda: shows("sign-in required") and "sign-in required" in panel.error.text()
                )
                assert not panel.sign_in_button.isHidden()

                browser = ScriptedBrowser()
                panel.open_url = browser
                panel.sign_in_button.click()
                await wait_until(lambda: desktop.host.server_states()[0].status.value == "ready", STEP_S)
                assert len(browser.opened) == 1 and browser.opened[0].startswith(protected.issuer)
                assert shows("signed in")
                assert panel.sign_in_button.isHidden() and not panel.sign_out_button.isHidden()
                await wait_until(lambda: panel.notice.text() == "Signed in to “remote”; connected, 1 tool.")
                assert any(t.name == "remote__whoami" for t in desktop.host.tools())

                panel.sign_out_button.click()
                assert json.loads((data_dir / CREDENTIALS_FILE).read_text()) == {}
                await wait_until(lambda: shows("sign-in required"), STEP_S)
                assert not panel.sign_in_button.isHidden()

    run(scenario())


def test_a_value_a_server_waits_for_is_entered_in_the_servers_panel_and_the_server_starts(
    data_dir: Path, run: Any
) -> None:
    # Seen by a new user: a VS Code ${input:…} could only come from an environment variable, which an
    # app started from the menu cannot be given.
    import sys

    from PySide6.QtWidgets import QLineEdit

    (data_dir / "servers.json").write_text(
        json.dumps(
            {
                "inputs": [
                    {"type": "promptString", "id": "token", "description": "Board token", "password": True}
                ],
                "servers": {
                    "guarded": {
                        "command": sys.executable,
                        "args": ["-m", "edgehost", "serve", "board"],
                        "env": {"BOARD_TOKEN": "${input:token}"},
                    }
                },
            }
        )
    )

    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            row = next(r for r in range(panel.table.rowCount()) if panel.table.item(r, 1).text() == "guarded")
            panel.table.selectRow(row)
            assert "needs input 'token' (Board token)" in panel.error.text()
            assert not panel.input_button.isHidden() and panel.input_button.text() == "Enter token…"
            panel.input_button.click()
            dialog = panel.input_dialog
            assert dialog is not None and "Board token" in dialog.labelText()
            assert dialog.textEchoMode() == QLineEdit.EchoMode.Password
            dialog.setTextValue("t0ken-for-the-board")
            dialog.accept()

            def guarded() -> str:
                return next(s.status.value for s in desktop.host.server_states() if s.name == "guarded")

            await wait_until(lambda: guarded() == "ready", STEP_S)
            panel.refresh()
            assert panel.input_button.isHidden()
            assert any(t.server == "guarded" for t in desktop.host.tools())

    run(scenario())
    assert "t0ken-for-the-board" not in (data_dir / "servers.json").read_text()  # kept out of the file
    assert "t0ken-for-the-board" in (data_dir / CREDENTIALS_FILE).read_text()
