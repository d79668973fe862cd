"""The main window drives the real Host: streamed answers, tool cards, stored history, stop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QLabel
from tests.ui.conftest import STEP_S, finished, opened_desktop, shown_widgets, wait_until

from edgehost.host import events as ev
from edgehost.ui._waiting import expect
from edgehost.ui.app import Desktop
from edgehost.ui.chat_view import AssistantBlock, UserBubble
from edgehost.ui.theme import current_colors

BOARD_CALL = 'Let me look. [TOOL_CALL]{"name": "board__board_info", "arguments": {}}[END_TOOL_CALL]'


def answers(desktop: Desktop) -> list[str]:
    return [b.text.strip() for b in shown_widgets(desktop.window.chat.items) if isinstance(b, AssistantBlock)]


async def turn_finished(desktop: Desktop) -> None:
    await finished(desktop.window.turn_task)
    assert desktop.window.composer.send_button.text() == "Send"


def test_a_turn_streams_the_answer_and_shows_the_tool_call_as_a_card(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, [BOARD_CALL, "The board is **fine**."]) as desktop:
            window = desktop.window
            window.composer.set_text("How is the board?")
            window.composer.send_button.click()
            assert window.composer.send_button.text() == "Stop"
            await turn_finished(desktop)
            cards = list(window.chat.cards.values())
            assert [c.status for c in cards] == ["ok"]
            assert cards[0].title.text() == "board_info" and "board" in cards[0].server_label.text()
            assert cards[0].result_text and cards[0].result.isHidden()
            assert answers(desktop) == ["Let me look.", "The board is **fine**."]
            assert len(window.conversations.titles()) == 1

    run(scenario())


def test_a_stored_conversation_reopens_with_its_tool_cards(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, [BOARD_CALL, "All good: the machine is fine."]) as desktop:
            window = desktop.window
            window.send("How is the board?")
            await turn_finished(desktop)
            conversation = window.current_id
            assert conversation is not None
            stats = window.chat.last_answer.perf.text()  # the turn's: both runs of the model
            window.new_chat()
            assert not window.chat.cards
            window.open_conversation(conversation)
            assert [c.status for c in window.chat.cards.values()] == ["ok"]
            # Who chose the call stays with it, and the stats are the turn's as they were shown.
            assert [c.chosen_label.text() for c in window.chat.cards.values()] == ["· chosen by the model"]
            assert window.chat.last_answer.perf.text().split(" · ")[0] == stats.split(" · ")[0]
            assert answers(desktop) == ["Let me look.", "All good: the machine is fine."]
            bubbles = shown_widgets(window.chat.items)
            assert [b.text for b in bubbles if isinstance(b, UserBubble)] == ["How is the board?"]

    run(scenario())


def test_stop_ends_a_long_answer_and_keeps_what_was_said(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, ["word " * 400], delay_s=0.01, wait_servers=False) as desktop:
            window = desktop.window
            first_text = expect(desktop.bridge.text_arrived)
            window.send("Talk a lot")
            await first_text.wait(STEP_S)
            window.composer.send_button.click()  # the button is Stop while the turn runs
            await turn_finished(desktop)
            said = answers(desktop)[0]
            assert 0 < len(said) < len(("word " * 400).strip())

    run(scenario())


def test_stop_before_any_text_says_so_and_leaves_the_last_answers_stats_alone(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(
            data_dir, ["Paris.", "word " * 400], delay_s=0.05, wait_servers=False
        ) as desktop:
            window = desktop.window
            window.send("Capital of France?")
            await turn_finished(desktop)
            first = window.chat.last_answer
            assert first is not None
            first_stats = first.perf.text()
            window.send("Talk a lot")
            window.stop()  # before the first word
            await turn_finished(desktop)
            notices = [w.text() for w in shown_widgets(window.chat.items) if isinstance(w, QLabel)]
            assert "Stopped before the model wrote an answer." in notices
            assert len(answers(desktop)) == 1  # the one before: none of the 400 words came
            assert first.perf.text() == first_stats  # "stopped" went on no older answer

    run(scenario())


def test_the_status_bar_says_which_model_is_ready_and_where_it_runs(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            await desktop.host.wait_model()
            label = desktop.window.status.model_label
            assert label.text() == "● scripted · ready · scripted"
            assert current_colors().ok in label.styleSheet()
            desktop.host.emit(ev.ModelStatusChanged("loading", "llamacpp", ""))
            assert label.text() == "◌ Loading the model (llama.cpp on the CPU)…"

    run(scenario())


def test_the_backend_selector_in_the_status_bar_says_what_it_chooses(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            desktop.window.resize(1180, 700)  # wider than the tests' screen: room for the caption
            status = desktop.window.status
            label, switch = status.backend_label, status.backend_switch
            await wait_until(label.isVisible)
            assert label.text() == "Backend" and label.buddy() is switch
            assert label.geometry().right() <= switch.geometry().left()  # it stands before the selector
            assert switch.accessibleName() == "Backend: where the model runs"

    run(scenario())


def test_a_narrow_status_bar_drops_the_backend_caption_and_keeps_the_selector(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            await desktop.host.wait_model()
            window, status = desktop.window, desktop.window.status
            window.resize(1180, 700)
            await wait_until(status.backend_label.isVisible)
            window.resize(window.minimumSize())
            await wait_until(lambda: not status.backend_label.isVisible())
            assert status.backend_switch.isVisible() and status.servers_button.isVisible()
            assert " · ready" in status.model_label.text()

    run(scenario())


def test_thinking_shows_while_the_model_reads_the_prompt_and_gives_way_to_the_answer(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, ["Hello there."], delay_s=0.5, wait_servers=False) as desktop:
            window = desktop.window
            window.send("Hi")
            thinking = window.chat.thinking
            assert thinking is not None and thinking.text() == "Thinking…"
            assert thinking in shown_widgets(window.chat.items)
            await finished(window.turn_task)
            assert window.chat.thinking is None
            labels = [w.text() for w in shown_widgets(window.chat.items) if isinstance(w, QLabel)]
            assert "Thinking…" not in labels

    run(scenario())


def test_the_context_meter_and_reply_stats_follow_the_conversation_on_screen(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(
            data_dir, ["First answer.", "Quick answer."], wait_servers=False
        ) as desktop:
            await desktop.host.wait_model()
            window = desktop.window
            window.send("Hello")
            await finished(window.turn_task)
            first = window.current_id
            assert first is not None
            used = window.context_used[first]
            maximum = desktop.host.backend.capabilities.max_context
            assert used > 0 and window.status.context_meter.value() == used
            assert not window.status.context_label.text().startswith("context 0 ")
            # It says which size it is: the one loaded, not the model file's (what `models` lists).
            assert window.status.context_label.toolTip().startswith(
                f"{used} of {maximum} tokens of context used: the size the model was loaded with"
            )
            stats = window.chat.last_answer.perf.text()
            assert "tokens" in stats
            window.new_chat()
            assert window.status.context_meter.value() == 0 and window.status.speed_label.text() == ""
            # A quick-ask answers in a conversation of its own: the meter of the one on screen stays.
            window.open_conversation(first)
            quick = desktop.quick_ask
            quick.input.setText("Something quick")
            quick.input.returnPressed.emit()
            await finished(quick.task)
            assert window.current_id == first and window.status.context_meter.value() == used
            # Reopened, a conversation shows its last reply's stats and its context at once.
            window.new_chat()
            window.open_conversation(first)
            assert (
                window.status.context_meter.value() == used
                and window.status.context_meter.maximum() == maximum
            )
            reopened = window.chat.last_answer.perf.text()  # the stored timings are rounded
            assert reopened.split(" · ")[0] == stats.split(" · ")[0] and "tok/s" in reopened

    run(scenario())
