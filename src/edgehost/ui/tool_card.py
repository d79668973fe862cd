"""A tool call shown inline in the chat: server, tool, arguments, status, duration, progress, result."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from edgehost.agent.tools import NAMESPACE_SEPARATOR
from edgehost.ui._widgets import Chip

__all__ = ["ToolCard", "status_tone"]

_TONES = {
    "ok": "ok",
    "running": "accent",
    "detected": "accent",
    "awaiting approval": "warn",
    "denied": "warn",
    "cancelled": "warn",
    "interrupted": "warn",
    # A call run as an MCP Task, while the server works on it.
    "task working": "accent",
    "task input required": "warn",
    "task completed": "accent",  # the result is on its way (tasks/result)
    "task cancelled": "warn",
}
ARGUMENTS_PREVIEW_CHARS = 160
CHOSEN_BY = {
    "host": "· chosen by EdgeHost",
    "model": "· chosen by the model",
    "user": "· pinned by you",
    "view": "· called by the server's view",
}


def status_tone(status: str) -> str:
    return _TONES.get(status, "error")


def split_tool_name(name: str, server: str = "") -> tuple[str, str]:
    if server and name.startswith(server + NAMESPACE_SEPARATOR):
        return server, name[len(server) + len(NAMESPACE_SEPARATOR) :]
    if NAMESPACE_SEPARATOR in name:
        head, _, tail = name.partition(NAMESPACE_SEPARATOR)
        return head, tail
    return server, name


def filled_by_host_text(names: Sequence[str], arguments: Mapping[str, Any]) -> str:
    """'Filled in by EdgeHost, not typed by you: repo_path = /home/me/project' (the folder the server
    serves, the file the question names by its words, or a text a server keeps)."""
    if not names:
        return ""
    values = "; ".join(f"{name} = {_shown(arguments.get(name))}" for name in names)
    return f"Filled in by EdgeHost, not typed by you: {values}"


def _shown(value: Any) -> str:
    """A value as the user reads it: a text as it is, a list or object as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _compact(arguments: Any) -> str:
    if not arguments:
        return "no arguments"
    text = json.dumps(arguments, ensure_ascii=False, default=str)
    return text if len(text) <= ARGUMENTS_PREVIEW_CHARS else text[: ARGUMENTS_PREVIEW_CHARS - 1] + "…"


RESULT_MAX_HEIGHT = 220  # longer results scroll inside the card
RESULT_GUESSED_WIDTH = 600  # px, for a result measured before its box is shown


def _label(style: str, *, wrap: bool = False, hidden: bool = False) -> QLabel:
    """A plain-text label of the card, with the theme's ``style`` (object name)."""
    label = QLabel()
    if style:
        label.setObjectName(style)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    if hidden:  # never show() here: a label without a parent yet would open as a window
        label.hide()
    return label


class ToolCard(QFrame):
    def __init__(
        self, call_id: str, name: str, arguments: Any, server: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ToolCard")
        self.call_id = call_id
        self.status = "detected"
        self.result_text = ""
        server, tool = split_tool_name(name, server)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(4)
        layout.addLayout(self._header())
        self._add_call_lines(layout)
        self._add_result_box(layout)
        self.set_call(server, tool, arguments)
        self.set_status("detected")

    def _header(self) -> QHBoxLayout:
        """Icon, tool, server, who chose the call, then duration and status at the right."""
        header = QHBoxLayout()
        header.setSpacing(8)
        self.title = _label("")
        self.title.setStyleSheet("font-weight: 600;")
        self.server_label = _label("Caption")
        self.chosen_label = _label("Caption", hidden=True)  # who chose this call (decision 11), quiet
        self.duration = QLabel()
        self.duration.setObjectName("Caption")
        self.status_chip = Chip()
        icon = QLabel("⚙")
        icon.setObjectName("Muted")
        for widget in (icon, self.title, self.server_label, self.chosen_label):
            header.addWidget(widget)
        header.addStretch(1)
        header.addWidget(self.duration)
        header.addWidget(self.status_chip)
        return header

    def _add_call_lines(self, layout: QVBoxLayout) -> None:
        """The arguments, those EdgeHost filled in, the progress and the error."""
        self.arguments = _label("Mono", wrap=True)
        self.arguments.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.filled_label = _label("Caption", wrap=True, hidden=True)  # filled in by EdgeHost
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.progress_message = _label("Caption", hidden=True)
        self.error = _label("ErrorText", wrap=True, hidden=True)
        for widget in (self.arguments, self.filled_label, self.progress, self.progress_message, self.error):
            layout.addWidget(widget)

    def _add_result_box(self, layout: QVBoxLayout) -> None:
        """The result, behind a "Show result" toggle."""
        self.toggle = QToolButton()
        self.toggle.setText("▸ Show result")
        self.toggle.setCheckable(True)
        self.toggle.toggled.connect(self._toggle_result)
        self.toggle.hide()
        # MCP Apps: the tool's own view, opened on the chat page in the browser (ui/view_links.py).
        self.view_button = QToolButton()
        self.view_button.setText("Open the view ↗")
        self.view_button.setToolTip("The server's own view of this call, in your browser")
        self.view_button.hide()
        row = QHBoxLayout()
        row.addWidget(self.toggle)
        row.addWidget(self.view_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.result = QPlainTextEdit()
        self.result.setObjectName("Mono")
        self.result.setReadOnly(True)
        self.result.setMaximumHeight(RESULT_MAX_HEIGHT)
        self.result.hide()
        layout.addWidget(self.result)

    # -- updates from events -------------------------------------------------------------------
    def set_call(self, server: str, tool: str, arguments: Any) -> None:
        self.title.setText(tool)
        self.server_label.setText(f"on {server}" if server else "")
        self.arguments.setText(_compact(arguments))

    def set_chosen_by(self, chosen_by: str) -> None:
        """Label who chose the call: the host's routing, the model, or the user's pin."""
        text = CHOSEN_BY.get(chosen_by, "")
        self.chosen_label.setText(text)
        self.chosen_label.setVisible(bool(text))

    def set_filled_by_host(self, names: Sequence[str], arguments: Mapping[str, Any]) -> None:
        """Say which arguments EdgeHost filled in from what it knows of the server (the repository a
        git server serves), so the user sees that the model did not choose them."""
        self.filled_label.setText(filled_by_host_text(names, arguments))
        self.filled_label.setVisible(bool(names))

    def set_status(self, status: str) -> None:
        self.status = status
        self.status_chip.setText(status)
        self.status_chip.set_tone(status_tone(status))
        self.setProperty("status", status)
        self.style().unpolish(self)
        self.style().polish(self)

    def set_progress(self, done: float, total: float | None, message: str | None) -> None:
        self.progress.show()
        if total and total > 0:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(min(done / total, 1.0) * 1000))
        else:
            self.progress.setRange(0, 0)  # busy indicator: the server did not say how much is left
        if message:
            self.progress_message.setText(message)
            self.progress_message.show()

    def set_task(self, task_id: str, status: str, message: str | None) -> None:
        """A call run as an MCP Task: its state on the server (working, input_required, …)."""
        self.set_status(f"task {status.replace('_', ' ')}")
        self.status_chip.setToolTip(f"MCP task {task_id}")
        self.set_progress(0.0, None, message)

    def finish(self, status: str, result_text: str, duration_ms: float | None, error: str | None) -> None:
        self.set_status(status)
        self.progress.hide()
        self.progress_message.hide()
        if duration_ms is not None:
            self.duration.setText(
                f"{duration_ms / 1000:.2f} s" if duration_ms >= 1000 else f"{duration_ms:.0f} ms"
            )
        if error:
            self.error.setText(error)
            self.error.show()
        self.result_text = result_text or ""
        if self.result_text:
            self.result.setPlainText(self.result_text)
            self._fit_result()
            self.toggle.show()

    def offer_view(self, on_open: Callable[[], Any]) -> None:
        """Show "Open the view" (once), calling ``on_open`` when pressed."""
        if self.view_button.isHidden():
            self.view_button.clicked.connect(on_open)
            self.view_button.show()

    def _toggle_result(self, shown: bool) -> None:
        self.result.setVisible(shown)
        self.toggle.setText("▾ Hide result" if shown else "▸ Show result")
        if shown:
            self._fit_result()  # its width is known now

    def _fit_result(self) -> None:
        """As high as the result's lines, wrapped at the box's width, up to RESULT_MAX_HEIGHT: a
        one-line result sat in a 190 px box."""
        metrics = self.result.fontMetrics()
        width = self.result.viewport().width() if self.result.isVisible() else RESULT_GUESSED_WIDTH
        per_line = max(20, width // max(metrics.horizontalAdvance("0"), 1))
        rows = sum(max(1, -(-len(line) // per_line)) for line in self.result_text.splitlines() or [""])
        chrome = 2 * (self.result.frameWidth() + round(self.result.document().documentMargin())) + 10
        self.result.setFixedHeight(min(RESULT_MAX_HEIGHT, rows * metrics.lineSpacing() + chrome))
