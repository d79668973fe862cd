"""Sampling: a server asks our model to write something. The user sees the request and the model's
draft, and approves, edits or rejects it; nothing goes back to the server without that."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import mcp_types as types
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from edgehost.host.sampling import draft_answer, sampling_messages
from edgehost.llm.base import Backend

__all__ = ["DraftFnT", "SamplingDialog", "draft_with_backend"]

DraftFnT = Callable[[types.CreateMessageRequestParams], Awaitable[str]]


def draft_with_backend(backend: Callable[[], Awaitable[Backend]]) -> DraftFnT:
    """A draft function on our model (the host's drafting); raises BackendError when it cannot load."""

    async def draft(params: types.CreateMessageRequestParams) -> str:
        text, _stop_reason = await draft_answer(await backend(), params)
        return text

    return draft


class SamplingDialog(QDialog):
    def __init__(
        self,
        server: str,
        params: types.CreateMessageRequestParams,
        draft: DraftFnT,
        model_name: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setModal(False)
        self.setMinimumSize(560, 480)
        self.setWindowTitle(f"{server} asks our model — EdgeHost")
        self.model_name = model_name or "edgehost"
        loop = asyncio.get_event_loop()
        self.result_future: asyncio.Future[types.CreateMessageResult | types.ErrorData] = loop.create_future()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 18, 18, 18)
        layout.setSpacing(8)
        intro = QLabel(
            f"The server “{server}” asks the local model to answer this. Check the draft before "
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
        self.request.setPlainText("\n\n".join(f"[{m.role}]\n{m.content}" for m in sampling_messages(params)))
        layout.addWidget(self.request, 1)
        draft_label = QLabel("Draft answer (you can edit it)")
        draft_label.setObjectName("Caption")
        layout.addWidget(draft_label)
        self.draft = QPlainTextEdit()
        self.draft.setPlaceholderText("The model is writing a draft…")
        layout.addWidget(self.draft, 1)
        self.status = QLabel()
        self.status.setObjectName("Caption")
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.reject_button = QPushButton("Reject")
        self.reject_button.setObjectName("Danger")
        self.approve_button = QPushButton("Send answer")
        self.approve_button.setObjectName("Primary")
        self.approve_button.setEnabled(False)
        self.reject_button.clicked.connect(self.reject)
        self.approve_button.clicked.connect(self.approve)
        buttons.addWidget(self.reject_button)
        buttons.addWidget(self.approve_button)
        layout.addLayout(buttons)
        self._draft_task = asyncio.ensure_future(self._write_draft(draft, params))

    async def _write_draft(self, draft: DraftFnT, params: types.CreateMessageRequestParams) -> None:
        try:
            text = await draft(params)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the user can still write the answer by hand
            self.status.setText(f"The model could not write a draft: {exc}")
            text = ""
        if not self.draft.toPlainText():
            self.draft.setPlainText(text)
        self.approve_button.setEnabled(True)

    def approve(self) -> None:
        if self.result_future.done():
            return
        self._draft_task.cancel()
        self.result_future.set_result(
            types.CreateMessageResult(
                role="assistant",
                content=types.TextContent(type="text", text=self.draft.toPlainText()),
                model=self.model_name,
                stop_reason="endTurn",
            )
        )
        self.hide()
        self.deleteLater()

    def reject(self) -> None:
        if not self.result_future.done():
            self._draft_task.cancel()
            self.result_future.set_result(
                types.ErrorData(code=-1, message="The user rejected the sampling request")
            )
        self.hide()
        self.deleteLater()
