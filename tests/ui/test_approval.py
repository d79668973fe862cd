"""The approval window: non-modal, queued, editable arguments, scopes as allowed, deny with a reason."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from tests.ui.conftest import STEP_S, assert_open, finished, opened_desktop, scripted

from edgehost.agent.approval import ApprovalDecision, ApprovalRequest, Scope
from edgehost.host import events as ev
from edgehost.ui._waiting import expect
from edgehost.ui.approval import ApprovalWindow
from edgehost.ui.chat_view import AssistantBlock
from edgehost.ui.history_panel import HistoryPanel
from edgehost.web.wire import approval_decision, event_json

WRITE_CALL = (
    'Saving. [TOOL_CALL]{"name": "files__write_file", "arguments": {"path": "note.txt", '
    '"content": "from the model"}}[END_TOOL_CALL]'
)


def _request(
    request_id: str, scopes: tuple[Scope, ...] = ("once", "conversation", "always")
) -> ApprovalRequest:
    return ApprovalRequest(
        id=request_id,
        conversation_id=1,
        server="files",
        tool="files__write_file",
        arguments={"path": "a.txt"},
        risk="caution",
        reasons=("it writes files",),
        allowed_scopes=scopes,
    )


def test_several_pending_approvals_queue_and_are_answered_in_order(qtbot: Any) -> None:
    answers: list[tuple[str, ApprovalDecision]] = []

    def resolve(request_id: str, decision: ApprovalDecision) -> bool:
        answers.append((request_id, decision))
        return True

    window = ApprovalWindow(resolve, 120)
    qtbot.addWidget(window)
    window.add_request(_request("first", ("once", "conversation")))
    window.add_request(_request("second"))
    assert not window.isModal() and window.isVisible()
    assert window.queue_label.text() == "1 more waiting"
    assert window.risk.text() == "✎ changes things"  # in the Tools panel's words, not "caution"
    assert window.always_button.isHidden()  # "always" was not offered for the first one
    window.reason.setText("not now")
    window.deny_button.click()
    assert answers[0][0] == "first" and not answers[0][1].allow and answers[0][1].reason == "not now"
    assert not window.always_button.isHidden()
    window.always_button.click()
    assert answers[1][0] == "second" and answers[1][1].allow and answers[1][1].scope == "always"
    assert not window.isVisible()


def test_invalid_edited_arguments_block_allowing(qtbot: Any) -> None:
    window = ApprovalWindow(lambda rid, decision: True, 120)
    qtbot.addWidget(window)
    window.add_request(_request("r"))
    window.arguments.setPlainText("{not json")
    assert not window.once_button.isEnabled() and window.arguments_error.isVisible()
    window.arguments.setPlainText('{"path": "b.txt"}')
    assert window.once_button.isEnabled()


def test_a_request_answered_elsewhere_leaves_the_queue(qtbot: Any) -> None:
    window = ApprovalWindow(lambda rid, decision: True, 120)
    qtbot.addWidget(window)
    window.add_request(_request("a"))
    window.add_request(_request("b"))
    window.drop_request("a")
    current = window.current()
    assert current is not None and current.id == "b" and window.queue_label.text() == ""


def test_allowing_with_edited_arguments_runs_the_call_with_them(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, [WRITE_CALL, "Done."]) as desktop:
            window = desktop.window
            asked = expect(desktop.bridge.approval_requested)
            window.send("Write a note")
            (event,) = await asked.wait(STEP_S)
            assert_open(desktop, event.request.id)
            assert window.approvals.isVisible()
            assert [c.status for c in window.chat.cards.values()] == ["awaiting approval"]
            window.approvals.arguments.setPlainText('{"path": "note.txt", "content": "edited by the user"}')
            window.approvals.once_button.click()
            await finished(window.turn_task)
            assert (desktop.host.paths.files_root / "note.txt").read_text() == "edited by the user"
            assert [c.status for c in window.chat.cards.values()] == ["ok"]

    run(scenario())


def test_a_denial_reaches_the_model_and_the_card_says_denied(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, [WRITE_CALL, "Understood."]) as desktop:
            window = desktop.window
            asked = expect(desktop.bridge.approval_requested)
            window.send("Write a note")
            (event,) = await asked.wait(STEP_S)
            assert_open(desktop, event.request.id)
            window.approvals.reason.setText("no files today")
            window.approvals.deny_button.click()
            await finished(window.turn_task)
            assert not (desktop.host.paths.files_root / "note.txt").exists()
            assert [c.status for c in window.chat.cards.values()] == ["denied"]
            assert "no files today" in scripted(desktop).requests[-1].messages[-1].content

    run(scenario())


def test_the_countdown_starts_from_the_approval_wait_changed_while_the_window_was_open(
    data_dir: Path, run: Any
) -> None:
    """Changed on the web page's Settings panel (Host.update_settings), the wait reached the host but
    not the window beside it, which went on counting down from the value it was built with."""

    async def scenario() -> None:
        async with opened_desktop(data_dir, [WRITE_CALL, "Done."]) as desktop:
            window = desktop.window
            assert desktop.host.settings.approval_timeout_s != 600
            assert desktop.host.update_settings({"approval_timeout_s": 600.0}) == {"approval_timeout_s"}
            asked = expect(desktop.bridge.approval_requested)
            window.send("Write a note")
            (event,) = await asked.wait(STEP_S)
            assert_open(desktop, event.request.id)
            assert event.request.timeout_s == 600
            left = window.approvals.countdown.text().removeprefix("Denied automatically in ")
            assert left == "10:00" or left.startswith("9:"), left  # not 2:00, the wait it was built with
            window.approvals.deny_button.click()
            await finished(window.turn_task)

    run(scenario())


def test_a_request_without_its_own_wait_counts_down_from_the_windows(qtbot: Any) -> None:
    window = ApprovalWindow(lambda rid, decision: True, 120)
    qtbot.addWidget(window)
    window.set_timeout(300)
    window.add_request(_request("plain"))
    left = window.countdown.text().removeprefix("Denied automatically in ")
    assert left == "5:00" or left.startswith("4:"), left


def _answers(window: Any) -> list[str]:
    return [block.text for block in window.chat.column.findChildren(AssistantBlock)]


def test_what_the_model_writes_after_a_denied_call_waits_for_the_turn_to_say_what_to_show(
    data_dir: Path, run: Any
) -> None:
    # The model copies the denial; EdgeHost replaces that reply with its own statement once it ends.
    echo = (
        "The user denied this call to files__write_file. Reason: no files today Do not retry it;"
        " answer without it."
    )
    made_up = "I wrote the note for you."

    async def scenario() -> None:
        async with opened_desktop(data_dir, [WRITE_CALL, echo, WRITE_CALL, made_up], delay_s=0.01) as desktop:
            window = desktop.window
            shown_while_streaming: list[list[str]] = []
            thinking: list[str] = []

            def streamed(_conversation: int, _text: str) -> None:  # after the window's own slot
                shown_while_streaming.append(_answers(window))
                thinking.append(window.chat.thinking.text() if window.chat.thinking else "")

            reasons = ["no files today", ""]

            def deny(_event: Any) -> None:
                window.approvals.reason.setText(reasons.pop(0))
                window.approvals.deny_button.click()

            desktop.bridge.text_arrived.connect(streamed)
            desktop.bridge.approval_requested.connect(deny)
            window.send("Write a note")
            await finished(window.turn_task)
            after_denial = shown_while_streaming[1:]  # the first is "Saving." before the call
            assert after_denial and all(not any("denied" in a for a in answers) for answers in after_denial)
            assert thinking[-1] == "The call did not run; the model is answering without it…"
            assert _answers(window)[-1] == "files__write_file: Not run: you denied it (no files today)."
            shown_while_streaming.clear()
            window.send("Write a note again")
            await finished(window.turn_task)
            assert shown_while_streaming[1:] and all(
                made_up[:4] not in "".join(answers[-1:]) for answers in shown_while_streaming[1:]
            )
            assert _answers(window)[-1] == made_up  # kept as written, once the turn has ended

    run(scenario())


def test_a_denial_reads_the_same_in_the_window_on_the_page_in_the_history_and_its_export(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        replies = [WRITE_CALL, "Understood.", WRITE_CALL, "Fine.", WRITE_CALL, "Right."]
        async with opened_desktop(data_dir, replies) as desktop:
            window = desktop.window
            finished_calls: list[Any] = []
            desktop.host.subscribe(
                lambda e: finished_calls.append(e) if isinstance(e, ev.ToolExecutionFinished) else None
            )
            asked = expect(desktop.bridge.approval_requested)
            window.send("Write a note")
            await asked.wait(STEP_S)
            window.approvals.reason.setText("no files today")
            window.approvals.deny_button.click()
            await finished(window.turn_task)
            said = "Not run: you denied it (no files today)."
            [card] = window.chat.cards.values()
            assert card.error.text() == said and card.toggle.isHidden()  # not the model's instruction
            assert event_json(1, finished_calls[-1])["data"]["denial"] == said  # what the page shows
            [execution] = desktop.host.history.executions()
            assert (execution.error, execution.result) == (said, None)
            exported = io.StringIO()
            desktop.host.history.export("json", exported)
            assert json.loads(exported.getvalue())[0]["error"] == said
            panel = window.open_panel("history")
            assert isinstance(panel, HistoryPanel) and panel.result_view.toPlainText() == said
            conversation = window.current_id
            assert conversation is not None
            window.new_chat()
            window.open_conversation(conversation)
            [reopened] = window.chat.cards.values()
            assert reopened.error.text() == said
            # Denied on the page, without a reason and with one: a person denied it there too.
            for number, (reason, expected) in enumerate(
                [
                    ("", "Not run: you denied it."),
                    ("not from the phone", "Not run: you denied it (not from the phone)."),
                ],
                start=2,
            ):
                asked = expect(desktop.bridge.approval_requested)
                window.send(f"Write a note, take {number}")
                (event,) = await asked.wait(STEP_S)
                fields = {"request_id": event.request.id, "allow": False, "reason": reason}
                desktop.host.resolve_approval(event.request.id, approval_decision(fields))
                await finished(window.turn_task)
                assert event_json(number, finished_calls[-1])["data"]["denial"] == expected
                assert desktop.host.history.executions()[0].error == expected

    run(scenario())
