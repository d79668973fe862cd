"""The conversation as a column of user bubbles, assistant answers (safe markdown) and tool cards."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from edgehost.ui._widgets import MarkdownView

if TYPE_CHECKING:
    from edgehost.host.attachments import AttachedResource
    from edgehost.ui.tool_card import ToolCard

__all__ = ["AssistantBlock", "ChatView"]

COLUMN_MAX_WIDTH = 860
BUBBLE_MAX_WIDTH = int(COLUMN_MAX_WIDTH * 0.8)
STICK_TO_BOTTOM_PX = 48  # within this of the end the view follows new text; further up, the user is reading


class UserBubble(QFrame):
    """The user's question, under a compact mention of each resource attached to it (its name and
    size; the URI and the start of its text in a tooltip), never the attached text itself."""

    def __init__(
        self, text: str, attachments: Sequence[AttachedResource] = (), parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("UserBubble")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        self.attachment_chips: list[QLabel] = []
        for attached in attachments:
            chip = QLabel(f"▤ {attached.label}")
            chip.setObjectName("AttachmentChip")
            chip.setTextFormat(Qt.TextFormat.PlainText)
            chip.setToolTip(attached.preview)
            chip.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
            layout.addWidget(chip)
            self.attachment_chips.append(chip)
        layout.addWidget(_Question(text))
        self.text = text


class _Question(QLabel):
    """The user's own text (never markup), wrapped. A wrapped label asks for little width: this one asks
    for the width of its longest line, up to the bubble's cap, and is narrower only where the chat is
    (a minimum width would make the chat wider than a 7-inch screen)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.ensurePolished()  # the style sheet's font decides the width
        longest = max(self.fontMetrics().horizontalAdvance(line) for line in text.splitlines() or [""])
        self._width = min(longest + 4, BUBBLE_MAX_WIDTH - 28)

    def sizeHint(self) -> QSize:
        return QSize(self._width, self.heightForWidth(self._width))


class AssistantBlock(QFrame):
    copy_requested = Signal(str)
    regenerate_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AssistantBlock")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.setSpacing(2)
        self.view = MarkdownView()
        layout.addWidget(self.view)
        self.action_row = QWidget()
        row = QHBoxLayout(self.action_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy")
        self.copy_button.clicked.connect(self._copy)
        self.regenerate_button = QToolButton()
        self.regenerate_button.setText("↻ Regenerate")
        self.regenerate_button.clicked.connect(self.regenerate_requested.emit)
        self.perf = QLabel()
        self.perf.setObjectName("Caption")
        row.addWidget(self.copy_button)
        row.addWidget(self.regenerate_button)
        row.addStretch(1)
        row.addWidget(self.perf)
        self.action_row.hide()
        layout.addWidget(self.action_row)
        self._text = ""

    @property
    def text(self) -> str:
        return self._text

    def append(self, text: str) -> None:
        self._text += text
        self.view.set_markdown(self._text)

    def set_text(self, text: str) -> None:
        self._text = text
        self.view.set_markdown(text)

    def show_actions(self, perf_text: str = "", can_regenerate: bool = True) -> None:
        self.perf.setText(perf_text)
        self.regenerate_button.setVisible(can_regenerate)
        self.action_row.show()

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self._text)
        self.copy_requested.emit(self._text)


class ChatView(QScrollArea):
    """Widgets stacked in a centred column; follows the end while the user is at the end."""

    regenerate_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer = QWidget()
        outer_layout = QHBoxLayout(outer)
        outer_layout.setContentsMargins(24, 16, 24, 16)
        self.column = QWidget()
        self.column.setMaximumWidth(COLUMN_MAX_WIDTH)
        self.column.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.items = QVBoxLayout(self.column)
        self.items.setContentsMargins(0, 0, 0, 0)
        self.items.setSpacing(14)
        self.items.addStretch(1)
        outer_layout.addStretch(0)
        outer_layout.addWidget(self.column, 1)
        outer_layout.addStretch(0)
        self.setWidget(outer)
        self.cards: dict[str, ToolCard] = {}
        self.current: AssistantBlock | None = None
        self.last_answer: AssistantBlock | None = None
        self.placeholder: QLabel | None = None
        self.thinking: QLabel | None = None  # "Thinking…" until the model's first word or call
        self._follow = True
        self.verticalScrollBar().rangeChanged.connect(self._on_range_changed)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    # -- building ------------------------------------------------------------------------------
    def clear(self) -> None:
        while self.items.count() > 1:
            item = self.items.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.cards.clear()
        self.current = None
        self.last_answer = None
        self.placeholder = None
        self.thinking = None
        self._follow = True

    def _add(self, widget: QWidget, alignment: Qt.AlignmentFlag | None = None) -> None:
        if self.placeholder is not None:
            self.placeholder.deleteLater()
            self.items.removeWidget(self.placeholder)
            self.placeholder = None
        self.stop_thinking()
        index = self.items.count() - 1
        if alignment is None:
            self.items.insertWidget(index, widget)
        else:
            self.items.insertWidget(index, widget, 0, alignment)

    def show_placeholder(self, text: str) -> None:
        self.clear()
        label = QLabel(text)
        label.setObjectName("Muted")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setWordWrap(True)
        label.setStyleSheet("font-size: 12pt; padding-top: 80px;")
        self._add(label)
        self.placeholder = label

    def show_thinking(self, text: str = "Thinking…") -> None:
        """A quiet line below the question while the model reads the prompt; it gives way to the
        answer, a tool card or a notice, and goes when the turn ends."""
        label = _muted(text)
        self._add(label)
        self.thinking = label

    def set_thinking(self, text: str) -> None:
        """What the quiet line says, while it is shown."""
        if self.thinking is not None:
            self.thinking.setText(text)

    def stop_thinking(self) -> None:
        if self.thinking is not None:
            self.items.removeWidget(self.thinking)
            self.thinking.deleteLater()
            self.thinking = None

    def add_user(self, text: str, attachments: Sequence[AttachedResource] = ()) -> UserBubble:
        self.end_answer(None)  # a block still open is closed; the last answer keeps its stats
        if self.last_answer is not None:
            self.last_answer.regenerate_button.hide()  # Regenerate answers the last question only
        self.last_answer = None  # this turn's answer is not written yet: its stats go on no older one
        bubble = UserBubble(text, attachments)
        bubble.setMaximumWidth(BUBBLE_MAX_WIDTH)
        self._add(bubble, Qt.AlignmentFlag.AlignRight)
        self._follow = True
        return bubble

    def append_text(self, text: str) -> AssistantBlock:
        if self.current is None:
            self.current = AssistantBlock()
            self.current.regenerate_requested.connect(self.regenerate_requested.emit)
            self._add(self.current)
        self.current.append(text)
        return self.current

    def replace_answer(self, text: str) -> AssistantBlock:
        """Show ``text`` in place of the answer being streamed (a new block when none is open)."""
        if self.current is None:
            return self.append_text(text)
        self.current.set_text(text)
        return self.current

    def tool_card(self, call_id: str, name: str, arguments: Any, server: str = "") -> ToolCard:
        """The card of ``call_id``, created (after the text so far) the first time."""
        card = self.cards.get(call_id)
        if card is None:
            # Loaded with the core (ui/app.py), not before the window is shown.
            from edgehost.ui.tool_card import ToolCard

            self.current = None  # text after the call goes below the card
            card = ToolCard(call_id, name, arguments, server)
            self.cards[call_id] = card
            self._add(card)
        return card

    def end_answer(self, perf_text: str | None = "", can_regenerate: bool = True) -> None:
        """Close the block being streamed; its copy/regenerate row appears (not with ``perf_text``
        None: the row stays as it is)."""
        self.stop_thinking()
        if self.current is not None:
            self.last_answer = self.current
            self.current = None
        if self.last_answer is not None and perf_text is not None:
            self.last_answer.show_actions(perf_text, can_regenerate)

    def add_notice(self, text: str, error: bool = False) -> QLabel:
        self.current = None
        label = QLabel(text)
        label.setObjectName("ErrorText" if error else "Muted")
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        self._add(label)
        return label

    # -- following the end ---------------------------------------------------------------------
    def _on_scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._follow = bar.maximum() - value <= STICK_TO_BOTTOM_PX

    def _on_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(maximum)

    def scroll_to_end(self) -> None:
        self._follow = True
        QTimer.singleShot(0, lambda: self.verticalScrollBar().setValue(self.verticalScrollBar().maximum()))


def _muted(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("Muted")
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
