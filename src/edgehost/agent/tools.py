"""The agent's view of one MCP tool: what prompting, selection and approval need, nothing from Qt or the SDK."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["NAMESPACE_SEPARATOR", "ToolSpec", "summary"]

NAMESPACE_SEPARATOR = "__"


def summary(description: str, limit: int = 160) -> str:
    """A description's first paragraph on one line, for a listing: reStructuredText/Markdown code marks
    dropped (``path`` -> path), cut at the last word that fits with an ellipsis."""
    paragraph = description.strip().split("\n\n", 1)[0]
    text = " ".join(paragraph.replace("``", "").replace("`", "").split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


@dataclass(frozen=True)
class ToolSpec:
    name: str  # namespaced as the catalog names it (mcp.catalog.namespace): server__tool
    server: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}, hash=False
    )
    # MCP ToolAnnotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint); any may be missing
    annotations: Mapping[str, Any] = field(default_factory=dict, hash=False)
    title: str | None = None
    enabled: bool = True
    trusted_server: bool = False
    # The name the server knows the tool by; the catalog's namespaced name may have been sanitised
    # (server "my.srv" gives "my_srv__…"), so it is kept rather than derived.
    original_name: str | None = None
    output_schema: Mapping[str, Any] | None = field(
        default=None, hash=False
    )  # listed; agent/kept_names.py reads it (a tool that lists what its server keeps)
    # False for a tool its server listed when last connected, while the whole server is switched off
    # (host/known_tools.py): never offered, only recognised as the tool a question calls for.
    server_enabled: bool = True
    # Required arguments EdgeHost knows the value of, not the question: a folder argument of a
    # server started on one folder (agent/known_arguments.py).
    known_arguments: Mapping[str, str] = field(default_factory=dict, hash=False)
    # The one folder the tool's server was started on, where it was started on one (the files
    # server's root, a filesystem server's allowed directory): agent/named_files.py reads it.
    served_folder: str | None = None
    # MCP Apps: the ui:// resource of the tool's own view, when its server gives it one, and who may
    # call the tool ("model", "app"; None: both).
    view_uri: str | None = None
    visibility: tuple[str, ...] | None = None

    @property
    def offered_to_model(self) -> bool:
        """Whether the model may be offered this tool: not when its visibility leaves "model" out (a
        tool for its view's buttons; a person can still call it, `edgehost call`)."""
        return self.visibility is None or "model" in self.visibility

    @property
    def tool_name(self) -> str:
        """The name the server knows the tool by (without the `server__` prefix)."""
        if self.original_name is not None:
            return self.original_name
        prefix = self.server + NAMESPACE_SEPARATOR
        return self.name[len(prefix) :] if self.name.startswith(prefix) else self.name

    @property
    def properties(self) -> Mapping[str, Any]:
        props = self.input_schema.get("properties")
        return props if isinstance(props, Mapping) else {}

    @property
    def required(self) -> frozenset[str]:
        required = self.input_schema.get("required")
        return (
            frozenset(r for r in required if isinstance(r, str))
            if isinstance(required, list)
            else frozenset()
        )

    def hint(self, key: str) -> bool | None:
        """An annotation flag (readOnlyHint, destructiveHint ...) or None when the server did not say."""
        value = self.annotations.get(key)
        return value if isinstance(value, bool) else None
