"""Reading a servers file into plain data, keeping where each key is so messages can name its line.

JSON is read as JSONC (VS Code's ``mcp.json`` and ``settings.json`` allow comments and trailing
commas); comments are blanked, not removed, so json's line/column numbers stay those of the file.
A file that is not UTF-8, or is nested deeper than any servers file needs, is refused with the line
where that shows, like any other file that does not parse.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edgehost.errors import ConfigError
from edgehost.key_locations import (
    KeyLocations,
    KeyPath,
    Position,
    json_locations,
    json_string_end,
    toml_locations,
)
from edgehost.toml_text import load_toml

__all__ = [
    "MAX_NESTING",
    "KeyPath",
    "ParsedFile",
    "decode_servers_file",
    "parse_servers_text",
    "read_servers_file",
]

# Levels of objects/arrays (tables/arrays in TOML) a servers file may have. A real one has about five
# (mcpServers.NAME.env.KEY); json, tomllib and every function that walks the data recurse once per
# level, and Python stops at 1000 frames: a deeper file would be a RecursionError, not a message.
MAX_NESTING = 100


@dataclass
class ParsedFile:
    """A servers file as data, plus where each key of it is written."""

    path: str
    data: dict[str, Any]
    locations: KeyLocations = field(default_factory=KeyLocations, repr=False)
    toml: bool = False

    def line_of(self, key_path: KeyPath) -> int | None:
        """The line of ``key_path`` (or of its nearest written parent); None when nothing of it is written."""
        return self.locations.line_of(key_path)

    def position_of(self, key_path: KeyPath) -> Position | None:
        return self.locations.position_of(key_path)

    @property
    def repeated(self) -> dict[KeyPath, list[int]]:
        """Key paths written more than once (JSON keeps the last one), with the line of each occurrence."""
        return self.locations.repeated


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
    if (too_deep := _json_too_deep(clean)) is not None:
        raise _nested_too_deep(path, *too_deep)
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
    return ParsedFile(path=path, data=data, locations=json_locations(clean))


def _blank_comments(text: str) -> str:
    """Replace // and /* */ comments outside strings by spaces, keeping every newline."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = json_string_end(text, i)
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
            i = json_string_end(text, i)
            continue
        if c == ",":
            k = i + 1
            while k < n and text[k] in " \t\r\n":
                k += 1
            if k < n and text[k] in "}]":
                out[i] = " "
        i += 1
    return "".join(out)


def _json_too_deep(text: str) -> tuple[int, int] | None:
    """(line, column) of the first ``[`` or ``{`` nested more than MAX_NESTING deep; None if there is none."""
    depth, line, line_start = 0, 1, 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = json_string_end(text, i)
            continue
        if c == "\n":
            line, line_start = line + 1, i + 1
        elif c in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line, i - line_start + 1
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return None


def _nested_too_deep(path: str, line: int | None, column: int | None = None) -> ConfigError:
    return ConfigError(
        f"nested more than {MAX_NESTING} levels deep (a servers file needs about five)",
        path=path,
        line=line,
        column=column,
    )


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
    # tomllib recurses once per bracket, and takes time quadratic in the parts of a dotted key: a
    # pathological file is refused before it is parsed; the data is then measured exactly.
    if (too_deep := _toml_too_deep(text)) is not None:
        raise _nested_too_deep(path, *too_deep)
    try:
        data = load_toml(text, path)
    except RecursionError:
        raise _nested_too_deep(path, None) from None
    locations = toml_locations(text)
    if (deep_path := _path_too_deep(data)) is not None:
        raise _nested_too_deep(path, locations.line_of(deep_path))
    return ParsedFile(path=path, data=data, locations=locations, toml=True)


def _toml_too_deep(text: str) -> tuple[int, int] | None:
    """(line, column) where brackets and the parts of a dotted key nest more than MAX_NESTING deep on
    their own; None when they do not. Strings and comments do not count."""
    brackets: list[str] = []
    dots, in_key = 0, True  # the dots of the key being read (at the start of a line, or in { })
    line, line_start = 1, 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith(('"""', "'''"), i):
            end = text.find(text[i : i + 3], i + 3)
            end = n if end < 0 else end + 3
            line += text.count("\n", i, end)
            line_start = text.rfind("\n", 0, end) + 1
            i, in_key = end, False
            continue
        if c == '"':
            i = json_string_end(text, i)
            continue
        if c in "'#":  # a literal string ends on its line; a comment, with it
            line_end = text.find("\n", i)
            line_end = n if line_end < 0 else line_end
            end = text.find("'", i + 1, line_end) if c == "'" else -1
            i = line_end if end < 0 else end + 1
            continue
        if c == "\n":
            line, line_start = line + 1, i + 1
            if not brackets:
                dots, in_key = 0, True
        elif c in "[{":
            brackets.append(c)
            if c == "{":
                dots, in_key = 0, True
        elif c in "]}":
            if brackets:
                brackets.pop()
        elif c == "=":
            dots, in_key = 0, False
        elif c == "," and brackets and brackets[-1] == "{":
            dots, in_key = 0, True
        elif c == "." and in_key:
            dots += 1
        if len(brackets) + dots > MAX_NESTING:
            return line, i - line_start + 1
        i += 1
    return None


def _path_too_deep(data: Any) -> KeyPath | None:
    """The key path of a value nested more than MAX_NESTING tables/arrays deep in ``data``, if any."""
    pending: list[tuple[KeyPath, Any]] = [((), data)]
    while pending:
        key_path, value = pending.pop()
        if len(key_path) > MAX_NESTING:
            return key_path
        pending.extend(((*key_path, key), item) for key, item in _children(value))
    return None


def _children(value: Any) -> Iterator[tuple[str | int, Any]]:
    if isinstance(value, dict):
        yield from value.items()
    elif isinstance(value, list):
        yield from enumerate(value)


def decode_servers_file(data: bytes, path: str) -> str:
    """The text of a servers file read as ``data`` (UTF-8, with or without a byte order mark), its line
    endings as written.

    Raises ConfigError naming the line and column of the first byte that is not UTF-8 (and which byte
    of the file it is), or saying that the file was saved as UTF-16 or UTF-32, as some Windows editors
    save "Unicode" text.
    """
    for bom, encoding in _OTHER_UNICODE_BOMS:
        if data.startswith(bom):
            raise ConfigError(f"saved as {encoding}; save it as UTF-8", path=path, line=1)
    if b"\0" in data[:4]:  # "{" as UTF-16 without a byte order mark is "{\0" or "\0{"
        raise ConfigError("saved as UTF-16 (it has NUL bytes); save it as UTF-8", path=path, line=1)
    offset = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[offset:].decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = offset + exc.start
        line_start = data.rfind(b"\n", 0, bad) + 1
        column = len(data[max(line_start, offset) : bad].decode("utf-8")) + 1
        raise ConfigError(
            f"not UTF-8 text: byte 0x{data[bad]:02X} (byte {bad + 1} of the file): {exc.reason};"
            " save the file as UTF-8",
            path=path,
            line=data.count(b"\n", 0, bad) + 1,
            column=column,
        ) from None


# UTF-32 first: its little-endian mark starts with UTF-16's.
_OTHER_UNICODE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def read_servers_file(path: Path) -> ParsedFile:
    """Read and parse a servers file. Raises ConfigError when it cannot be read, decoded or parsed."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    text = decode_servers_file(data, str(path)).replace("\r\n", "\n").replace("\r", "\n")
    return parse_servers_text(text, str(path))
