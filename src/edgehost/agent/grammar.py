"""GBNF grammars that make a model finish a tool call validly (llama.cpp's lazy grammar, decision 6).

``tool_call_grammar`` covers what follows an opening marker (the agent cuts the generated text at
``ToolCallStarted.resume_at`` and continues under it); ``pinned_tool_grammar`` covers a whole reply
that must be one call to one tool. Arguments follow each tool's JSON schema, converted by
llama-cpp-python's ``SchemaConverter``; llama-cpp-python is imported only when a grammar is built.

The converter ignores ``minimum`` and ``maximum``, so a number a tool bounds would be written out of
range (``count: 11`` where the schema says at most 10) and refused. A bounded number whose range is
small (at most MAX_RANGE_VALUES whole values) is written here as the values of its range instead: an
integer as one of them, a number (with a range from zero up) as one of them with decimals.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from edgehost.agent._dialects import dialect
from edgehost.agent.grounded_arguments import grounded_schema
from edgehost.agent.number_placement import number_bound
from edgehost.errors import EdgeHostError

__all__ = [
    "PROSE_GRAMMAR",
    "GrammarUnavailable",
    "ToolLike",
    "bounded_range",
    "gbnf_literal",
    "pinned_tool_grammar",
    "tool_call_grammar",
]


# An answer in words: whatever it says, it does not begin with a tool-call or tool-result marker
# ("[TOOL_CALL]", "<tool_call>", "[TOOL_RESULT"), which a very small model that has just seen a
# call and its result tends to write next instead of answering.
PROSE_GRAMMAR = "root ::= [^\\[<\\n ] [^\\x00]*\n"


# A bounded number with more whole values than this keeps the converter's plain number rule.
MAX_RANGE_VALUES = 100
_BOUNDED_MARK = "__edgehost_bounded_{}__"


class GrammarUnavailable(EdgeHostError):
    """Building a grammar needs llama-cpp-python, which is not installed."""


class ToolLike(Protocol):
    """What a grammar needs from a tool: its (namespaced) name and its JSON input schema."""

    @property
    def name(self) -> str: ...

    @property
    def input_schema(self) -> Mapping[str, Any]: ...


def tool_call_grammar(
    dialect: str, tools: Sequence[ToolLike], *, pinned: bool = False, grounded_in: str | None = None
) -> str:
    """GBNF for the rest of a call after ``opening_marker(dialect)``: a call to one of ``tools``
    with arguments that follow its schema, then the closing marker.

    With ``pinned``, the grammar covers a whole reply instead: the opening marker, then the call.
    For bare-json (no marker) it is the whole call object either way. With ``grounded_in`` (the
    user's question), text and number values are limited to what that text holds (see
    grounded_schema). Raises ValueError for an unknown dialect or no tools, GrammarUnavailable when
    llama-cpp-python is missing.
    """
    if grounded_in is not None:
        tools = [
            _Grounded(
                t.name,
                grounded_schema(
                    _schema_of(t),
                    grounded_in,
                    t.name,
                    getattr(t, "known_arguments", None),
                    getattr(t, "description", ""),
                ),
            )
            for t in tools
        ]
    return _grammar(dialect, tools, with_opening=pinned)


@dataclass(frozen=True)
class _Grounded:
    name: str
    input_schema: Mapping[str, Any]


def pinned_tool_grammar(dialect: str, tool: ToolLike) -> str:
    """GBNF for a whole reply that is exactly one call to ``tool``: opening marker, call, closing marker.

    Raises ValueError for an unknown dialect, GrammarUnavailable when llama-cpp-python is missing.
    """
    return _grammar(dialect, [tool], with_opening=True)


def gbnf_literal(text: str) -> str:
    """``text`` as a quoted GBNF literal."""
    escaped = (
        text.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
    )
    return f'"{escaped}"'


def _converter() -> Any:
    try:
        from llama_cpp.llama_grammar import SchemaConverter
    except ImportError as exc:
        raise GrammarUnavailable(
            "tool-call grammars need llama-cpp-python: pip install 'edgehost[llamacpp]'"
        ) from exc
    return SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)


def _schema_of(tool: Any) -> dict[str, Any]:
    schema = getattr(tool, "input_schema", None)
    if schema is None:
        schema = getattr(tool, "inputSchema", None)
    return dict(schema) if isinstance(schema, Mapping) else {"type": "object"}


def _grammar(name: str, tools: Sequence[ToolLike], *, with_opening: bool) -> str:
    form = dialect(name)  # raises ValueError for an unknown dialect
    if form.accepted_only:
        raise ValueError(f"the {name} dialect is accepted from models, never prompted: it has no grammar")
    if not tools:
        raise ValueError("a tool-call grammar needs at least one tool")
    parts = _Parts(_converter())
    rules: list[str] = ["call-ws ::= [ \\n]?"]
    alternatives: list[str] = []
    for number, tool in enumerate(tools):
        rule = f"call-{number}"
        rules.extend(form.grammar_call(rule, number, tool.name, _schema_of(tool), parts))
        alternatives.append(rule)
    rules.append(f"call-any ::= {' | '.join(alternatives)}")
    rest = form.grammar_rest(parts)
    root = f"{gbnf_literal(form.opening)} {rest}" if with_opening and form.opening else rest
    rules.append(f"root ::= {root}")
    rules.extend(parts.text_rules)
    converted = parts.converter.format_grammar().rstrip("\n")
    for mark, expression in parts.bounded.items():
        converted = converted.replace(gbnf_literal(json.dumps(mark)), expression)
    return converted + "\n" + "\n".join(rules) + "\n"


def bounded_range(schema: Mapping[str, Any]) -> tuple[int, int, bool] | None:
    """(lowest, highest, integer) for a number schema the grammar writes as its range (module
    docstring); None for any other schema."""
    kind = schema.get("type")
    if kind not in ("integer", "number") or "enum" in schema or "const" in schema:
        return None
    low, high = (
        number_bound(schema, "minimum", "exclusiveMinimum"),
        number_bound(schema, "maximum", "exclusiveMaximum"),
    )
    if low is None or high is None:
        return None
    (low_value, low_open), (high_value, high_open) = low, high
    if kind == "integer":
        first = math.floor(low_value) + 1 if low_open else math.ceil(low_value)
        last = math.ceil(high_value) - 1 if high_open else math.floor(high_value)
    elif (
        low_open
        or high_open
        or low_value < 0
        or not (float(low_value).is_integer() and float(high_value).is_integer())
    ):
        return None  # a range with decimals at its ends, or below zero: left to the checks after
    else:
        first, last = int(low_value), int(high_value)
    if last < first or last - first + 1 > MAX_RANGE_VALUES:
        return None
    return first, last, kind == "integer"


def _range_expression(first: int, last: int, integer: bool) -> str:
    """GBNF for the numbers from ``first`` to ``last``: whole ones, or (not ``integer``) with up to
    six decimals below ``last``."""
    if integer:
        return "(" + " | ".join(gbnf_literal(str(v)) for v in range(first, last + 1)) + ")"
    decimals = ' ("." [0-9] [0-9]? [0-9]? [0-9]? [0-9]? [0-9]?)?'
    values = [gbnf_literal(str(v)) + decimals for v in range(first, last)]
    return "(" + " | ".join([*values, gbnf_literal(str(last)) + ' ("." "0"+)?']) + ")"


class _Parts:
    """The GBNF pieces a Dialect builds its call rule from (agent._dialects.GrammarParts)."""

    def __init__(self, converter: Any) -> None:
        self.converter = converter
        self.text_rules: list[str] = []  # the text-value primitives, once one is used
        self.bounded: dict[str, str] = {}  # a placeholder the converter writes -> a bounded number's GBNF

    def literal(self, text: str) -> str:
        return gbnf_literal(text)

    def json_value(self, schema: Mapping[str, Any], name: str) -> str:
        return _visit(self.converter, self._marked(schema), name)

    def text_value(self, schema: Mapping[str, Any], name: str) -> str:
        if not self.text_rules:
            self.text_rules.extend(_XML_PRIMITIVES)
        bounded = bounded_range(schema)
        if bounded is not None:
            return _range_expression(*bounded)
        return _xml_value_rule(self.converter, self._marked(schema), name)

    def _marked(self, schema: Any) -> Any:
        """``schema`` with each bounded number (bounded_range) replaced by a placeholder constant,
        which _grammar replaces with the range's GBNF once the converter wrote its rules."""
        if not isinstance(schema, Mapping):
            return schema
        bounded = bounded_range(schema)
        if bounded is not None:
            mark = _BOUNDED_MARK.format(len(self.bounded))
            self.bounded[mark] = _range_expression(*bounded)
            return {"const": mark}
        marked = dict(schema)
        if isinstance(schema.get("properties"), Mapping):
            marked["properties"] = {key: self._marked(value) for key, value in schema["properties"].items()}
        if isinstance(schema.get("items"), Mapping):
            marked["items"] = self._marked(schema["items"])
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                marked[key] = [self._marked(option) for option in schema[key]]
        return marked


def _visit(converter: Any, schema: Mapping[str, Any], name: str) -> str:
    """The converter's rule name for ``schema`` (a generic JSON object when it cannot convert it)."""
    try:
        resolved = converter.resolve_refs(dict(schema), name)
        return str(converter.visit(resolved, name))
    except Exception:  # the converter raises assorted errors on schema features it lacks
        return str(converter.visit({"type": "object"}, f"{name}-any"))


_XML_TEXT = {
    "string": "call-text",
    "integer": "call-int",
    "number": "call-number",
    "boolean": "call-bool",
}
_XML_PRIMITIVES = [
    # No blank lines and no newline at either end: a small model otherwise pads a value with
    # newlines forever; multi-line text still fits.
    'call-text ::= [^<\\n] ([^<\\n] | "\\n" [^<\\n])*',
    'call-int ::= "-"? [0-9]+',
    'call-number ::= "-"? [0-9]+ ("." [0-9]+)?',
    'call-bool ::= "true" | "false"',
]


def _xml_value_rule(converter: Any, schema: Mapping[str, Any], name: str) -> str:
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return "(" + " | ".join(gbnf_literal(v if isinstance(v, str) else json.dumps(v)) for v in enum) + ")"
    declared = schema.get("type")
    if isinstance(declared, str) and declared in _XML_TEXT:
        return _XML_TEXT[declared]
    if declared in ("object", "array"):
        return _visit(converter, schema, name)
    return "call-text"
