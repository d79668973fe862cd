"""'Open the view' on a tool card whose tool has a view of its own (MCP Apps): the window has no browser
engine, so the card's call opens in the system browser on the chat page served beside the window
(cli/page_beside.py), which renders the view in its sandbox (web/static/views.js)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

if TYPE_CHECKING:
    from edgehost.ui.main_window import MainWindow
    from edgehost.ui.tool_card import ToolCard

__all__ = ["offer_view"]

HISTORY_PREFIX = "history-"  # the call id of a card shown from the history: "history-<execution id>"


def offer_view(window: MainWindow, card: ToolCard, tool: str, chosen_by: str | None) -> None:
    """Show "Open the view" on ``card`` when ``tool`` (namespaced) has a view; not for a call the view
    made itself (its card is under the view already)."""
    if chosen_by == "view" or not any(t.name == tool and t.view_uri for t in window.host.tools()):
        return
    card.offer_view(lambda: window.tasks.spawn(open_view(window, card.call_id), name="open-view"))


async def open_view(window: MainWindow, call_id: str) -> None:
    """Open the chat page at the call's view (``#view=<execution>``) in the system browser."""
    if call_id.startswith(HISTORY_PREFIX):
        execution: int | None = int(call_id[len(HISTORY_PREFIX) :])
    else:  # the history's writer has it, or will in a moment
        execution = await asyncio.to_thread(window.host.execution_of_call, call_id)
    page: Any = window.page
    if execution is None or page is None:
        why = "the call is not in the history" if execution is None else "the chat page is not served"
        window.chat.add_notice(f"⚠ The view cannot be opened: {why}.", error=True)
        return
    try:
        url = await page.link(f"view={execution}")
    except OSError as exc:
        window.chat.add_notice(f"⚠ The view cannot be opened: {exc}", error=True)
        return
    QDesktopServices.openUrl(QUrl(url))
