"""Small widgets shared by the windows: safe markdown text, status chips, links opened on consent,
and the set of background tasks a window owns."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QDesktopServices,
    QFontMetrics,
    QPalette,
    QResizeEvent,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextTable,
)
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTextBrowser,
    QWidget,
)

from edgehost.settings import BACKEND_LABELS

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "RISK_LABELS",
    "BackendChoice",
    "Chip",
    "ColoursKeptWhenSelected",
    "ElidedLabel",
    "MARKDOWN_FEATURES",
    "MarkdownView",
    "Part",
    "TaskSet",
    "ask_to_open_url",
    "fit_parts",
    "pretty_json",
    "set_markdown",
    "with_line_breaks",
]

log = logging.getLogger(__name__)

# How the window names a tool's risk (agent/approval.tool_risk), in the Tools panel and the approval
# dialog alike: "safe" beside "Why you are asked" read as a contradiction.
RISK_LABELS = {"destructive": "⚠ destructive", "caution": "✎ changes things", "safe": "✓ read-only"}


class BackendChoice(QComboBox):
    """The backends by name; ``chosen`` carries the settings id of the one the user picks."""

    chosen = Signal(str)

    def __init__(self, current: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        for backend, name in BACKEND_LABELS.items():
            self.addItem(name, backend)
        self.set_backend(current)
        self.currentIndexChanged.connect(lambda _index: self.chosen.emit(self.backend()))

    def backend(self) -> str:
        return str(self.currentData())

    def set_backend(self, backend: str) -> None:
        """Show ``backend`` without emitting ``chosen`` (the settings already say it)."""
        self.blockSignals(True)
        self.setCurrentIndex(max(self.findData(backend), 0))
        self.blockSignals(False)


# Raw HTML in model or tool text is shown as text, never interpreted (it could fake buttons or links).
MARKDOWN_FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownNoHTML.value
    | QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
)


def set_markdown(document: QTextDocument, text: str) -> None:
    """Render ``text`` as markdown with HTML off, each line break kept (with_line_breaks), then give
    code blocks and tables the theme's look."""
    document.setMarkdown(with_line_breaks(text), MARKDOWN_FEATURES)
    _style_document(document)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# A line that begins a block of its own (a list item, heading, quote, fence, rule, setext underline, a
# table's row): the line before it is not continued by it.
_BLOCK_START = re.compile(
    r"^ {0,3}([-*+] |[-*+]$|\d{1,9}[.)]( |$)|#{1,6}( |$)|>|`{3}|~{3}|[-=_*]{3,}\s*$|[-=]+\s*$)"
)
# A block that is one line (a heading, a fence, a rule, a setext underline): the next line is not in it.
_ONE_LINE_BLOCK = re.compile(r"^ {0,3}(#{1,6}( |$)|`{3}|~{3}|[-=_*]{3,}\s*$|[-=]+\s*$)")
_INDENTED = re.compile(r"^( {4}|\t)")
_QUOTE = re.compile(r"^( {0,3}> ?)+")
LINE_BREAK = "\u2028"  # Qt's line separator: a new line within the paragraph (block) it is in


def with_line_breaks(text: str) -> str:
    """``text`` with each line break inside a paragraph, a list item or a quote kept as a line break, as
    chat apps and the web page (markdown.js) show them: a haiku or an address keeps its lines, where
    markdown joins them into one. (A markdown hard break would not do: Qt makes it a new block, which in
    a list reads as a new item.) Fenced code, tables and where a new block begins are left as they are."""
    lines = text.split("\n")
    out: list[str] = []
    fence = ""  # the fence of the code block the line is in
    for line in lines:
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            out.append(line)
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        previous = out[-1] if out else ""
        continued = _continuation(previous, line) if out and previous.strip() else None
        if continued is None:
            out.append(line)
        else:
            out[-1] = previous.rstrip() + LINE_BREAK + continued
    return "\n".join(out)


def _continuation(previous: str, line: str) -> str | None:
    """What of ``line`` continues the paragraph that ``previous`` ends, or None when it does not."""
    if not line.strip() or "|" in previous or "|" in line or _ONE_LINE_BLOCK.match(previous):
        return None
    if _INDENTED.match(previous) and _INDENTED.match(line):  # indented code
        return None
    quoted_before, quoted = _QUOTE.match(previous), _QUOTE.match(line)
    if quoted is not None:  # a quote's next line: continued only in a quote as deep
        same = quoted_before is not None and quoted_before.group(0).count(">") == quoted.group(0).count(">")
        rest = line[quoted.end() :]
        return rest.strip() if same and rest.strip() and not _BLOCK_START.match(rest) else None
    if previous.endswith(("  ", "\\")) or _BLOCK_START.match(line):
        return None
    return line.strip()


def _style_document(document: QTextDocument) -> None:
    from edgehost.ui.theme import current_colors

    colors = current_colors()
    cursor = QTextCursor(document)
    block = document.begin()
    code = QTextBlockFormat()
    code.setBackground(QColor(colors.code_bg))
    code.setLeftMargin(6)
    code.setRightMargin(6)
    while block.isValid():
        if block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence):
            cursor.setPosition(block.position())
            cursor.mergeBlockFormat(code)
        block = block.next()
    for frame in document.rootFrame().childFrames():
        if isinstance(frame, QTextTable):
            table_format = frame.format()
            table_format.setBorderCollapse(True)
            table_format.setBorder(1)
            table_format.setBorderBrush(QColor(colors.border))
            table_format.setCellPadding(6)
            table_format.setCellSpacing(0)
            frame.setFormat(table_format)


def pretty_json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


class TaskSet:
    """Background tasks a widget starts: kept referenced, failures logged, cancelled together."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str | None = None) -> asyncio.Task[Any]:
        import asyncio  # imported once the loop runs; the window's first paint does not wait for it

        task = asyncio.ensure_future(coro)
        if name:
            task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task %s failed", task.get_name(), exc_info=task.exception())

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()


class ColoursKeptWhenSelected(QStyledItemDelegate):
    """Items of a selected row keep the colour they were given (a server's status light, a tool's risk,
    a call's status): the selected-text colour painted them all in the text colour."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: Any) -> None:
        super().initStyleOption(option, index)
        colour = index.data(Qt.ItemDataRole.ForegroundRole)
        if colour is not None:
            option.palette.setBrush(QPalette.ColorRole.HighlightedText, QBrush(colour))


class Chip(QLabel):
    """A small rounded label whose colour says ok / error / warn / accent."""

    def __init__(self, text: str = "", tone: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setObjectName("Chip")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.set_tone(tone)

    def set_tone(self, tone: str) -> None:
        self.setProperty("tone", tone)
        self.style().unpolish(self)
        self.style().polish(self)


@dataclass(frozen=True)
class Part:
    """A part of a line that may have to fit a narrow space."""

    text: str
    elide: Qt.TextElideMode | None = None  # how it is cut when the line is short of room; None: never
    short: str = ""  # what stands for it, before anything is cut, when the whole line does not fit


def fit_parts(metrics: QFontMetrics, width: int, parts: Sequence[Part]) -> str:
    """The parts as one line of at most ``width`` pixels where it can be: whole; else with the short
    forms of the parts that have one; else with the elidable parts cut as well, the first first and
    down to an ellipsis before the next is cut. The parts that are neither are always kept whole."""
    texts = [part.text for part in parts]
    if metrics.horizontalAdvance("".join(texts)) <= width:
        return "".join(texts)
    texts = [part.short or part.text for part in parts]
    for index, part in enumerate(parts):
        if metrics.horizontalAdvance("".join(texts)) <= width:
            break
        if part.elide is not None:
            others = metrics.horizontalAdvance("".join(texts[:index] + texts[index + 1 :]))
            texts[index] = metrics.elidedText(texts[index], part.elide, max(width - others, 0)) or "…"
    return "".join(texts)


class ElidedLabel(QLabel):
    """One line of plain text that never makes its window wider: it is cut to the label's width
    (fit_parts), the whole line in the tooltip. ``text()`` is what it shows, ``full_text()`` the whole."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._parts: list[Part] = []
        self.setText(text)

    def setText(self, text: str, elide: Qt.TextElideMode = Qt.TextElideMode.ElideRight) -> None:  # type: ignore[override]
        self.show_parts([Part(text, elide)])

    def show_parts(self, parts: Sequence[Part]) -> None:
        self._parts = list(parts)
        self.setToolTip(self.full_text())
        self.updateGeometry()
        self._elide()

    def full_text(self) -> str:
        return "".join(part.text for part in self._parts)

    def _elide(self) -> None:
        super().setText(fit_parts(self.fontMetrics(), self.contentsRect().width(), self._parts))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def sizeHint(self) -> QSize:
        return self._hint(self.full_text())

    def minimumSizeHint(self) -> QSize:
        return self._hint(fit_parts(self.fontMetrics(), 0, self._parts))

    def _hint(self, text: str) -> QSize:
        margins = self.contentsMargins()
        extra = margins.left() + margins.right() + 2 * self.margin()
        return QSize(self.fontMetrics().horizontalAdvance(text) + extra + 1, super().sizeHint().height())


def ask_to_open_url(parent: QWidget | None, url: QUrl) -> QMessageBox:
    """Show the whole address and open it only when the user says so (non-modal)."""
    box = QMessageBox(parent)
    box.setWindowTitle("Open link?")
    box.setIcon(QMessageBox.Icon.Question)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText("Open this address in your browser?\n\n" + url.toString())
    box.setStandardButtons(QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def done(button: int) -> None:
        if button == QMessageBox.StandardButton.Open:
            QDesktopServices.openUrl(url)

    box.finished.connect(done)
    box.open()
    return box


def confirm(parent: QWidget, title: str, text: str, on_yes: Callable[[], None]) -> QMessageBox:
    """Ask a yes/cancel question (non-modal, plain text); ``on_yes`` runs only on Yes."""
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        title,
        text,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
        parent,
    )
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.finished.connect(lambda answer: on_yes() if answer == QMessageBox.StandardButton.Yes else None)
    box.open()
    return box


def centered(widget: QWidget) -> QWidget:
    """``widget`` centred in a holder (a table's cell)."""
    holder = QWidget()
    layout = QHBoxLayout(holder)
    layout.setContentsMargins(6, 0, 6, 0)
    layout.addWidget(widget, 0, Qt.AlignmentFlag.AlignCenter)
    return holder


def cancel_save_row(dialog: QDialog, on_save: Callable[[], None]) -> QHBoxLayout:
    """The Cancel / Save buttons at the bottom of a form dialog (Save is the primary action)."""
    row = QHBoxLayout()
    row.addStretch(1)
    cancel = QPushButton("Cancel")
    save = QPushButton("Save")
    save.setObjectName("Primary")
    cancel.clicked.connect(dialog.reject)
    save.clicked.connect(on_save)
    row.addWidget(cancel)
    row.addWidget(save)
    return row


class MarkdownView(QTextBrowser):
    """Markdown shown safely: no HTML, no image or resource loading, links only on click and consent.

    It grows with its text instead of scrolling, so a chat can stack many of them.
    """

    link_clicked = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        self.viewport().setAutoFillBackground(False)
        self.setStyleSheet("QTextBrowser { background: transparent; border: none; padding: 0; }")
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(lambda _size: self._fit())
        self.anchorClicked.connect(self._on_anchor)
        self._markdown = ""

    def set_markdown(self, text: str) -> None:
        self._markdown = text
        set_markdown(self.document(), text)
        self._fit()

    def markdown(self) -> str:
        return self._markdown

    def loadResource(self, type: int, name: QUrl | str) -> Any:  # noqa: A002 - Qt's signature
        return None  # images and style sheets named by a model or a tool are never fetched

    def _on_anchor(self, url: QUrl) -> None:
        self.link_clicked.emit(url)
        ask_to_open_url(self.window(), url)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        self.document().setTextWidth(self.viewport().width())
        height = int(self.document().size().height()) + 4
        if height != self.height():
            self.setFixedHeight(height)

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), int(self.document().size().height()) + 4)
