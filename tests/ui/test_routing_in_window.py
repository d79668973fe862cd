"""Routing in the window (decision 11): the card says who chose the call, the conversation's switch sets
who decides, and an answer that ignores the tool's result gives way to the result."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from tests.ui.conftest import FIRST_ROUTED_TURN_S, finished, opened_desktop, shown_widgets, wait_until

from edgehost.agent.ranking import BlendedRanker
from edgehost.agent.ranking_process import RankingProcess
from edgehost.settings import Settings
from edgehost.ui.chat_view import AssistantBlock

HOST_ROUTED = Settings(close_to_tray=False, routing="host")


def test_a_call_the_host_chose_says_so_and_an_invented_number_gives_way_to_the_result(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        # No grammar in the scripted backend: the host writes the call's start, the model the rest.
        async with opened_desktop(
            data_dir, ["{}}[END_TOOL_CALL]", "You have 2307.2 MB free."], settings=HOST_ROUTED
        ) as desktop:
            window = desktop.window
            window.send("How much memory is free?")
            await finished(window.turn_task, FIRST_ROUTED_TURN_S)
            [card] = window.chat.cards.values()
            assert card.chosen_label.text() == "· chosen by EdgeHost" and card.chosen_label.isVisibleTo(
                window
            )
            assert not card.result.isHidden()  # opened: the result is the answer now
            [answer] = [b for b in shown_widgets(window.chat.items) if isinstance(b, AssistantBlock)]
            available = json.loads(card.result_text)["available_mb"]
            assert f"available_mb: {available}" in answer.text
            assert "> You have 2307.2 MB free." in answer.text

    run(scenario())


def test_a_grounded_answer_to_a_call_the_host_chose_follows_the_result_in_one_block(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        reply = "The board has been up since it booted."
        async with opened_desktop(data_dir, ["{}}[END_TOOL_CALL]", reply], settings=HOST_ROUTED) as desktop:
            window = desktop.window
            window.send("Has the board been rebooted lately? Check its uptime.")
            await finished(window.turn_task, FIRST_ROUTED_TURN_S)
            [answer] = [b for b in shown_widgets(window.chat.items) if isinstance(b, AssistantBlock)]
            assert answer.text.startswith("**board__uptime** returned:\n\nThe board has been up for ")
            assert answer.text.endswith(f"\n\n{reply}") and answer.text.count(reply) == 1

    run(scenario())


def test_the_conversation_switch_hands_the_choice_to_the_model(data_dir: Path, run: Any) -> None:
    call = '[TOOL_CALL]{"name": "board__uptime", "arguments": {}}[END_TOOL_CALL]'

    async def scenario() -> None:
        async with opened_desktop(data_dir, [call, "Up a while."], settings=HOST_ROUTED) as desktop:
            window = desktop.window
            switch = window.routing_switch
            assert switch.currentData() == "host"
            switch.setCurrentIndex(switch.findData("model"))  # before the conversation exists
            window.send("Hi there!")
            await finished(window.turn_task)
            [card] = window.chat.cards.values()
            assert card.chosen_label.text() == "· chosen by the model"
            assert desktop.host.routing(window.current_id) == ("model", "model")
            window.new_chat()
            assert switch.currentData() == "host"  # a new conversation follows the setting again
            window.open_conversation(desktop.host.history.conversations()[0].id)
            assert switch.currentData() == "model"

    run(scenario())


def test_a_question_being_typed_is_handed_to_the_ranking_process_when_typing_pauses(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, ["Plenty."], settings=HOST_ROUTED) as desktop:
            selector = desktop.host._selector
            ranker = await selector.ranker()  # loaded by the warm-up, as the window starts
            if not isinstance(
                ranker, BlendedRanker
            ):  # a venv without it (the floor-Qt one); make test has it
                pytest.skip(f"the embedding model is not installed: {selector.ranker_reasons}")
            index = ranker.semantic.index
            assert isinstance(index, RankingProcess)
            drafts: list[str] = []
            anticipate = index.anticipate

            def seen(draft: str) -> None:  # records, then the real request to the process
                drafts.append(draft)
                anticipate(draft)

            index.anticipate = seen
            window = desktop.window
            QTest.keyClicks(window.composer.edit, "How much memory is free?  ")
            for _ in range(500):
                await asyncio.sleep(0.01)
                if drafts:
                    break
            assert drafts == ["How much memory is free?"]  # once typing paused, not once a key
            QTest.keyClick(window.composer.edit, Qt.Key.Key_Return)
            await finished(window.turn_task, FIRST_ROUTED_TURN_S)
            assert drafts == ["How much memory is free?"]

    run(scenario())


def test_while_the_model_reads_the_prompt_the_window_says_which_tool_edgehost_chose(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(
            data_dir, ["{}}[END_TOOL_CALL]", "Plenty."], settings=HOST_ROUTED, delay_s=0.5
        ) as desktop:
            window = desktop.window
            window.send("How much memory is free?")
            await wait_until(
                lambda: window.chat.thinking is not None and window.chat.thinking.text() != "Thinking…",
                FIRST_ROUTED_TURN_S,
            )
            assert window.chat.thinking is not None
            assert (
                window.chat.thinking.text() == "Using board__memory_usage: the model is reading the question…"
            )
            await finished(window.turn_task)
            assert window.chat.thinking is None

    run(scenario())
