"""Tool executions in the history database: the ``executions`` table's writes, reads and export.

A mixin of ``Store`` (store/_store.py), which owns the connection, its lock and the transactions these
run in; ``Store.__init__`` marks the executions a dead process left running "interrupted".
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from edgehost.store._export import EXPORT_FORMATS, write_executions
from edgehost.store._records import Execution
from edgehost.store._redact import RedactFnT, redact_json
from edgehost.store._rows import (
    _check_final_status,
    _cut,
    _execution,
    _execution_filter,
    _expect_conversation,
    _expect_one,
    _process_alive,
    _rowid,
)

__all__ = ["ExecutionRecords"]

_EXECUTION_COLUMNS = (
    "id, conversation_id, message_id, server, tool, arguments, dialect, decision, decided_by, started,"
    " duration_ms, status, result_size, result, result_truncated, error, proposed_arguments, chosen_by,"
    " structured_result"
)
_DECISIONS = ("allowed", "denied", "auto")


class ExecutionRecords:
    """The tool executions of the history (``Store`` inherits these methods)."""

    # The Store's (set in Store.__init__): its settings and its one connection.
    path: Path
    result_cap: int
    _redact: RedactFnT
    _busy_timeout_s: float
    _clock: Callable[[], float]
    _conn: sqlite3.Connection

    if TYPE_CHECKING:

        @staticmethod
        def _connect(path: Path, busy_timeout_s: float) -> sqlite3.Connection: ...
        def _errors(self) -> AbstractContextManager[None]: ...
        def _access(self, *, wait: bool = True) -> AbstractContextManager[None]: ...
        def _reading(self, *, wait: bool = True) -> AbstractContextManager[sqlite3.Connection]: ...
        def _transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def record_execution_started(
        self,
        *,
        server: str,
        tool: str,
        arguments: Any,
        conversation_id: int | None = None,
        message_id: int | None = None,
        dialect: str | None = None,
        decision: str | None = None,
        decided_by: str | None = None,
        proposed_arguments: Any = None,
        chosen_by: str | None = None,
    ) -> int:
        """Record a call about to run (status "running", shown as such by the GUI); return its id.
        ``proposed_arguments``: what the model proposed when the user edited ``arguments`` (None: not
        edited). ``chosen_by``: who chose to make the call (model, host, user, probe).

        ``tool`` is the namespaced name (``server__tool``). Finish it with ``record_execution_finished``;
        if this process dies first, the next open marks it "interrupted". Raises ``ValueError`` for a
        decision other than allowed/denied/auto, ``RecordNotFoundError`` for an unknown conversation and
        ``StoreError`` for an unknown message.
        """
        return self._insert_execution(
            server,
            tool,
            arguments,
            conversation_id,
            message_id,
            dialect,
            decision,
            decided_by,
            "running",
            proposed_arguments=proposed_arguments,
            chosen_by=chosen_by,
        )

    def record_execution_finished(
        self,
        execution_id: int,
        *,
        status: str,
        result: str | None = None,
        error: str | None = None,
        duration_ms: float | None = None,
        structured_result: Any = None,
    ) -> None:
        """Record how a running call ended. ``duration_ms`` defaults to the time since it started.

        ``result`` and ``error`` are redacted, then cut to ``result_cap`` bytes; ``structured_result``
        (the result's structuredContent) is kept as JSON when it fits in ``result_cap``, else not at all. Raises
        ``ValueError`` for a status outside ok/error/denied/timeout/cancelled/invalid and
        ``RecordNotFoundError`` unless the execution exists and is running.
        """
        _check_final_status(status)
        now = self._clock()
        result_text, result_size, truncated = self._cut_redacted(result)
        error_text = self._cut_redacted(error)[0]
        with self._transaction() as conn:
            cursor = conn.execute(
                "UPDATE executions SET status = ?, result = ?, result_size = ?, result_truncated = ?,"
                " error = ?, structured_result = ?, duration_ms = coalesce(?, max(0, (? - started) * 1000.0))"
                " WHERE id = ? AND status = 'running'",
                (
                    status,
                    result_text,
                    result_size,
                    int(truncated),
                    error_text,
                    self._structured_json(structured_result),
                    duration_ms,
                    now,
                    execution_id,
                ),
            )
            _expect_one(cursor, f"no running execution {execution_id}")

    def record_execution(
        self,
        *,
        server: str,
        tool: str,
        arguments: Any,
        status: str,
        conversation_id: int | None = None,
        message_id: int | None = None,
        dialect: str | None = None,
        decision: str | None = None,
        decided_by: str | None = None,
        result: str | None = None,
        error: str | None = None,
        duration_ms: float = 0.0,
        result_size: int | None = None,
        chosen_by: str | None = None,
        structured_result: Any = None,
    ) -> int:
        """Record a whole call in one step once it has ended: one that never ran (denied, invalid),
        or one a caller records only when finished (the GUI then never sees it running).

        ``result_size`` is the size of the whole result when the caller already cut ``result``
        (default: its UTF-8 bytes). Raises ``ValueError`` for a non-final status or unknown decision,
        ``RecordNotFoundError`` for an unknown conversation.
        """
        _check_final_status(status)
        result_text, cut_size, truncated = self._cut_redacted(result)
        if result_size is None:
            result_size = cut_size
        elif result_text is not None:
            truncated = truncated or result_size > len(result_text.encode("utf-8"))
        return self._insert_execution(
            server,
            tool,
            arguments,
            conversation_id,
            message_id,
            dialect,
            decision,
            decided_by,
            status,
            finished=(duration_ms, result_text, result_size, truncated, self._cut_redacted(error)[0]),
            chosen_by=chosen_by,
            structured_result=structured_result,
        )

    def get_execution(self, execution_id: int) -> Execution | None:
        with self._reading() as conn:
            row = conn.execute(
                f"SELECT {_EXECUTION_COLUMNS} FROM executions WHERE id = ?", (execution_id,)
            ).fetchone()
        return _execution(row) if row else None

    def list_executions(
        self,
        *,
        conversation_id: int | None = None,
        tool_glob: str | None = None,
        status: str | Collection[str] | None = None,
        limit: int | None = 200,
        offset: int = 0,
    ) -> list[Execution]:
        """Executions, newest first, filtered by conversation, namespaced tool glob (``files__*``,
        ``*delete*``; case-sensitive, ``*?[]`` as in shell globs) and status (one or several).
        """
        where, params = _execution_filter(conversation_id, tool_glob, status)
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {_EXECUTION_COLUMNS} FROM executions {where} ORDER BY started DESC, id DESC"
                " LIMIT ? OFFSET ?",
                (*params, -1 if limit is None else limit, offset),
            ).fetchall()
        return [_execution(row) for row in rows]

    def export_executions(
        self,
        fmt: str,
        file: IO[str],
        *,
        conversation_id: int | None = None,
        tool_glob: str | None = None,
        status: str | Collection[str] | None = None,
    ) -> int:
        """Write the matching executions, oldest first, to ``file`` as "json" (an array of
        ``Execution.to_dict()``) or "csv" (a header row, arguments as JSON text); return the count.

        Reads through its own connection, so it can run in a thread while the store is in use.
        Raises ``ValueError`` for another format, ``StoreError`` when the database cannot be read.
        """
        if fmt not in EXPORT_FORMATS:
            raise ValueError(f"unknown export format {fmt!r} (choose {' or '.join(EXPORT_FORMATS)})")
        where, params = _execution_filter(conversation_id, tool_glob, status)
        with self._access():
            pass  # what is queued for this store is in before the snapshot is taken
        with self._errors():
            conn = self._connect(self.path, self._busy_timeout_s)
            try:
                conn.execute("BEGIN")  # one snapshot for the whole export
                cursor = conn.execute(
                    f"SELECT {_EXECUTION_COLUMNS} FROM executions {where} ORDER BY started, id", params
                )
                count = write_executions(fmt, (_execution(row) for row in cursor), file)
                conn.execute("COMMIT")
                return count
            finally:
                conn.close()

    # -- internals -----------------------------------------------------------------------------

    def _insert_execution(
        self,
        server: str,
        tool: str,
        arguments: Any,
        conversation_id: int | None,
        message_id: int | None,
        dialect: str | None,
        decision: str | None,
        decided_by: str | None,
        status: str,
        finished: tuple[float, str | None, int | None, bool, str | None] | None = None,
        *,
        proposed_arguments: Any = None,
        chosen_by: str | None = None,
        structured_result: Any = None,
    ) -> int:
        if decision is not None and decision not in _DECISIONS:
            raise ValueError(f"a decision is one of {', '.join(_DECISIONS)}, got {decision!r}")
        duration_ms, result, result_size, truncated, error = finished or (None, None, None, False, None)
        arguments_json = self._arguments_json(arguments)
        proposed_json = self._arguments_json(proposed_arguments) if proposed_arguments is not None else None
        with self._transaction() as conn:
            if conversation_id is not None:
                _expect_conversation(conn, conversation_id)
            cursor = conn.execute(
                "INSERT INTO executions (conversation_id, message_id, server, tool, arguments, dialect,"
                " decision, decided_by, started, duration_ms, status, result_size, result, result_truncated,"
                " error, pid, proposed_arguments, chosen_by, structured_result)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    message_id,
                    server,
                    tool,
                    arguments_json,
                    dialect,
                    decision,
                    decided_by,
                    self._clock(),
                    duration_ms,
                    status,
                    result_size,
                    result,
                    int(truncated),
                    error,
                    os.getpid(),
                    proposed_json,
                    chosen_by,
                    self._structured_json(structured_result),
                ),
            )
            return _rowid(cursor)

    def _structured_json(self, structured: Any) -> str | None:
        """A structured result as JSON (redacted), or None when there is none or it is over the cap: a
        structure cut short is no structure."""
        if structured is None:
            return None
        text = json.dumps(redact_json(structured, self._redact), ensure_ascii=False, default=str)
        return text if len(text.encode("utf-8")) <= self.result_cap else None

    def _arguments_json(self, arguments: Any) -> str:
        text = json.dumps(redact_json(arguments, self._redact), ensure_ascii=False, default=str)
        if len(text.encode("utf-8")) <= self.result_cap:
            return text
        # Still valid JSON, and says it was cut (a write_file call can carry megabytes).
        cut, size, _ = _cut(text, self.result_cap)
        return json.dumps({"$truncated": cut, "$size": size}, ensure_ascii=False)

    def _cut_redacted(self, text: str | None) -> tuple[str | None, int | None, bool]:
        if text is None:
            return None, None, False
        return _cut(self._redact(text), self.result_cap)

    def _mark_interrupted_executions(self) -> None:
        rows = self._conn.execute("SELECT id, pid FROM executions WHERE status = 'running'").fetchall()
        dead = [(execution_id,) for execution_id, pid in rows if not _process_alive(pid)]
        if dead:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany(
                "UPDATE executions SET status = 'interrupted' WHERE id = ? AND status = 'running'", dead
            )
            self._conn.execute("COMMIT")
