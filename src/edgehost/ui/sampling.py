"""Sampling: a server asks our model to write something. The Host drafts the answer with the model and
asks for approval (host.sampling); this dialog is how the window shows that approval: the request, the
draft to edit, and Send / Reject. Its answer goes back through the Host like any approval."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QWidget

from edgehost.agent.approval import ApprovalDecision, ApprovalRequest
from edgehost.ui._screen import scrolling_layout

__all__ = ["SamplingDialog"]

ResolveFn = Callable[[str, ApprovalDecision], bool]


def _request_text(messages: Any) -> str:
    if not isinstance(messages, list):
        return ""
    return "\n\n".join(
        f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in messages if isinstance(m, Mapping)
    )


class SamplingDialog(QDialog):
    def __init__(self, request: ApprovalRequest, resolve: ResolveFn, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request_id = request.id
        self._arguments = dict(request.arguments)
        self._resolve = resolve
        self.answered = False
        self.setModal(False)
        self.setWindowTitle(f"{request.server} asks our model — EdgeHost")
        # The request and the draft scroll on a short screen; Reject and Send stay in view below them.
        layout, outer = scrolling_layout(self, QSize(560, 480), spacing=8)
        intro = QLabel(
            f"The server “{request.server}” asks the local model to answer this. Check the draft before "
            "it is sent back."
        )
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(intro)
        request_label = QLabel("Request")
        request_label.setObjectName("Caption")
        layout.addWidget(request_label)
        self.request = QPlainTextEdit()
        self.request.setObjectName("Mono")
        self.request.setReadOnly(True)
        self.request.setPlainText(_request_text(self._arguments.get("request")))
        layout.addWidget(self.request, 1)
        draft_label = QLabel("Draft answer (you can edit it)")
        draft_label.setObjectName("Caption")
        layout.addWidget(draft_label)
        self.draft = QPlainTextEdit()
        self.draft.setPlainText(str(self._arguments.get("draft", "")))
        layout.addWidget(self.draft, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.reject_button = QPushButton("Reject")
        self.reject_button.setObjectName("Danger")
        self.approve_button = QPushButton("Send answer")
        self.approve_button.setObjectName("Primary")
        self.reject_button.clicked.connect(self.reject)
        self.approve_button.clicked.connect(self.approve)
        buttons.addWidget(self.reject_button)
        buttons.addWidget(self.approve_button)
        outer.addLayout(buttons)

    def approve(self) -> None:
        self._answer(ApprovalDecision(True, arguments={**self._arguments, "draft": self.draft.toPlainText()}))

    def reject(self) -> None:
        self._answer(ApprovalDecision(False, reason="rejected in the window"))

    def close_unanswered(self) -> None:
        """The request was answered elsewhere or timed out: close without answering."""
        self.answered = True
        self._close()

    def _answer(self, decision: ApprovalDecision) -> None:
        if not self.answered:
            self.answered = True
            self._resolve(self.request_id, decision)
        self._close()

    def _close(self) -> None:
        self.done(QDialog.DialogCode.Rejected)  # emits finished: the window forgets the dialog
        self.deleteLater()
