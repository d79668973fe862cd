"""The page's side of MCP Apps' views, on the Host's view commands (host/view_commands.py): a tool's view
to render (GET /api/views), and what a rendered view asks of its server, as the page's bridge
(web/static/views.js) forwards it over the socket: ``tools/call``, ``resources/read``,
``ui/update-model-context`` and ``notifications/message``."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from edgehost.host.app_views import ViewRefused
from edgehost.mcp.errors import ToolCallError
from edgehost.web.view_sandbox import SANDBOX_PATH
from edgehost.web.wire import CommandError

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["VIEW_COMMANDS", "run_view_command", "view_listing"]

VIEW_COMMANDS = frozenset({"view_call", "view_read", "view_context", "view_log"})

log = logging.getLogger(__name__)


async def view_listing(host: Host, request: Request, sandbox_port: int) -> Response:
    """GET /api/views?tool=NAME: the tool's view (its HTML, declared origins, permissions, border) and
    where its sandbox is (``sandbox``: a path of the port ``sandbox_port``, with its CSP's origins)."""
    name = request.query_params.get("tool", "")
    try:
        view = await host.read_view(name)
    except ToolCallError as exc:
        # No usable view (none, or not a view's HTML): 404; the server failed to answer: 502.
        return JSONResponse({"error": str(exc)}, status_code=404 if isinstance(exc, ViewRefused) else 502)
    declared = json.dumps({k: list(v) for k, v in view.csp.items()}, separators=(",", ":"))
    return JSONResponse(
        {**view.as_dict(), "sandbox": f"{SANDBOX_PATH}?csp={quote(declared)}", "sandbox_port": sandbox_port}
    )


async def run_view_command(host: Host, name: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """Run one of VIEW_COMMANDS; what the reply adds. Raises CommandError saying why it cannot run."""
    server = fields["server"]
    try:
        if name == "view_call":
            arguments = fields.get("arguments") or {}
            if not isinstance(arguments, dict):
                raise CommandError("tools/call: 'arguments' must be an object")
            result = await host.call_from_view(server, fields["name"], arguments, _conversation(fields))
            return {"result": result.model_dump(mode="json", by_alias=True, exclude_none=True)}
        if name == "view_read":
            read = await host.read_from_view(server, fields["uri"])
            return {"result": read.model_dump(mode="json", by_alias=True, exclude_none=True)}
    except ToolCallError as exc:
        raise CommandError(str(exc)) from None
    except (CommandError, KeyError):
        raise
    except Exception as exc:  # a fault of ours: the view gets an answer, the log the whole story
        log.exception("the view of %s: %s failed", server, name)
        raise CommandError(f"EdgeHost failed on the view's request: {exc}") from None
    if name == "view_context":
        conversation = _conversation(fields)
        if conversation is None:
            raise CommandError("view_context: the view is not in a conversation")
        host.update_view_context(
            conversation, server, fields["uri"], fields.get("content"), fields.get("structuredContent")
        )
    elif name == "view_log":
        host.view_log(server, str(fields.get("level") or "info"), fields.get("data"))
    return {}


def _conversation(fields: Mapping[str, Any]) -> int | None:
    value = fields.get("conversation_id")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise CommandError("'conversation_id' must be a number or null")
    return value
