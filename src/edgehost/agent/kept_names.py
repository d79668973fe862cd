"""The things a server keeps that a question names: "Alice" of "Alice also has a cat named Miso".

A memory server keeps named things (the reference memory server's entities). A statement about one
of them reads like chat, and a small model's call makes it again: create_entities for "Alice", which
the server skips as it exists, so the new fact was lost while the answer said it was kept. The host
can know what is kept: a server that keeps named things has a tool that lists them, read-only,
taking no argument, whose output schema is a list of objects with a name (read_graph's
``entities``). So the host reads it (at most once per MAX_AGE_S, and again after a call of the host
changed something through that server) and finds the names the question writes, whole, in any case
("alice's cat" names Alice; "Al" of a kept "Alan" does not).

A question that names a kept thing asks about the asker's records: a task (agent/routing.py, as a
file the question names, agent/named_files.py). A statement or a request for a change that names
one changes what exists, so the kept bonus of ranking goes to that server's tools that act on what
exists (ranking.kept_bonus): add_observations, not create_entities.

Only a listing tool EdgeHost may call by itself is read (approval.ApprovalPolicy.lets_host_look_up:
safe by its annotations and its name, no rule of the user's that denies or asks for it); it gets no
card and no approval. A listing that fails, or takes longer than LOOK_UP_TIMEOUT_S, names nothing
until it is read again: after MAX_AGE_S, or after the host's next change through that server.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from edgehost.agent.tools import ToolSpec
from edgehost.schema_refs import item_properties, resolve_ref

__all__ = [
    "KeptNames",
    "every_name",
    "kept_names_in",
    "lists_kept_names",
    "name_places",
    "names_in",
    "servers_naming",
    "writes_name_at",
]

log = logging.getLogger(__name__)

MAX_AGE_S = 60.0
LOOK_UP_TIMEOUT_S = 2.0
MIN_NAME_LETTERS = 3
_NAME_ENDS = r"(?![\w-])"  # a name is written whole: no letter, digit or hyphen goes on after it


def lists_kept_names(tool: ToolSpec) -> bool:
    """Whether ``tool`` lists the named things its server keeps: read-only, no required argument, an
    output schema with a list of objects that have a text ``name`` (module docstring)."""
    if tool.hint("readOnlyHint") is not True or tool.required or not tool.enabled:
        return False
    output = tool.output_schema or {}
    properties = output.get("properties")
    return isinstance(properties, Mapping) and any(
        _named_items(value, output) for value in properties.values()
    )


def _named_items(schema: Any, output: Mapping[str, Any]) -> bool:
    """Whether ``schema`` (of the ``output`` schema, whose ``$defs`` it may refer to, as pydantic
    writes them) is a list of objects with a text ``name``."""
    listed = resolve_ref(schema, output)
    if not isinstance(listed, Mapping) or listed.get("type") != "array":
        return False
    name = item_properties(listed, output).get("name")
    return isinstance(name, Mapping) and name.get("type", "string") == "string"


def kept_names_in(structured: Any) -> tuple[str, ...]:
    """The names of the objects of the lists of a listing's structured result, once each."""
    if not isinstance(structured, Mapping):
        return ()
    names = (
        item["name"]
        for value in structured.values()
        if isinstance(value, list)
        for item in value
        if isinstance(item, Mapping) and isinstance(item.get("name"), str)
    )
    return tuple(dict.fromkeys(name.strip() for name in names if name.strip()))


def names_in(question: str, names: Iterable[str]) -> tuple[str, ...]:
    """The ``names`` ``question`` writes, whole and in any case, of MIN_NAME_LETTERS letters or more."""
    lowered = question.lower()
    return tuple(
        name
        for name in names
        if name.lower() in lowered  # a quick test first: a store may keep thousands of names
        and _long_enough(name)
        and any(name_places(question, name))
    )


def name_places(text: str, name: str) -> Iterator[re.Match[str]]:
    """Where ``text`` writes ``name`` whole, in any case (names_in's reading of a name)."""
    return re.finditer(rf"(?<![\w-]){re.escape(name)}{_NAME_ENDS}", text, re.IGNORECASE)


def writes_name_at(text: str, start: int, names: Iterable[str]) -> bool:
    """Whether one of ``names`` is written whole at ``start`` of ``text``, as names_in finds them."""
    tail = text[start:]
    return any(
        tail[: len(name)].lower() == name.lower()  # the quick test first, as in names_in
        and _long_enough(name)
        and re.match(rf"{re.escape(name)}{_NAME_ENDS}", tail, re.IGNORECASE)
        for name in names
    )


def _long_enough(name: str) -> bool:
    return sum(c.isalpha() for c in name) >= MIN_NAME_LETTERS


def servers_naming(question: str, by_server: Mapping[str, Iterable[str]]) -> frozenset[str]:
    """The servers of ``by_server`` (KeptNames.by_server) that keep a thing ``question`` names."""
    return frozenset(server for server, names in by_server.items() if names_in(question, names))


def every_name(by_server: Mapping[str, Iterable[str]]) -> tuple[str, ...]:
    """Every name the servers of ``by_server`` keep (agent/references.py reads a sentence's first word
    as a name when it begins one)."""
    return tuple(name for names in by_server.values() for name in names)


@dataclass
class _Listing:
    names: tuple[str, ...]
    read_at: float
    kept: Any = None  # the listing tool's structured result
    stale: bool = False

    def fresh(self, now: float) -> bool:
        return not self.stale and now - self.read_at < MAX_AGE_S


class KeptNames:
    """The names each server keeps, read with its listing tool through ``call`` (module docstring)."""

    def __init__(
        self,
        call: Callable[[ToolSpec], Awaitable[Any]],
        *,
        may_call: Callable[[ToolSpec], bool] = lambda _tool: True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._call = call  # a listing tool's structured result, or None
        self._may_call = may_call  # whether EdgeHost may call a listing tool by itself (approval.py)
        self._clock = clock
        self._listings: dict[str, _Listing] = {}
        self._listers: dict[str, ToolSpec] = {}  # the listing tool of each server seen to keep names

    async def servers_naming(self, question: str, tools: Sequence[ToolSpec]) -> frozenset[str]:
        """The servers of ``tools`` that keep a thing ``question`` names."""
        return servers_naming(question, await self.by_server(tools))

    async def names(self, tools: Sequence[ToolSpec]) -> tuple[str, ...]:
        """Every name the servers of ``tools`` keep."""
        return every_name(await self.by_server(tools))

    async def by_server(self, tools: Sequence[ToolSpec]) -> dict[str, tuple[str, ...]]:
        """The names each server of ``tools`` keeps (read once, within MAX_AGE_S of the last read),
        for servers_naming and every_name."""
        listers = {t.server: t for t in tools if lists_kept_names(t) and self._may_call(t)}
        self._listers.update(listers)
        listings = await asyncio.gather(*(self._listing(tool) for tool in listers.values()))
        return dict(zip(listers, listings, strict=True))

    async def everything_kept(self, server: str) -> Any:
        """What ``server`` keeps now, as its listing tool's structured result (read now, not cached);
        None when no listing of it is known or the read fails (agent/unchanged_calls.py)."""
        tool = self._readable_lister(server)
        return await self._read(tool) if tool is not None else None

    def changed(self, server: str) -> None:
        """Something ``server`` keeps was changed: its names are read again before the next question."""
        if server in self._listings:
            self._listings[server].stale = True

    async def _listing(self, tool: ToolSpec) -> tuple[str, ...]:
        now = self._clock()
        kept = self._listings.get(tool.server)
        if kept is not None and kept.fresh(now):
            return kept.names
        kept = await self._read(tool)
        names = kept_names_in(kept)  # a look-up that fails names nothing
        self._listings[tool.server] = _Listing(names, now, kept)
        return names

    def last_read(self, server: str) -> Any:
        """What ``server`` keeps as its listing was read for this turn's question (agent/kept_values.py);
        None when it was not read, is out of date or may no longer be read."""
        listing = self._listings.get(server)
        if listing is None or self._readable_lister(server) is None or not listing.fresh(self._clock()):
            return None
        return listing.kept

    def _readable_lister(self, server: str) -> ToolSpec | None:
        """The listing tool of ``server``, where EdgeHost may still call it by itself."""
        tool = self._listers.get(server)
        return tool if tool is not None and tool.enabled and self._may_call(tool) else None

    async def _read(self, tool: ToolSpec) -> Any:
        """The listing's structured result; None when it fails or takes too long (the turn goes on)."""
        try:
            return await asyncio.wait_for(self._call(tool), LOOK_UP_TIMEOUT_S)
        except Exception as exc:
            log.info("listing what %s keeps failed: %s", tool.server, exc)
            return None
