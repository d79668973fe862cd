"""Elicitation: a server asks the user for information (a form), or to visit an address (URL mode).

The dialog is non-modal and resolves an asyncio future, so the server's request simply awaits it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import mcp_types as types
from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QWidget

from edgehost.ui._screen import scrolling_layout
from edgehost.ui.schema_form import SchemaForm

__all__ = ["ElicitationDialog", "OwnRequest"]


@dataclass(frozen=True)
class OwnRequest:
    """A form the user opened themself (a prompt's arguments, a resource template's values), not a
    server's question: it has nothing to decline."""

    title: str  # of the window
    heading: str  # above the message
    accept: str  # the button that sends
    problem: str = ""  # why the form is asked again (the values sent before were refused), shown at once


class ElicitationDialog(QDialog):
    """A server's question; also the form of a request of the user's own (``own``)."""

    def __init__(
        self,
        server: str,
        params: types.ElicitRequestParams,
        parent: QWidget | None = None,
        *,
        own: OwnRequest | None = None,
    ) -> None:
        super().__init__(parent)
        self.setModal(False)
        self.setWindowTitle(f"{own.title if own else server + ' asks'} — EdgeHost")
        self.result_future: asyncio.Future[types.ElicitResult] = asyncio.get_event_loop().create_future()
        self.url: str | None = params.url if isinstance(params, types.ElicitRequestURLParams) else None
        # A long form scrolls on a short screen; its buttons stay in view below it.
        layout, outer = scrolling_layout(self, QSize(480, 0), spacing=12)
        who = QLabel(own.heading if own else f"The server “{server}” asks:")
        who.setObjectName("Muted")
        who.setTextFormat(Qt.TextFormat.PlainText)
        message = QLabel(params.message)
        message.setTextFormat(Qt.TextFormat.PlainText)
        message.setWordWrap(True)
        message.setStyleSheet("font-size: 11pt;")
        layout.addWidget(who)
        layout.addWidget(message)
        self.form: SchemaForm | None = None
        if self.url is not None:
            address = QLabel(f"It wants to open this address:\n{self.url}")
            address.setTextFormat(Qt.TextFormat.PlainText)
            address.setWordWrap(True)
            address.setObjectName("Mono")
            layout.addWidget(address)
        else:
            assert isinstance(params, types.ElicitRequestFormParams)
            self.form = SchemaForm(params.requested_schema)
            layout.addWidget(self.form)
            note = QLabel("* required")
            note.setObjectName("Caption")
            layout.addWidget(note)
        self.problem = QLabel(own.problem if own else "")
        self.problem.setObjectName("ErrorText")
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        self.problem.setVisible(bool(own and own.problem))
        layout.addStretch(1)
        outer.addWidget(self.problem)  # in view, with the button that was refused
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.decline_button = QPushButton("Decline")
        self.decline_button.setVisible(own is None)
        self.accept_button = QPushButton("Open address" if self.url else own.accept if own else "Send")
        self.accept_button.setObjectName("Primary")
        self.cancel_button.clicked.connect(lambda: self.answer("cancel"))
        self.decline_button.clicked.connect(lambda: self.answer("decline"))
        self.accept_button.clicked.connect(lambda: self.answer("accept"))
        for button in (self.cancel_button, self.decline_button, self.accept_button):
            buttons.addWidget(button)
        outer.addLayout(buttons)

    def answer(self, action: str) -> None:
        if self.result_future.done():
            return
        if action == "accept" and self.form is not None:
            missing = self.form.missing()
            problems = self.form.problems()
            if missing or problems:
                lines = (["Please fill in: " + ", ".join(missing)] if missing else []) + problems
                self.problem.setText("\n".join(lines))
                self.problem.show()
                return
            self.result_future.set_result(types.ElicitResult(action="accept", content=self.form.values()))
        elif action == "accept":
            QDesktopServices.openUrl(QUrl(self.url or ""))
            self.result_future.set_result(types.ElicitResult(action="accept"))
        else:
            self.result_future.set_result(types.ElicitResult(action=action))  # type: ignore[arg-type]
        self.hide()
        self.deleteLater()

    def reject(self) -> None:
        self.answer("cancel")
