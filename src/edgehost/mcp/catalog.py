"""The catalog: every server's tools, resources, resource templates and prompts under namespaced names.

Pure data and functions: the manager builds a new ``Catalog`` whenever a listing or an enable flag
changes, and hands out that immutable snapshot.
"""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate
from mcp_types import METHOD_NOT_FOUND

from edgehost.mcp.config import ServerConfig

__all__ = [
    "APP_MIME_TYPE",
    "MAX_NAME_LENGTH",
    "UI_EXTENSION",
    "SEPARATOR",
    "Catalog",
    "PromptEntry",
    "ResourceEntry",
    "ResourceTemplateEntry",
    "ServerListing",
    "ToolEntry",
    "build_catalog",
    "fetch_listing",
    "is_tool_allowed",
    "namespace",
    "sanitize",
    "unknown_tool_text",
]

SEPARATOR = "__"
MAX_NAME_LENGTH = 64  # what OpenAI-style function names and most chat templates accept
# A listing that pages forever must not hang the supervisor.
MAX_LIST_PAGES = 100
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_SUFFIX_LENGTH = 6


@dataclass(frozen=True)
class ServerListing:
    """What one connected server lists (raw SDK objects)."""

    tools: Sequence[types.Tool] = ()
    resources: Sequence[types.Resource] = ()
    resource_templates: Sequence[types.ResourceTemplate] = ()
    prompts: Sequence[types.Prompt] = ()


@dataclass(frozen=True)
class ToolEntry:
    name: str  # namespaced: server__tool
    server: str
    original_name: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]
    enabled: bool
    title: str | None = None
    output_schema: dict[str, Any] | None = None
    # MCP Apps (io.modelcontextprotocol/ui): the ui:// resource of the tool's own view, and who may call
    # it ("model", "app"; None: both, as the extension's default).
    view_uri: str | None = None
    visibility: tuple[str, ...] | None = None  # what the model is offered: ToolSpec.offered_to_model

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "server": self.server,
            "tool": self.original_name,
            "title": self.title,
            "description": self.description,
            "enabled": self.enabled,
            "annotations": self.annotations,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
        }


# MCP Apps (SEP-1865): the extension EdgeHost declares at initialize, and the one MIME type of a view.
UI_EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"


def app_ui(meta: Mapping[str, Any] | None) -> tuple[str | None, tuple[str, ...] | None]:
    """(the view's ui:// URI, the visibility) a tool's ``_meta`` declares for MCP Apps: ``ui.resourceUri``
    and ``ui.visibility``, or the deprecated flat key ``ui/resourceUri``. Values of the wrong type are
    ignored, as a key that is not there."""
    if not meta:
        return None, None
    ui = meta.get("ui")
    ui = ui if isinstance(ui, Mapping) else {}
    uri = ui.get("resourceUri", meta.get("ui/resourceUri"))
    visibility = ui.get("visibility")
    return (
        uri if isinstance(uri, str) and uri.startswith("ui://") else None,
        tuple(v for v in visibility if isinstance(v, str)) if isinstance(visibility, list) else None,
    )


@dataclass(frozen=True)
class ResourceEntry:
    uri: str
    server: str
    name: str
    description: str
    mime_type: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "uri": self.uri,
            "server": self.server,
            "name": self.name,
            "description": self.description,
            "mimeType": self.mime_type,
        }


@dataclass(frozen=True)
class ResourceTemplateEntry:
    uri_template: str
    server: str
    name: str
    description: str
    mime_type: str | None

    def variable_names(self) -> list[str]:
        """The names the template asks values for (RFC 6570, the SDK's parser). Raises
        InvalidUriTemplate (a ValueError) for a template it cannot read."""
        return UriTemplate.parse(self.uri_template).variable_names

    def expand(self, values: Mapping[str, str]) -> str:
        """The resource URI the template names with ``values``, percent-encoded as RFC 6570 says.
        Raises InvalidUriTemplate as variable_names does."""
        return UriTemplate.parse(self.uri_template).expand(values)

    def matches(self, uri: str) -> bool:
        """RFC 6570 level-1 match: each ``{var}`` stands for one or more characters other than '/'."""
        parts = re.split(r"\{[^}]*\}", self.uri_template)
        pattern = "[^/]+".join(re.escape(part) for part in parts)
        return re.fullmatch(pattern, uri) is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "uriTemplate": self.uri_template,
            "server": self.server,
            "name": self.name,
            "description": self.description,
            "mimeType": self.mime_type,
        }


@dataclass(frozen=True)
class PromptEntry:
    name: str  # namespaced: server__prompt
    server: str
    original_name: str
    description: str
    arguments: tuple[dict[str, Any], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "server": self.server,
            "prompt": self.original_name,
            "description": self.description,
            "arguments": list(self.arguments),
        }


@dataclass(frozen=True)
class Catalog:
    """An immutable snapshot; look-ups by namespaced name."""

    tools: tuple[ToolEntry, ...] = ()
    resources: tuple[ResourceEntry, ...] = ()
    resource_templates: tuple[ResourceTemplateEntry, ...] = ()
    prompts: tuple[PromptEntry, ...] = ()
    _tools_by_name: dict[str, ToolEntry] = field(default_factory=dict, repr=False, compare=False)
    _prompts_by_name: dict[str, PromptEntry] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._tools_by_name.update({t.name: t for t in self.tools})
        self._prompts_by_name.update({p.name: p for p in self.prompts})

    def tool(self, name: str) -> ToolEntry | None:
        return self._tools_by_name.get(name)

    def prompt(self, name: str) -> PromptEntry | None:
        return self._prompts_by_name.get(name)

    def server_for_uri(self, uri: str) -> str | None:
        """The server that lists ``uri``, or has a template matching it; None when nobody does."""
        for resource in self.resources:
            if resource.uri == uri:
                return resource.server
        for template in self.resource_templates:
            if template.matches(uri):
                return template.server
        return None


def sanitize(text: str) -> str:
    """``text`` with every character outside [A-Za-z0-9_-] replaced by '_' ('_' for an empty text)."""
    return _UNSAFE.sub("_", text) or "_"


def namespace(server: str, name: str) -> str:
    """The plain namespaced name ``server__name``: sanitised, cut to MAX_NAME_LENGTH (no collision check)."""
    return (sanitize(server) + SEPARATOR + sanitize(name))[:MAX_NAME_LENGTH]


def unknown_tool_text(name: str, names: Iterable[str]) -> str:
    """ "no tool named 'X'", with the tool meant when ``name`` is one's own name without its server
    (``temperatures`` for ``board__temperatures``) or a near miss of one."""
    known = list(names)
    meant = [n for n in known if n.split(SEPARATOR, 1)[-1] == name] or difflib.get_close_matches(
        name, known, n=2, cutoff=0.75
    )
    return f"no tool named {name!r}" + (f" (did you mean {' or '.join(meant)}?)" if meant else "")


def _suffixed(base: str, server: str, name: str) -> str:
    digest = hashlib.sha256(f"{server}\0{name}".encode()).hexdigest()[:_SUFFIX_LENGTH]
    return base[: MAX_NAME_LENGTH - _SUFFIX_LENGTH - 1] + "_" + digest


def _assign_names(items: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Unique namespaced names for (server, original name) pairs.

    Deterministic whatever the listing order: among pairs whose plain names collide, the smallest pair
    keeps the plain name and the others get a short hash of (server, name) as suffix.
    """
    by_plain: dict[str, list[tuple[str, str]]] = {}
    for pair in items:
        by_plain.setdefault(namespace(*pair), []).append(pair)
    names: dict[tuple[str, str], str] = {}
    taken = set(by_plain)
    for plain, pairs in sorted(by_plain.items()):
        first, *others = sorted(set(pairs))
        names[first] = plain
        for pair in others:
            candidate = _suffixed(plain, *pair)
            while candidate in taken:
                candidate = _suffixed(candidate, *pair)
            taken.add(candidate)
            names[pair] = candidate
    return names


def is_tool_allowed(server: ServerConfig, tool_name: str) -> bool:
    """The server's allowedTools / excludedTools filters (shell-style patterns allowed)."""
    if server.allowed_tools is not None and not any(
        fnmatch.fnmatchcase(tool_name, p) for p in server.allowed_tools
    ):
        return False
    return not any(fnmatch.fnmatchcase(tool_name, p) for p in server.excluded_tools)


def _dump(model: Any) -> dict[str, Any]:
    if model is None:
        return {}
    dumped: dict[str, Any] = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


def build_catalog(
    listings: Mapping[str, ServerListing],
    servers: Sequence[ServerConfig],
    is_tool_enabled: Callable[[str], bool],
) -> Catalog:
    """Build the catalog from the connected servers' listings, in config order.

    ``is_tool_enabled`` answers for a namespaced tool name (the persisted per-tool flag).
    """
    configs = {s.name: s for s in servers}
    order = [s.name for s in servers if s.name in listings]
    tool_pairs = [
        (server, tool.name)
        for server in order
        for tool in listings[server].tools
        if is_tool_allowed(configs[server], tool.name)
    ]
    tool_names = _assign_names(tool_pairs)
    prompt_names = _assign_names([(server, p.name) for server in order for p in listings[server].prompts])
    tools: list[ToolEntry] = []
    resources: list[ResourceEntry] = []
    templates: list[ResourceTemplateEntry] = []
    prompts: list[PromptEntry] = []
    for server in order:
        listing = listings[server]
        for tool in listing.tools:
            key = (server, tool.name)
            if key not in tool_names:
                continue
            name = tool_names[key]
            view_uri, visibility = app_ui(tool.meta)
            tools.append(
                ToolEntry(
                    name=name,
                    server=server,
                    original_name=tool.name,
                    title=tool.title,
                    description=tool.description or "",
                    input_schema=dict(tool.input_schema or {}),
                    output_schema=dict(tool.output_schema) if tool.output_schema else None,
                    annotations=_dump(tool.annotations),
                    enabled=is_tool_enabled(name),
                    view_uri=view_uri,
                    visibility=visibility,
                )
            )
        resources += [
            ResourceEntry(str(r.uri), server, r.name, r.description or "", r.mime_type)
            for r in listing.resources
        ]
        templates += [
            ResourceTemplateEntry(str(t.uri_template), server, t.name, t.description or "", t.mime_type)
            for t in listing.resource_templates
        ]
        prompts += [
            PromptEntry(
                name=prompt_names[(server, p.name)],
                server=server,
                original_name=p.name,
                description=p.description or "",
                arguments=tuple(_dump(a) for a in p.arguments or ()),
            )
            for p in listing.prompts
        ]
    return Catalog(tuple(tools), tuple(resources), tuple(templates), tuple(prompts))


UnimplementedFnT = Callable[[str], None]
"""Called with a list method (``resources/templates/list``) the server declares but does not implement."""


async def fetch_listing(client: Any, on_unimplemented: UnimplementedFnT | None = None) -> ServerListing:
    """Everything a connected server (an SDK ``Client``) offers, page by page, as its capabilities say.

    A list the server declares but answers with "method not found" (resources without templates is
    common) is empty, and ``on_unimplemented`` is told its method. Raises MCPError for other errors.
    """
    capabilities = client.server_capabilities
    tools: list[types.Tool] = []
    resources: list[types.Resource] = []
    templates: list[types.ResourceTemplate] = []
    prompts: list[types.Prompt] = []

    async def every_page(
        fetch: Callable[[str | None], Awaitable[Any]], attribute: str, method: str
    ) -> list[Any]:
        try:
            return await _all_pages(fetch, attribute)
        except MCPError as exc:
            if exc.code != METHOD_NOT_FOUND:
                raise
            if on_unimplemented is not None:
                on_unimplemented(method)
            return []

    if capabilities.tools is not None:
        tools = await every_page(lambda cursor: client.list_tools(cursor=cursor), "tools", "tools/list")
    if capabilities.resources is not None:
        resources = await every_page(
            lambda cursor: client.list_resources(cursor=cursor), "resources", "resources/list"
        )
        templates = await every_page(
            lambda cursor: client.list_resource_templates(cursor=cursor),
            "resource_templates",
            "resources/templates/list",
        )
    if capabilities.prompts is not None:
        prompts = await every_page(
            lambda cursor: client.list_prompts(cursor=cursor), "prompts", "prompts/list"
        )
    return ServerListing(tuple(tools), tuple(resources), tuple(templates), tuple(prompts))


async def _all_pages(fetch: Callable[[str | None], Awaitable[Any]], attribute: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        page = await fetch(cursor)
        items.extend(getattr(page, attribute))
        cursor = page.next_cursor
        if not cursor:
            break
    return items
