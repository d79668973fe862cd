"""The approval window: non-modal, queued, editable arguments, scopes as allowed, deny with a reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.ui.conftest import STEP_S, assert_open, finished, opened_desktop, scripted

from edgehost.agent.approval import ApprovalDecision, ApprovalRequest, Scope
from edgehost.ui._waiting import expect
from edgehost.ui.approval import ApprovalWindow

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
