"""The approval window: non-modal, one request at a time with the others queued, a countdown to deny."""

from __future__ import annotations

import json
from collections.abc import Callable
from time import monotonic
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from edgehost.agent.approval import ApprovalDecision, ApprovalRequest
from edgehost.ui._screen import scrolling_layout
from edgehost.ui._widgets import RISK_LABELS, Chip, pretty_json
from edgehost.ui.tool_card import split_tool_name

__all__ = ["ApprovalWindow", "ResolveFnT"]

ResolveFnT = Callable[[str, ApprovalDecision], bool]
_RISK_TONES = {"destructive": "error", "caution": "warn", "safe": "ok"}


class ApprovalWindow(QDialog):
    """Shows pending approvals in order; each answer goes to ``resolve(request_id, decision)``."""

    def __init__(self, resolve: ResolveFnT, timeout_s: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Approve tool call — EdgeHost")
        self.setModal(False)
        self._resolve = resolve
        self._timeout_s = timeout_s
        self.queue: list[tuple[ApprovalRequest, float]] = []  # (request, deadline)
        self._arguments_valid = True

        # What is asked scrolls on a short screen; the countdown and the answers stay in view below it.
        layout, outer = scrolling_layout(self, QSize(560, 0))
        layout.addWidget(self._header())
        self._add_arguments(layout)
        self._add_answers(outer)
        self._timer = QTimer(self)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self._tick)

    def _header(self) -> QFrame:
        """The tool, its server, what it does and why the user is asked."""
        self.header = QFrame()
        self.header.setObjectName("ApprovalHeader")
        head = QVBoxLayout(self.header)
        head.setContentsMargins(14, 12, 14, 12)
        top = QHBoxLayout()
        self.title = QLabel()
        self.title.setObjectName("SectionTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.risk = Chip()
        top.addWidget(self.title)
        top.addStretch(1)
        top.addWidget(self.risk)
        head.addLayout(top)
        self.server = QLabel()
        self.server.setObjectName("Muted")
        self.server.setTextFormat(Qt.TextFormat.PlainText)
        self.server.setWordWrap(True)
        head.addWidget(self.server)
        self.description = QLabel()
        self.description.setTextFormat(Qt.TextFormat.PlainText)
        self.description.setWordWrap(True)
        head.addWidget(self.description)
        self.reasons = QLabel()
        self.reasons.setTextFormat(Qt.TextFormat.PlainText)
        self.reasons.setWordWrap(True)
        head.addWidget(self.reasons)
        return self.header

    def _add_arguments(self, layout: QVBoxLayout) -> None:
        """The call's arguments, editable, with their error and the reason for denying below."""
        caption = QLabel("Arguments (you can edit them before allowing)")
        caption.setObjectName("Caption")
        layout.addWidget(caption)
        self.arguments = QPlainTextEdit()
        self.arguments.setObjectName("Mono")
        self.arguments.setMinimumHeight(100)
        self.arguments.textChanged.connect(self._check_arguments)
        layout.addWidget(self.arguments)
        self.arguments_error = QLabel()
        self.arguments_error.setObjectName("ErrorText")
        self.arguments_error.hide()
        layout.addWidget(self.arguments_error)

        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Reason for denying (optional, the model sees it)")
        layout.addWidget(self.reason)

    def _add_answers(self, outer: QVBoxLayout) -> None:
        """The countdown and the queue, then the answers: below the scrolling part, always in view."""
        buttons = QHBoxLayout()
        self.countdown = QLabel()
        self.countdown.setObjectName("Caption")
        self.queue_label = QLabel()
        self.queue_label.setObjectName("Caption")
        self.deny_button = QPushButton("Deny")
        self.deny_button.setObjectName("Danger")
        self.always_button = QPushButton("Always")
        self.conversation_button = QPushButton("Allow for this conversation")
        self.once_button = QPushButton("Allow once")
        self.once_button.setObjectName("Primary")
        self.deny_button.clicked.connect(self.deny)
        self.always_button.clicked.connect(lambda: self.allow("always"))
        self.conversation_button.clicked.connect(lambda: self.allow("conversation"))
        self.once_button.clicked.connect(lambda: self.allow("once"))
        info = QHBoxLayout()  # above the answers, which then fit a narrow screen
        info.addWidget(self.countdown)
        info.addStretch(1)
        info.addWidget(self.queue_label)
        outer.addLayout(info)
        buttons.addStretch(1)
        for button in (self.deny_button, self.always_button, self.conversation_button, self.once_button):
            buttons.addWidget(button)
        outer.addLayout(buttons)

    def set_timeout(self, seconds: float) -> None:
        """The countdown for requests that arrive from now on without their own (``timeout_s``)."""
        self._timeout_s = seconds

    # -- queue ---------------------------------------------------------------------------------
    def add_request(self, request: ApprovalRequest) -> None:
        """Queue ``request``; its countdown is the wait the host gives it (``timeout_s``: the setting
        when it was asked, changed in this window or on the web page), else the window's timeout."""
        waits = request.timeout_s if request.timeout_s is not None else self._timeout_s
        self.queue.append((request, monotonic() + waits))
        if len(self.queue) == 1:
            self._show_current()
        self._update_queue_label()
        self.show()
        self.raise_()
        self.activateWindow()
        if not self._timer.isActive():
            self._timer.start()

    def drop_request(self, request_id: str) -> None:
        """The request was answered elsewhere (timeout, cancel, shutdown): forget it."""
        before = self.current()
        self.queue = [(r, d) for r, d in self.queue if r.id != request_id]
        if before is not None and before.id == request_id:
            self._advance()
        else:
            self._update_queue_label()

    def current(self) -> ApprovalRequest | None:
        return self.queue[0][0] if self.queue else None

    # -- answers -------------------------------------------------------------------------------
    def allow(self, scope: str) -> None:
        request = self.current()
        if request is None or not self._arguments_valid:
            return
        edited = self._edited_arguments(request)
        self._answer(ApprovalDecision(allow=True, scope=scope, arguments=edited))  # type: ignore[arg-type]

    def deny(self) -> None:
        if self.current() is None:
            return
        # No reason typed: none (every face then says "you denied it", host/denials.py).
        self._answer(ApprovalDecision(allow=False, reason=self.reason.text().strip() or None))

    def _answer(self, decision: ApprovalDecision) -> None:
        request = self.current()
        if request is None:
            return
        self._resolve(request.id, decision)
        self.queue.pop(0)
        self._advance()

    def _advance(self) -> None:
        if self.queue:
            self._show_current()
            self._update_queue_label()
        else:
            self._timer.stop()
            self.hide()

    def _edited_arguments(self, request: ApprovalRequest) -> dict[str, Any] | None:
        value = json.loads(self.arguments.toPlainText() or "{}")
        return value if value != dict(request.arguments) else None

    # -- display -------------------------------------------------------------------------------
    def _show_current(self) -> None:
        request = self.current()
        if request is None:
            return
        server, tool = split_tool_name(request.tool, request.server)
        self.title.setText(f"Run {tool}?")
        asked = f"  ·  asked from {request.asked_from}" if request.asked_from else ""
        self.server.setText(f"Tool of the server “{server}”  ·  {request.tool}{asked}")
        self.description.setText(request.description)
        self.description.setVisible(bool(request.description))
        self.risk.setText(RISK_LABELS.get(request.risk, request.risk))
        self.risk.set_tone(_RISK_TONES.get(request.risk, "warn"))
        self.header.setProperty("risk", request.risk)
        self.header.style().unpolish(self.header)
        self.header.style().polish(self.header)
        why = "; ".join(request.reasons) if request.reasons else "the policy asks before this tool runs"
        self.reasons.setText(f"Why you are asked: {why}")
        self.arguments.setPlainText(pretty_json(dict(request.arguments)))
        self.reason.clear()
        self.conversation_button.setVisible("conversation" in request.allowed_scopes)
        self.always_button.setVisible("always" in request.allowed_scopes)
        self.once_button.setFocus()
        self._tick()

    def _update_queue_label(self) -> None:
        waiting = len(self.queue) - 1
        self.queue_label.setText(f"{waiting} more waiting" if waiting > 0 else "")

    def _check_arguments(self) -> None:
        try:
            value = json.loads(self.arguments.toPlainText() or "{}")
            self._arguments_valid = isinstance(value, dict)
            problem = "" if self._arguments_valid else "The arguments must be a JSON object."
        except json.JSONDecodeError as exc:
            self._arguments_valid = False
            problem = f"Not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        self.arguments_error.setText(problem)
        self.arguments_error.setVisible(bool(problem))
        for button in (self.once_button, self.conversation_button, self.always_button):
            button.setEnabled(self._arguments_valid)

    def _tick(self) -> None:
        if not self.queue:
            return
        left = max(0, int(self.queue[0][1] - monotonic()))
        self.countdown.setText(f"Denied automatically in {left // 60}:{left % 60:02d}")

    def reject(self) -> None:
        """Esc or closing the window denies what is waiting, as the countdown would."""
        while self.queue:
            self._answer(ApprovalDecision(allow=False, reason="the approval window was closed"))
        super().reject()
