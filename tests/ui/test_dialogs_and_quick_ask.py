"""Elicitation and sampling dialogs resolve their futures; quick-ask answers with tools; one instance."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QSpinBox
from tests.ui.conftest import STEP_S, finished, opened_desktop

from edgehost.host.options import HostOptions
from edgehost.llm.scripted import ScriptedBackend
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.ui._instance import InstanceServer, instance_name, send_to_running
from edgehost.ui._waiting import expect
from edgehost.ui.app import Desktop
from edgehost.ui.elicitation import ElicitationDialog
from edgehost.ui.sampling import SamplingDialog

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City", "default": "Lyon"},
        "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
        "metric": {"type": "boolean", "default": True},
        "detail": {"type": "string", "enum": ["short", "long"], "default": "long"},
        "note": {"type": "string"},
        "name": {"type": "string"},
        "email": {"type": "string", "title": "Email", "format": "email"},
    },
    "required": ["city", "name"],
}


def test_the_elicitation_form_has_defaults_marks_required_and_returns_the_answers(run: Any) -> None:
    async def scenario() -> None:
        dialog = ElicitationDialog(
            "weather", types.ElicitRequestFormParams(message="Where?", requested_schema=SCHEMA)
        )
        form = dialog.form
        assert form is not None
        assert isinstance(form.fields["city"], QLineEdit) and form.fields["city"].text() == "Lyon"
        assert isinstance(form.fields["days"], QSpinBox) and form.fields["days"].value() == 3
        assert isinstance(form.fields["metric"], QCheckBox) and form.fields["metric"].isChecked()
        assert isinstance(form.fields["detail"], QComboBox) and form.fields["detail"].currentText() == "long"
        dialog.answer("accept")  # "name" is required and empty
        assert not dialog.result_future.done() and "name" in dialog.problem.text()
        form.fields["name"].setText("Ada")  # type: ignore[attr-defined]
        form.fields["email"].setText("ada@")  # type: ignore[attr-defined]
        dialog.accept_button.click()  # checked as the terminal checks it
        assert not dialog.result_future.done()
        assert dialog.problem.text() == "Email must be an email address, like name@example.com"
        form.fields["email"].setText("")  # type: ignore[attr-defined]  # optional: left out
        dialog.accept_button.click()
        result = await asyncio.wait_for(dialog.result_future, 5)
        assert result.action == "accept"
        assert result.content == {"city": "Lyon", "days": 3, "metric": True, "detail": "long", "name": "Ada"}

    run(scenario())


def test_url_elicitation_opens_the_address_only_on_consent(run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[QUrl] = []
    monkeypatch.setattr("edgehost.ui.elicitation.QDesktopServices.openUrl", lambda url: opened.append(url))

    async def scenario() -> None:
        params = types.ElicitRequestURLParams(
            message="Sign in", url="https://auth.example/x", elicitation_id="e1"
        )
        declined = ElicitationDialog("auth", params)
        declined.decline_button.click()
        assert (await declined.result_future).action == "decline" and opened == []
        accepted = ElicitationDialog("auth", params)
        accepted.accept_button.click()
        assert (await accepted.result_future).action == "accept"
        assert opened == [QUrl("https://auth.example/x")]

    run(scenario())


def _sampling_params(text: str) -> types.CreateMessageRequestParams:
    return types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))],
        max_tokens=50,
    )


def test_a_sampling_request_goes_through_the_host_and_the_window_sends_the_edited_draft(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(
            data_dir, ["draft from the model", "second draft"], wait_servers=False
        ) as desktop:
            window = desktop.window
            opened = expect(window.dialog_opened)
            answer = asyncio.ensure_future(desktop.host.sample("summariser", _sampling_params("Summarise")))
            (dialog,) = await opened.wait(STEP_S)
            assert isinstance(dialog, SamplingDialog) and dialog in window.dialogs
            assert "Summarise" in dialog.request.toPlainText()
            assert dialog.draft.toPlainText() == "draft from the model"  # the Host's model drafted it
            assert window.approvals.queue == []  # shown as the draft dialog, not as a tool approval
            dialog.draft.setPlainText("edited")
            dialog.approve_button.click()
            result = await asyncio.wait_for(answer, STEP_S)
            assert isinstance(result, types.CreateMessageResult)
            assert result.content.text == "edited"  # type: ignore[union-attr]
            assert dialog not in window.dialogs

            opened = expect(window.dialog_opened)
            refused = asyncio.ensure_future(desktop.host.sample("summariser", _sampling_params("Again")))
            (second,) = await opened.wait(STEP_S)
            second.reject_button.click()
            declined = await asyncio.wait_for(refused, STEP_S)
            assert isinstance(declined, types.ErrorData) and "declined" in declined.message

    run(scenario())


def test_a_sampling_dialog_left_unanswered_closes_when_the_approval_times_out(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        settings = Settings(close_to_tray=False, approval_timeout_s=0.5)
        async with opened_desktop(data_dir, ["a draft"], settings=settings, wait_servers=False) as desktop:
            window = desktop.window
            opened = expect(window.dialog_opened)
            answer = asyncio.ensure_future(desktop.host.sample("summariser", _sampling_params("Summarise")))
            (dialog,) = await opened.wait(STEP_S)
            result = await asyncio.wait_for(answer, STEP_S)
            assert isinstance(result, types.ErrorData)
            assert dialog not in window.dialogs and dialog.answered

    run(scenario())


UPTIME_CALL = '[TOOL_CALL]{"name": "board__uptime", "arguments": {}}[END_TOOL_CALL]'


async def asked_in_quick_ask(desktop: Any, question: str) -> Any:
    """The quick-ask window, shown, with ``question`` typed and answered."""
    quick = desktop.quick_ask
    quick.present()
    quick.input.setText(question)
    quick.input.returnPressed.emit()
    await finished(quick.task)
    return quick


def test_quick_ask_answers_with_a_tool_and_continues_in_the_main_window(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, [UPTIME_CALL, "Up **3 days**."]) as desktop:
            quick = await asked_in_quick_ask(desktop, "How long has the board been up?")
            assert "3 days" in quick.answer.toPlainText()
            assert "uptime" in quick.status.text()
            quick.continue_button.click()
            assert not quick.isVisible()
            window = desktop.window
            assert window.current_id == quick.conversation_id and window.isVisible()
            assert [c.status for c in window.chat.cards.values()] == ["ok"]

    run(scenario())


def test_quick_ask_shows_the_tools_result_in_place_of_an_answer_that_ignored_it(
    data_dir: Path, run: Any
) -> None:
    """The main window replaced such an answer; the quick-ask window showed the invented one."""

    async def scenario() -> None:
        async with opened_desktop(data_dir, [UPTIME_CALL, "Up for 987654 days."]) as desktop:
            quick = await asked_in_quick_ask(desktop, "How long has the board been up?")
            shown = quick.answer.toPlainText()
            assert "uptime" in shown.lower(), shown  # the result, rendered
            assert "does not match this result" in shown, shown

    run(scenario())


def test_a_second_start_reaches_the_running_instance(data_dir: Path, run: Any) -> None:
    name = instance_name(Paths.resolve(None, data_dir))
    assert not send_to_running(name, "show")
    server = InstanceServer(name)
    assert server.listen()
    received: list[str] = []

    async def scenario() -> None:
        message = expect(server.message_received)
        sent = await asyncio.to_thread(send_to_running, name, "quick-ask")
        assert sent
        received.extend(await message.wait(STEP_S))

    try:
        run(scenario())
    finally:
        server.close()
    assert received == ["quick-ask"]


def test_escape_in_a_quick_ask_started_alone_without_a_tray_quits_the_app(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        backend = ScriptedBackend([])
        desktop = Desktop(
            Paths.resolve(None, data_dir), Settings(close_to_tray=False), HostOptions(backend=backend)
        )
        desktop.tray.available = False  # a desktop without a system tray
        try:
            await desktop.start(quick_ask=True)
            assert desktop.quick_ask.isVisible() and not desktop.window.isVisible()
            QTest.keyClick(desktop.quick_ask, Qt.Key.Key_Escape)
            await asyncio.wait_for(desktop.until_quit(), STEP_S)
        finally:
            await desktop.aclose()

    run(scenario())


def test_escape_in_the_quick_ask_keeps_the_app_while_its_window_is_open(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            desktop.tray.available = False
            desktop.quick_ask.present()
            QTest.keyClick(desktop.quick_ask, Qt.Key.Key_Escape)
            assert not desktop.quick_ask.isVisible() and not desktop._quit.is_set()

    run(scenario())


def test_the_quick_ask_rounds_its_corners_by_its_shape_so_no_compositor_is_needed(
    data_dir: Path, run: Any
) -> None:
    """Transparent corners need a compositor; without one (plain X11 on board images) they were black."""

    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            quick = desktop.quick_ask
            quick.present()
            shape = quick.mask()
            assert not quick.testAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
            assert not shape.contains(QPoint(0, 0)) and not shape.contains(QPoint(quick.width() - 1, 0))
            assert shape.contains(QPoint(quick.width() // 2, quick.height() // 2))
            assert shape.contains(QPoint(quick.width() // 2, 0))  # only the corners are cut

    run(scenario())
