"""Reading a servers file into plain data, keeping where each key is so messages can name its line.

JSON is read as JSONC (VS Code's ``mcp.json`` and ``settings.json`` allow comments and trailing
commas); comments are blanked, not removed, so json's line/column numbers stay those of the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edgehost.config_locations import (
    KeyLocations,
    KeyPath,
    Position,
    json_locations,
    json_string_end,
    toml_locations,
)
from edgehost.errors import ConfigError
from edgehost.toml_text import load_toml

__all__ = ["KeyPath", "ParsedFile", "parse_servers_text", "read_servers_file"]


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
    return ParsedFile(path=path, data=load_toml(text, path), locations=toml_locations(text), toml=True)


def read_servers_file(path: Path) -> ParsedFile:
    """Read and parse a servers file. Raises ConfigError when it cannot be read or parsed."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text ({exc.reason})", path=str(path)) from None
    return parse_servers_text(text, str(path))
