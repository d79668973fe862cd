"""The one adapter from Host events to Qt signals.

Host events arrive on the GUI thread (qasync runs the asyncio loop there). Text deltas are
coalesced per conversation and delivered at display rate by a timer that runs only while text is
pending; any other event first flushes the pending text, so the order of what the user sees is the
order the host emitted it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from edgehost.host import events as ev

__all__ = ["DISPLAY_INTERVAL_MS", "HostBridge"]

DISPLAY_INTERVAL_MS = 33  # ~30 paints a second: smooth to the eye, cheap for a board's CPU


class HostBridge(QObject):
    text_arrived = Signal(int, str)  # conversation id, coalesced text
    turn_started = Signal(object)  # TurnStarted
    turn_routed = Signal(object)  # TurnRouted
    tool_call_detected = Signal(object)  # ToolCallDetected
    tool_started = Signal(object)  # ToolExecutionStarted
    tool_progressed = Signal(object)  # ToolExecutionProgressed
    tool_finished = Signal(object)  # ToolExecutionFinished
    message_appended = Signal(object)  # MessageAppended
    approval_requested = Signal(object)  # ApprovalRequested
    approval_resolved = Signal(object)  # ApprovalResolved
    turn_completed = Signal(object)  # TurnCompleted
    answer_ungrounded = Signal(object)  # AnswerUngrounded
    answer_with_results = Signal(object)  # AnswerWithResults
    turn_failed = Signal(object)  # TurnFailed
    model_status_changed = Signal(object)  # ModelStatusChanged
    server_status_changed = Signal(object)  # ServerStatusChanged
    server_output_changed = Signal(object)  # ServerOutputChanged
    model_download_progressed = Signal(object)  # ModelDownloadProgressed
    model_download_finished = Signal(object)  # ModelDownloadFinished
    catalog_changed = Signal()
    conversations_changed = Signal()

    def __init__(self, parent: QObject | None = None, interval_ms: int = DISPLAY_INTERVAL_MS) -> None:
        super().__init__(parent)
        self._pending: dict[int, list[str]] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.flush)
        self._unsubscribe: Callable[[], None] | None = None
        self._routes: dict[type, Callable[[Any], None]] = {
            ev.TurnStarted: self.turn_started.emit,
            ev.TurnRouted: self.turn_routed.emit,
            ev.ToolCallDetected: self.tool_call_detected.emit,
            ev.ToolExecutionStarted: self.tool_started.emit,
            ev.ToolExecutionProgressed: self.tool_progressed.emit,
            ev.ToolExecutionFinished: self.tool_finished.emit,
            ev.MessageAppended: self.message_appended.emit,
            ev.ApprovalRequested: self.approval_requested.emit,
            ev.ApprovalResolved: self.approval_resolved.emit,
            ev.TurnCompleted: self.turn_completed.emit,
            ev.AnswerUngrounded: self.answer_ungrounded.emit,
            ev.AnswerWithResults: self.answer_with_results.emit,
            ev.TurnFailed: self.turn_failed.emit,
            ev.ModelStatusChanged: self.model_status_changed.emit,
            ev.ServerStatusChanged: self.server_status_changed.emit,
            ev.ServerOutputChanged: self.server_output_changed.emit,
            ev.ModelDownloadProgressed: self.model_download_progressed.emit,
            ev.ModelDownloadFinished: self.model_download_finished.emit,
            ev.CatalogChanged: lambda _e: self.catalog_changed.emit(),
            ev.ConversationsChanged: lambda _e: self.conversations_changed.emit(),
        }

    def attach(self, subscribe: Callable[[Callable[[Any], None]], Callable[[], None]]) -> None:
        """Subscribe to a host (``host.subscribe``); ``detach`` undoes it."""
        self.detach()
        self._unsubscribe = subscribe(self.on_event)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.flush()

    def on_event(self, event: Any) -> None:
        if isinstance(event, ev.TextDelta):
            if event.text:
                self._pending.setdefault(event.conversation_id, []).append(event.text)
                if not self._timer.isActive():
                    self._timer.start()
            return
        route = self._routes.get(type(event))
        if route is None:
            return
        self.flush()
        route(event)

    def flush(self) -> None:
        """Deliver the text gathered so far now (one signal per conversation)."""
        self._timer.stop()
        pending, self._pending = self._pending, {}
        for conversation_id, parts in pending.items():
            self.text_arrived.emit(conversation_id, "".join(parts))
