"""The tool-call dialects: one Dialect object per format, all registered in DIALECTS.

A dialect is the text a model writes to call a tool. Its Dialect object holds all that differs per
format: its markers (and the closers small models write instead), what a call body starts with,
how a body is read, the one example a prompt shows, where a call's arguments begin, and its part of
a GBNF grammar. The detector (agent.detector) and the grammars (agent.grammar) ask the object; the
string names ("bracket", "hermes", ...) stay the public identifiers (settings, capabilities, CLI).
"""

from __future__ import annotations

import enum
import json
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from edgehost.agent._dialect_parsers import (
    Call,
    JsonScanner,
    MalformedCall,
    call_from_object,
    calls_from_value,
    json_value_is_complete,
    parse_json_value,
    parse_llama_function,
    parse_pythonic,
    parse_qwen_xml,
    parse_xml_args,
    qwen_xml_is_complete,
    xml_args_head,
)

__all__ = [
    "ACCEPTED_ONLY",
    "ALL_DIALECTS",
    "DIALECTS",
    "DRIFTED_CLOSERS",
    "JSON_DIALECTS",
    "PROMPT_DIALECTS",
    "WAIT",
    "Dialect",
    "DialectMarkers",
    "GrammarParts",
    "JsonScanner",
    "MalformedCall",
    "ReplyStart",
    "body_is_complete",
    "call_prefix",
    "closing_marker",
    "dialect",
    "dialect_example",
    "opening_marker",
    "parse_body",
    "stop_sequences",
]

# Dialect.match_head: the text so far may still become a head; wait for more.
WAIT = -1
_WHITESPACE = " \t\r\n"
# A reply-wide object whose first characters have not shown it is a call by then is prose.
_MAX_HEAD = 64
_ARGUMENT_SENTINEL = "EDGEHOST_ARGUMENT"


class ReplyStart(enum.Enum):
    """What the first non-space character of a reply means to a reply-wide (marker-less) dialect."""

    NO = "no"  # not this dialect's call
    WAIT = "wait"  # too early to tell
    HOLD = "hold"  # hold the reply back until its value closes: it may be a call
    STARTED = "started"  # a call has started (held back likewise)


class GrammarParts(Protocol):
    """What a dialect's grammar needs from the grammar builder (agent.grammar)."""

    def literal(self, text: str) -> str:
        """``text`` as a quoted GBNF literal."""

    def json_value(self, schema: Mapping[str, Any], name: str) -> str:
        """The rule for a JSON value that follows ``schema`` (``name`` names the rules it adds)."""

    def text_value(self, schema: Mapping[str, Any], name: str) -> str:
        """The rule for a value written as text (the xml dialects) that follows ``schema``."""


@dataclass(frozen=True, kw_only=True)
class Dialect:
    """One tool-call format. Subclasses hold the behaviour of each body shape; DIALECTS the instances.

    ``opening``: the text after which the call body starts (a grammar continues from there; "" for
    a reply-wide dialect); ``closing``: the text that ends the call ("" when the call ends with its
    JSON value); ``drifted_closers``: closers small models write instead of ``closing``;
    ``body_starts``: what a body starts with, after ``opening`` and any whitespace (anything else
    there makes the marker prose); ``json_body``: the body is one JSON value; ``accepted_only``:
    read from models but never prompted (no example, no grammar); ``reply_wide``: no markers, a
    whole reply is the call.
    """

    name: str
    opening: str
    closing: str
    body_starts: tuple[str, ...] = ()
    drifted_closers: tuple[str, ...] = ()
    json_body: bool = False
    accepted_only: bool = False
    reply_wide: bool = False
    # A reply-wide call that looked like one from its first characters but cannot be read is
    # reported malformed (True) or shown as prose (False).
    malformed_reply_is_call: bool = False

    # -- markers ------------------------------------------------------------------------------

    @property
    def stop_sequences(self) -> list[str]:
        """Strings at which a backend may stop generating: the call is complete there."""
        return [self.closing] if self.closing else []

    @property
    def trigger_texts(self) -> tuple[str, ...]:
        """The literals that open a call in streamed text (the opening marker; none when reply-wide)."""
        return (self.opening,) if self.opening else ()

    def match_head(self, text: str, at: int, final: bool) -> int | None:
        """Where a call head written right after the opening marker (at ``at``) ends, for formats
        whose call starts with more than a body start (mistral's ``name[ARGS]``); WAIT while
        ``text`` may still become one; None when there is none."""
        return None

    # -- reading a call -----------------------------------------------------------------------

    def parse(self, body: str) -> list[Call]:
        """The calls (name, arguments as written) in one call body. Raises MalformedCall."""
        return calls_from_value(parse_json_value(body))

    def is_complete(self, body: str) -> bool:
        """Whether a body that lost its closing marker (a stop sequence ate it) still holds a whole call."""
        return json_value_is_complete(body)

    def reply_start(self, text: str, at: int, final: bool) -> ReplyStart:
        """For a reply-wide dialect: what the reply's first non-space character (at ``at``) means."""
        return ReplyStart.NO

    def reply_head_is_call(self, head: str) -> bool | None:
        """For a held-back reply (ReplyStart.HOLD): True once ``head`` shows it is a call, False once
        it can no longer show it, None while undecided."""
        return False

    # -- writing a call (prompts and grammars) ------------------------------------------------

    def example(self, name: str, arguments: Mapping[str, Any]) -> str:
        """The exact text of one call, as a prompt shows it to the model. Raises ValueError when
        the dialect is accepted-only."""
        raise ValueError(f"the {self.name} dialect is accepted from models, never prompted")

    def call_prefix(self, name: str) -> str:
        """The start of a call to ``name``, up to where its arguments begin."""
        example = self.example(name, {_ARGUMENT_SENTINEL: 0})
        at = example.index(_ARGUMENT_SENTINEL)
        return example[: example.rfind(self._arguments_open, 0, at)]

    @property
    def _arguments_open(self) -> str:
        """The character that opens the arguments in an example (a JSON object's ``{``)."""
        return "{"

    def grammar_call(
        self, rule: str, number: int, tool_name: str, schema: dict[str, Any], parts: GrammarParts
    ) -> list[str]:
        """The GBNF rules for ``rule``: one call to ``tool_name`` (the ``number``-th tool) with
        arguments that follow ``schema``, as it follows the opening marker."""
        raise ValueError(
            f"the {self.name} dialect is accepted from models, never prompted: it has no grammar"
        )

    def grammar_rest(self, parts: GrammarParts) -> str:
        """The GBNF for what follows the opening marker, given the rule ``call-any`` (one call to any
        of the tools) and ``call-ws`` (an optional space or newline)."""
        raise ValueError(
            f"the {self.name} dialect is accepted from models, never prompted: it has no grammar"
        )


_JSON_STARTS = ("{", "`")


@dataclass(frozen=True, kw_only=True)
class JsonDialect(Dialect):
    """A body that is one JSON call object between markers: ``{"name": ..., "arguments": {...}}``.

    ``example_format`` is the example with ``{call}`` where the call object goes.
    """

    body_starts: tuple[str, ...] = _JSON_STARTS
    json_body: bool = True
    example_format: str = "{call}"
    arguments_key: str = "arguments"

    def example(self, name: str, arguments: Mapping[str, Any]) -> str:
        call = json.dumps({"name": name, self.arguments_key: dict(arguments)}, ensure_ascii=False)
        return self.example_format.replace("{call}", call)

    def grammar_call(
        self, rule: str, number: int, tool_name: str, schema: dict[str, Any], parts: GrammarParts
    ) -> list[str]:
        arguments = parts.json_value(schema, f"tool{number}-args")
        name, key = parts.literal(json.dumps(tool_name)), parts.literal(json.dumps(self.arguments_key))
        return [
            f'{rule} ::= "{{" space {parts.literal(json.dumps("name"))} space ":" space {name} space "," '
            f'space {key} space ":" space {arguments} "}}"'
        ]

    def grammar_rest(self, parts: GrammarParts) -> str:
        return f"call-ws call-any call-ws {parts.literal(self.closing)}"


def _prefix_pattern(literal: str) -> str:
    """A pattern matching any prefix of ``literal``, "" included."""
    pattern = ""
    for char in reversed(literal):
        pattern = f"(?:{re.escape(char)}{pattern})?"
    return pattern


# Newer Mistral templates write one call as [TOOL_CALLS]name[ARGS]{...} (Ministral 3, Devstral),
# Mistral Small 3.2's as [TOOL_CALLS]name[CALL_ID]id[ARGS]{...}.
_MISTRAL_NAME = r"[A-Za-z_][\w.\-]{0,63}"
_MISTRAL_CALL_ID = r"\[CALL_ID\][\w\-]{0,64}"
_MISTRAL_NAMED = re.compile(rf"\s*({_MISTRAL_NAME})(?:{_MISTRAL_CALL_ID})?\[ARGS\]")
_MISTRAL_HEAD = re.compile(rf"{_MISTRAL_NAME}(?:{_MISTRAL_CALL_ID})?\[ARGS\]")
_MISTRAL_HEAD_PREFIX = re.compile(
    rf"{_MISTRAL_NAME}(?:{_MISTRAL_CALL_ID}{_prefix_pattern('[ARGS]')}|{_prefix_pattern('[CALL_ID]')}|{_prefix_pattern('[ARGS]')})"
)


@dataclass(frozen=True, kw_only=True)
class MistralDialect(JsonDialect):
    """``[TOOL_CALLS][{call}, ...]``: an array of call objects, ended by the array's end; or one call
    written ``[TOOL_CALLS]name[ARGS]{arguments}`` or ``[TOOL_CALLS]name[CALL_ID]id[ARGS]{arguments}``
    (newer Mistral templates; the call id is not kept)."""

    body_starts: tuple[str, ...] = ("[", "{")
    example_format: str = "[TOOL_CALLS][{call}]"

    def match_head(self, text: str, at: int, final: bool) -> int | None:
        named = _MISTRAL_HEAD.match(text, at)
        if named is not None:
            return named.end()
        if not final and _MISTRAL_HEAD_PREFIX.fullmatch(text, at):
            return WAIT
        return None

    def parse(self, body: str) -> list[Call]:
        named = _MISTRAL_NAMED.match(body)
        if named is not None:
            return [call_from_object({"name": named.group(1), "arguments": body[named.end() :]})]
        return super().parse(body)

    def is_complete(self, body: str) -> bool:
        named = _MISTRAL_NAMED.match(body)
        return json_value_is_complete(body, named.end() if named else 0)

    def grammar_rest(self, parts: GrammarParts) -> str:
        return 'call-ws "[" call-any ("," space call-any)* "]"'


_BARE_CALL_HEAD = re.compile(r"""\{\s*["'](?:name|type)["']\s*:""")


@dataclass(frozen=True, kw_only=True)
class BareJsonDialect(JsonDialect):
    """A whole reply that is one call object, ``{"name": ..., "parameters": {...}}`` (Llama 3.x's
    JSON tool calls): held back until the object closes, a call only when nothing follows it."""

    body_starts: tuple[str, ...] = ()
    arguments_key: str = "parameters"
    reply_wide: bool = True

    def parse(self, body: str) -> list[Call]:
        value = parse_json_value(body)
        if not (isinstance(value, dict) and ({"arguments", "parameters", "function"} & value.keys())):
            # Without markers only the full shape makes a call: {"name": "Ada", "born": 1815} is an answer.
            raise MalformedCall('a reply-wide call needs "name" and "arguments" or "parameters"')
        return calls_from_value(value)

    def reply_start(self, text: str, at: int, final: bool) -> ReplyStart:
        return ReplyStart.HOLD if text.startswith("{", at) else ReplyStart.NO

    def reply_head_is_call(self, head: str) -> bool | None:
        if _BARE_CALL_HEAD.match(head):
            return True
        return False if len(head) > _MAX_HEAD else None

    def grammar_rest(self, parts: GrammarParts) -> str:
        return "call-any"


def _xml_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True, kw_only=True)
class XmlArgsDialect(Dialect):
    """``<tool_call name="TOOL"><argument name="KEY">VALUE</argument></tool_call>``: text values."""

    body_starts: tuple[str, ...] = ("name",)

    @property
    def trigger_texts(self) -> tuple[str, ...]:
        # It opens with an attribute: the tag name and whitespace, not a closed tag.
        return tuple(self.opening + space for space in _WHITESPACE)

    def parse(self, body: str) -> list[Call]:
        return [parse_xml_args(body)]

    def is_complete(self, body: str) -> bool:
        stripped = body.rstrip()
        opening = xml_args_head(body)
        return opening is not None and (stripped.endswith("</argument>") or opening.end() >= len(stripped))

    def example(self, name: str, arguments: Mapping[str, Any]) -> str:
        inner = "".join(
            f'<argument name="{key}">{_xml_text(value)}</argument>' for key, value in arguments.items()
        )
        return f'<tool_call name="{name}">{inner}</tool_call>'

    @property
    def _arguments_open(self) -> str:
        return "<"

    def grammar_call(
        self, rule: str, number: int, tool_name: str, schema: dict[str, Any], parts: GrammarParts
    ) -> list[str]:
        return [_xml_call_rule(rule, f'{tool_name}">', schema, parts, self._argument_element)]

    @staticmethod
    def _argument_element(key: str, value: str, parts: GrammarParts) -> str:
        return f'{parts.literal(f"<argument name={chr(34)}{key}{chr(34)}>")} {value} "</argument>"'

    def grammar_rest(self, parts: GrammarParts) -> str:
        return f'" name=" {parts.literal(chr(34))} call-any {parts.literal(self.closing)}'


@dataclass(frozen=True, kw_only=True)
class QwenXmlDialect(Dialect):
    """Qwen3-Coder's ``<tool_call>\\n<function=TOOL>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n
    </function>\\n</tool_call>``: text values."""

    body_starts: tuple[str, ...] = ("<function",)

    def parse(self, body: str) -> list[Call]:
        return [parse_qwen_xml(body)]

    def is_complete(self, body: str) -> bool:
        return qwen_xml_is_complete(body)

    def example(self, name: str, arguments: Mapping[str, Any]) -> str:
        params = "".join(
            f"<parameter={key}>\n{_xml_text(value)}\n</parameter>\n" for key, value in arguments.items()
        )
        return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"

    @property
    def _arguments_open(self) -> str:
        return "<"

    def grammar_call(
        self, rule: str, number: int, tool_name: str, schema: dict[str, Any], parts: GrammarParts
    ) -> list[str]:
        return [_xml_call_rule(rule, f"{tool_name}>\n", schema, parts, self._parameter_element)]

    @staticmethod
    def _parameter_element(key: str, value: str, parts: GrammarParts) -> str:
        return f"{parts.literal(f'<parameter={key}>{chr(10)}')} {value} {parts.literal(chr(10) + '</parameter>' + chr(10))}"

    def grammar_rest(self, parts: GrammarParts) -> str:
        return f'call-ws "<function=" call-any "</function>" call-ws {parts.literal(self.closing)}'


def _xml_call_rule(
    rule: str,
    head: str,
    schema: dict[str, Any],
    parts: GrammarParts,
    element: Callable[[str, str, GrammarParts], str],
) -> str:
    """One xml call: ``head`` (the tool's name and what closes its tag), then one element per
    property of ``schema`` in order, the required ones required."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    pieces: list[str] = []
    for position, (key, subschema) in enumerate(properties.items()):
        value = parts.text_value(subschema if isinstance(subschema, Mapping) else {}, f"{rule}-p{position}")
        piece = element(key, value, parts)
        pieces.append(f"({piece})" if key in required else f"({piece})?")
    return f"{rule} ::= {parts.literal(head)} {' '.join(pieces)}".rstrip()


@dataclass(frozen=True, kw_only=True)
class LlamaFunctionDialect(Dialect):
    """Llama 3.1 custom tools: ``<function=NAME>{"arg": 1}</function>`` (accepted, never prompted)."""

    body_starts: tuple[str, ...] = tuple(string.ascii_letters + "_")  # <function=NAME>
    accepted_only: bool = True

    def parse(self, body: str) -> list[Call]:
        return [parse_llama_function(body)]

    def is_complete(self, body: str) -> bool:
        return super().is_complete(body) if body.lstrip().startswith("{") else _parses(self, body)


@dataclass(frozen=True, kw_only=True)
class PythonTagDialect(Dialect):
    """Llama 3.x after ``<|python_tag|>``: a built-in call (``brave_search.call(query="...")``), a
    pythonic list, or a JSON call, ended by ``<|eom_id|>`` (or the end of the reply, where
    ``<|eot_id|>`` stops it). Accepted, never prompted."""

    body_starts: tuple[str, ...] = ("{", "[", *string.ascii_letters)
    accepted_only: bool = True

    def parse(self, body: str) -> list[Call]:
        if body.lstrip().startswith("{"):
            return super().parse(body)
        text = body.strip()
        calls = parse_pythonic(text if text.startswith("[") else f"[{text}]")
        # A built-in tool is called as `brave_search.call(...)`: the tool is brave_search.
        return [(name.removesuffix(".call"), arguments) for name, arguments in calls]

    def is_complete(self, body: str) -> bool:
        return super().is_complete(body) if body.lstrip().startswith("{") else _parses(self, body)


# A reply that starts as a list of calls: [get_weather(city="Paris"), ...]
_PYTHONIC_HEAD = re.compile(r"\[\s*[A-Za-z_][\w.]*\(")
_PYTHONIC_HEAD_PREFIX = re.compile(r"\[\s*(?:[A-Za-z_][\w.]*)?")


@dataclass(frozen=True, kw_only=True)
class PythonicDialect(Dialect):
    """Llama 3.2 pythonic: a reply that is a list of calls, ``[get_weather(city="Paris"), ...]``.
    Accepted, never prompted."""

    accepted_only: bool = True
    reply_wide: bool = True
    malformed_reply_is_call: bool = True  # it looked like calls from its first characters

    def parse(self, body: str) -> list[Call]:
        return parse_pythonic(body)

    def reply_start(self, text: str, at: int, final: bool) -> ReplyStart:
        if not text.startswith("[", at):
            return ReplyStart.NO
        if _PYTHONIC_HEAD.match(text, at) is not None:
            return ReplyStart.STARTED
        if not final and _PYTHONIC_HEAD_PREFIX.fullmatch(text, at):
            return ReplyStart.WAIT  # "[get_wea": too early to tell a list of calls from prose
        return ReplyStart.NO


def _parses(dialect: Dialect, body: str) -> bool:
    try:
        dialect.parse(body)
    except MalformedCall:
        return False
    return True


def _register(*dialects: Dialect) -> Mapping[str, Dialect]:
    return {d.name: d for d in dialects}


DIALECTS: Mapping[str, Dialect] = _register(
    JsonDialect(
        name="bracket",
        opening="[TOOL_CALL]",
        closing="[END_TOOL_CALL]",
        # Closing markers small models write instead of ours.
        drifted_closers=("[/TOOL_CALL]", "</TOOL_CALL>"),
        example_format="[TOOL_CALL]{call}[END_TOOL_CALL]",
    ),
    XmlArgsDialect(name="xml-args", opening="<tool_call", closing="</tool_call>"),
    # Qwen2.5 / Qwen3 / Hermes: <tool_call>\n{json}\n</tool_call>
    JsonDialect(
        name="hermes",
        opening="<tool_call>",
        closing="</tool_call>",
        example_format="<tool_call>\n{call}\n</tool_call>",
    ),
    QwenXmlDialect(name="qwen-xml", opening="<tool_call>", closing="</tool_call>"),
    JsonDialect(
        name="tool-request",
        opening="[TOOL_REQUEST]",
        closing="[END_TOOL_REQUEST]",
        drifted_closers=("[/TOOL_REQUEST]", "</TOOL_REQUEST>"),
        example_format="[TOOL_REQUEST]{call}[END_TOOL_REQUEST]",
    ),
    MistralDialect(name="mistral", opening="[TOOL_CALLS]", closing=""),
    BareJsonDialect(name="bare-json", opening="", closing=""),
    # Accepted, never prompted: formats small models emit from their own training.
    LlamaFunctionDialect(name="llama-function", opening="<function=", closing="</function>"),
    PythonTagDialect(name="python-tag", opening="<|python_tag|>", closing="<|eom_id|>"),
    PythonicDialect(name="pythonic", opening="", closing=""),
)
# The former name of the marker pair: every Dialect has .opening and .closing.
DialectMarkers = Dialect

ALL_DIALECTS: tuple[str, ...] = tuple(DIALECTS)
DRIFTED_CLOSERS: Mapping[str, tuple[str, ...]] = {
    d.name: d.drifted_closers for d in DIALECTS.values() if d.drifted_closers
}
# Dialects whose body is one JSON value (object, or array for mistral).
JSON_DIALECTS = frozenset(d.name for d in DIALECTS.values() if d.json_body)
# Dialects the detector accepts but a prompt never asks for (no example, no grammar).
ACCEPTED_ONLY = frozenset(d.name for d in DIALECTS.values() if d.accepted_only)
# The dialects a prompt can ask for: each has an example and a grammar.
PROMPT_DIALECTS: tuple[str, ...] = tuple(d.name for d in DIALECTS.values() if not d.accepted_only)


def dialect(name: str) -> Dialect:
    """The Dialect called ``name``. Raises ValueError for an unknown name."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise ValueError(f"unknown tool-call dialect {name!r}; known: {', '.join(DIALECTS)}") from None


def opening_marker(name: str) -> str:
    """The text that opens a call in dialect ``name`` ("" for bare-json). Raises ValueError for an unknown dialect."""
    return dialect(name).opening


def closing_marker(name: str) -> str:
    """The text that closes a call in dialect ``name`` ("" when none). Raises ValueError for an unknown dialect."""
    return dialect(name).closing


def stop_sequences(name: str) -> list[str]:
    """Strings at which a backend may stop generating: the call is complete there. Raises ValueError."""
    return dialect(name).stop_sequences


def dialect_example(name: str, tool: str, arguments: Mapping[str, Any]) -> str:
    """The exact text of one call to ``tool`` in dialect ``name``, as a prompt shows it to the model.

    Raises ValueError for an unknown or accepted-only dialect.
    """
    return dialect(name).example(tool, arguments)


def call_prefix(name: str, tool: str) -> str:
    """The start of a call to ``tool`` in dialect ``name``, up to where its arguments begin
    (``[TOOL_CALL]{"name": "x", "arguments": ``). Raises ValueError for an unknown dialect."""
    return dialect(name).call_prefix(tool)


def parse_body(name: str, body: str) -> list[Call]:
    """The calls (name, arguments as written) in one call body of dialect ``name``.

    ``body`` is the text between the opening and the closing marker. Raises MalformedCall.
    """
    return dialect(name).parse(body)


def body_is_complete(name: str, body: str) -> bool:
    """Whether a body that lost its closing marker (a stop sequence ate it) still holds a whole call."""
    return dialect(name).is_complete(body)
