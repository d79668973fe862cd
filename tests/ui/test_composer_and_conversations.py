"""The input (Enter sends, Shift+Enter breaks the line, "/" opens the palette, a pinned tool) and the
conversation list (search, rename, delete, regenerate)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel
from tests.ui.conftest import SERVERS_READY_S, finished, manager, opened_desktop, scripted, shown_widgets

from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.ui.chat_view import UserBubble
from edgehost.ui.composer import MAX_INPUT_LINES, Composer, Palette, PaletteItem
from edgehost.ui.main_window import MainWindow

BOARD_CALL = '[TOOL_CALL]{"name": "board__cpu_status", "arguments": {}}[END_TOOL_CALL]'
NOTE_SERVER = Path(__file__).resolve().parents[1] / "mcp" / "note_server.py"  # serves note://today


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
            assert desktop.host.history.conversation(first) is None
            assert len(listed.titles()) == 1

    run(scenario())


def test_sending_a_question_reads_the_conversation_list_once_after_the_send_not_during_it(
    data_dir: Path, run: Any
) -> None:
    """The send's history changes (a new conversation, its title, the turn) show in the list on the
    loop's next turn, read once: the key press that sends does not also wait for the list (issue 35)."""

    async def scenario() -> None:
        async with opened_desktop(data_dir, ["Paris."], wait_servers=False) as desktop:
            window = desktop.window
            history = desktop.host.history
            reads: list[str] = []
            read = history.conversations

            def counted(*args: Any, **kwargs: Any) -> Any:
                reads.append("read")
                return read(*args, **kwargs)

            history.conversations = counted  # type: ignore[method-assign]
            window.send("Capital of France?")
            during = len(reads)
            await asyncio.sleep(0.05)  # a few turns of the loop
            after = len(reads)
            await finished(window.turn_task)
            assert (during, after) == (0, 1)
            assert window.conversations.titles() == ["Capital of France?"]

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


def test_a_question_sent_with_an_attachment_shows_the_resources_name_not_its_text_then_and_reopened(
    data_dir: Path, tmp_path: Path, run: Any
) -> None:
    # Seen: while sending, the bubble showed the question alone; reopened from the history, it showed
    # the whole attached note above the question.
    note = tmp_path / "today.txt"
    note.write_text("Buy milk.\n\nCall the plumber about the leak.", encoding="utf-8")
    notes = ServerConfig("notes", command=sys.executable, args=[str(NOTE_SERVER), str(note)])

    async def scenario() -> None:
        replies = ["Milk, and the plumber."]
        servers = ServersConfig([notes])  # no tools: opened_desktop's wait would expect some
        async with opened_desktop(data_dir, replies, servers=servers, wait_servers=False) as desktop:
            await manager(desktop).wait_ready(SERVERS_READY_S)
            window = desktop.window
            await window.composer_actions.attach_resource("note://today")
            window.composer.set_text("What is on my list?")
            window.composer.send_button.click()
            await finished(window.turn_task)
            assert "Call the plumber" in scripted(desktop).requests[-1].messages[-1].content  # model read it
            sending = _user_bubbles(window)
            assert window.current_id is not None
            window.open_conversation(window.current_id)
            reopened = _user_bubbles(window)
            assert sending == reopened == [["▤ today · 43 B", "What is on my list?"]]

    run(scenario())


def _user_bubbles(window: MainWindow) -> list[list[str]]:
    """What each user bubble of the chat shows, label by label."""
    bubbles = [w for w in shown_widgets(window.chat.items) if isinstance(w, UserBubble)]
    return [[label.text() for label in bubble.findChildren(QLabel)] for bubble in bubbles]


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
