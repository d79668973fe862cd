"""Quick ask: a small frameless window for one question, answered with tools (approvals still apply).
Esc hides it; "Continue in main window" opens the conversation there. The window grows with the answer
as it arrives, up to ANSWER_MAX_HEIGHT for the answer, which then scrolls."""

from __future__ import annotations

import asyncio
import ctypes
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
from edgehost.ui._screen import fit_to_screen, room
from edgehost.ui._widgets import MarkdownView
from edgehost.ui.bridge import HostBridge
from edgehost.ui.tool_card import split_tool_name

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["QuickAsk", "compositing"]

CORNER_RADIUS = 14  # as the frame's border-radius in ui/theme.py

ANSWER_MAX_HEIGHT = 360  # the answer area's, frame included; a longer answer scrolls
ANSWER_MIN_HEIGHT = 80  # what a short screen leaves it at least: three lines
WIDTH = 620  # or the screen's width, when that is less


def compositing(platform: str | None = None) -> bool:
    """Whether the windows of this display are composited, so a translucent window's corners show
    what is behind it: always on Wayland (and Windows, macOS); on X11 while a compositing manager
    runs (it owns the _NET_WM_CM_S<screen> selection). Not known, or no: False."""
    name = platform if platform is not None else QGuiApplication.platformName()
    if name in ("wayland", "wayland-egl", "windows", "cocoa"):
        return True
    return name == "xcb" and _x11_compositing_manager()


def _x11_compositing_manager() -> bool:
    try:
        x11 = ctypes.CDLL("libX11.so.6")
    except OSError:
        return False
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XDefaultScreen.restype = ctypes.c_int
    x11.XDefaultScreen.argtypes = [ctypes.c_void_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XGetSelectionOwner.restype = ctypes.c_ulong
    x11.XGetSelectionOwner.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    display = x11.XOpenDisplay(None)  # $DISPLAY, as Qt's
    if not display:
        return False
    try:
        atom = x11.XInternAtom(display, f"_NET_WM_CM_S{x11.XDefaultScreen(display)}".encode(), 0)
        return bool(x11.XGetSelectionOwner(display, atom))
    finally:
        x11.XCloseDisplay(display)


class QuickAsk(QWidget):
    continue_requested = Signal(int)  # conversation id
    dismissed = Signal()  # Esc: the user is done with it

    def __init__(self, host: Host, bridge: HostBridge) -> None:
        super().__init__(
            None, Qt.WindowType.FramelessWindowHint | Qt.WindowType.Tool | Qt.WindowType.WindowStaysOnTopHint
        )
        self.setWindowTitle("EdgeHost quick ask")
        # Rounded corners: with a compositor, a transparent window around the frame, whose style sheet
        # paints its rounded outline smoothly; without one, transparent corners are painted black, so
        # the window's shape is cut to the outline instead (a mask, whose edge is jagged).
        self.translucent = compositing()
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground, self.translucent)
        self.host = host
        self.conversation_id: int | None = None
        self.task: asyncio.Task[Any] | None = None
        self.setFixedWidth(WIDTH)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        frame = self.frame = QFrame()
        frame.setObjectName("QuickAsk")
        outer.addWidget(frame)
        layout = self.frame_layout = QVBoxLayout(frame)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.setSpacing(10)
        row = self.input_row = QHBoxLayout()
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
        # A scroll area keeps the size hint of its first, empty content: sized here instead, each time
        # the answer's height changes (a line more or less), not at each streamed piece of it.
        self.answer.document().documentLayout().documentSizeChanged.connect(self._fit_answer)
        layout.addWidget(self.answer_area)
        buttons = self.buttons_row = QHBoxLayout()
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
        # Since a call of the turn was denied, the model's text is held back until the turn ends: what
        # it writes about a call that did not run is often made up, and may be replaced (as in the window).
        self._holding = False

    # -- showing -------------------------------------------------------------------------------
    def toggle(self) -> None:
        if self.isVisible():
            self.hide()
        else:
            self.present()

    def present(self) -> None:
        """Show it a fifth of the way down the screen, or higher when it would not fit there."""
        area = room(self)
        self.setFixedWidth(min(WIDTH, area.width()))
        self._fit_answer()
        self.adjustSize()
        self.move(QPoint(area.center().x() - self.width() // 2, area.top() + area.height() // 5))
        fit_to_screen(self)
        self.show()
        self.raise_()
        self.activateWindow()
        self.input.setFocus()
        self.input.selectAll()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Without a compositor (plain X11 on many board images), rounded corners by the window's shape:
        there, transparent corners are painted black."""
        super().resizeEvent(event)
        if self.translucent:
            return
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
        self._holding = False
        self.answer.set_markdown("")
        self.answer_area.show()
        self.status.setText("Thinking…")
        self.status.show()
        self.continue_button.setEnabled(True)
        self.task = self.host.start_turn(question, self.conversation_id)
        self._fit_answer()
        self.adjustSize()
        return self.task

    def _continue(self) -> None:
        if self.conversation_id is not None:
            self.hide()
            self.continue_requested.emit(self.conversation_id)

    def _fit_answer(self, _size: object = None) -> None:
        """The answer area as tall as the answer, up to ANSWER_MAX_HEIGHT (then it scrolls), and the
        window around it. Only a change of that height resizes the window."""
        frame = 2 * self.answer_area.frameWidth()
        wanted = min(self.answer.sizeHint().height() + frame, self._answer_room())
        if wanted == self.answer_area.minimumHeight() == self.answer_area.maximumHeight():
            return
        self.answer_area.setFixedHeight(wanted)
        if self.isVisible():
            # The frame's layout would hear of the change only at its next event; until then the
            # window's layout keeps the old minimum height, and a shorter answer left the window tall.
            self.frame_layout.activate()
            self.adjustSize()
            fit_to_screen(self)  # grown down past the screen's bottom: moved up

    def _answer_room(self) -> int:
        """ANSWER_MAX_HEIGHT, or what the screen leaves the answer beside the rest of the window."""
        layout = self.frame_layout
        margins = layout.contentsMargins() + self.frame.contentsMargins()  # and the frame's border
        rest = [self.input_row.sizeHint().height(), self.buttons_row.sizeHint().height()]
        if self.status.isVisibleTo(self):
            rest.append(self.status.sizeHint().height())
        used = margins.top() + margins.bottom() + sum(rest) + layout.spacing() * len(rest)
        return max(ANSWER_MIN_HEIGHT, min(ANSWER_MAX_HEIGHT, room(self).height() - used))

    # -- events --------------------------------------------------------------------------------
    def _mine(self, conversation_id: int | None) -> bool:
        return self.conversation_id is not None and conversation_id == self.conversation_id

    def _on_text(self, conversation_id: int, text: str) -> None:
        if self._mine(conversation_id):
            self._text += text
            if self._holding:
                return
            self.answer.set_markdown(self._text)
            self.answer_area.verticalScrollBar().setValue(self.answer_area.verticalScrollBar().maximum())

    def _on_tool_started(self, event: ev.ToolExecutionStarted) -> None:
        if self._mine(event.conversation_id):
            if self._holding:  # the model's words before its next call
                self._holding = False
                self.answer.set_markdown(self._text)
            server, tool = split_tool_name(event.tool, event.server)
            self.status.setText(f"⚙ Running {tool} on {server}…")

    def _on_tool_finished(self, event: ev.ToolExecutionFinished) -> None:
        if self._mine(event.conversation_id):
            _server, tool = split_tool_name(event.tool, event.server)
            if event.status == "denied":
                from edgehost.host.denials import denial_text

                self.status.setText(f"⚙ {tool}: {denial_text(event.decided_by, event.error)}")
                self._holding = True
            else:
                self.status.setText(f"⚙ {tool}: {event.status} ({event.duration_ms:.0f} ms)")

    def _on_turn_completed(self, event: ev.TurnCompleted) -> None:
        if self._mine(event.conversation_id):
            held, self._holding = self._holding, False
            if held or (not event.cancelled and event.text != self._text.strip()):
                # What the user is to read, which the streamed text may not be: an answer that ignored
                # its tool's result is replaced by the result (AnswerUngrounded).
                self._text = event.text
                self.answer.set_markdown(self._text)
            done = "Stopped." if event.cancelled else "Done."
            self.status.setText(
                f"{done} {self.status.text() if self.status.text().startswith('⚙') else ''}".strip()
            )

    def _on_turn_failed(self, event: ev.TurnFailed) -> None:
        if self._mine(event.conversation_id):
            if self._holding:
                self._holding = False
                self.answer.set_markdown(self._text)
            self.status.setText(f"⚠ {event.error}")
