"""`edgehost --self-test`: the whole app offscreen, one turn on the default model (llama.cpp) with a
pinned built-in tool, every panel and dialog opened; one summary line, exit 0 (1 and the reason
otherwise). CI and the PyInstaller bundle check run it."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from edgehost.awaiting import wait_done
from edgehost.slow_machine import scaled_wait

__all__ = ["SelfTestFailed", "run_self_test", "self_test"]

SERVERS_READY_S = 60.0  # two Python servers on a loaded board
MODEL_LOAD_S = 300.0  # the first load of a model from an SD card is slow
TURN_S = 300.0  # a forced call and a short answer from a 135M model, with margin for a slow board
# (each wait times EDGEHOST_WAIT_SCALE: under an emulator the turn takes ~15 minutes)
ANSWER_TOKENS = 96  # enough to show the answer streams; the check is the call, not the prose
PINNED_TOOL = "board__board_info"
QUESTION = "What board is this?"


class SelfTestFailed(Exception):
    pass


@dataclass
class SelfTestReport:
    model: str
    backend: str
    servers_ready: int
    servers: int
    tool_status: str
    tool_ms: float
    windows: list[str]
    seconds: float
    load_s: float
    turn_s: float
    calls: int

    def line(self) -> str:
        return (
            f"self-test ok: {self.model} on {self.backend}; servers {self.servers_ready}/{self.servers} ready; "
            f"model ready {self.load_s:.1f} s after the servers; turn {self.turn_s:.1f} s with {self.calls} call(s), "
            f"{PINNED_TOOL} {self.tool_status} in {self.tool_ms:.0f} ms; opened {len(self.windows)} windows "
            f"({', '.join(self.windows)}); {self.seconds:.1f} s"
        )


def run_self_test(model: str | None, profile_override: str | None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    def quiet(kind: QtMsgType, _context: object, message: str) -> None:
        # The offscreen platform cannot raise or grab windows; saying so for every dialog is noise.
        if "This plugin does not support" not in message and kind != QtMsgType.QtDebugMsg:
            print(message, file=sys.stderr)

    qInstallMessageHandler(quiet)

    from edgehost.ui.theme import apply_theme

    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    apply_theme(app, "system")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop, tempfile.TemporaryDirectory(prefix="edgehost-self-test-") as folder:
        from edgehost.paths import Paths

        paths = Paths.resolve(None, folder)
        try:
            report = loop.run_until_complete(self_test(paths, model, profile_override))
        except SelfTestFailed as exc:
            print(f"self-test failed: {exc}", file=sys.stderr)
            return 1
    print(report.line())
    return 0


async def self_test(
    paths: Any, model: str | None = None, profile_override: str | None = None
) -> SelfTestReport:
    """Run the self-test; raises SelfTestFailed with the reason."""
    import mcp_types as types

    from edgehost.agent.config import AgentConfig
    from edgehost.host.options import HostOptions
    from edgehost.llm.base import BackendError
    from edgehost.settings import Settings
    from edgehost.ui.app import Desktop

    started = time.monotonic()
    options = HostOptions(
        backend_name="llamacpp", model=model, agent=AgentConfig(max_tokens_per_round=ANSWER_TOKENS)
    )
    desktop = Desktop(paths, Settings(close_to_tray=False), options, profile_override)
    window = desktop.window
    try:
        await desktop.start()
        states, ready = await _servers_ready(desktop)
        load_started = time.monotonic()
        try:
            backend = await desktop.host.wait_model(scaled_wait(MODEL_LOAD_S))
        except (BackendError, asyncio.TimeoutError) as exc:
            raise SelfTestFailed(f"the default model did not load: {exc or 'timed out'}") from None
        if PINNED_TOOL not in {t.name for t in desktop.host.tools()}:
            raise SelfTestFailed(f"the tool {PINNED_TOOL} is not in the catalog")
        load_s = time.monotonic() - load_started
        turn_started = time.monotonic()
        executions, last_call = await _pinned_turn(desktop)
        turn_s = time.monotonic() - turn_started
        opened = await _open_panels(window)
        opened += await _open_dialogs(desktop, types)
        return SelfTestReport(
            model=backend.model_info.name if backend.model_info else "model",
            backend=backend.capabilities.backend,
            servers_ready=len(ready),
            servers=len(states),
            tool_status=last_call.status,
            tool_ms=last_call.duration_ms or 0.0,
            windows=opened,
            seconds=time.monotonic() - started,
            load_s=load_s,
            turn_s=turn_s,
            calls=len(executions),
        )
    finally:
        await desktop.aclose()


async def _servers_ready(desktop: Any) -> tuple[list[Any], list[Any]]:
    """The window is open, the host started and the built-in board server ready: (states, ready ones)."""
    if not desktop.window.isVisible():
        raise SelfTestFailed("the main window did not open")
    if desktop.start_error or not desktop.host.started:
        raise SelfTestFailed(f"the host did not start: {desktop.start_error}")
    states = await desktop.host.wait_servers_ready(scaled_wait(SERVERS_READY_S))
    ready = [s for s in states if getattr(s.status, "value", s.status) == "ready"]
    if not any(s.name == "board" for s in ready):
        board = next((s for s in states if s.name == "board"), None)
        raise SelfTestFailed(f"the built-in board server is not ready: {board.error if board else 'missing'}")
    return states, ready


async def _pinned_turn(desktop: Any) -> tuple[list[Any], Any]:
    """The question asked with PINNED_TOOL pinned, to its end: (the turn's executions, the tool's call)."""
    from edgehost.host.sampling import SAMPLING_TOOL

    window = desktop.window
    window.composer.pin_tool(PINNED_TOOL)

    # A read-only built-in tool should not ask; if the policy asks anyway, the test allows it (the
    # sampling request below is answered in its dialog).
    def allow_tool_calls(event: Any) -> None:
        if event.request.tool != SAMPLING_TOOL:
            _allow(desktop, event.request.id)

    desktop.bridge.approval_requested.connect(allow_tool_calls)
    window.send(QUESTION)
    if window.turn_task is None:
        raise SelfTestFailed("the window did not start a turn")
    try:
        await wait_done(window.turn_task, scaled_wait(TURN_S))
    except asyncio.TimeoutError:
        raise SelfTestFailed(f"the turn took more than {scaled_wait(TURN_S):.0f} s") from None
    executions = desktop.host.history.executions(conversation_id=window.current_id, limit=None)
    calls = [e for e in executions if e.tool == PINNED_TOOL]
    if not calls:
        raise SelfTestFailed(f"the model did not call the pinned tool {PINNED_TOOL}")
    if calls[-1].status != "ok":
        raise SelfTestFailed(f"{PINNED_TOOL} ended {calls[-1].status}: {calls[-1].error}")
    card_states = [c.status for c in window.chat.cards.values()]
    if "ok" not in card_states:
        raise SelfTestFailed(f"no finished tool card in the chat (cards: {card_states})")
    return executions, calls[-1]


async def _open_panels(window: Any) -> list[str]:
    opened = []
    for key in ("servers", "tools", "history", "settings"):
        panel = window.open_panel(key)
        await asyncio.sleep(0)
        if not panel.isVisible():
            raise SelfTestFailed(f"the {key} panel did not open")
        panel.hide()
        opened.append(key)
    return opened


async def _open_dialogs(desktop: Any, types: Any) -> list[str]:
    from edgehost.agent.approval import ApprovalRequest

    window = desktop.window
    opened = []
    request = ApprovalRequest(
        id="self-test",
        conversation_id=None,
        server="files",
        tool="files__write_file",
        arguments={"path": "x.txt", "content": "x"},
        risk="destructive",
        reasons=("self-test",),
        allowed_scopes=("once", "conversation"),
    )
    window.approvals.add_request(request)
    if not window.approvals.isVisible():
        raise SelfTestFailed("the approval window did not open")
    window.approvals.deny()
    opened.append("approval")

    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "default": "edge"}},
        "required": ["name"],
    }
    elicit = asyncio.ensure_future(
        window.server_dialogs.elicit(
            "self-test", types.ElicitRequestFormParams(message="Your name?", requested_schema=schema)
        )
    )
    await asyncio.sleep(0)  # one step: the task builds its dialog and waits for the answer
    if not window.dialogs:
        raise SelfTestFailed("the elicitation dialog did not open")
    window.dialogs[-1].answer("accept")
    answer = await asyncio.wait_for(elicit, 5)
    if answer.action != "accept" or answer.content != {"name": "edge"}:
        raise SelfTestFailed(f"the elicitation form answered {answer}")
    opened.append("elicitation")

    params = types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say hi"))],
        max_tokens=8,
    )
    from edgehost.ui._waiting import expect

    dialog_opened = expect(window.dialog_opened)
    sample = asyncio.ensure_future(desktop.host.sample("self-test", params))
    try:
        await dialog_opened.wait(scaled_wait(MODEL_LOAD_S))  # the model drafts first
    except asyncio.TimeoutError:
        why = f": {sample.result()}" if sample.done() else ""
        raise SelfTestFailed(f"the sampling dialog did not open{why}") from None
    window.dialogs[-1].reject()
    if not isinstance(await asyncio.wait_for(sample, 30), types.ErrorData):
        raise SelfTestFailed("the sampling dialog did not reject")
    opened.append("sampling")

    desktop.quick_ask.present()
    await asyncio.sleep(0)
    if not desktop.quick_ask.isVisible():
        raise SelfTestFailed("the quick-ask window did not open")
    desktop.quick_ask.hide()
    opened.append("quick-ask")

    window.composer_actions.show_palette()
    await asyncio.sleep(0)
    if not window.composer_actions.palette.isVisible():
        raise SelfTestFailed("the / palette did not open")
    window.composer_actions.palette.hide()
    opened.append("palette")
    return opened


def _allow(desktop: Any, request_id: str) -> None:
    """Allow once through the approval panel (the host opens a request before announcing it)."""
    if not any(r.id == request_id for r in desktop.host.approvals.open_requests):
        raise SelfTestFailed(f"the approval {request_id} was announced but is not open")
    desktop.window.approvals.allow("once")
