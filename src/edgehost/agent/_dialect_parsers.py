"""How a call body is read, one function per body shape (the Dialect objects in _dialects pick theirs).

Every reader takes the text between a call's opening and closing marker and returns the calls in it
as (name, arguments as written), or raises MalformedCall saying what was expected.
"""

from __future__ import annotations

import ast
import html
import re
from typing import Any

from edgehost.agent.arguments import MalformedJSON, arguments_object, load_json_lenient

__all__ = [
    "JsonScanner",
    "MalformedCall",
    "call_from_object",
    "calls_from_value",
    "json_value_is_complete",
    "parse_json_value",
    "parse_llama_function",
    "parse_pythonic",
    "parse_qwen_xml",
    "parse_xml_args",
    "qwen_xml_is_complete",
    "xml_args_head",
    "xml_value",
]

Call = tuple[str, dict[str, Any]]


class MalformedCall(ValueError):
    """A call body that names no tool or whose arguments cannot be read."""


_XML_ARGS_OPEN = re.compile(r"""\s*name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>/]+))\s*>""")
_XML_ARGUMENT = re.compile(
    r"""<argument\s+name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))\s*>(.*?)</argument\s*>""", re.DOTALL
)
_QWEN_FUNCTION = re.compile(r"\s*<function\s*=\s*([^>\s]+)\s*>")
_QWEN_PARAMETER = re.compile(r"<parameter\s*=\s*([^>\s]+)\s*>(.*?)</parameter\s*>", re.DOTALL)
_LLAMA_FUNCTION = re.compile(r"\s*([A-Za-z_][\w.\-]*)\s*>")


def parse_json_value(body: str) -> Any:
    """The first JSON value in ``body``, repaired where the lenient parser can. Raises MalformedCall."""
    try:
        return load_json_lenient(_first_json_value(body))
    except MalformedJSON as exc:
        raise MalformedCall(str(exc)) from exc


def calls_from_value(value: Any) -> list[Call]:
    """The calls in a decoded call body: an object ``{"name", "arguments"}`` (or "parameters", or the
    OpenAI ``{"function": {...}}`` shape) or an array of them. Raises MalformedCall."""
    items = value if isinstance(value, list) else [value]
    if not items:
        raise MalformedCall("the call list is empty")
    return [call_from_object(item) for item in items]


def json_value_is_complete(body: str, start: int = 0) -> bool:
    """Whether the JSON value from ``start`` closes (and a fenced one's fence closes after it)."""
    end = JsonScanner().feed(body, start)
    if end is None:
        return False
    return "```" in body[end:] if body.lstrip().startswith("```") else True


def _first_json_value(body: str) -> str:
    """``body`` up to the end of its first JSON value: what follows it (a drifted closing marker such
    as [/TOOL_CALL], or one cut off) is not part of the call. The whole body when the value does not
    close (the lenient parser may still repair it)."""
    fenced = body.lstrip().startswith("```")
    end = None if fenced else JsonScanner().feed(body, 0)
    return body[:end] if end is not None else body


def call_from_object(item: Any) -> Call:
    """One call from a decoded JSON object. Raises MalformedCall."""
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


def xml_args_head(body: str) -> re.Match[str] | None:
    """The ``name="TOOL">`` that starts an xml-args body, or None."""
    return _XML_ARGS_OPEN.match(body)


def parse_xml_args(body: str) -> Call:
    """``<tool_call name="TOOL"><argument name="KEY">VALUE</argument>...``; values are XML text."""
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
        arguments[key] = html.unescape(xml_value(match.group(4)))  # it is XML: &amp; is &
    return name, arguments


def parse_qwen_xml(body: str) -> Call:
    """Qwen3-Coder's ``<function=TOOL><parameter=KEY>\\nVALUE\\n</parameter></function>``; values are text."""
    function = _QWEN_FUNCTION.match(body)
    if function is None:
        raise MalformedCall("expected <function=TOOL> followed by <parameter=KEY>VALUE</parameter>")
    arguments = {match.group(1): xml_value(match.group(2)) for match in _QWEN_PARAMETER.finditer(body)}
    return function.group(1), arguments


def qwen_xml_is_complete(body: str) -> bool:
    """Whether a qwen-xml body got as far as its ``</function>``."""
    return re.search(r"</function\s*>", body) is not None


def parse_llama_function(body: str) -> Call:
    """Llama 3.1's custom tool format: ``<function=NAME>{JSON arguments}</function>``."""
    head = _LLAMA_FUNCTION.match(body)
    if head is None:
        raise MalformedCall("expected <function=TOOL>{arguments as JSON}</function>")
    try:
        return head.group(1), arguments_object(body[head.end() :].strip() or None)
    except MalformedJSON as exc:
        raise MalformedCall(f"arguments of {head.group(1)!r}: {exc}") from exc


def parse_pythonic(body: str) -> list[Call]:
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


def xml_value(text: str) -> str:
    """An xml dialect's value: the text, without the one newline the format puts on each side."""
    if text.startswith("\n"):
        text = text[1:]
    if text.endswith("\n"):
        text = text[:-1]
    return text


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
