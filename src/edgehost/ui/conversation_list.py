"""The sidebar's conversations: a search box over the history and the list, with rename and delete."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QInputDialog,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from edgehost.errors import EdgeHostError
from edgehost.ui._widgets import confirm

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["ConversationList"]

LIST_LIMIT = 200
SEARCH_DELAY_MS = 200  # wait for a pause in typing before searching the history


class ConversationList(QWidget):
    """Lists the host's conversations (at most LIST_LIMIT, filtered by the search box).

    It asks the host for rows, renames and deletes; the window learns what happened by signals.
    """

    opened = Signal(int)  # the user clicked a conversation
    renamed = Signal(int, str)  # conversation id, its new title
    deleted = Signal(int)
    failed = Signal(str)  # a host command was refused (deleting a conversation whose turn runs)

    def __init__(self, host: Callable[[], Host | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._host = host
        self.current_id: int | None = None  # the conversation shown in the window, kept selected
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search conversations")
        self.search.setClearButtonEnabled(True)
        layout.addWidget(self.search)
        self.items = QListWidget()
        self.items.setObjectName("ConversationList")
        self.items.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.items.setMinimumHeight(40)  # two rows: the window's least height fits a 7-inch screen
        self.items.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.items.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.items.customContextMenuRequested.connect(self._menu)
        self.items.itemClicked.connect(
            lambda item: self.opened.emit(int(item.data(Qt.ItemDataRole.UserRole)))
        )
        layout.addWidget(self.items, 1)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        # A change of the history (a question sent, a title set) is shown on the loop's next turn, once
        # for all the changes of this one: the window's Send does not also read the list (issue 35).
        self._changed_timer = QTimer(self)
        self._changed_timer.setSingleShot(True)
        self._changed_timer.setInterval(0)
        self._changed_timer.timeout.connect(self.refresh)

    def refresh_soon(self) -> None:
        """``refresh`` on the event loop's next turn, once however often it is asked before then."""
        self._changed_timer.start()

    def titles(self) -> list[str]:
        return [self.items.item(i).text() for i in range(self.items.count())]

    def refresh(self) -> None:
        host = self._host()
        if host is None or not host.started:
            return
        rows = host.history.conversations(self.search.text(), limit=LIST_LIMIT)
        self.items.blockSignals(True)
        self.items.clear()
        for conversation in rows:
            item = QListWidgetItem(conversation.title)
            item.setData(Qt.ItemDataRole.UserRole, conversation.id)
            item.setToolTip(conversation.title)
            self.items.addItem(item)
            if conversation.id == self.current_id:
                item.setSelected(True)
                self.items.setCurrentItem(item)
        self.items.blockSignals(False)

    def select(self, conversation_id: int | None) -> None:
        """Mark ``conversation_id`` as the one shown (None: a new conversation, nothing selected)."""
        self.current_id = conversation_id
        if conversation_id is None:
            self.items.clearSelection()
        else:
            self.refresh()

    def _menu(self, at: QPoint) -> None:
        item = self.items.itemAt(at)
        if item is None:
            return
        conversation_id = int(item.data(Qt.ItemDataRole.UserRole))
        menu = QMenu(self)
        menu.addAction("Rename…", lambda: self.ask_rename(conversation_id, item.text()))
        menu.addAction("Delete", lambda: self.ask_delete(conversation_id, item.text()))
        menu.popup(self.items.viewport().mapToGlobal(at))

    def ask_rename(self, conversation_id: int, title: str) -> None:
        dialog = QInputDialog(self)
        dialog.setWindowTitle("Rename conversation")
        dialog.setLabelText("Title")
        dialog.setTextValue(title)
        dialog.textValueSelected.connect(lambda text: self.rename(conversation_id, text))
        dialog.open()

    def rename(self, conversation_id: int, title: str) -> None:
        host = self._host()
        if host is not None and title.strip():
            host.rename_conversation(conversation_id, title)
            self.refresh()  # what the user did shows at once
            self.renamed.emit(conversation_id, title.strip())

    def ask_delete(self, conversation_id: int, title: str) -> None:
        confirm(
            self,
            "Delete conversation",
            f"Delete “{title}” and its tool history?",
            lambda: self.delete(conversation_id),
        )

    def delete(self, conversation_id: int) -> None:
        host = self._host()
        if host is None:
            return
        try:
            host.delete_conversation(conversation_id)
        except EdgeHostError as exc:  # a turn is running in it
            self.failed.emit(str(exc))
            return
        self.refresh()
        self.deleted.emit(conversation_id)
