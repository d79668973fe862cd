"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension, SEP-1865): a server's own view of a tool.

A tool's ``_meta.ui.resourceUri`` names a ``ui://`` resource of MIME type ``text/html;profile=mcp-app``
(mcp/catalog.py reads it). The faces render the view (the web page, in a sandbox on a second origin);
what the view asks for comes here, and only here:

- ``read_view``: the view's HTML and what its resource declares (``_meta.ui``: the domains its CSP may
  allow, the permissions it would like, whether it wants a border);
- ``ViewCalls.call``: a ``tools/call`` from the view, to a tool of the view's own server only, and only
  to one whose visibility includes "app"; it goes through the approval and the history as a model's
  call does (host/direct_calls.py);
- ``ViewContexts``: the latest ``ui/update-model-context`` of each conversation, given to the model
  with the next question (as an attachment: the user sees what the model was given).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

from edgehost.agent.approval import ApprovalPolicy, Approver
from edgehost.agent.tools import ToolSpec
from edgehost.host.attachments import attachment_text
from edgehost.host.direct_calls import call_outside_conversation
from edgehost.mcp.catalog import APP_MIME_TYPE
from edgehost.mcp.errors import ToolCallError
from edgehost.mcp.manager import ServerManager

__all__ = [
    "AppView",
    "ViewContexts",
    "ViewRefused",
    "declared_csp",
    "call_from_view",
    "read_view",
    "view_tool",
]

CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
PERMISSIONS = ("camera", "microphone", "geolocation", "clipboardWrite")
VIEW_MAX_CHARS = 2_000_000  # a view is a page of HTML; more is a server gone wrong
CONTEXT_MAX_CHARS = 8_000  # what a view may put before the model: a small model's context is short
# An origin a view may declare for its CSP: scheme, host (a leading "*." for subdomains), optional port.
# Anything else (a space, a quote, a ";") could add a directive of its own to the header: dropped.
_SOURCE = re.compile(r"(https?|wss?)://(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:(\d{1,5}|\*))?")


class ViewRefused(ToolCallError):
    """What a view asked for is not allowed (another server's tool, one not meant for views)."""


@dataclass(frozen=True)
class AppView:
    """A tool's view as its server serves it."""

    server: str
    uri: str
    html: str
    csp: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # only the keys of CSP_KEYS
    permissions: tuple[str, ...] = ()  # of PERMISSIONS
    prefers_border: bool | None = None
    dropped: tuple[str, ...] = ()  # declared origins refused as malformed (logged by the face)

    def as_dict(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "uri": self.uri,
            "html": self.html,
            "csp": {k: list(v) for k, v in self.csp.items()},
            "permissions": list(self.permissions),
            "prefersBorder": self.prefers_border,
        }


def view_tool(tools: Sequence[ToolSpec], name: str) -> ToolSpec:
    """The tool (namespaced ``name``) whose view is asked for. Raises ViewRefused when it has none."""
    tool = next((t for t in tools if t.name == name), None)
    if tool is None or not tool.view_uri:
        raise ViewRefused(f"{name} has no view", server=tool.server if tool else "")
    return tool


async def read_view(manager: ServerManager, tool: ToolSpec) -> AppView:
    """``tool``'s view, read from its own server (resources/read). Raises ToolCallError (ViewRefused for a
    resource that is not an MCP App's HTML)."""
    assert tool.view_uri is not None
    result = await manager.read_resource(tool.view_uri, server=tool.server)
    content = next((c for c in result.contents if c.uri == tool.view_uri), None)
    if content is None and len(result.contents) == 1:
        content = result.contents[0]
    if content is None or (content.mime_type or "").replace(" ", "") != APP_MIME_TYPE:
        found = content.mime_type if content is not None else "nothing"
        raise ViewRefused(
            f"{tool.view_uri} is not a view ({APP_MIME_TYPE}): the server sent {found}", server=tool.server
        )
    if isinstance(content, types.TextResourceContents):
        html = content.text
    else:
        html = base64.b64decode(content.blob).decode("utf-8", errors="replace")
    if len(html) > VIEW_MAX_CHARS:
        raise ViewRefused(
            f"{tool.view_uri} is {len(html):,} characters: too large for a view", server=tool.server
        )
    ui = (content.meta or {}).get("ui")
    ui = ui if isinstance(ui, Mapping) else {}
    csp, dropped = declared_csp(ui.get("csp"))
    permissions = ui.get("permissions")
    granted = tuple(p for p in PERMISSIONS if isinstance(permissions, Mapping) and p in permissions)
    border = ui.get("prefersBorder")
    return AppView(
        tool.server, tool.view_uri, html, csp, granted, border if isinstance(border, bool) else None, dropped
    )


def declared_csp(raw: Any) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """The origins a view's resource declares, per CSP key, and those dropped as malformed."""
    kept: dict[str, tuple[str, ...]] = {}
    dropped: list[str] = []
    if not isinstance(raw, Mapping):
        return kept, ()
    for key in CSP_KEYS:
        values = raw.get(key)
        if not isinstance(values, list):
            continue
        good = tuple(v for v in values if isinstance(v, str) and _SOURCE.fullmatch(v))
        dropped += [str(v) for v in values if not (isinstance(v, str) and _SOURCE.fullmatch(v))]
        if good:
            kept[key] = good
    return kept, tuple(dropped)


async def call_from_view(
    manager: ServerManager,
    policy: ApprovalPolicy,
    tools: Sequence[ToolSpec],
    emit: Callable[[Any], None],
    approver: Approver,
    *,
    server: str,
    name: str,
    arguments: Mapping[str, Any],
    conversation_id: int | None,
) -> types.CallToolResult:
    """A view's ``tools/call`` of ``name`` (the tool's own name on ``server``, the view's server).

    Refused (ViewRefused, nothing sent) for a tool of another server and for one whose visibility
    leaves "app" out (spec: "Host MUST reject tools/call requests from apps for tools that don't
    include 'app'"). Otherwise the approver decides as for a model's call, and the call is recorded
    with ``chosen_by`` "view". Raises as call_outside_conversation."""
    own = next((t for t in tools if t.server == server and t.tool_name == name), None)
    if own is None:
        other = next((t for t in tools if t.name == name or t.tool_name == name), None)
        where = f" (it is {other.server}'s)" if other is not None and other.server != server else ""
        raise ViewRefused(
            f"the view of {server} may only call {server}'s tools, not {name}{where}", server=server
        )
    if not own.enabled:  # refused before anyone is asked to approve it
        raise ViewRefused(f"{own.name} is switched off", server=server)
    if own.visibility is not None and "app" not in own.visibility:
        raise ViewRefused(
            f"{own.name} is not offered to views (its visibility is {list(own.visibility)})", server=server
        )
    return await call_outside_conversation(
        manager,
        policy,
        tools,
        emit,
        own.name,
        dict(arguments),
        decided_by="view",
        approver=approver,
        conversation_id=conversation_id,
        asked_from=f"the view of {server}",
        finish_once_started=True,  # a view closed while its call runs: the call ends as it would
    )


class ViewContexts:
    """The latest ``ui/update-model-context`` of each view (its resource) in each conversation, until
    the conversation's next question takes them."""

    def __init__(self) -> None:
        self._latest: dict[int, dict[str, str]] = {}

    def update(self, conversation_id: int, server: str, uri: str, content: Any, structured: Any) -> None:
        """Keep what the view of ``server`` (its resource ``uri``) wants the model to know; an empty
        update takes back the one before."""
        parts = [_block_text(b) for b in content] if isinstance(content, list) else []
        if structured:
            parts.append(json.dumps(structured, ensure_ascii=False, default=str))
        text = "\n".join(p for p in parts if p)[:CONTEXT_MAX_CHARS]
        views = self._latest.setdefault(conversation_id, {})
        if text:
            views[uri] = attachment_text(uri, text)
        else:
            views.pop(uri, None)

    def take(self, conversation_id: int | None) -> list[str]:
        """The contexts to send with the next question of ``conversation_id`` (then they are gone)."""
        if conversation_id is None:
            return []
        return list(self._latest.pop(conversation_id, {}).values())


def _block_text(block: Any) -> str:
    return str(block.get("text") or "") if isinstance(block, Mapping) and block.get("type") == "text" else ""
