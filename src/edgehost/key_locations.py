"""Where each key of a config file is written, and where each value is.

The settings file, the board profiles and the servers file are checked by pydantic models; a
pydantic error carries a ``loc`` path (``("mcpServers", "git", "args", 2)``). This module maps such a
path to the line and column of the key in the file's text (JSON: a scan of the text; TOML: a scan of
its table headers and ``key =`` lines, since tomllib keeps no positions), so that a message can name
that place (``edgehost.validation_messages`` words the message).
The JSON scan also keeps where each value is written, which lets a file be edited in place.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Union

__all__ = [
    "KeyLocations",
    "KeyPath",
    "Position",
    "Span",
    "json_locations",
    "json_string_end",
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
