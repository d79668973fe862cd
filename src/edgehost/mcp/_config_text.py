"""Reading a servers file into plain data, keeping where each key is so messages can name its line.

JSON is read as JSONC (VS Code's ``mcp.json`` and ``settings.json`` allow comments and trailing
commas); comments are blanked, not removed, so json's line/column numbers stay those of the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from edgehost.errors import ConfigError
from edgehost.toml_text import load_toml

__all__ = ["KeyPath", "ParsedFile", "parse_servers_text", "read_servers_file"]

KeyPath = tuple[Union[str, int], ...]

_TOML_HEADER = re.compile(r"^\s*\[")


@dataclass
class ParsedFile:
    """A servers file as data, plus a way to find the line of any key path in it."""

    path: str
    data: dict[str, Any]
    line_of: Callable[[KeyPath], int | None] = field(repr=False)
    # Key paths written more than once (JSON keeps the last one), with the line of each occurrence.
    repeated: dict[KeyPath, list[int]] = field(default_factory=dict, repr=False)


def parse_servers_text(text: str, path: str) -> ParsedFile:
    """Parse JSON(C) or TOML (by the file's suffix) into a top-level table.

    Raises ConfigError naming the file, line and column when the text does not parse, or the file and
    line when its top level is not an object/table.
    """
    if path.lower().endswith(".toml"):
        return _parse_toml(text, path)
    return _parse_json(text, path)


# --- JSON ---------------------------------------------------------------------------------------


def _parse_json(text: str, path: str) -> ParsedFile:
    clean = _blank_trailing_commas(_blank_comments(text))
    try:
        data = json.loads(clean) if clean.strip() else {}
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno) from None
    if not isinstance(data, dict):
        raise ConfigError(
            f'the top level must be an object with "mcpServers" or "servers", not {_json_type(data)}',
            path=path,
            line=_first_content_line(clean),
        )
    lines, repeated = _json_key_lines(clean)

    def line_of(key_path: KeyPath) -> int | None:
        while key_path:
            if key_path in lines:
                return lines[key_path]
            key_path = key_path[:-1]
        return None

    return ParsedFile(path=path, data=data, line_of=line_of, repeated=repeated)


def _blank_comments(text: str) -> str:
    """Replace // and /* */ comments outside strings by spaces, keeping every newline."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for k in range(i, end):
                if text[k] != "\n":
                    out[k] = " "
            i = end
            continue
        i += 1
    return "".join(out)


def _blank_trailing_commas(text: str) -> str:
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            continue
        if c == ",":
            k = i + 1
            while k < n and text[k] in " \t\r\n":
                k += 1
            if k < n and text[k] in "}]":
                out[i] = " "
        i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
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
    element_started: bool = False  # arrays: the current element's line is recorded


def _json_key_lines(text: str) -> tuple[dict[KeyPath, int], dict[KeyPath, list[int]]]:
    """Line of every object key and array element of an already valid JSON text, by key path; and
    the lines of keys that occur more than once in their object."""
    lines: dict[KeyPath, int] = {}
    repeated: dict[KeyPath, list[int]] = {}
    stack: list[_Frame] = []
    line = 1

    def value_starts() -> None:
        if stack and not stack[-1].is_object and not stack[-1].element_started:
            stack[-1].element_started = True
            lines[tuple(f.key for f in stack)] = line

    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == '"':
            end = _string_end(text, i)
            top = stack[-1] if stack else None
            if top is not None and top.is_object and top.expecting_key:
                top.key = json.loads(text[i:end])
                top.expecting_key = False
                key_path = tuple(f.key for f in stack)
                if key_path in lines:
                    repeated.setdefault(key_path, [lines[key_path]]).append(line)
                lines[key_path] = line
            else:
                value_starts()
            i = end
            continue
        elif c in "{[":
            value_starts()
            stack.append(_Frame(is_object=c == "{"))
        elif c in "}]":
            if stack:
                stack.pop()
        elif c == ",":
            if stack and stack[-1].is_object:
                stack[-1].expecting_key = True
            elif stack:
                top = stack[-1]
                top.key = int(top.key) + 1
                top.element_started = False
        elif c not in " \t\r:":
            value_starts()
        i += 1
    return lines, repeated


def _first_content_line(text: str) -> int:
    stripped = text.lstrip()
    return text[: len(text) - len(stripped)].count("\n") + 1


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"


# --- TOML ---------------------------------------------------------------------------------------


def _parse_toml(text: str, path: str) -> ParsedFile:
    data = load_toml(text, path)
    source_lines = text.splitlines()

    def line_of(key_path: KeyPath) -> int | None:
        return _toml_line_of(source_lines, key_path)

    return ParsedFile(path=path, data=data, line_of=line_of)


def _toml_line_of(source_lines: list[str], key_path: KeyPath) -> int | None:
    """Best-effort line of a key path in TOML: tables by their header, keys inside a table's block.

    tomllib keeps no positions; servers are ``[[servers]]`` (the n-th header) or ``[table.name]``
    sections, and their fields are ``key = ...`` lines in that section.
    """
    if not key_path:
        return None
    head, rest = key_path[0], key_path[1:]
    header: int | None = None
    if rest and isinstance(rest[0], int):
        pattern = re.compile(rf"^\s*\[\[\s*{re.escape(str(head))}\s*\]\]")
        matches = [n for n, text in enumerate(source_lines) if pattern.match(text)]
        header = matches[rest[0]] if rest[0] < len(matches) else None
    elif rest:
        name = re.escape(str(rest[0]))
        pattern = re.compile(rf"^\s*\[\s*{re.escape(str(head))}\s*\.\s*(\"{name}\"|'{name}'|{name})\s*\]")
        header = next((n for n, text in enumerate(source_lines) if pattern.match(text)), None)
    if header is None:
        key = re.compile(rf"^\s*{re.escape(str(head))}\s*=")
        found = next((n for n, text in enumerate(source_lines) if key.match(text)), None)
        return None if found is None else found + 1
    if len(rest) >= 2 and isinstance(rest[1], str):
        key = re.compile(rf"^\s*(\"{re.escape(rest[1])}\"|{re.escape(rest[1])})\s*=")
        for n in range(header + 1, len(source_lines)):
            if _TOML_HEADER.match(source_lines[n]):
                break
            if key.match(source_lines[n]):
                return n + 1
    return header + 1


def read_servers_file(path: Path) -> ParsedFile:
    """Read and parse a servers file. Raises ConfigError when it cannot be read or parsed."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text ({exc.reason})", path=str(path)) from None
    return parse_servers_text(text, str(path))
