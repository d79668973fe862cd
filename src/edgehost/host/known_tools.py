"""The tools of servers that are switched off, as they listed them when last connected.

A switched-off server is not connected, so its tools are not in the catalog, and a small model asked
"how hot is the board?" with the board server off made up an answer. The tools each server lists are
kept in the history database (store/_known_tools.py); a turn sees those of the switched-off servers as
tools that are off, so the host can answer "its server is switched off; switch it on" (agent/loop.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from itertools import groupby
from typing import Any

from edgehost.agent.tools import ToolSpec

__all__ = ["KnownTools"]

# What is kept of a tool: enough to route a question to it and to name it.
_KEPT = ("name", "original_name", "title", "description", "input_schema", "annotations")


class KnownTools:
    """``known``: each server's tools as stored; ``remember(server, tools)`` stores a new listing."""

    def __init__(
        self,
        known: Mapping[str, Sequence[Mapping[str, Any]]],
        remember: Callable[[str, list[dict[str, Any]]], None],
    ) -> None:
        self._known = {server: [dict(t) for t in tools] for server, tools in known.items()}
        self._remember = remember

    def update(self, connected: Sequence[ToolSpec]) -> None:
        """Store the listing of each server in ``connected`` (the catalog's tools) that changed."""
        for server, specs in groupby(sorted(connected, key=lambda t: t.server), key=lambda t: t.server):
            tools = [{key: _plain(getattr(spec, key)) for key in _KEPT} for spec in specs]
            if self._known.get(server) != tools:
                self._known[server] = tools
                self._remember(server, tools)

    def of_switched_off(
        self, servers: Collection[str], taken: Collection[str], trusted: Collection[str] = ()
    ) -> list[ToolSpec]:
        """The known tools of ``servers`` (switched off), as tools that are off and whose server is off;
        none named as one of ``taken`` (the connected servers' tools keep their names)."""
        return [
            ToolSpec(
                server=server,
                **_fields(tool),
                enabled=False,
                server_enabled=False,
                trusted_server=server in trusted,
            )
            for server in servers
            for tool in self._known.get(server, ())
            if tool["name"] not in taken
        ]


def _plain(value: Any) -> Any:
    """A ToolSpec field as JSON keeps it (mappings become dicts), so a stored listing compares equal."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _fields(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A stored tool's ToolSpec fields (those it has)."""
    return {key: tool[key] for key in _KEPT if tool.get(key) is not None}
