"""The Host's commands for the views of MCP Apps (a mixin of ``Host``, host/host.py; the rules are in
host/app_views.py). A face renders the view; everything the view asks of a server comes through here."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from edgehost.agent.approval import Approver
from edgehost.host.app_views import AppView, ViewContexts, ViewRefused, call_from_view, read_view, view_tool

if TYPE_CHECKING:
    from edgehost.agent.approval import ApprovalPolicy
    from edgehost.agent.tools import ToolSpec
    from edgehost.host import events as ev
    from edgehost.host.history_recorder import HistoryRecorder
    from edgehost.mcp.manager import ServerManager

__all__ = ["ViewCommands"]

log = logging.getLogger("edgehost.views")


class ViewCommands:
    """The views' side of the Host's command surface; ``Host`` inherits it."""

    # The Host's, set in Host.__init__.
    policy: ApprovalPolicy
    _history: HistoryRecorder
    _view_contexts: ViewContexts

    if TYPE_CHECKING:

        def emit(self, event: ev.HostEvent) -> None: ...
        def tools(self) -> list[ToolSpec]: ...
        def _manager(self) -> ServerManager: ...
        def _approver(self) -> Approver: ...

    async def read_view(self, tool: str) -> AppView:
        """The view of ``tool`` (namespaced), read from its server. Raises ToolCallError (ViewRefused
        for a tool without one, or a resource that is not a view's HTML)."""
        view = await read_view(self._manager(), view_tool(self.tools(), tool))
        # Spec, "Audit trail": the CSP a view is given is logged for review.
        log.info("view %s of %s: CSP origins %s", view.uri, view.server, dict(view.csp) or "none declared")
        if view.dropped:
            log.warning(
                "view %s of %s declared malformed origins, not allowed: %s",
                view.uri,
                view.server,
                view.dropped,
            )
        return view

    async def call_from_view(
        self, server: str, name: str, arguments: Mapping[str, Any], conversation_id: int | None = None
    ) -> Any:
        """A view's tools/call (host/app_views.call_from_view): the CallToolResult. Raises ToolCallError
        (ViewRefused for another server's tool or one not offered to views; ToolRefused when denied)."""
        log.info("the view of %s calls %s", server, name)
        return await call_from_view(
            self._manager(),
            self.policy,
            self.tools(),
            self.emit,
            self._approver(),
            server=server,
            name=name,
            arguments=arguments,
            conversation_id=conversation_id,
        )

    async def read_from_view(self, server: str, uri: str) -> Any:
        """A view's resources/read, from its own server only (the ReadResourceResult)."""
        if not uri:
            raise ViewRefused("resources/read needs a uri", server=server)
        return await self._manager().read_resource(uri, server=server)

    def update_view_context(
        self, conversation_id: int, server: str, uri: str, content: Any = None, structured: Any = None
    ) -> None:
        """A view's ui/update-model-context: kept for the conversation's next question, replacing the
        one before (host/app_views.ViewContexts)."""
        self._view_contexts.update(conversation_id, server, uri, content, structured)

    def view_log(self, server: str, level: str, data: Any) -> None:
        """A view's notifications/message, in EdgeHost's log under its server's name."""
        log.log(
            logging.WARNING if level in ("warning", "error", "critical") else logging.INFO,
            "view of %s: %s",
            server,
            data if isinstance(data, str) else repr(data)[:2000],
        )

    def execution_of_call(self, call_id: str) -> int | None:
        """The recorded execution of a call that ended (a card's call id), None when unknown."""
        return self._history.execution_of_call(call_id)
