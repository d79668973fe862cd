"""The input box: Enter sends, Shift+Enter breaks the line, "/" opens the palette of prompts and tools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from edgehost.agent.tools import summary
from edgehost.ui._screen import fits_screen, room

if TYPE_CHECKING:
    from edgehost.host.attachments import AttachedResource

__all__ = ["Composer", "Palette", "PaletteItem"]

MAX_INPUT_LINES = 8
PALETTE_SIZE = QSize(480, 340)  # the palette's where the screen has room for it
# The input's hint, the longest first: the first that fits the input's width is shown (a 7-inch screen
# has room for the second), never a clipped one.
PLACEHOLDERS = (
    "Ask anything…  (Enter sends, Shift+Enter new line, / for prompts and tools)",
    "Ask anything…  (/ for prompts and tools)",
    "Ask anything…",
)
# A pause this long in typing hands the draft to the host, which embeds it for tool ranking ahead of the
# turn (~10 ms on a desktop, 20-40 on a board, in the ranking process). Shorter than the pause before
# Enter, longer than the gap between a typist's keys, so a question costs a few embeddings, not one a key.
DRAFT_PAUSE_MS = 120


@dataclass(frozen=True)
class PaletteItem:
    kind: str  # "prompt" | "tool" | "resource"
    name: str  # namespaced prompt or tool name, or a resource URI
    title: str
    detail: str = ""


class Palette(QFrame):
    """A filterable popup list; ``chosen`` carries the PaletteItem picked with Enter or a click."""

    chosen = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("Palette")
        fits_screen(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Type to filter prompts and tools…")
        self.list = QListWidget()
        self.list.setMinimumHeight(120)  # three items; it has more height where the screen has it
        # Long descriptions wrap instead of hiding behind a horizontal scroll bar.
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideNone)
        layout.addWidget(self.filter)
        layout.addWidget(self.list)
        self.filter.textChanged.connect(self._apply_filter)
        self.filter.installEventFilter(self)
        self.list.itemActivated.connect(self._activate)
        self.list.itemClicked.connect(self._activate)
        self._items: list[PaletteItem] = []

    def set_items(
        self,
        items: list[PaletteItem],
        empty: str = "Nothing to show: no connected server offers prompts or tools yet.",
        hint: str = "Type to filter prompts and tools…",
    ) -> None:
        """Show ``items``; ``empty`` says why there are none, ``hint`` what the filter filters."""
        self._items = items
        self.filter.setPlaceholderText(hint)
        self.list.clear()
        labels = {"prompt": "Prompt", "tool": "Pin tool", "resource": "Attach", "template": "Attach"}
        for entry in items:
            text = f"{labels.get(entry.kind, entry.kind)}  ·  {entry.title}"
            if entry.detail:
                text += f"\n      {summary(entry.detail, 200)}"
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, entry)
            item.setToolTip(entry.detail)
            self.list.addItem(item)
        if not items:
            placeholder = QListWidgetItem(empty)
            placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(placeholder)
        self._apply_filter(self.filter.text())

    def popup(self, above: QPoint, text: str = "") -> None:
        """Show it with its bottom left corner at ``above``, PALETTE_SIZE or as much of it as the screen
        has room for there (then lower, over what is below, but never off the screen)."""
        self.filter.setText(text)
        area = room(self)
        height = min(PALETTE_SIZE.height(), above.y() - area.top())
        size = QSize(PALETTE_SIZE.width(), max(height, self.minimumSizeHint().height()))
        self.resize(size.boundedTo(area.size()))
        self.move(above.x(), above.y() - self.height())
        self.show()
        self.filter.setFocus()

    def _apply_filter(self, text: str) -> None:
        words = text.lower().split()
        first = None
        for row in range(self.list.count()):
            item = self.list.item(row)
            hidden = any(w not in item.text().lower() for w in words)
            item.setHidden(hidden)
            if not hidden and first is None and item.flags() & Qt.ItemFlag.ItemIsEnabled:
                first = item
        if first is not None:
            self.list.setCurrentItem(first)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.filter and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                step = 1 if event.key() == Qt.Key.Key_Down else -1
                row = self.list.currentRow()
                while 0 <= row + step < self.list.count():
                    row += step
                    if not self.list.item(row).isHidden():
                        self.list.setCurrentRow(row)
                        break
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                item = self.list.currentItem()
                if item is not None and not item.isHidden():
                    self._activate(item)
                return True
        return super().eventFilter(watched, event)

    def _activate(self, item: QListWidgetItem) -> None:
        entry = item.data(Qt.ItemDataRole.UserRole)
        if isinstance(entry, PaletteItem):
            self.hide()
            self.chosen.emit(entry)


class _InputEdit(QPlainTextEdit):
    submitted = Signal()
    slash_typed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setPlaceholderText(PLACEHOLDERS[-1])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # The placeholder is drawn from the document's margin, in the viewport.
        room = self.viewport().width() - 2 * int(self.document().documentMargin())
        metrics = self.fontMetrics()
        fitting = (text for text in PLACEHOLDERS if metrics.horizontalAdvance(text) <= room)
        self.setPlaceholderText(next(fitting, PLACEHOLDERS[-1]))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            return
        if event.text() == "/" and not self.toPlainText().strip():
            self.slash_typed.emit()
            return
        super().keyPressEvent(event)


class Composer(QFrame):
    """Multi-line input with attach, a pinned-tool chip, attachment chips and a Send/Stop button."""

    send_requested = Signal(str)
    # The text as typed, once typing pauses for DRAFT_PAUSE_MS: the host embeds it ahead (Host.anticipate).
    draft_changed = Signal(str)
    stop_requested = Signal()
    palette_requested = Signal()
    attach_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        self.pinned_tool: str | None = None
        self.attachments: list[AttachedResource] = []  # sent with the next question
        self._busy = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 8, 10, 8)
        outer.setSpacing(6)
        self.chips = QHBoxLayout()
        self.chips.setSpacing(6)
        self.chips.addStretch(1)
        self.chip_row = QWidget()
        self.chip_row.setLayout(self.chips)
        self.chip_row.hide()
        outer.addWidget(self.chip_row)

        self.edit = _InputEdit()
        self.edit.setTabChangesFocus(True)
        self.edit.textChanged.connect(self._fit)
        self._draft_timer = QTimer(self)
        self._draft_timer.setSingleShot(True)
        self._draft_timer.setInterval(DRAFT_PAUSE_MS)
        self._draft_timer.timeout.connect(self._draft_paused)
        self.edit.textChanged.connect(self._draft_timer.start)
        self.edit.submitted.connect(self._submit)
        self.edit.slash_typed.connect(self.palette_requested.emit)
        row = QHBoxLayout()
        row.setSpacing(6)
        self.slash_button = QToolButton()
        self.slash_button.setText("/")
        self.slash_button.setToolTip("Prompts and tools to pin (/)")
        self.slash_button.clicked.connect(self.palette_requested.emit)
        self.attach_button = QToolButton()
        self.attach_button.setText("+")
        self.attach_button.setToolTip("Attach a resource from a server")
        self.attach_button.clicked.connect(self.attach_requested.emit)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("Primary")
        self.send_button.setMinimumWidth(76)
        self.send_button.clicked.connect(self._send_or_stop)
        row.addWidget(self.slash_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.attach_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.edit, 1)
        row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        outer.addLayout(row)
        self._fit()

    # -- state ---------------------------------------------------------------------------------
    def set_busy(self, busy: bool) -> None:
        """While a turn runs the button stops it; typing the next question stays possible."""
        self._busy = busy
        self.send_button.setText("Stop" if busy else "Send")
        self.send_button.setObjectName("Danger" if busy else "Primary")
        self.send_button.style().unpolish(self.send_button)
        self.send_button.style().polish(self.send_button)

    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)
        cursor = self.edit.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self.edit.setTextCursor(cursor)

    def pin_tool(self, name: str | None) -> None:
        self.pinned_tool = name
        self._rebuild_chips()

    def add_attachment(self, attached: AttachedResource) -> None:
        self.attachments.append(attached)
        self._rebuild_chips()

    def clear_after_send(self) -> None:
        self.edit.clear()
        self.pinned_tool = None
        self.attachments = []
        self._rebuild_chips()

    # -- internals -----------------------------------------------------------------------------
    def _send_or_stop(self) -> None:
        if self._busy:
            self.stop_requested.emit()
        else:
            self._submit()

    def _submit(self) -> None:
        if self._busy:
            return
        text = self.edit.toPlainText().strip()
        if text:
            self.send_requested.emit(text)

    def _draft_paused(self) -> None:
        text = self.edit.toPlainText().strip()
        if text:
            self.draft_changed.emit(text)

    def _fit(self) -> None:
        metrics = self.edit.fontMetrics()
        count = self.edit.document().lineCount()
        lines = max(1, min(MAX_INPUT_LINES, count))
        self.edit.setFixedHeight(lines * metrics.lineSpacing() + 14)
        # A scroll bar only once the text outgrows the box (a handle in an empty box is noise).
        self.edit.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAsNeeded
            if count > MAX_INPUT_LINES
            else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )

    def _rebuild_chips(self) -> None:
        while self.chips.count() > 1:
            item = self.chips.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        index = 0
        if self.pinned_tool:
            self.chips.insertWidget(index, self._chip(f"⚑ {self.pinned_tool}", lambda: self.pin_tool(None)))
            index += 1
        for position, attached in enumerate(self.attachments):
            chip = self._chip(f"▤ {attached.name}", lambda p=position: self._drop(p))
            chip.setToolTip(attached.preview)
            self.chips.insertWidget(index, chip)
            index += 1
        self.chip_row.setVisible(index > 0)

    def _drop(self, position: int) -> None:
        del self.attachments[position]
        self._rebuild_chips()

    def _chip(self, text: str, on_remove: object) -> QFrame:
        chip = QFrame()
        chip.setObjectName("AttachmentChip")
        layout = QHBoxLayout(chip)
        layout.setContentsMargins(8, 2, 2, 2)
        label = QLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)
        remove = QToolButton()
        remove.setText("✕")
        remove.setToolTip("Remove")
        remove.clicked.connect(on_remove)  # type: ignore[call-overload]
        layout.addWidget(label)
        layout.addWidget(remove)
        return chip
