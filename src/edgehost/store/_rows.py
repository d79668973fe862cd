"""The history database's rows and small SQL helpers: records from rows, filters, checks."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Collection, Mapping
from typing import Any

from edgehost.store._records import (
    FINAL_EXECUTION_STATUSES,
    ConversationRecord,
    Execution,
    Message,
    RecordNotFoundError,
)


def _execution_filter(
    conversation_id: int | None, tool_glob: str | None, status: str | Collection[str] | None
) -> tuple[str, tuple[Any, ...]]:
    clauses: list[str] = []
    params: list[Any] = []
    if conversation_id is not None:
        clauses.append("conversation_id = ?")
        params.append(conversation_id)
    if tool_glob:
        clauses.append("tool GLOB ?")
        params.append(tool_glob)
    if status:
        statuses = [status] if isinstance(status, str) else list(status)
        clauses.append(f"status IN ({', '.join('?' * len(statuses))})")
        params.extend(statuses)
    return ("WHERE " + " AND ".join(clauses) if clauses else ""), tuple(params)


def _cut(text: str, cap: int) -> tuple[str, int, bool]:
    """``text`` cut to at most ``cap`` UTF-8 bytes (never inside a character), its size, whether cut."""
    encoded = text.encode("utf-8")
    if len(encoded) <= cap:
        return text, len(encoded), False
    return encoded[:cap].decode("utf-8", errors="ignore"), len(encoded), True


def _check_final_status(status: str) -> None:
    if status not in FINAL_EXECUTION_STATUSES:
        raise ValueError(
            f"an execution ends as one of {', '.join(sorted(FINAL_EXECUTION_STATUSES))}, got {status!r}"
        )


def _expect_conversation(conn: sqlite3.Connection, conversation_id: int) -> None:
    if conn.execute("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)).fetchone() is None:
        raise RecordNotFoundError(f"no conversation {conversation_id}")


def _expect_one(cursor: sqlite3.Cursor, message: str) -> None:
    if cursor.rowcount != 1:
        raise RecordNotFoundError(message)


def _rowid(cursor: sqlite3.Cursor) -> int:
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def _process_alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    except OSError:
        return False
    return True


def _json_or_none(value: Mapping[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(dict(value), ensure_ascii=False, default=str)


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _identity(text: str) -> str:
    return text


def _conversation(row: tuple[Any, ...]) -> ConversationRecord:
    id_, title, created, updated, archived, routing = row
    return ConversationRecord(
        id=id_, title=title, created=created, updated=updated, archived=bool(archived), routing=routing
    )


def _message(row: tuple[Any, ...]) -> Message:
    id_, conversation_id, role, content, name, created, status, perf, model, backend, superseded, call_id = (
        row
    )
    return Message(
        id=id_,
        conversation_id=conversation_id,
        role=role,
        content=content,
        name=name,
        created=created,
        status=status,
        perf=json.loads(perf) if perf else None,
        model=model,
        backend=backend,
        superseded=superseded,
        tool_call_id=call_id,
    )


def _execution(row: tuple[Any, ...]) -> Execution:
    (
        id_,
        conversation_id,
        message_id,
        server,
        tool,
        arguments,
        dialect,
        decision,
        decided_by,
        started,
        duration_ms,
        status,
        result_size,
        result,
        result_truncated,
        error,
        proposed_arguments,
        chosen_by,
        structured_result,
    ) = row
    return Execution(
        id=id_,
        conversation_id=conversation_id,
        message_id=message_id,
        server=server,
        tool=tool,
        arguments=json.loads(arguments),
        dialect=dialect,
        decision=decision,
        decided_by=decided_by,
        started=started,
        duration_ms=duration_ms,
        status=status,
        result_size=result_size,
        result=result,
        result_truncated=bool(result_truncated),
        error=error,
        proposed_arguments=json.loads(proposed_arguments) if proposed_arguments is not None else None,
        chosen_by=chosen_by,
        structured_result=json.loads(structured_result) if structured_result is not None else None,
    )
