"""Saving a servers file without losing what the user wrote in it.

An existing JSON(C) file is edited in place rather than written anew: only what changed is replaced,
as splices over the value spans the key scanner (``key_locations.json_locations``) finds. Comments
(``//``, ``/* */``), the order of keys and entries, trailing commas and the formatting of everything
that did not change are kept; a changed entry is rewritten whole, an added one goes at the end of its
object in the file's indentation, a removed one goes with the comment lines just above it and the
comment after it on its line. The result is parsed again and must hold exactly the data intended;
if it does not (a layout the splicer cannot follow), the file is written as plain JSON and the
original kept beside it as ``<name>.bak``, with a warning in the log.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from edgehost.errors import ConfigError
from edgehost.key_locations import KeyLocations, KeyPath, Span
from edgehost.mcp.config._text import ParsedFile, decode_servers_file, parse_servers_text
from edgehost.paths import write_atomically

__all__ = [
    "REMOVED",
    "SERVERS_KEY",
    "current_text",
    "edit_json_text",
    "plain_json",
    "servers_file_edits",
    "servers_file_text",
]

log = logging.getLogger(__name__)

SERVERS_KEY = "mcpServers"  # where a new file (or one without a servers object) holds its servers
INPUTS_KEY = "inputs"  # VS Code's input declarations: top level, or beside the servers in settings.json
_DEFAULT_INDENT = "  "


class _Removed:
    def __repr__(self) -> str:
        return "REMOVED"


REMOVED: Final = _Removed()  # the value of an edit that deletes its member
_ABSENT: Final = object()

Edit = tuple[KeyPath, Any]  # (key path of a member, its new value or REMOVED); a missing member is added


class _Uneditable(ValueError):
    """The text is laid out in a way the splicer does not follow."""


# --- the whole file -----------------------------------------------------------------------------


def current_text(path: Path) -> str | None:
    """The file's text with its line endings as written, or None when there is no file.

    Raises OSError when it cannot be read and ConfigError (with the line of the first bad byte) when it
    is not UTF-8.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return decode_servers_file(data, str(path))


def plain_json(document: Mapping[str, Any]) -> str:
    """A document as EdgeHost writes a new file: indented by two spaces, ending with a newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def servers_file_text(
    current: str,
    parsed: ParsedFile,
    tables: Sequence[KeyPath],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    *,
    path: Path,
) -> str:
    """``current`` (the file's text, ``parsed``) edited from the document ``before`` to ``after``.

    ``before`` and ``after`` are in the shape ``servers_config_to_json`` makes (servers under
    ``mcpServers``); ``tables`` are the key paths where the file keeps its servers. When the edit
    cannot be made in place, ``after`` as plain JSON, with ``current`` kept as ``<name>.bak``.
    Raises OSError when that backup cannot be written.
    """
    edits = servers_file_edits(parsed.data, tables, before, after)
    try:
        text = edit_json_text(current, parsed.locations, edits)
        if parse_servers_text(text, str(path)).data != _applied(parsed.data, edits):
            raise _Uneditable("the edited text does not read back as the intended data")
        return text
    except (_Uneditable, ConfigError) as exc:
        backup = path.with_name(path.name + ".bak")
        write_atomically(backup, current)
        log.warning("%s: rewritten as plain JSON (%s); what it held before is in %s", path, exc, backup)
        return plain_json(after)


def servers_file_edits(
    data: Mapping[str, Any], tables: Sequence[KeyPath], before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[Edit]:
    """The member edits that turn the file holding ``data`` from ``before`` into ``after``.

    A value the same before and after (or already written as it is after) is left alone, so an entry
    the user wrote differently but equivalently (``"type": "stdio"``, a snake_case key) stays as written.
    A server is changed where it is written; a new one goes in the file's first servers object. The
    VS Code "inputs" list is written beside the servers (in "mcp" in a settings.json).
    """
    edits: list[Edit] = []
    server_keys = {SERVERS_KEY, *(table[0] for table in tables)}
    beside_servers = tables[0][:-1] if tables else ()  # ("mcp",) in a VS Code settings.json
    for key in _keys(data, before, after):
        if key in server_keys:
            continue
        key_path = (*beside_servers, key) if key == INPUTS_KEY else (key,)
        edit = _edit(key_path, data, before.get(key, _ABSENT), after.get(key, _ABSENT))
        if edit is not None:
            edits.append(edit)
    old_servers, new_servers = before.get(SERVERS_KEY, {}), after.get(SERVERS_KEY, {})
    if not all(isinstance(_lookup(data, table), dict) for table in tables):
        # A list of named tables (TOML's shape, written in JSON): rewritten whole as an object.
        if not _same(old_servers, new_servers):
            edits += [(table, REMOVED) for table in tables if table != (SERVERS_KEY,)]
            edits.append(((SERVERS_KEY,), new_servers))
        return edits
    written_in: dict[str, KeyPath] = {}
    for table in tables:
        for name in _lookup(data, table):
            written_in.setdefault(name, table)
    added: dict[str, Any] = {}
    for name in _keys(old_servers, new_servers):
        old, new = old_servers.get(name, _ABSENT), new_servers.get(name, _ABSENT)
        if name in written_in:
            edit = _edit((*written_in[name], name), data, old, new)
            if edit is not None:
                edits.append(edit)
        elif new is not _ABSENT and not _same(old, new):
            added[name] = new
    if added and tables:
        edits += [((*tables[0], name), entry) for name, entry in added.items()]
    elif added:
        edits.append(((SERVERS_KEY,), added))
    return edits


def _edit(key_path: KeyPath, data: Any, old: Any, new: Any) -> Edit | None:
    written = _lookup(data, key_path, _ABSENT)
    if _same(old, new) or _same(written, new):
        return None
    if new is _ABSENT:
        return (key_path, REMOVED) if written is not _ABSENT else None
    return key_path, new


def _keys(*documents: Mapping[str, Any]) -> list[str]:
    return list(dict.fromkeys(key for document in documents for key in document))


def _lookup(data: Any, key_path: KeyPath, default: Any = None) -> Any:
    for key in key_path:
        if not isinstance(data, dict) or key not in data:
            return default
        data = data[key]
    return data


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: key order does not count, ``true`` is not ``1``."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)


def _applied(data: Mapping[str, Any], edits: Iterable[Edit]) -> dict[str, Any]:
    """``data`` with ``edits`` made: what the edited text must read back as."""
    result = copy.deepcopy(dict(data))
    for key_path, value in edits:
        parent: Any = result
        for key in key_path[:-1]:
            parent = parent[key]
        if value is REMOVED:
            parent.pop(key_path[-1], None)
        else:
            parent[key_path[-1]] = copy.deepcopy(value)
    return result


# --- splicing -----------------------------------------------------------------------------------


@dataclass
class _Member:
    key: str | int
    span: Span
    comma: int | None  # offset of the comma after the value
    tail_end: int  # past the value, its comma and the comments after it on its line (and that line's end)
    own_line: bool  # alone on its line(s): only indentation before it, a line end after its tail
    lead_start: int  # where its own lines start: the comment lines just above it (own_line), else its key
    floor: int  # where the text between the member before it (or the brace) and it starts


def edit_json_text(text: str, locations: KeyLocations, edits: Sequence[Edit]) -> str:
    """``text`` (JSON with comments; ``locations`` from its comment-blanked copy) with ``edits`` made.

    Each edit names an object member: an existing one is replaced (or deleted, with REMOVED), a
    missing one added at the end of its object, which must exist. Raises ValueError when there is no
    object at an edit's parent path, or when two edits would overlap (a layout not followed: commas
    written at the start of lines).
    """
    by_parent: dict[KeyPath, list[tuple[str | int, Any]]] = {}
    for key_path, value in edits:
        by_parent.setdefault(key_path[:-1], []).append((key_path[-1], value))
    splicer = _Splicer(text, locations)
    for parent, changes in by_parent.items():
        splicer.edit_object(parent, changes)
    return splicer.result()


class _Splicer:
    def __init__(self, text: str, locations: KeyLocations) -> None:
        self.text = text
        self.spans = locations.spans
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.unit = self._indent_unit()
        self.splices: list[tuple[int, int, str]] = []  # (start, end, replacement) in the original text

    def result(self) -> str:
        out, done = [], 0
        for start, end, replacement in sorted(self.splices, key=lambda s: (s[0], s[1])):
            if start < done:
                raise _Uneditable("two edits overlap")
            out += [self.text[done:start], replacement]
            done = end
        return "".join([*out, self.text[done:]])

    def edit_object(self, parent: KeyPath, changes: list[tuple[str | int, Any]]) -> None:
        span = self.spans.get(parent)
        if span is None or not self.text.startswith("{", span.value_start):
            raise _Uneditable(f"no object at {parent!r}")
        members = self._members(parent, span)
        by_key = {member.key: member for member in members}
        removed = {key for key, value in changes if value is REMOVED and key in by_key}
        added = [(key, value) for key, value in changes if key not in by_key and value is not REMOVED]
        for key, value in changes:
            if key in by_key and value is not REMOVED:
                self._replace(by_key[key], value)
        for member in members:
            if member.key in removed:
                self.splices.append((self._removal_start(member), member.tail_end, ""))
        kept = [member for member in members if member.key not in removed]
        trailing_comma = bool(members) and members[-1].comma is not None
        last = kept[-1] if kept else None
        if added:
            self._add(span, kept, added, trailing_comma)
        elif last is not None and last is not members[-1] and last.comma is not None and not trailing_comma:
            self._remove_comma(last.comma, last.own_line)

    def _remove_comma(self, comma: int, own_line: bool) -> None:
        """Remove the comma at ``comma`` (and, on a line of several members, the spaces after it)."""
        end = comma + 1
        while not own_line and self.text.startswith((" ", "\t"), end):
            end += 1
        self.splices.append((comma, end, ""))

    def _removal_start(self, member: _Member) -> int:
        """Where the text a removed member takes with it starts: its comment lines, and the blank line
        above them when a blank line or the end of the object follows (no double gap is left)."""
        if not member.own_line:
            return member.span.start
        start, text = member.lead_start, self.text
        above = text.rfind("\n", 0, start - 1) + 1
        if start > member.floor and above >= member.floor and not text[above:start].strip():
            next_line_end = text.find("\n", member.tail_end)
            next_line = text[member.tail_end : len(text) if next_line_end < 0 else next_line_end]
            if not next_line.strip() or next_line.strip()[:1] in "}]":
                return above
        return start

    def _replace(self, member: _Member, value: Any) -> None:
        old = self.text[member.span.value_start : member.span.end]
        indent = self._indent_at(member.span.start)
        self.splices.append(
            (member.span.value_start, member.span.end, self._dumps(value, indent, "\n" in old))
        )

    def _add(
        self, span: Span, kept: list[_Member], added: list[tuple[str | int, Any]], trailing: bool
    ) -> None:
        last = kept[-1] if kept else None

        def member_text(key: str | int, value: Any, indent: str, pretty: bool) -> str:
            return f"{json.dumps(key, ensure_ascii=False)}: {self._dumps(value, indent, pretty)}"

        if last is not None and not last.own_line:  # members side by side: the new ones follow in line
            texts = [member_text(key, value, "", False) for key, value in added]
            self.splices.append((last.span.end, last.span.end, ", " + ", ".join(texts)))
            if last.comma is not None and not trailing:  # its comma was before a member now removed
                self._remove_comma(last.comma, last.own_line)
            return
        if last is not None:
            indent, at = self._indent_at(last.span.start), last.tail_end
            pretty = self._pretty_among(kept)
            if last.comma is None:
                self.splices.append((last.span.end, last.span.end, ","))
            before, after = "", ""
        else:
            indent = self._indent_at(span.value_start) + self.unit
            pretty = "\n" in self.text
            at, ends_line = _tail(self.text, span.value_start + 1)
            if not pretty:
                texts = [member_text(key, value, "", False) for key, value in added]
                self.splices.append((span.value_start + 1, span.value_start + 1, ", ".join(texts)))
                return
            if not ends_line:  # "{}" or "{ ... }" on one line: the new members get lines of their own
                at = span.value_start + 1
            before = "" if ends_line else self.newline
            after = "" if ends_line else self._indent_at(span.value_start)
        lines = []
        for number, (key, value) in enumerate(added, start=1):
            comma = "," if number < len(added) or trailing else ""
            lines.append(indent + member_text(key, value, indent, pretty) + comma + self.newline)
        self.splices.append((at, at, before + "".join(lines) + after))

    def _pretty_among(self, members: list[_Member]) -> bool:
        """Whether new members are written over several lines: unless the objects and arrays around
        them are all written on one line (``"memory": { "command": "npx" },``)."""
        values = [self.text[m.span.value_start : m.span.end] for m in members]
        containers = [value for value in values if value[:1] in "{[" and len(value) > 2]
        return not containers or any("\n" in value for value in containers)

    def _dumps(self, value: Any, indent: str, pretty: bool) -> str:
        if not pretty:
            return json.dumps(value, ensure_ascii=False)
        text = json.dumps(value, indent=self.unit, ensure_ascii=False)
        return text.replace("\n", self.newline + indent)

    def _members(self, parent: KeyPath, span: Span) -> list[_Member]:
        text = self.text
        found = sorted(
            (
                (path[-1], s)
                for path, s in self.spans.items()
                if len(path) == len(parent) + 1 and path[:-1] == parent
            ),
            key=lambda item: item[1].start,
        )
        members: list[_Member] = []
        floor, _ = _tail(text, span.value_start + 1)  # below the "{" and what follows it on its line
        for key, member_span in found:
            comma_at = _skip_trivia(text, member_span.end)
            tail_end, ends_line = _tail(text, member_span.end)
            line_start = text.rfind("\n", 0, member_span.start) + 1
            own_line = ends_line and not text[line_start : member_span.start].strip()
            lead_start = line_start if own_line else member_span.start
            # Only comments go with it (never an earlier occurrence of a key written twice).
            if own_line and _skip_trivia(text, floor) == member_span.start:
                while lead_start > floor:
                    above = text.rfind("\n", 0, lead_start - 1) + 1
                    if above < floor or not text[above:lead_start].strip():
                        break
                    lead_start = above
            comma = comma_at if text.startswith(",", comma_at) else None
            members.append(_Member(key, member_span, comma, tail_end, own_line, lead_start, floor))
            floor = tail_end
        return members

    def _indent_at(self, offset: int) -> str:
        """The indentation of the line ``offset`` is on."""
        start = self.text.rfind("\n", 0, offset) + 1
        end = start
        while end < len(self.text) and self.text[end] in " \t":
            end += 1
        return self.text[start:end]

    def _indent_unit(self) -> str:
        """One level of the file's indentation: what a member's line adds to its object's."""
        for path in sorted(self.spans, key=len):  # the outermost members first
            span = self.spans[path]
            if not path or path[:-1] not in self.spans:
                continue
            line_start = self.text.rfind("\n", 0, span.start) + 1
            own = self.text[line_start : span.start]
            outer = self._indent_at(self.spans[path[:-1]].value_start)
            if not own.strip() and own.startswith(outer) and len(own) > len(outer):
                return own[len(outer) :]
        return _DEFAULT_INDENT


def _past_comment(text: str, i: int) -> int | None:
    """The offset just past a comment that starts at ``i`` (a ``//`` one ends before its line's end);
    None when none starts there."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    return None


def _skip_trivia(text: str, i: int) -> int:
    """The offset of the next character after ``i`` that is not white space or a comment."""
    n = len(text)
    while i < n:
        if text[i] in " \t\r\n":
            i += 1
        elif (past := _past_comment(text, i)) is not None:
            i = past
        else:
            break
    return i


def _tail(text: str, i: int) -> tuple[int, bool]:
    """Past the spaces, comma and comments after offset ``i`` on its line, and past that line's end;
    and whether the line ended there (else the offset is that of the next member or bracket)."""
    n = len(text)
    while i < n:
        if text[i] in " \t,":
            i += 1
        elif (past := _past_comment(text, i)) is not None:
            i = past
        elif text.startswith("\r\n", i):
            return i + 2, True
        elif text[i] == "\n":
            return i + 1, True
        else:
            return i, False
    return n, True
