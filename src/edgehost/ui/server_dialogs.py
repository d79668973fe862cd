"""The dialogs a server's requests open over the window: an elicitation form, and a sampling request's
draft for the user to send or reject. Non-modal: the chat goes on while one waits for the user."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    import mcp_types as types

    from edgehost.agent.approval import ApprovalRequest
    from edgehost.ui.elicitation import OwnRequest
    from edgehost.ui.main_window import MainWindow

__all__ = ["ServerDialogs"]


class ServerDialogs:
    """Opens them over ``window``, keeps the open ones in ``window.dialogs`` and announces each with
    ``window.dialog_opened``."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    async def elicit(
        self, server: str, params: types.ElicitRequestParams, *, own: OwnRequest | None = None
    ) -> types.ElicitResult:
        """Ask the user with a non-modal form; the answer comes when they press a button. ``own``: the
        form is one of the user's own requests (elicitation.OwnRequest), not the server's question."""
        from edgehost.ui.elicitation import ElicitationDialog

        dialog = ElicitationDialog(server, params, self.window, own=own)
        future = dialog.result_future
        self._open(dialog)
        try:
            return await future
        finally:
            self._forget(dialog)
            if not future.done():  # cancelled by the server or shutdown: close without answering
                dialog.hide()
                dialog.deleteLater()

    def open_sampling(self, request: ApprovalRequest, resolve: Any) -> None:
        """A server's sampling request, drafted by the Host with our model: the user sends the draft
        (perhaps edited) or rejects it; ``resolve(request_id, decision)`` takes the answer back."""
        from edgehost.ui.sampling import SamplingDialog

        dialog = SamplingDialog(request, resolve, self.window)
        dialog.finished.connect(lambda _code: self._forget(dialog))
        self._open(dialog)

    def _open(self, dialog: QWidget) -> None:
        self.window.dialogs.append(dialog)
        dialog.show()
        dialog.raise_()
        self.window.dialog_opened.emit(dialog)

    def _forget(self, dialog: QWidget) -> None:
        if dialog in self.window.dialogs:
            self.window.dialogs.remove(dialog)
