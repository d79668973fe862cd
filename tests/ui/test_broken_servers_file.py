"""A servers file that cannot be read (one missing comma) leaves the rest of the app working: the
model, the built-in servers, the history; the servers panel says what is wrong and where."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.ui.conftest import SERVERS_READY_S, finished, manager, opened_desktop
from tests.ui.test_self_test import SELF_TEST_S

from edgehost.host.host import HostOptions
from edgehost.llm.base import BackendError
from edgehost.llm.models import default_model_path
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
            assert desktop.host._store().get_conversation(conversation) is not None
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
    data_dir: Path, run: Any
) -> None:
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
            roles = [m.role for m in desktop.host._store().list_messages(conversation)]
            assert roles[:1] == ["user"] and "assistant" in roles
            assert desktop.host.model_status.status == "ready"
        finally:
            await desktop.aclose()

    run(scenario(), timeout=SELF_TEST_S)
