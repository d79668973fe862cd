"""The tools each server listed when it was last connected, so that a question for a server that is now
switched off can be answered with "switch it on" (agent/loop.py) instead of a made-up answer."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from edgehost.store._store import Store

__all__ = ["KnownToolsTable"]


class KnownToolsTable:
    """One row per server: its tools as JSON objects (the fields of agent.tools.ToolSpec it had)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def load(self) -> dict[str, list[dict[str, Any]]]:
        """Every server's last listing, by server name."""
        with self._store._reading() as conn:
            rows = conn.execute("SELECT server, tools FROM known_tools ORDER BY server").fetchall()
        known: dict[str, list[dict[str, Any]]] = {}
        for server, text in rows:
            try:
                tools = json.loads(text)
            except ValueError:
                continue  # a row another version wrote differently: forgotten until the server connects
            if isinstance(tools, list):
                known[server] = [t for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
        return known

    def remember(self, server: str, tools: Sequence[Mapping[str, Any]]) -> None:
        """Keep ``tools`` as what ``server`` lists (replacing what it listed before)."""
        text = json.dumps(list(tools), ensure_ascii=False, separators=(",", ":"))
        with self._store._transaction() as conn:
            conn.execute(
                "INSERT INTO known_tools (server, tools, updated) VALUES (?, ?, ?)"
                " ON CONFLICT (server) DO UPDATE SET tools = excluded.tools, updated = excluded.updated",
                (server, text, self._store._clock()),
            )
