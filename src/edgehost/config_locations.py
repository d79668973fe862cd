"""Where each key of a config file is written, and validation errors as messages that name that place.

The settings file, the board profiles and the servers file are checked by pydantic models; a
pydantic error carries a ``loc`` path (``("mcpServers", "git", "args", 2)``). This module maps such a
path to the line and column of the key in the file's text (JSON: a scan of the text; TOML: a scan of
its table headers and ``key =`` lines, since tomllib keeps no positions) and rewrites pydantic's
messages ("Input should be a valid string") into ones a user can act on ("must be a string, not 3").
The JSON scan also keeps where each value is written, which lets a file be edited in place.
"""

from __future__ import annotations

import difflib
import json
import re
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from edgehost.errors import ConfigError

__all__ = [
    "KeyLocations",
    "KeyPath",
    "Position",
    "Span",
    "config_error",
    "describe_error",
    "first_error",
    "json_locations",
    "key_path_text",
    "near_miss",
    "toml_locations",
]

KeyPath = tuple[Union[str, int], ...]


@dataclass(frozen=True)
class Position:
    line: int
    column: int


@dataclass(frozen=True)
class Span:
    """Where one value is written, as offsets into the text: ``text[value_start:end]`` is the value, and
    ``start`` is where its member starts (the key's opening quote; in an array, the value itself)."""

    start: int
    value_start: int
    end: int


@dataclass
class KeyLocations:
    """The position of every key (and array element) of one file, by key path."""

    positions: dict[KeyPath, Position] = field(default_factory=dict)
    # JSON only: key paths written more than once in their object, with the line of each occurrence.
    repeated: dict[KeyPath, list[int]] = field(default_factory=dict)
    # JSON only: where every value is written (the whole document at ``()``); for a key written more
    # than once, its last occurrence (the one json keeps).
    spans: dict[KeyPath, Span] = field(default_factory=dict, repr=False)

    def position_of(self, key_path: KeyPath) -> Position | None:
        """Where ``key_path`` is written; else where its nearest written parent is; None for neither."""
        while key_path:
            if key_path in self.positions:
                return self.positions[key_path]
            key_path = key_path[:-1]
        return None

    def line_of(self, key_path: KeyPath) -> int | None:
        position = self.position_of(key_path)
        return position.line if position else None


# --- JSON ---------------------------------------------------------------------------------------


def json_string_end(text: str, start: int) -> int:
    """Index just past the JSON string starting at ``start`` (or the end of a line if unterminated)."""
    i, n = start + 1, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"' or c == "\n":
            return i + 1
        i += 1
    return n


@dataclass
class _Frame:
    is_object: bool
    key: str | int = 0
    expecting_key: bool = True  # objects: the next string is a key
    member_start: int = 0  # offset of the current member's key (objects) or value (arrays)
    value_start: int = 0


def json_locations(text: str) -> KeyLocations:
    """Positions of every object key and array element, and the spans of every value, of a valid JSON
    text (comments blanked out)."""
    found = KeyLocations()
    root = _Frame(is_object=False)  # stands for the document, which holds one value
    stack: list[_Frame] = []
    line, line_start = 1, 0

    def here(i: int) -> Position:
        return Position(line, i - line_start + 1)

    def value_starts(i: int) -> None:
        holder = stack[-1] if stack else root
        holder.value_start = i
        if not holder.is_object:  # an array element (or the document) starts with its value
            holder.member_start = i
            if stack:
                found.positions[tuple(f.key for f in stack)] = here(i)

    def value_ends(end: int) -> None:
        holder = stack[-1] if stack else root
        found.spans[tuple(f.key for f in stack)] = Span(holder.member_start, holder.value_start, end)

    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line, line_start = line + 1, i + 1
        elif c == '"':
            end = json_string_end(text, i)
            top = stack[-1] if stack else None
            if top is not None and top.is_object and top.expecting_key:
                top.key = json.loads(text[i:end])
                top.expecting_key, top.member_start = False, i
                key_path = tuple(f.key for f in stack)
                if key_path in found.positions:
                    found.repeated.setdefault(key_path, [found.positions[key_path].line]).append(line)
                found.positions[key_path] = here(i)
            else:
                value_starts(i)
                value_ends(end)
            i = end
            continue
        elif c in "{[":
            value_starts(i)
            stack.append(_Frame(is_object=c == "{"))
        elif c in "}]":
            if stack:
                stack.pop()
                value_ends(i + 1)
        elif c == ",":
            if stack and stack[-1].is_object:
                stack[-1].expecting_key = True
            elif stack:
                stack[-1].key = int(stack[-1].key) + 1
        elif c not in " \t\r:":  # a number, true, false or null
            end = i
            while end < n and text[end] not in " \t\r\n,:]}":
                end += 1
            value_starts(i)
            value_ends(end)
            i = end
            continue
        i += 1
    return found


# --- TOML ---------------------------------------------------------------------------------------

_KEY = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_ARRAY_HEADER = re.compile(rf"\s*\[\[\s*({_DOTTED})\s*\]\]")
_TABLE_HEADER = re.compile(rf"\s*\[\s*({_DOTTED})\s*\]")
_KEY_LINE = re.compile(rf"\s*({_DOTTED})\s*=")
_KEY_PART = re.compile(_KEY)


def toml_locations(text: str) -> KeyLocations:
    """Positions of the tables (``[a.b]``, the n-th ``[[a]]``) and keys (``key =``) of a valid TOML text.

    Keys inside an inline table or a multi-line array are not listed: they map to the key that holds them.
    """
    found = KeyLocations()
    table: KeyPath = ()
    arrays: dict[tuple[str, ...], int] = {}  # [[name]] -> index of its last element so far
    depth = 0  # brackets of a value still open at the end of a line
    closing: str | None = None  # the delimiter of a multi-line string still open

    for number, text_line in enumerate(text.splitlines(), start=1):
        rest = text_line
        if closing is not None:
            end = rest.find(closing)
            if end < 0:
                continue
            rest, closing = rest[end + 3 :], None
            depth, closing = _scan_value(rest, depth)
            continue
        if depth > 0:
            depth, closing = _scan_value(rest, depth)
            continue
        column = len(text_line) - len(text_line.lstrip()) + 1
        if header := _ARRAY_HEADER.match(text_line):
            keys = _split_key(header.group(1))
            arrays[keys] = arrays.get(keys, -1) + 1
            for inner in [k for k in arrays if len(k) > len(keys) and k[: len(keys)] == keys]:
                del arrays[inner]  # a new element starts its own arrays of tables from 0
            table = (*_in_arrays(keys[:-1], arrays), keys[-1], arrays[keys])
            found.positions.setdefault(table[:-1], Position(number, column))
            found.positions[table] = Position(number, column)
        elif header := _TABLE_HEADER.match(text_line):
            table = _in_arrays(_split_key(header.group(1)), arrays)
            found.positions.setdefault(table, Position(number, column))
        elif key := _KEY_LINE.match(text_line):
            key_path = (*table, *_split_key(key.group(1)))
            for end in range(len(table) + 1, len(key_path) + 1):
                found.positions.setdefault(key_path[:end], Position(number, column))
            depth, closing = _scan_value(text_line[key.end() :], 0)
    return found


def _split_key(dotted: str) -> tuple[str, ...]:
    parts = []
    for part in _KEY_PART.findall(dotted):
        if part.startswith('"'):
            try:
                parts.append(json.loads(part))
            except ValueError:  # a TOML-only escape (\UXXXXXXXX): near enough without decoding
                parts.append(part[1:-1])
        elif part.startswith("'"):
            parts.append(part[1:-1])
        else:
            parts.append(part)
    return tuple(parts)


def _in_arrays(keys: tuple[str, ...], arrays: dict[tuple[str, ...], int]) -> KeyPath:
    """``keys`` of a header with the index of the current element of every array of tables it is in."""
    path: list[str | int] = []
    for end in range(1, len(keys) + 1):
        path.append(keys[end - 1])
        if keys[:end] in arrays:
            path.append(arrays[keys[:end]])
    return tuple(path)


def _scan_value(text: str, depth: int) -> tuple[int, str | None]:
    """The bracket depth after ``text`` (part of a value), and the delimiter of a multi-line string
    left open in it."""
    i, n = 0, len(text)
    while i < n:
        if text.startswith(('"""', "'''"), i):
            end = text.find(text[i : i + 3], i + 3)
            if end < 0:
                return depth, text[i : i + 3]
            i = end + 3
            continue
        c = text[i]
        if c == '"':
            i = json_string_end(text, i)
            continue
        if c == "'":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == "#":
            break
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return depth, None


# --- messages -----------------------------------------------------------------------------------


def key_path_text(key_path: Iterable[str | int]) -> str:
    """``mcpServers.git.args[2]``: dots between keys, brackets around list indices."""
    text = ""
    for part in key_path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def first_error(
    exc: ValidationError, locations: KeyLocations | None = None, prefix: KeyPath = ()
) -> ErrorDetails:
    """The error of ``exc`` to report: the one written first in the file (``prefix`` + its loc is its key
    path there), else the first pydantic lists."""
    errors = exc.errors(include_url=False)
    if locations is None:
        return errors[0]

    def written_at(error: ErrorDetails) -> tuple[int, int]:
        position = locations.position_of((*prefix, *error["loc"]))
        return (position.line, position.column) if position else (1 << 30, 0)

    return min(errors, key=written_at)


def config_error(
    exc: ValidationError,
    model: type[BaseModel],
    *,
    path: str,
    locations: KeyLocations | None,
    toml: bool = False,
) -> ConfigError:
    """A ConfigError for the first problem of ``exc``: ``file:line:column: what is wrong (field 'a.b[2]')``."""
    error = first_error(exc, locations)
    loc = tuple(error["loc"])
    position = locations.position_of(loc) if locations else None
    return ConfigError(
        describe_error(error, model, toml=toml),
        path=path,
        line=position.line if position else None,
        column=position.column if position else None,
        field=key_path_text(loc) or None,
    )


_WANTED = {
    "string_type": "a string",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "tuple_type": "a list",
    "set_type": "a list",
}
_TABLE_TYPES = {"dict_type", "model_type", "model_attributes_type", "dataclass_type"}
_RANGE_TYPES = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def describe_error(error: ErrorDetails, model: type[BaseModel], *, toml: bool = False) -> str:
    """What is wrong, in words a user acts on: "must be a string, not 3", "unknown key 'theem' (did you
    mean 'theme'?)", "must be one of "auto", "rkllm", not "gpu"". A field whose ``description`` says
    what it takes ("an object of strings") is described by that instead of its bare type."""
    kind, loc, ctx = error["type"], tuple(error["loc"]), error.get("ctx") or {}
    table = "a table" if toml else "an object"
    got = f", not {_shown(error.get('input'), toml)}"
    if kind == "missing":
        return "is required but missing"
    if kind == "extra_forbidden":
        return _unknown_key(model, loc)
    if kind in ("literal_error", "enum"):
        choices = _choices(model, loc) or str(ctx.get("expected", ""))
        return f"must be one of {choices}{got}"
    info = _field_info(model, loc)
    if (
        info is not None
        and info.description
        and (kind in _WANTED or kind in _TABLE_TYPES or kind in _RANGE_TYPES)
    ):
        return f"must be {info.description}{got}"
    item = f"item {loc[-1]} " if loc and isinstance(loc[-1], int) else ""
    if kind in _WANTED:
        return f"{item}must be {_WANTED[kind]}{got}"
    if kind in _TABLE_TYPES:
        return f"{item}must be {table}{got}"
    if kind in _RANGE_TYPES:
        return f"{item}{_range(kind, ctx)}{got}"
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        return "must not be empty"
    if kind == "too_short":
        return f"must have at least {ctx.get('min_length')} items"
    if kind == "too_long":
        return f"must have at most {ctx.get('max_length')} items"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    message = error["msg"]  # a PydanticCustomError's own message, or pydantic's words as a last resort
    return message[:1].lower() + message[1:] if message.startswith("Input should") else message


def _range(kind: str, ctx: dict[str, Any]) -> str:
    if kind == "greater_than":
        return "must be positive" if ctx.get("gt") == 0 else f"must be more than {ctx.get('gt')}"
    if kind == "greater_than_equal":
        return "must not be negative" if ctx.get("ge") == 0 else f"must be at least {ctx.get('ge')}"
    if kind == "less_than":
        return f"must be less than {ctx.get('lt')}"
    return f"must be at most {ctx.get('le')}"


def _shown(value: Any, toml: bool) -> str:
    if isinstance(value, dict):
        return "a table" if toml else "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def near_miss(key: str, known: Iterable[str]) -> str | None:
    """The known key ``key`` is most likely a misspelling of (``theem`` -> ``theme``), if any."""
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.8)
    return close[0] if close else None


def _unknown_key(model: type[BaseModel], loc: KeyPath) -> str:
    key = str(loc[-1]) if loc else "?"
    parent = _model_at(model, loc[:-1])
    known = _key_names(parent) if parent is not None else []
    meant = near_miss(key, known)
    if meant:
        return f"unknown key {key!r} (did you mean {meant!r}?)"
    return f"unknown key {key!r}; known keys: {', '.join(known)}" if known else f"unknown key {key!r}"


def _key_names(model: type[BaseModel]) -> list[str]:
    return [_aliases(name, info)[0] for name, info in model.model_fields.items()]


def _aliases(name: str, info: FieldInfo) -> list[str]:
    alias = info.validation_alias
    if isinstance(alias, str):
        return [alias]
    if alias is not None and hasattr(alias, "choices"):
        return [choice for choice in alias.choices if isinstance(choice, str)] or [name]
    return [info.alias or name]


def _field(model: type[BaseModel], key: str | int) -> FieldInfo | None:
    if not isinstance(key, str):
        return None
    for name, info in model.model_fields.items():
        if key == name or key in _aliases(name, info):
            return info
    return None


def _model_in(annotation: Any) -> type[BaseModel] | None:
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _model_at(model: type[BaseModel], loc: KeyPath) -> type[BaseModel] | None:
    current: type[BaseModel] | None = model
    for key in loc:
        info = _field(current, key) if current is not None else None
        current = _model_in(info.annotation) if info is not None else None
    return current


def _field_info(model: type[BaseModel], loc: KeyPath) -> FieldInfo | None:
    """The field ``loc`` names, when it names one (not an item inside one)."""
    if not loc:
        return None
    parent = _model_at(model, loc[:-1])
    return _field(parent, loc[-1]) if parent is not None else None


def _choices(model: type[BaseModel], loc: KeyPath) -> str | None:
    """The values a Literal at ``loc`` allows, as JSON: ``"auto", "rkllm"``; None if not found."""
    for depth in range(len(loc), 0, -1):
        info = _field_info(model, loc[:depth])
        if info is None:
            continue
        annotation: Any = info.annotation
        for _ in loc[depth:]:  # into list items / mapping values
            args = [a for a in typing.get_args(_unwrap(annotation)) if a is not type(None)]
            annotation = args[-1] if args else None
        values = _literal_values(annotation)
        return ", ".join(json.dumps(v) for v in values) if values else None
    return None


def _unwrap(annotation: Any) -> Any:
    """``X`` of ``Annotated[X, ...]`` and of ``X | None``."""
    while True:
        if typing.get_origin(annotation) is Annotated:
            annotation = typing.get_args(annotation)[0]
        elif typing.get_origin(annotation) in (Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation
            annotation = args[0]
        else:
            return annotation


def _literal_values(annotation: Any) -> list[Any]:
    annotation = _unwrap(annotation)
    if typing.get_origin(annotation) is Literal:
        return list(typing.get_args(annotation))
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return [v for arg in typing.get_args(annotation) for v in _literal_values(arg)]
    return []
