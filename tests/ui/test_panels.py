"""Servers, tools, history and settings panels against the real host and built-in servers."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QLabel, QSystemTrayIcon, QTableWidget, QWidget
from tests.ui.conftest import STEP_S, finished, opened_desktop, wait_until

from edgehost.settings import Settings
from edgehost.ui._waiting import expect
from edgehost.ui.history_panel import HistoryPanel, export_folder
from edgehost.ui.server_form import ServerForm
from edgehost.ui.servers_panel import ServersPanel
from edgehost.ui.settings_dialog import SettingsDialog
from edgehost.ui.theme import current_colors
from edgehost.ui.tools_panel import ToolsPanel

REPO = Path(__file__).resolve().parents[2]


def cell(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    assert item is not None, f"no item at {row}, {column}"
    return item.text()


BOARD_CALL = 'Checking. [TOOL_CALL]{"name": "board__uptime", "arguments": {}}[END_TOOL_CALL]'
DELETE_CALL = '[TOOL_CALL]{"name": "files__delete_file", "arguments": {"path": "keep.txt"}}[END_TOOL_CALL]'


def test_servers_panel_shows_each_server_and_disables_one(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            names = [cell(panel.table, r, 1) for r in range(panel.table.rowCount())]
            assert names == ["board", "files"]
            assert cell(panel.table, 0, 3) != "—"  # protocol version
            assert int(cell(panel.table, 0, 4)) > 0  # tool count
            assert "board" in panel.info.toPlainText()
            switch = panel.table.cellWidget(1, 5).findChild(QCheckBox)
            assert switch is not None
            disabled = expect(
                desktop.bridge.server_status_changed, lambda e: e.name == "files" and e.status == "disabled"
            )
            switch.setChecked(False)
            await disabled.wait(STEP_S)
            assert "files" in desktop.host.settings.disabled_servers
            assert not any(t.server == "files" for t in desktop.host.tools())
            chip = panel.table.cellWidget(1, 2).findChild(QLabel)
            assert chip is not None and chip.text() == "disabled"

    run(scenario())


def test_a_selected_servers_status_light_keeps_its_colour(data_dir: Path, run: Any) -> None:
    """The selected-text colour painted the light of the selected row black (seen in the screenshots)."""

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            panel.table.selectRow(0)
            # The cells' widgets (chip, switch) are placed after the first paint.
            await wait_until(
                lambda: all(
                    (cell := panel.table.cellWidget(0, column)) is None or cell.isVisible()
                    for column in range(panel.table.columnCount())
                )
            )
            light = panel.table.item(0, 0)
            assert light is not None and panel.table.selectionModel().isRowSelected(0)
            green = QColor(current_colors().ok)
            image = panel.table.viewport().grab(panel.table.visualItemRect(light)).toImage()
            painted = {
                image.pixelColor(x, y).rgb() for x in range(image.width()) for y in range(image.height())
            }
            assert green.rgb() in painted, f"the light is not painted in {green.name()}"

    run(scenario())


def test_the_server_form_is_validated_by_the_config_loader_before_saving(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            form = ServerForm(panel._builtins(), None, {"board", "files"}, panel)
            form.name.setText("memory")
            form.save()  # stdio without a command
            assert not form.problem.isHidden() and not desktop.host.paths.servers_file.exists()
            form.name.setText("board")
            form.command.setText("npx")
            form.save()
            assert "already" in form.problem.text()
            form.name.setText("memory")
            form.command.setText("edgehost-no-such-program")
            form.save()
            assert "was not found on the PATH" in form.problem.text()
            assert not desktop.host.paths.servers_file.exists()
            form.command.setText(sys.executable)
            form.args.setText("-m edgehost serve board")
            form.env.setPlainText("MEMORY_FILE_PATH=/tmp/m.json")
            form.saved.connect(panel._save_server)
            form.save()
            saved = json.loads(desktop.host.paths.servers_file.read_text())
            assert saved["mcpServers"]["memory"] == {
                "command": sys.executable,
                "args": ["-m", "edgehost", "serve", "board"],
                "env": {"MEMORY_FILE_PATH": "/tmp/m.json"},
            }

    run(scenario())


def _state(desktop: Any, name: str) -> str | None:
    state = next((s for s in desktop.host.server_states() if s.name == name), None)
    return None if state is None else getattr(state.status, "value", state.status)


def test_a_server_added_in_the_panel_connects_at_once_and_a_removed_one_goes(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            form = ServerForm(panel._builtins(), None, {"board", "files"}, panel)
            form.saved.connect(panel._save_server)
            form.name.setText("sensors")
            form.command.setText(sys.executable)
            form.args.setText("-m edgehost serve board")
            form.save()
            assert panel.notice.text().endswith("; connecting…")
            await wait_until(lambda: _state(desktop, "sensors") == "ready")
            assert any(t.name == "sensors__uptime" for t in desktop.host.tools())
            # The notice follows: it said "connecting…" after the server was ready.
            saved = f"Saved “sensors” to {desktop.host.paths.servers_file}; connected, 8 tools."
            await wait_until(lambda: panel.notice.text() == saved)
            rows = [cell(panel.table, r, 1) for r in range(panel.table.rowCount())]
            assert rows == ["board", "files", "sensors"]
            panel._remove_confirmed("sensors")
            await wait_until(lambda: _state(desktop, "sensors") is None)
            assert not any(t.server == "sensors" for t in desktop.host.tools())
            await wait_until(lambda: panel.table.rowCount() == 2)

    run(scenario())


def test_a_server_whose_program_is_missing_fails_once_and_is_not_retried(data_dir: Path, run: Any) -> None:
    missing = {"mcpServers": {"ghost": {"command": "edgehost-no-such-program"}}}
    (data_dir / "servers.json").write_text(json.dumps(missing), encoding="utf-8")

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            await wait_until(lambda: _state(desktop, "ghost") == "failed")
            [ghost] = [s for s in desktop.host.server_states() if s.name == "ghost"]
            assert "was not found on the PATH" in (ghost.error or "")
            assert "not retried" in (ghost.error or "")

    run(scenario())


def test_importing_a_claude_desktop_config_adds_its_servers(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            source = REPO / "tests" / "fixtures" / "configs" / "claude_desktop_config.json"
            panel.import_file(str(source))
            saved = json.loads(desktop.host.paths.servers_file.read_text())
            expected = set(json.loads(source.read_text())["mcpServers"])
            assert expected <= set(saved["mcpServers"])
            assert panel.notice.text().startswith("Imported:")

    run(scenario())


def test_tools_panel_unchecks_a_tool_and_a_deny_rule_refuses_its_calls(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, [DELETE_CALL, "Could not."]) as desktop:
            (desktop.host.paths.files_root / "keep.txt").write_text("precious")
            window = desktop.window
            panel = window.open_panel("tools")
            assert isinstance(panel, ToolsPanel)
            servers = panel._server_items()
            assert [item.text(0) for item in servers] == ["board", "files"]
            first_tool = servers[0].child(0)
            assert first_tool is not None
            first_tool.setCheckState(0, Qt.CheckState.Unchecked)
            name = first_tool.data(0, Qt.ItemDataRole.UserRole)
            assert first_tool.text(0) == name.split("__", 1)[1]  # the name the chat's cards show
            assert not next(t for t in desktop.host.tools() if t.name == name).enabled
            panel.set_rule("files__delete_file", "deny")
            assert {"server": "files", "tool": "delete_file", "action": "deny"} in json.loads(
                desktop.host.paths.servers_file.read_text()
            )["approval"]
            window.send("Delete keep.txt")
            await finished(window.turn_task)
            assert window.approvals.current() is None  # refused by the rule, never asked
            assert (desktop.host.paths.files_root / "keep.txt").exists()
            assert [c.status for c in window.chat.cards.values()] == ["denied"]

    run(scenario())


def test_history_lists_executions_exports_them_and_jumps_to_the_conversation(
    data_dir: Path, tmp_path: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, [BOARD_CALL, "Up for a while."]) as desktop:
            window = desktop.window
            window.send("Uptime?")
            await finished(window.turn_task)
            conversation = window.current_id
            window.new_chat()
            panel = window.open_panel("history")
            assert isinstance(panel, HistoryPanel)
            assert panel.table.rowCount() == 1 and cell(panel.table, 0, 3) == "board__uptime"
            assert cell(panel.table, 0, 4) == "ok"
            assert panel.details_title.text() == "board__uptime · ok · chosen by the model"
            assert panel.result_view.toPlainText().strip()
            panel.tool_filter.setText("uptime")  # a word is found anywhere in the name
            panel.refresh()
            assert panel.table.rowCount() == 1
            panel.tool_filter.setText("files")
            panel.refresh()
            assert panel.table.rowCount() == 0
            panel.tool_filter.clear()
            panel.refresh()
            assert await panel.export_to(tmp_path / "x.json", "json") == 1
            assert json.loads((tmp_path / "x.json").read_text())[0]["tool"] == "board__uptime"
            assert await panel.export_to(tmp_path / "x.csv", "csv") == 1
            with (tmp_path / "x.csv").open(encoding="utf-8") as exported:
                assert list(csv.DictReader(exported))[0]["tool"] == "board__uptime"
            panel.status_filter.setCurrentText("error")
            assert panel.table.rowCount() == 0
            panel.status_filter.setCurrentText("any status")
            panel.table.selectRow(0)
            panel.jump.click()
            assert window.current_id == conversation and window.chat.cards

    run(scenario())


def test_the_history_names_a_conversation_made_after_it_was_first_opened_by_its_title(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, [BOARD_CALL, "Up for a while."]) as desktop:
            window = desktop.window
            panel = window.open_panel("history")
            assert isinstance(panel, HistoryPanel)
            assert panel.conversation_filter.count() == 1  # "all conversations": none made yet
            window.send("How long has the board been up?")
            await finished(window.turn_task)
            await wait_until(lambda: panel.table.rowCount() == 1)  # refreshed as the call finished
            title = "How long has the board been up?"
            assert cell(panel.table, 0, 1) == title  # not the conversation's id
            index = panel.conversation_filter.findData(window.current_id)
            assert index > 0 and panel.conversation_filter.itemText(index) == title
            panel.conversation_filter.setCurrentIndex(index)
            desktop.host.rename_conversation(window.current_id, "Uptime")
            await wait_until(lambda: cell(panel.table, 0, 1) == "Uptime")
            assert panel.conversation_filter.currentText() == "Uptime"  # still the one chosen

    run(scenario())


def test_settings_are_saved_and_the_theme_applies_at_once(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            dialog = desktop.window.open_panel("settings")
            assert isinstance(dialog, SettingsDialog)
            assert dialog.profile.itemText(0).startswith("Detected:")
            assert dialog.backend.currentText() == "Automatic (by board)"
            dialog.backend.setCurrentText("llama.cpp on the CPU")  # backends are chosen by name
            dialog.theme.setCurrentText("dark")
            dialog.threads.setValue(3)
            dialog.save()
            saved = json.loads(desktop.host.paths.settings_file.read_text())
            assert saved["theme"] == "dark" and saved["threads"] == 3 and saved["backend"] == "llamacpp"
            assert desktop.window.status.backend_switch.currentText() == "llama.cpp on the CPU"
            from PySide6.QtWidgets import QApplication

            from edgehost.ui.theme import DARK, current_colors

            assert isinstance(QApplication.instance(), QApplication) and current_colors() == DARK

    run(scenario())


def _darkest(widget: QWidget) -> int:
    """The darkest pixel of the widget as drawn (the sum of its red, green and blue)."""
    image = widget.grab().toImage()
    return min(
        sum(QColor(image.pixel(x, y)).getRgb()[:3])
        for y in range(image.height())
        for x in range(image.width())
    )


def test_without_a_system_tray_the_tray_option_is_drawn_off_and_says_why(data_dir: Path, run: Any) -> None:
    assert not QSystemTrayIcon.isSystemTrayAvailable()  # offscreen: no tray, as on GNOME without one

    async def scenario() -> None:
        async with opened_desktop(
            data_dir, wait_servers=False, settings=Settings(close_to_tray=True)
        ) as desktop:
            dialog = desktop.window.open_panel("settings")
            assert isinstance(dialog, SettingsDialog)
            box = dialog.close_to_tray
            assert not box.isEnabled() and not box.isChecked()  # closing the window quits here
            assert dialog.no_tray_note.isVisible()
            assert (
                dialog.no_tray_note.text()
                == "This desktop has no system tray, so closing the window quits EdgeHost."
            )
            # Its words are drawn in the muted colour, not in the text colour of an option that can be set.
            colors = current_colors()
            assert _darkest(box) >= sum(QColor(colors.muted).getRgb()[:3]) - 30
            assert _darkest(box) > sum(QColor(colors.text).getRgb()[:3]) + 60
            dialog.save()  # the setting is kept, for a session on a desktop with a tray
            assert desktop.host.settings.close_to_tray is True

    run(scenario())


def test_quitting_with_the_settings_open_closes_them_with_the_other_panels(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            panels = [desktop.window.open_panel(key) for key in ("history", "settings")]
        assert not any(panel.isVisible() for panel in panels)  # aclose() closed them, Settings too

    run(scenario())


def test_server_details_show_the_whole_command_even_for_an_entry_that_did_not_load(
    data_dir: Path, run: Any
) -> None:
    bad = {"mcpServers": {"clock": {"command": "uvx", "args": "mcp-server-time --local-timezone UTC"}}}
    (data_dir / "servers.json").write_text(json.dumps(bad), encoding="utf-8")

    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:
            panel = desktop.window.open_panel("servers")
            assert isinstance(panel, ServersPanel)
            names = [cell(panel.table, r, 1) for r in range(panel.table.rowCount())]
            panel.table.selectRow(names.index("files"))
            root = str(desktop.host.paths.files_root)
            assert f"-m edgehost serve files --root {root}" in panel.info.toPlainText()
            panel.table.selectRow(names.index("clock"))
            assert "command:    uvx mcp-server-time --local-timezone UTC" in panel.info.toPlainText()
            assert "args" in panel.error.text()  # why it did not load

    run(scenario())


def test_the_export_dialog_offers_the_format_in_the_documents_folder(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            panel = desktop.window.open_panel("history")
            assert isinstance(panel, HistoryPanel)
            panel._export("csv")
            dialog = panel.export_dialog
            assert dialog is not None
            assert dialog.nameFilters()[0] == "CSV files (*.csv)"
            assert Path(dialog.directory().absolutePath()) == export_folder() != Path.cwd()
            dialog.reject()

    run(scenario())
