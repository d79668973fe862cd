"""Execution history: every tool call (time, conversation, server, tool, status, duration, decision),
filters, a details pane, export to JSON / CSV, and a jump to the conversation."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, QStandardPaths, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from edgehost.host.history_view import chosen_by_text, tool_filter
from edgehost.store import Execution
from edgehost.ui._screen import fits_screen
from edgehost.ui._widgets import ColoursKeptWhenSelected, TaskSet, pretty_json
from edgehost.ui.theme import current_colors
from edgehost.ui.tool_card import status_tone

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["HistoryPanel"]

STATUSES = (
    "any status",
    "ok",
    "error",
    "denied",
    "timeout",
    "cancelled",
    "invalid",
    "interrupted",
    "running",
)
COLUMNS = ("Time", "Conversation", "Server", "Tool", "Status", "Duration", "Decision")
PAGE = 500


class HistoryPanel(QDialog):
    open_conversation = Signal(int)

    def __init__(self, host: Host, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.export_dialog: QFileDialog | None = None
        self.host = host
        self.tasks = TaskSet()
        self.setWindowTitle("Tool history — EdgeHost")
        fits_screen(self, QSize(1000, 620))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        self._add_filters(layout)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self._table())
        splitter.addWidget(self._details())
        splitter.setSizes([360, 220])
        layout.addWidget(splitter, 1)
        self.rows: list[Execution] = []
        self.tool_filter.textChanged.connect(self.refresh)
        self.status_filter.currentTextChanged.connect(self.refresh)
        self.conversation_filter.currentIndexChanged.connect(self.refresh)
        self.table.itemSelectionChanged.connect(self._show_details)
        self.jump.clicked.connect(self._jump)
        self.export_json.clicked.connect(lambda: self._export("json"))
        self.export_csv.clicked.connect(lambda: self._export("csv"))
        self.refresh()

    def _add_filters(self, layout: QVBoxLayout) -> None:
        """The title and the exports, then the filters, then a notice row (hidden until needed)."""
        top = QHBoxLayout()
        title = QLabel("Tool executions")
        title.setObjectName("SectionTitle")
        self.export_json = QPushButton("Export JSON…")
        self.export_csv = QPushButton("Export CSV…")
        top.addWidget(title)
        top.addStretch(1)
        top.addWidget(self.export_json)
        top.addWidget(self.export_csv)
        layout.addLayout(top)
        # The filters on a row of their own: beside the title and the exports they did not fit 800 px.
        filters = QHBoxLayout()
        self.tool_filter = QLineEdit()
        self.tool_filter.setPlaceholderText("Tool (glob, e.g. files__*)")
        self.status_filter = QComboBox()
        self.status_filter.addItems(STATUSES)
        self.conversation_filter = QComboBox()
        # As wide as a short title; a long one shows whole in the open list.
        self.conversation_filter.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.conversation_filter.setMinimumContentsLength(20)
        filters.addWidget(self.tool_filter, 1)
        filters.addWidget(self.status_filter)
        filters.addWidget(self.conversation_filter)
        layout.addLayout(filters)
        self.notice = QLabel()
        self.notice.setObjectName("Caption")
        self.notice.hide()
        layout.addWidget(self.notice)

    def _table(self) -> QTableWidget:
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setItemDelegate(ColoursKeptWhenSelected(self.table))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for stretched in (1, 3):  # the conversation's title and the tool share what is left, cut to it
            header.setSectionResizeMode(stretched, QHeaderView.ResizeMode.Stretch)
        return self.table

    def _details(self) -> QWidget:
        """The chosen execution: its title, a way to its conversation, its arguments and result."""
        details = QWidget()
        details_layout = QVBoxLayout(details)
        details_layout.setContentsMargins(0, 8, 0, 0)
        row = QHBoxLayout()
        self.details_title = QLabel()
        self.details_title.setTextFormat(Qt.TextFormat.PlainText)
        self.details_title.setStyleSheet("font-weight: 600;")
        self.jump = QPushButton("Open conversation")
        self.jump.setEnabled(False)
        row.addWidget(self.details_title)
        row.addStretch(1)
        row.addWidget(self.jump)
        details_layout.addLayout(row)
        panes = QHBoxLayout()
        self.arguments = QPlainTextEdit()
        self.result_view = QPlainTextEdit()
        for caption, view in (("Arguments", self.arguments), ("Result", self.result_view)):
            view.setReadOnly(True)
            view.setObjectName("Mono")
            column = QVBoxLayout()
            label = QLabel(caption)
            label.setObjectName("Caption")
            column.addWidget(label)
            column.addWidget(view)
            panes.addLayout(column, 1)
        details_layout.addLayout(panes)
        return details

    def _fill_conversations(self) -> None:
        """The conversation filter's choices, read again: a conversation made (or renamed) since the panel
        was first opened is listed by its title, the one chosen stays chosen."""
        self.conversation_filter.blockSignals(True)
        current = self.conversation_filter.currentData()
        self.conversation_filter.clear()
        self.conversation_filter.addItem("all conversations", None)
        for conversation in self.host.history.conversations() if self.host.started else []:
            self.conversation_filter.addItem(conversation.title[:40], conversation.id)
        index = self.conversation_filter.findData(current)
        self.conversation_filter.setCurrentIndex(max(0, index))
        self.conversation_filter.blockSignals(False)

    def filters(self) -> dict[str, Any]:
        status = self.status_filter.currentText()
        return {
            "conversation_id": self.conversation_filter.currentData(),
            "tool_glob": tool_filter(self.tool_filter.text()),
            "status": None if status == STATUSES[0] else status,
        }

    def refresh(self) -> None:
        self._fill_conversations()
        self.rows = self.host.history.executions(limit=PAGE, **self.filters()) if self.host.started else []
        titles = {
            self.conversation_filter.itemData(i): self.conversation_filter.itemText(i)
            for i in range(1, self.conversation_filter.count())
        }
        colors = current_colors()
        tone_colors = {"ok": colors.ok, "error": colors.error, "warn": colors.warn, "accent": colors.accent}
        self.table.setRowCount(len(self.rows))
        for row, execution in enumerate(self.rows):
            duration = f"{execution.duration_ms:.0f} ms" if execution.duration_ms is not None else "—"
            decision: str = execution.decision or "—"
            if execution.decided_by:
                decision += f" ({execution.decided_by})"
            values = (
                datetime.fromtimestamp(execution.started).strftime("%Y-%m-%d %H:%M:%S"),
                titles.get(execution.conversation_id, str(execution.conversation_id or "—")),
                execution.server,
                execution.tool,
                execution.status,
                duration,
                decision,
            )
            for column, value in enumerate(values):
                item = QTableWidgetItem(value)
                if column == 4:
                    item.setForeground(QColor(tone_colors[status_tone(execution.status)]))
                self.table.setItem(row, column, item)
        if self.rows and not self.table.selectionModel().selectedRows():
            self.table.selectRow(0)
        self._show_details()

    def selected(self) -> Execution | None:
        rows = self.table.selectionModel().selectedRows()
        return self.rows[rows[0].row()] if rows and rows[0].row() < len(self.rows) else None

    def _show_details(self) -> None:
        execution = self.selected()
        self.jump.setEnabled(execution is not None and execution.conversation_id is not None)
        if execution is None:
            self.details_title.clear()
            self.arguments.clear()
            self.result_view.clear()
            return
        self.details_title.setText(
            " · ".join(part for part in (execution.tool, execution.status, chosen_by_text(execution)) if part)
        )
        arguments = pretty_json(execution.arguments)
        if execution.proposed_arguments is not None:
            arguments = (
                f"{arguments}\n\nEdited by you before it ran. The model proposed:\n"
                f"{pretty_json(execution.proposed_arguments)}"
            )
        self.arguments.setPlainText(arguments)
        text = execution.error or ""
        if execution.result:
            text = (text + "\n\n" if text else "") + execution.result
        if execution.result_truncated:
            text += f"\n\n… (cut; {execution.result_size} bytes in all)"
        self.result_view.setPlainText(text)

    def _jump(self) -> None:
        execution = self.selected()
        if execution is not None and execution.conversation_id is not None:
            self.open_conversation.emit(execution.conversation_id)

    def _export(self, fmt: str) -> None:
        dialog = QFileDialog(self, f"Export executions as {fmt.upper()}")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix(fmt)
        dialog.setNameFilters([f"{fmt.upper()} files (*.{fmt})", "All files (*)"])
        dialog.setDirectory(str(export_folder()))
        dialog.selectFile(f"edgehost-executions.{fmt}")
        self.export_dialog = dialog
        dialog.fileSelected.connect(lambda name: self.tasks.spawn(self.export_to(Path(name), fmt)))
        dialog.open()

    async def export_to(self, path: Path, fmt: str) -> int:
        """Write the filtered executions to ``path`` in a thread (the store reads on its own connection)."""
        filters = self.filters()

        def write() -> int:
            with path.open("w", encoding="utf-8", newline="") as handle:
                return self.host.history.export(fmt, handle, **filters)

        count = await asyncio.to_thread(write)
        self.notice.setText(f"Exported {count} executions to {path}")
        self.notice.show()
        return count


def export_folder() -> Path:
    """Where an export is offered: the user's Documents folder, else their home (never the folder
    the app happened to be started from)."""
    documents = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation))
    return documents if str(documents) and documents.is_dir() else Path.home()
