"""The tool-call dialects: their markers, how a call body is read, and the one example a prompt shows."""

from __future__ import annotations

import ast
import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from edgehost.agent.arguments import MalformedJSON, arguments_object, load_json_lenient

__all__ = [
    "ACCEPTED_ONLY",
    "ALL_DIALECTS",
    "DIALECTS",
    "DRIFTED_CLOSERS",
    "JSON_DIALECTS",
    "DialectMarkers",
    "JsonScanner",
    "MalformedCall",
    "PROMPT_DIALECTS",
    "body_is_complete",
    "call_prefix",
    "closing_marker",
    "dialect_example",
    "opening_marker",
    "parse_body",
    "stop_sequences",
]


@dataclass(frozen=True)
class DialectMarkers:
    """``opening``: the text after which the call body starts (a grammar continues from there);
    ``closing``: the text that ends the call ("" when the call ends with its JSON value)."""

    opening: str
    closing: str


DIALECTS: Mapping[str, DialectMarkers] = {
    "bracket": DialectMarkers("[TOOL_CALL]", "[END_TOOL_CALL]"),
    "xml-args": DialectMarkers("<tool_call", "</tool_call>"),
    "hermes": DialectMarkers("<tool_call>", "</tool_call>"),
    "qwen-xml": DialectMarkers("<tool_call>", "</tool_call>"),
    "tool-request": DialectMarkers("[TOOL_REQUEST]", "[END_TOOL_REQUEST]"),
    "mistral": DialectMarkers("[TOOL_CALLS]", ""),
    "bare-json": DialectMarkers("", ""),
    # Accepted, never prompted: formats small models emit from their own training.
    # Llama 3.1 custom tools: <function=name>{"arg": 1}</function>
    "llama-function": DialectMarkers("<function=", "</function>"),
    # Llama 3.x after <|python_tag|>: a built-in call (brave_search.call(query="...")), a pythonic
    # list, or a JSON call, ended by <|eom_id|> (or the end of the reply, where <|eot_id|> stops it)
    "python-tag": DialectMarkers("<|python_tag|>", "<|eom_id|>"),
    # Llama 3.2 pythonic: a reply that is a list of calls, [get_weather(city="Paris"), ...]
    "pythonic": DialectMarkers("", ""),
}
# Closing markers small models write instead of ours: [/TOOL_CALL], </TOOL_CALL>.
DRIFTED_CLOSERS: Mapping[str, tuple[str, ...]] = {
    "bracket": ("[/TOOL_CALL]", "</TOOL_CALL>"),
    "tool-request": ("[/TOOL_REQUEST]", "</TOOL_REQUEST>"),
}
ALL_DIALECTS: tuple[str, ...] = tuple(DIALECTS)
# Dialects whose body is one JSON value (object, or array for mistral).
JSON_DIALECTS = frozenset({"bracket", "hermes", "tool-request", "mistral", "bare-json"})
# Dialects the detector accepts but a prompt never asks for (no example, no grammar).
ACCEPTED_ONLY = frozenset({"llama-function", "python-tag", "pythonic"})
# The dialects a prompt can ask for: each has an example and a grammar.
PROMPT_DIALECTS: tuple[str, ...] = tuple(d for d in DIALECTS if d not in ACCEPTED_ONLY)


class MalformedCall(ValueError):
    """A call body that names no tool or whose arguments cannot be read."""


def _known(dialect: str) -> DialectMarkers:
    try:
        return DIALECTS[dialect]
    except KeyError:
        raise ValueError(f"unknown tool-call dialect {dialect!r}; known: {', '.join(DIALECTS)}") from None


def opening_marker(dialect: str) -> str:
    """The text that opens a call in ``dialect`` ("" for bare-json). Raises ValueError for an unknown dialect."""
    return _known(dialect).opening


def closing_marker(dialect: str) -> str:
    """The text that closes a call in ``dialect`` ("" when none). Raises ValueError for an unknown dialect."""
    return _known(dialect).closing


def stop_sequences(dialect: str) -> list[str]:
    """Strings at which a backend may stop generating: the call is complete there. Raises ValueError."""
    closing = closing_marker(dialect)
    return [closing] if closing else []


def dialect_example(dialect: str, name: str, arguments: Mapping[str, Any]) -> str:
    """The exact text of one call in ``dialect``, as a prompt shows it to the model.

    Raises ValueError for an unknown dialect.
    """
    _known(dialect)
    if dialect in ACCEPTED_ONLY:
        raise ValueError(f"the {dialect} dialect is accepted from models, never prompted")
    call = json.dumps({"name": name, "arguments": dict(arguments)}, ensure_ascii=False)
    if dialect == "bracket":
        return f"[TOOL_CALL]{call}[END_TOOL_CALL]"
    if dialect == "hermes":
        return f"<tool_call>\n{call}\n</tool_call>"
    if dialect == "tool-request":
        return f"[TOOL_REQUEST]{call}[END_TOOL_REQUEST]"
    if dialect == "mistral":
        return f"[TOOL_CALLS][{call}]"
    if dialect == "bare-json":
        return json.dumps({"name": name, "parameters": dict(arguments)}, ensure_ascii=False)
    if dialect == "xml-args":
        inner = "".join(
            f'<argument name="{key}">{_xml_text(value)}</argument>' for key, value in arguments.items()
        )
        return f'<tool_call name="{name}">{inner}</tool_call>'
    params = "".join(
        f"<parameter={key}>\n{_xml_text(value)}\n</parameter>\n" for key, value in arguments.items()
    )
    return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"


_ARGUMENT_SENTINEL = "EDGEHOST_ARGUMENT"


def call_prefix(dialect: str, name: str) -> str:
    """The start of a call to ``name`` in ``dialect``, up to where its arguments begin
    (``[TOOL_CALL]{"name": "x", "arguments": ``). Raises ValueError for an unknown dialect."""
    example = dialect_example(dialect, name, {_ARGUMENT_SENTINEL: 0})
    at = example.index(_ARGUMENT_SENTINEL)
    return example[: example.rfind("<" if dialect in ("xml-args", "qwen-xml") else "{", 0, at)]


def _xml_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


_XML_ARGS_OPEN = re.compile(r"""\s*name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>/]+))\s*>""")
_XML_ARGUMENT = re.compile(
    r"""<argument\s+name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))\s*>(.*?)</argument\s*>""", re.DOTALL
)
_MISTRAL_NAMED = re.compile(r"\s*([A-Za-z_][\w.\-]*)\[ARGS\]")
_QWEN_FUNCTION = re.compile(r"\s*<function\s*=\s*([^>\s]+)\s*>")
_QWEN_PARAMETER = re.compile(r"<parameter\s*=\s*([^>\s]+)\s*>(.*?)</parameter\s*>", re.DOTALL)


def parse_body(dialect: str, body: str) -> list[tuple[str, dict[str, Any]]]:
    """The calls (name, arguments as written) in one call body of ``dialect``.

    ``body`` is the text between the opening and the closing marker. Raises MalformedCall.
    """
    if dialect == "xml-args":
        return [_parse_xml_args(body)]
    if dialect == "qwen-xml":
        return [_parse_qwen_xml(body)]
    if dialect == "llama-function":
        return [_parse_llama_function(body)]
    if dialect == "pythonic":
        return _parse_pythonic(body)
    if dialect == "python-tag" and not body.lstrip().startswith("{"):
        text = body.strip()
        return _parse_pythonic(text if text.startswith("[") else f"[{text}]")
    if dialect == "mistral":
        named = _MISTRAL_NAMED.match(body)
        if named is not None:
            return [_call_from_object({"name": named.group(1), "arguments": body[named.end() :]})]
    try:
        value = load_json_lenient(_first_json_value(body))
    except MalformedJSON as exc:
        raise MalformedCall(str(exc)) from exc
    items = value if isinstance(value, list) else [value]
    if not items:
        raise MalformedCall("the call list is empty")
    if dialect == "bare-json" and not (
        isinstance(value, dict) and ({"arguments", "parameters", "function"} & value.keys())
    ):
        # Without markers only the full shape makes a call: {"name": "Ada", "born": 1815} is an answer.
        raise MalformedCall('a reply-wide call needs "name" and "arguments" or "parameters"')
    return [_call_from_object(item) for item in items]


def _first_json_value(body: str) -> str:
    """``body`` up to the end of its first JSON value: what follows it (a drifted closing marker such
    as [/TOOL_CALL], or one cut off) is not part of the call. The whole body when the value does not
    close (the lenient parser may still repair it)."""
    fenced = body.lstrip().startswith("```")
    end = None if fenced else JsonScanner().feed(body, 0)
    return body[:end] if end is not None else body


def _call_from_object(item: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(item, dict):
        raise MalformedCall(
            f'a call must be a JSON object with "name" and "arguments", got {type(item).__name__}'
        )
    if isinstance(item.get("function"), dict):  # OpenAI shape: {"type": "function", "function": {...}}
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise MalformedCall('the call has no "name" (expected {"name": ..., "arguments": {...}})')
    raw_arguments = item.get("arguments", item.get("parameters"))
    try:
        return name.strip(), arguments_object(raw_arguments)
    except MalformedJSON as exc:
        raise MalformedCall(f"arguments of {name!r}: {exc}") from exc


def _parse_xml_args(body: str) -> tuple[str, dict[str, Any]]:
    opening = _XML_ARGS_OPEN.match(body)
    if opening is None:
        raise MalformedCall(
            'expected <tool_call name="TOOL"> followed by <argument name="KEY">VALUE</argument>'
        )
    name = html.unescape(next(group for group in opening.groups() if group is not None).strip())
    if not name:
        raise MalformedCall("the call has an empty name")
    arguments: dict[str, Any] = {}
    for match in _XML_ARGUMENT.finditer(body, opening.end()):
        key = html.unescape(next(group for group in match.groups()[:3] if group is not None))
        arguments[key] = html.unescape(_xml_value(match.group(4)))  # it is XML: &amp; is &
    return name, arguments


def _parse_qwen_xml(body: str) -> tuple[str, dict[str, Any]]:
    function = _QWEN_FUNCTION.match(body)
    if function is None:
        raise MalformedCall("expected <function=TOOL> followed by <parameter=KEY>VALUE</parameter>")
    arguments = {match.group(1): _xml_value(match.group(2)) for match in _QWEN_PARAMETER.finditer(body)}
    return function.group(1), arguments


_LLAMA_FUNCTION = re.compile(r"\s*([A-Za-z_][\w.\-]*)\s*>")


def _parse_llama_function(body: str) -> tuple[str, dict[str, Any]]:
    """Llama 3.1's custom tool format: ``<function=NAME>{JSON arguments}</function>``."""
    head = _LLAMA_FUNCTION.match(body)
    if head is None:
        raise MalformedCall("expected <function=TOOL>{arguments as JSON}</function>")
    try:
        return head.group(1), arguments_object(body[head.end() :].strip() or None)
    except MalformedJSON as exc:
        raise MalformedCall(f"arguments of {head.group(1)!r}: {exc}") from exc


def _parse_pythonic(body: str) -> list[tuple[str, dict[str, Any]]]:
    """Llama 3.2's pythonic calls: ``[get_weather(city="Paris"), other(n=1)]``. Only literal keyword
    arguments are read (``ast.literal_eval``); nothing is ever evaluated."""
    try:
        tree = ast.parse(body.strip(), mode="eval").body
    except SyntaxError as exc:
        raise MalformedCall(f"not a list of calls: {exc.msg}") from None
    if not isinstance(tree, ast.List) or not tree.elts:
        raise MalformedCall("expected [tool(name=value, ...), ...]")
    calls = []
    for node in tree.elts:
        if not isinstance(node, ast.Call):
            raise MalformedCall("each item must be a call: tool(name=value, ...)")
        name = ast.unparse(node.func)
        if node.args or any(k.arg is None for k in node.keywords):
            raise MalformedCall(f"{name}: give every argument by name (name=value)")
        try:
            arguments = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
        except ValueError:
            raise MalformedCall(f"{name}: argument values must be literals") from None
        calls.append((name, arguments))
    return calls


def _xml_value(text: str) -> str:
    """An xml dialect's value: the text, without the one newline the format puts on each side."""
    if text.startswith("\n"):
        text = text[1:]
    if text.endswith("\n"):
        text = text[:-1]
    return text


def body_is_complete(dialect: str, body: str) -> bool:
    """Whether a body that lost its closing marker (a stop sequence ate it) still holds a whole call."""
    if dialect in ("python-tag", "llama-function") and not body.lstrip().startswith("{"):
        try:
            parse_body(dialect, body)
        except MalformedCall:
            return False
        return True
    if dialect == "qwen-xml":
        return re.search(r"</function\s*>", body) is not None
    if dialect == "xml-args":
        stripped = body.rstrip()
        opening = _XML_ARGS_OPEN.match(body)
        return opening is not None and (stripped.endswith("</argument>") or opening.end() >= len(stripped))
    named = _MISTRAL_NAMED.match(body) if dialect == "mistral" else None
    end = JsonScanner().feed(body, named.end() if named else 0)
    if end is None:
        return False
    return "```" in body[end:] if body.lstrip().startswith("```") else True


_STRUCTURE = re.compile(r"""[\[\]{}"']""")
_STRING_END = {'"': re.compile(r'[\\"]'), "'": re.compile(r"[\\']")}


class JsonScanner:
    """Finds where the first JSON value in a stream ends, fed piece by piece (strings and escapes aware).

    Text before the first ``{`` or ``[`` is skipped; single-quoted strings count as strings, since
    models write Python literals.
    """

    __slots__ = ("depth", "escape", "quote")

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""
        self.escape = False

    def feed(self, text: str, start: int) -> int | None:
        """The index in ``text`` just after the value closes, or None while it is still open."""
        i = start
        n = len(text)
        if self.escape and i < n:
            self.escape = False
            i += 1
        while i < n:
            if self.quote:
                stop = _STRING_END[self.quote].search(text, i)
                if stop is None:
                    return None
                i = stop.start()
                if text[i] == "\\":
                    if i + 1 >= n:
                        self.escape = True
                        return None
                    i += 2
                else:
                    self.quote = ""
                    i += 1
                continue
            found = _STRUCTURE.search(text, i)
            if found is None:
                return None
            char = found.group()
            i = found.end()
            if char in "\"'":
                if self.depth:
                    self.quote = char
            elif char in "[{":
                self.depth += 1
            elif self.depth:
                self.depth -= 1
                if not self.depth:
                    return i
        return None
