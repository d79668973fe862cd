"""Quick ask: a small frameless window for one question, answered with tools (approvals still apply).
Esc hides it; "Continue in main window" opens the conversation there."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QPainterPath, QRegion, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from edgehost.host import events as ev
from edgehost.ui._widgets import MarkdownView
from edgehost.ui.bridge import HostBridge
from edgehost.ui.tool_card import split_tool_name

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["QuickAsk"]

CORNER_RADIUS = 14  # as the frame's border-radius in ui/theme.py

ANSWER_MAX_HEIGHT = 360


class QuickAsk(QWidget):
    continue_requested = Signal(int)  # conversation id
    dismissed = Signal()  # Esc: the user is done with it

    def __init__(self, host: Host, bridge: HostBridge) -> None:
        super().__init__(
            None, Qt.WindowType.FramelessWindowHint | Qt.WindowType.Tool | Qt.WindowType.WindowStaysOnTopHint
        )
        self.setWindowTitle("EdgeHost quick ask")
        self.host = host
        self.conversation_id: int | None = None
        self.task: asyncio.Task[Any] | None = None
        self.setFixedWidth(620)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        frame = QFrame()
        frame.setObjectName("QuickAsk")
        outer.addWidget(frame)
        layout = QVBoxLayout(frame)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.setSpacing(10)
        row = QHBoxLayout()
        badge = QLabel("✦")
        badge.setStyleSheet("font-size: 16pt;")
        self.input = QLineEdit()
        self.input.setPlaceholderText("Ask EdgeHost…  (Enter to ask, Esc to hide)")
        self.input.setStyleSheet("font-size: 12pt; padding: 8px; border-radius: 10px;")
        self.input.returnPressed.connect(self.ask)
        row.addWidget(badge)
        row.addWidget(self.input, 1)
        layout.addLayout(row)
        self.status = QLabel()
        self.status.setObjectName("Caption")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.hide()
        layout.addWidget(self.status)
        self.answer = MarkdownView()
        self.answer_area = QScrollArea()
        self.answer_area.setWidgetResizable(True)
        self.answer_area.setWidget(self.answer)
        self.answer_area.setMaximumHeight(ANSWER_MAX_HEIGHT)
        self.answer_area.hide()
        layout.addWidget(self.answer_area)
        buttons = QHBoxLayout()
        self.hint = QLabel("Answers use your MCP tools; dangerous calls still ask first.")
        self.hint.setObjectName("Caption")
        self.continue_button = QPushButton("Continue in main window")
        self.continue_button.setEnabled(False)
        self.continue_button.clicked.connect(self._continue)
        buttons.addWidget(self.hint)
        buttons.addStretch(1)
        buttons.addWidget(self.continue_button)
        layout.addLayout(buttons)
        bridge.text_arrived.connect(self._on_text)
        bridge.tool_started.connect(self._on_tool_started)
        bridge.tool_finished.connect(self._on_tool_finished)
        bridge.turn_completed.connect(self._on_turn_completed)
        bridge.turn_failed.connect(self._on_turn_failed)
        self._text = ""

    # -- showing -------------------------------------------------------------------------------
    def toggle(self) -> None:
        if self.isVisible():
            self.hide()
        else:
            self.present()

    def present(self) -> None:
        screen = QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            self.adjustSize()
            self.move(QPoint(area.center().x() - self.width() // 2, area.top() + area.height() // 5))
        self.show()
        self.raise_()
        self.activateWindow()
        self.input.setFocus()
        self.input.selectAll()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Rounded corners by the window's shape, not by a transparent background: without a
        compositor (plain X11 on many board images) transparent corners are painted black."""
        super().resizeEvent(event)
        outline = QPainterPath()
        outline.addRoundedRect(QRectF(self.rect()), CORNER_RADIUS, CORNER_RADIUS)
        self.setMask(QRegion(outline.toFillPolygon().toPolygon()))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
            self.dismissed.emit()
            return
        super().keyPressEvent(event)

    # -- asking --------------------------------------------------------------------------------
    def ask(self, text: str | None = None) -> asyncio.Task[Any] | None:
        question = (text if text is not None else self.input.text()).strip()
        if not question or (self.task is not None and not self.task.done()) or not self.host.started:
            return None
        self.conversation_id = self.host.new_conversation(question)
        self._text = ""
        self.answer.set_markdown("")
        self.answer_area.show()
        self.status.setText("Thinking…")
        self.status.show()
        self.continue_button.setEnabled(True)
        self.task = self.host.start_turn(question, self.conversation_id)
        self.adjustSize()
        return self.task

    def _continue(self) -> None:
        if self.conversation_id is not None:
            self.hide()
            self.continue_requested.emit(self.conversation_id)

    # -- events --------------------------------------------------------------------------------
    def _mine(self, conversation_id: int | None) -> bool:
        return self.conversation_id is not None and conversation_id == self.conversation_id

    def _on_text(self, conversation_id: int, text: str) -> None:
        if self._mine(conversation_id):
            self._text += text
            self.answer.set_markdown(self._text)
            self.answer_area.verticalScrollBar().setValue(self.answer_area.verticalScrollBar().maximum())
            self.adjustSize()

    def _on_tool_started(self, event: ev.ToolExecutionStarted) -> None:
        if self._mine(event.conversation_id):
            server, tool = split_tool_name(event.tool, event.server)
            self.status.setText(f"⚙ Running {tool} on {server}…")

    def _on_tool_finished(self, event: ev.ToolExecutionFinished) -> None:
        if self._mine(event.conversation_id):
            _server, tool = split_tool_name(event.tool, event.server)
            self.status.setText(f"⚙ {tool}: {event.status} ({event.duration_ms:.0f} ms)")

    def _on_turn_completed(self, event: ev.TurnCompleted) -> None:
        if self._mine(event.conversation_id):
            if not event.cancelled and event.text != self._text.strip():
                # What the user is to read, which the streamed text may not be: an answer that ignored
                # its tool's result is replaced by the result (AnswerUngrounded).
                self._text = event.text
                self.answer.set_markdown(self._text)
                self.adjustSize()
            done = "Stopped." if event.cancelled else "Done."
            self.status.setText(
                f"{done} {self.status.text() if self.status.text().startswith('⚙') else ''}".strip()
            )

    def _on_turn_failed(self, event: ev.TurnFailed) -> None:
        if self._mine(event.conversation_id):
            self.status.setText(f"⚠ {event.error}")
