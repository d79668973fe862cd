"""The input (Enter sends, Shift+Enter breaks the line, "/" opens the palette, a pinned tool) and the
conversation list (search, rename, delete, regenerate)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from tests.ui.conftest import finished, opened_desktop, scripted

from edgehost.ui.composer import MAX_INPUT_LINES, Composer, Palette, PaletteItem

BOARD_CALL = '[TOOL_CALL]{"name": "board__cpu_status", "arguments": {}}[END_TOOL_CALL]'


def test_enter_sends_shift_enter_breaks_the_line_and_slash_opens_the_palette(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, [BOARD_CALL, "Busy cores."]) as desktop:
            window = desktop.window
            edit = window.composer.edit
            QTest.keyClick(edit, Qt.Key.Key_Slash)
            assert window.composer_actions.palette.isVisible() and edit.toPlainText() == ""
            tools = [i for i in window.composer_actions.palette_items() if i.kind == "tool"]
            assert any(i.name == "board__cpu_status" for i in tools)
            window.composer_actions.palette.chosen.emit(
                PaletteItem("tool", "board__cpu_status", "board__cpu_status")
            )
            window.composer_actions.palette.hide()
            assert (
                window.composer.pinned_tool == "board__cpu_status"
                and window.composer.chip_row.isVisibleTo(window)
            )
            QTest.keyClicks(edit, "How busy")
            QTest.keyClick(edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
            QTest.keyClicks(edit, "is the CPU?")
            assert edit.toPlainText() == "How busy\nis the CPU?" and window.turn_task is None
            QTest.keyClick(edit, Qt.Key.Key_Return)
            await finished(window.turn_task)
            request = scripted(desktop).requests[0]
            assert request.messages[-1].content == "How busy\nis the CPU?"
            assert window.composer.pinned_tool is None and edit.toPlainText() == ""
            assert [c.status for c in window.chat.cards.values()] == ["ok"]

    run(scenario())


def test_conversations_are_searched_renamed_deleted_and_an_answer_regenerated(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, ["Paris.", "Lyon.", "Bordeaux."], wait_servers=False) as desktop:
            window = desktop.window
            window.send("Capital of France?")
            await finished(window.turn_task)
            first = window.current_id
            assert first is not None
            window.chat.last_answer.regenerate_button.click()  # type: ignore[union-attr]
            await finished(window.turn_task)
            regenerated = [(m.role, m.content) for m in scripted(desktop).requests[-1].messages]
            assert regenerated[1:] == [("user", "Capital of France?")]  # the old answer is gone
            assert window.chat.last_answer is not None and window.chat.last_answer.text == "Lyon."
            window.new_chat()
            window.send("Where is the Fête des Lumières?")
            await finished(window.turn_task)
            listed = window.conversations
            assert len(listed.titles()) == 2
            listed.search.setText("lumières")
            listed.refresh()  # the list also refreshes by itself after a pause in typing
            assert listed.titles() == ["Where is the Fête des Lumières?"]
            listed.search.clear()
            listed.rename(first, "France")
            assert "France" in listed.titles()
            listed.delete(first)
            store = desktop.host._store()
            assert store is not None and store.get_conversation(first) is None
            assert len(listed.titles()) == 1

    run(scenario())


def test_the_attach_button_says_no_connected_server_offers_resources(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir) as desktop:  # board and files offer tools, no resources
            window = desktop.window
            window.composer.attach_button.click()
            palette = window.composer_actions.palette
            texts = [palette.list.item(i).text() for i in range(palette.list.count())]
            assert texts == ["No resources to attach: board and files offer none."]
            assert palette.filter.placeholderText() == "Type to filter resources…"
            palette.hide()

    run(scenario())


def test_the_input_box_shows_a_scroll_bar_only_once_the_text_outgrows_it(qapp: Any) -> None:
    composer = Composer()
    assert composer.edit.verticalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    composer.set_text("\n".join(f"line {i}" for i in range(MAX_INPUT_LINES + 3)))
    assert composer.edit.verticalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAsNeeded
    composer.deleteLater()


def test_palette_descriptions_wrap_whole_instead_of_hiding_behind_a_scroll_bar(qapp: Any) -> None:
    palette = Palette()
    long = "Reads a file. " * 12
    palette.set_items([PaletteItem("tool", "files__read_file", "files__read_file", long)])
    assert palette.list.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert palette.list.wordWrap()
    assert palette.list.item(0).text().endswith("Reads a file.")  # 168 characters: whole
    palette.deleteLater()
