"""A servers file that cannot be read (one missing comma) leaves the rest of the app working: the
model, the built-in servers, the history; the servers panel says what is wrong and where."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.ui.conftest import SERVERS_READY_S, finished, manager, opened_desktop, wait_until
from tests.ui.test_self_test import SELF_TEST_S

from edgehost.host.options import HostOptions
from edgehost.llm.base import BackendError
from edgehost.llm.default_model import default_model_path
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.store import Store
from edgehost.ui.app import Desktop
from edgehost.ui.servers_panel import ServersPanel

# Line 5 lacks the comma after the "time" entry.
BROKEN = """{
  "mcpServers": {
    "time": {
      "command": "uvx", "args": ["mcp-server-time"]
    }
    "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}
  }
}
"""


def _broken_install(data_dir: Path) -> tuple[Paths, int]:
    """A data folder with a conversation from an earlier run and a servers file missing a comma."""
    paths = Paths.resolve(None, data_dir)
    paths.servers_file.parent.mkdir(parents=True, exist_ok=True)
    paths.servers_file.write_text(BROKEN, encoding="utf-8")
    store = Store.open(paths.history_db)
    try:
        conversation = store.create_conversation("Trip to Lyon")
        store.add_message(conversation, "user", "What is the weather in Lyon?")
    finally:
        store.close()
    return paths, conversation


def test_a_servers_file_with_a_syntax_error_leaves_the_built_in_servers_and_the_history(
    data_dir: Path, run: Any
) -> None:
    paths, conversation = _broken_install(data_dir)

    async def scenario() -> None:
        async with opened_desktop(data_dir, ["Hello!"]) as desktop:
            assert desktop.start_error is None
            assert [s.name for s in desktop.host.server_states()] == ["board", "files"]
            assert desktop.window.conversations.titles() == ["Trip to Lyon"]
            assert desktop.host.history.conversation(conversation) is not None
            problem = desktop.host.servers_config.file_error
            assert problem is not None and f"{paths.servers_file}:6" in problem
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            assert not panel.file_problem.isHidden()
            assert f"{paths.servers_file}:6" in panel.file_error.text()
            assert "only the built-in servers run" in panel.file_error.text()

    run(scenario())
    assert paths.servers_file.read_text(encoding="utf-8") == BROKEN  # nothing the user wrote is lost


def test_the_servers_panel_names_a_misspelt_key_and_the_key_meant(data_dir: Path, run: Any) -> None:
    paths = Paths.resolve(None, data_dir)
    paths.servers_file.parent.mkdir(parents=True, exist_ok=True)
    paths.servers_file.write_text(
        '{"mcpServers": {\n  "files": {"excluded_tool": ["delete_file"]}\n}}\n', encoding="utf-8"
    )

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            assert not panel.file_problem.isHidden()
            text = panel.file_error.text()
            assert text.startswith("The servers file has keys EdgeHost does not know:")
            assert f"{paths.servers_file}:2:13: server 'files': unknown key 'excluded_tool'" in text
            assert "(did you mean 'excluded_tools'?)" in text

    run(scenario())


def test_a_tool_rule_is_not_saved_over_a_servers_file_that_cannot_be_read(data_dir: Path, run: Any) -> None:
    paths, _conversation = _broken_install(data_dir)

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            with pytest.raises(Exception, match=str(paths.servers_file)):
                desktop.host.set_approval_rule("board__uptime", "deny")

    run(scenario())
    assert paths.servers_file.read_text(encoding="utf-8") == BROKEN


@pytest.mark.slow
def test_the_app_loads_the_default_model_and_answers_with_a_broken_servers_file(
    data_dir_answered_once: Path, run: Any
) -> None:
    data_dir = data_dir_answered_once
    try:
        default_model_path()
    except BackendError as exc:
        pytest.skip(str(exc))
    paths, _conversation = _broken_install(data_dir)

    async def scenario() -> None:
        desktop = Desktop(paths, Settings(close_to_tray=False), HostOptions(backend_name="llamacpp"))
        try:
            await desktop.start()
            assert desktop.start_error is None
            await desktop.host.wait_model(SELF_TEST_S)
            await manager(desktop).wait_ready(SERVERS_READY_S)
            desktop.window.new_chat()
            desktop.window.send("Say hello.")
            await finished(desktop.window.turn_task, SELF_TEST_S)
            conversation = desktop.window.current_id
            assert conversation is not None
            roles = [m.role for m in desktop.host.history.messages(conversation)]
            assert roles[:1] == ["user"] and "assistant" in roles
            assert desktop.host.model_status.status == "ready"
        finally:
            await desktop.aclose()

    run(scenario(), timeout=SELF_TEST_S)


def test_with_a_servers_file_that_cannot_be_read_the_panel_offers_no_edits_and_says_why(
    data_dir: Path, run: Any
) -> None:
    _broken_install(data_dir)

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            edits = (panel.add_button, panel.edit_button, panel.remove_button, panel.import_button)
            assert [b.isEnabled() for b in edits] == [False] * 4
            assert all("cannot be read" in b.toolTip() for b in edits)
            assert panel.restart_button.isEnabled()  # one server's reconnect does not write the file
            assert "then Reload the file" in panel.file_error.text()
            assert "restart EdgeHost" not in panel.file_error.text()

    run(scenario())


def test_reload_the_file_applies_the_fixed_servers_file_without_restarting_edgehost(
    data_dir: Path, run: Any
) -> None:
    paths, _conversation = _broken_install(data_dir)
    fixed = {
        "mcpServers": {"sensors": {"command": sys.executable, "args": ["-m", "edgehost", "serve", "board"]}}
    }

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            panel.reload_file_button.click()  # still broken: it says so, and nothing changes
            await wait_until(lambda: panel.notice.text().startswith("The servers file still cannot be read"))
            assert f"{paths.servers_file}:6" in panel.notice.text()
            assert not panel.add_button.isEnabled()
            paths.servers_file.write_text(json.dumps(fixed), encoding="utf-8")
            panel.reload_file_button.click()
            await wait_until(lambda: "sensors" in [s.name for s in desktop.host.server_states()])
            await wait_until(
                lambda: panel.notice.text() == "Read the servers file again: starting “sensors”."
            )
            assert panel.file_problem.isHidden() and panel.add_button.isEnabled()
            await wait_until(lambda: any(t.name == "sensors__uptime" for t in desktop.host.tools()))
            rows = [panel.table.item(r, 1).text() for r in range(panel.table.rowCount())]  # type: ignore[union-attr]
            assert rows == ["board", "files", "sensors"]

    run(scenario())


def test_open_the_file_says_where_it_is_when_no_program_opens_json(data_dir: Path, run: Any) -> None:
    paths, _conversation = _broken_install(data_dir)

    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            asked: list[Path] = []
            panel.open_file = lambda path: asked.append(path) or False  # as QDesktopServices.openUrl says
            panel.open_file_button.click()
            assert asked == [paths.servers_file]
            assert panel.notice.isVisible() and panel.notice.objectName() == "ErrorText"
            assert panel.notice.text() == (
                f"No program here opens JSON files: open {paths.servers_file} in a text editor, fix it, "
                "then Reload the file."
            )
            panel.open_file = lambda path: True
            panel.open_file_button.click()
            assert panel.notice.text().startswith(f"Opened {paths.servers_file}.")

    run(scenario())
