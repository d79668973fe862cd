"""User approval rules kept in the history database (agent/approval.py's ApprovalRuleStore shape)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from edgehost.store._rows import _expect_conversation

if TYPE_CHECKING:
    from edgehost.store._store import Store

__all__ = ["ApprovalRuleTable"]

_RULE_ACTIONS = ("allow", "ask", "deny")


class ApprovalRuleTable:
    """User approval rules kept in the store (the ``ApprovalRuleStore`` shape of agent/approval.py).

    A rule is ``{"server": glob, "tool": glob, "action": "allow" | "ask" | "deny"}``. Rules saved
    with a ``conversation_id`` apply to that conversation only and go away with it.
    """

    def __init__(self, store: Store) -> None:
        self._store = store

    def load(self, conversation_id: int | None = None) -> list[dict[str, str]]:
        """The rules that apply everywhere (and to ``conversation_id`` when given), oldest first."""
        # Read before every call: no need to wait for the history being written behind the turn.
        with self._store._reading(wait=False) as conn:
            rows = conn.execute(
                "SELECT server, tool, action FROM approval_rules"
                " WHERE scope = 'always' OR conversation_id = ? ORDER BY created, id",
                (conversation_id,),
            ).fetchall()
        return [{"server": server, "tool": tool, "action": action} for server, tool, action in rows]

    def save(self, rule: Mapping[str, Any], conversation_id: int | None = None) -> None:
        """Add a rule, replacing the action of one with the same globs and scope.

        Raises ``ValueError`` for a rule without string globs or with another action,
        ``RecordNotFoundError`` for an unknown conversation.
        """
        server, tool, action = _rule_fields(rule)
        scope = "always" if conversation_id is None else "conversation"
        with self._store._transaction() as conn:
            if conversation_id is not None:
                _expect_conversation(conn, conversation_id)
            _delete_rule(conn, server, tool, conversation_id)
            conn.execute(
                "INSERT INTO approval_rules (server, tool, action, scope, conversation_id, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (server, tool, action, scope, conversation_id, self._store._clock()),
            )

    def delete(self, rule: Mapping[str, Any], conversation_id: int | None = None) -> bool:
        """Remove the rule with these globs and scope (its action is ignored); return whether one was."""
        server, tool = rule.get("server"), rule.get("tool")
        if not isinstance(server, str) or not isinstance(tool, str):
            raise ValueError(f"an approval rule needs string 'server' and 'tool' globs, got {dict(rule)!r}")
        with self._store._transaction() as conn:
            return _delete_rule(conn, server, tool, conversation_id) > 0


def _delete_rule(conn: sqlite3.Connection, server: str, tool: str, conversation_id: int | None) -> int:
    cursor = conn.execute(
        "DELETE FROM approval_rules WHERE server = ? AND tool = ? AND conversation_id IS ?",
        (server, tool, conversation_id),
    )
    return cursor.rowcount


def _rule_fields(rule: Mapping[str, Any]) -> tuple[str, str, str]:
    server, tool, action = rule.get("server"), rule.get("tool"), rule.get("action")
    if not isinstance(server, str) or not server or not isinstance(tool, str) or not tool:
        raise ValueError(f"an approval rule needs non-empty 'server' and 'tool' globs, got {dict(rule)!r}")
    if action not in _RULE_ACTIONS:
        raise ValueError(f"an approval rule's action is one of {', '.join(_RULE_ACTIONS)}, got {action!r}")
    return server, tool, str(action)
