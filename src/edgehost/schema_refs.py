"""``$ref`` in a tool's JSON schema, followed the way JSON Schema means it (through ``referencing``).

One resolver for every user (argument coercion in edgehost.agent.arguments, example values in
edgehost.mcp.schema_values, the listings of edgehost.agent.kept_names): a JSON pointer's ``~0`` /
``~1`` escapes and percent-encoding, draft-07 ``definitions`` as well as ``$defs``, ``$id`` base URIs
and refs that lead to further refs. Nothing is
fetched: a ref to another document is left as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

__all__ = ["item_properties", "resolve_ref"]

# A chain of refs longer than this is taken for a loop the identity check did not see.
_MAX_HOPS = 32


def resolve_ref(schema: Any, root: Any) -> Any:
    """``schema`` with its ``$ref`` (and any ref its target holds) replaced by what it points to in ``root``.

    The keywords written beside a ``$ref`` (a ``description``, a ``default``) are kept and win over
    the target's. A schema without ``$ref`` is returned as it is; so is one whose ref points to
    nothing, to another document, to something that is not an object, or round in a circle.
    Raises nothing.
    """
    if not _has_ref(schema) or not isinstance(root, dict):
        return schema
    try:
        return _follow(schema, root)
    except _BROKEN_SCHEMA:
        return schema


# What referencing raises on a schema that is not one (a "$defs" entry that is a number, an "$id" that
# is not a string): tool schemas come from any server, so such a ref is left unresolved.
_BROKEN_SCHEMA = (Unresolvable, AttributeError, TypeError, ValueError, KeyError, IndexError)


def item_properties(schema: Any, root: Any = None) -> dict[str, Any]:
    """The properties of the objects a list ``schema`` holds, the list's ref and its items' followed in
    ``root`` (pydantic writes a list of models' items as a ref to ``$defs``); {} for any other schema."""
    schema = resolve_ref(schema, root)
    items = resolve_ref(schema.get("items"), root) if isinstance(schema, Mapping) else None
    properties = items.get("properties") if isinstance(items, Mapping) else None
    return dict(properties) if isinstance(properties, Mapping) else {}


def _follow(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    resolver = Registry().resolver_with_root(Resource.from_contents(root, default_specification=DRAFT202012))
    current: Any = schema
    beside: dict[str, Any] = {}
    seen: set[int] = set()
    while _has_ref(current):
        if id(current) in seen or len(seen) >= _MAX_HOPS:
            return schema
        seen.add(id(current))
        resolved = resolver.lookup(current["$ref"])
        beside = {**{k: v for k, v in current.items() if k != "$ref"}, **beside}
        current, resolver = resolved.contents, resolved.resolver
    if not isinstance(current, dict):
        return schema
    return {**current, **beside}


def _has_ref(schema: Any) -> bool:
    return isinstance(schema, dict) and isinstance(schema.get("$ref"), str)
