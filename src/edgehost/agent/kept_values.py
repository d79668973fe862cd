"""The values a deletion takes from what a server keeps: the exact texts the question cannot give.

The reference memory server removes an observation only when it is given word for word, and a
relation only by its exact ``from``, ``to`` and ``relationType``: "Forget the garage code, I've changed
it." cannot give "garage code is 4512", nor "drop the link between Daniel and the project" the type
the relation was kept with. Filled from the question's words, both calls deleted nothing (said so
since agent/unchanged_calls.py). The host can know these values: it reads what the server keeps
(agent/kept_names.py).

So, for a call the host forces (decision 11) of a tool that deletes, a list of objects among its
arguments whose fields are fields of the items of one of the kept lists takes its values from those
items (a field named ``…Name`` or ``…_name``, such as ``entityName``, is the item's ``name``); an
argument of names itself (``entityNames``: "wipe biscuit from your memory" named no entity "wipe")
takes the names of the kept items the question writes, in any case, when it writes any. The
items offered are those the question speaks of: the ones whose name it writes, if any, and of those
the ones that share the most words with it (a word of one of their texts, "garage code"). Each is
offered whole (one item's fields together, never one item's ``from`` with another's ``to``); a list
of texts in it offers the texts that share a word with the question, or all of them when none does
("forget the bit about Biscuit's age" of "is five years old"); the list holds one to as many items
as are offered. A question that speaks of no kept item, or of more than MAX_OFFERED alike, leaves
the values as the question's words. Pure functions.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from edgehost.agent._bm25 import terms
from edgehost.agent._query_cues import NEGATED, deletes
from edgehost.agent.kept_names import kept_names_in, name_places, names_in
from edgehost.agent.tools import ToolSpec
from edgehost.schema_refs import item_properties, resolve_ref

__all__ = ["MAX_OFFERED", "with_kept_values"]

MAX_OFFERED = 5  # more kept items alike than this: the question does not say which
_NAME = "name"
_NAME_FIELD = re.compile(r"(?:[a-z0-9]Name|_name)$")  # entityName, person_name; not filename
_NAMES_FIELD = re.compile(r"(?:[a-z0-9]Names?|_names?)$")  # names, or a name alone: entityNames
# What spares the name written next: "Forget Bob, not Anna", "except Anna", "don't delete Anna".
_SPARED = re.compile(
    rf"\b(?:{NEGATED}\s+\w+|not|except|but|apart\s+from|other\s+than|keep)\s+(?:the\s+)?$",
    re.I,
)


def with_kept_values(tool: ToolSpec, kept: Any, question: str) -> ToolSpec:
    """``tool`` with the values of its deletion arguments limited to the kept items ``question``
    speaks of (module docstring); unchanged where none is, or the tool does not delete."""
    root = tool.input_schema
    properties = root.get("properties")
    if not deletes(tool) or not isinstance(kept, Mapping) or not isinstance(properties, Mapping):
        return tool
    asked = set(terms(question)) - set(terms(tool.tool_name))
    offered = {}
    for key, value in properties.items():
        fields = item_properties(value, root)
        if not fields and (names := _names_offered(key, resolve_ref(value, root), root, kept, question)):
            offered[key] = names
            continue
        for items in kept.values() if fields else ():
            carried = _carried(fields, items)
            if carried is None:
                continue
            chosen = _spoken_of(items, carried, question, asked)
            if 0 < len(chosen) <= MAX_OFFERED:
                offered[key] = _offering(resolve_ref(value, root), fields, carried, chosen, asked)
                break
    if not offered:
        return tool
    return dataclasses.replace(tool, input_schema={**root, "properties": {**properties, **offered}})


def _names_offered(
    key: str, schema: Any, root: Mapping[str, Any], kept: Mapping[str, Any], question: str
) -> dict[str, Any] | None:
    """``schema`` of the argument of names ``key`` (``entityNames``, or one ``entityName`` of a tool
    that takes it alone) limited to the names of the kept items the question writes, in the order it
    writes them; None for another argument, or when it writes none or too many (_named_to_delete)."""
    if not _NAMES_FIELD.search(key) or not isinstance(schema, Mapping):
        return None
    listed = schema.get("type") == "array"
    texts = resolve_ref(schema.get("items"), root) if listed else schema
    if not isinstance(texts, Mapping) or texts.get("type") != "string":
        return None
    names = _named_to_delete(question, kept_names_in(kept))
    if not 0 < len(names) <= MAX_OFFERED:
        return None
    own = {k: v for k, v in schema.items() if k not in ("enum", "const", "items")}
    if not listed:
        return own | {"enum": names}
    return own | {"items": {**texts, "enum": names}, "minItems": 1, "maxItems": len(names)}


def _named_to_delete(question: str, kept: Sequence[str]) -> list[str]:
    """The ``kept`` names ``question`` writes, in its order: those it capitalises where it capitalises
    any ("Delete Bob, he moved home" names Bob, not a kept "Home"), and none it spares ("Forget Bob,
    not Anna", "except Anna")."""
    found = []
    for name in names_in(question, kept):
        places = list(name_places(question, name))
        spared = all(_SPARED.search(question[: m.start()]) for m in places)
        if places and not spared:
            found.append((places[0].start(), any(m.group(0)[0].isupper() for m in places), name))
    capitalised = [name for _start, upper, name in sorted(found) if upper]
    return capitalised or [name for _start, _upper, name in sorted(found)]


def _carried(fields: Mapping[str, Any], items: Any) -> dict[str, str] | None:
    """Each of ``fields`` with the key of the kept ``items`` that holds its value (``entityName``:
    ``name``); None when they are no list of objects that carries every field."""
    if not isinstance(items, list) or not items or not all(isinstance(i, Mapping) for i in items):
        return None
    keys = set().union(*(item.keys() for item in items))
    carried = {}
    for field in fields:
        if field in keys:
            carried[field] = field
        elif _NAME_FIELD.search(field) and _NAME in keys:
            carried[field] = _NAME
        else:
            return None
    return carried


def _spoken_of(
    items: Sequence[Mapping[str, Any]], carried: Mapping[str, str], question: str, asked: set[str]
) -> list[Mapping[str, Any]]:
    """The kept ``items`` the question speaks of: those whose name it writes, if any, and of those
    the ones that share the most words with it (none: an empty list)."""
    keys = set(carried.values())
    named = [item for item in items if names_in(question, _named_texts(item, keys))]
    shared = [(len(asked & _words(item, keys)), item) for item in named or items]
    most = max((count for count, _item in shared), default=0)
    return [item for count, item in shared if most and count == most]


def _named_texts(item: Mapping[str, Any], keys: set[str]) -> list[str]:
    """The texts of ``item`` that name a thing: its name, or a relation's ends (single texts)."""
    return [value for key in keys if isinstance(value := item.get(key), str)]


def _words(item: Mapping[str, Any], keys: set[str]) -> set[str]:
    return {word for key in keys for text in _texts(item.get(key)) for word in terms(text)}


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _offering(
    schema: Mapping[str, Any],
    fields: Mapping[str, Any],
    carried: Mapping[str, str],
    chosen: Sequence[Mapping[str, Any]],
    asked: set[str],
) -> dict[str, Any]:
    """The list ``schema`` whose items are the ``chosen`` kept items, each whole: one object schema
    each, its fields limited to that item's values (a field the item has no text for keeps its own)."""
    objects = []
    for item in chosen:
        limited = {}
        for field, key in carried.items():
            values = _texts(item.get(key))
            described = (
                {"description": fields[field]["description"]} if "description" in fields[field] else {}
            )
            if not values:  # an entity with no observations: the question's words stay
                limited[field] = fields[field]
            elif isinstance(item.get(key), list):
                told = [text for text in values if asked & set(terms(text))]
                texts = {"type": "string", "enum": list(dict.fromkeys(told or values))}
                limited[field] = {**described, "type": "array", "items": texts}
            else:
                limited[field] = {**described, "type": "string", "enum": values}
        objects.append({"type": "object", "properties": limited, "required": list(limited)})
    items = objects[0] if len(objects) == 1 else {"anyOf": objects}
    own = {key: value for key, value in schema.items() if key not in ("enum", "const")}
    # A deletion deletes something, and each kept item once (the 135M model wrote one relation twice).
    return own | {"items": items, "minItems": max(1, own.get("minItems", 0)), "maxItems": len(objects)}
