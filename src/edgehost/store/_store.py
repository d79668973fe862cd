"""The history database: conversations, messages, tool executions and approval rules in one SQLite file.

Threads and the event loop: the host calls these methods directly from its asyncio loop. Every write
is one short transaction of a few rows; in WAL mode with ``synchronous=NORMAL`` a commit appends to
the WAL without an fsync, which costs tens of microseconds (bench/store_write.py), far below what
it would cost to hop to a thread and back. The two calls that scale with the size of the history,
``export_executions`` and (on a very large history) ``search_conversations``, are safe to run in a
thread (``asyncio.to_thread``): the connection is shared under a lock, and export reads through its
own short-lived connection so that it never holds that lock while writing a file.

The tool executions' methods are ExecutionRecords' (store/_executions.py), which Store inherits.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from edgehost.paths import create_private
from edgehost.roles import ROLES
from edgehost.store._approval_rules import ApprovalRuleTable
from edgehost.store._attached import searchable_text
from edgehost.store._executions import ExecutionRecords
from edgehost.store._known_tools import KnownToolsTable
from edgehost.store._migrations import MIGRATIONS, Migration, apply_migrations
from edgehost.store._records import (
    ConversationRecord,
    Message,
    RecordNotFoundError,
    StoreError,
)
from edgehost.store._redact import RedactFnT
from edgehost.store._rows import (
    _conversation,
    _expect_conversation,
    _expect_one,
    _identity,
    _json_or_none,
    _like_escape,
    _message,
    _rowid,
)

__all__ = [
    "DEFAULT_BUSY_TIMEOUT_S",
    "DEFAULT_RESULT_CAP",
    "ApprovalRuleTable",
    "RecordNotFoundError",
    "Store",
    "StoreError",
]

# Another process (the GUI and a CLI command at once) holds the write lock only for one small
# transaction, well under a millisecond; the long holder is a migration on the first start of a new
# version, which this outlasts. Reads are never blocked in WAL mode.
DEFAULT_BUSY_TIMEOUT_S = 5.0
# A tool result is kept up to this many UTF-8 bytes (with a flag when cut): enough to read what a
# tool answered, small enough that a 10 MB file read does not bloat the history.
DEFAULT_RESULT_CAP = 64 * 1024

_MESSAGE_COLUMNS = "id, conversation_id, role, content, name, created, status, perf, model, backend, superseded, tool_call_id"
_CONVERSATION_COLUMNS = "id, title, created, updated, archived, routing"


class Store(ExecutionRecords):
    """The history database. Open with ``Store.open(paths.history_db)``; close with ``close()``.

    Every method commits before it returns, so a crash or SIGKILL of the process loses nothing a
    method has returned from. Methods are thread-safe (one connection behind a lock).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        redact: RedactFnT | None = None,
        result_cap: int = DEFAULT_RESULT_CAP,
        busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
        migrations: Sequence[Migration] = MIGRATIONS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.result_cap = result_cap
        self._redact: RedactFnT = redact or _identity
        self._busy_timeout_s = busy_timeout_s
        self._clock = clock
        self._lock = threading.RLock()
        # set_write_behind's function, called before the outermost access of any thread
        self._wait_for_writes: Callable[[], None] | None = None
        self._inside = threading.local()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        create_private(self.path)  # conversations and tool results: its owner's only (SQLite's WAL follows)
        self._conn = self._connect(self.path, busy_timeout_s)
        try:
            with self._errors():
                # WAL + synchronous=NORMAL is enough for "a crash loses at most the last second": a
                # commit appends its pages to the WAL file before returning, so a killed or crashed
                # *process* loses nothing committed (the kernel holds the write) and the file is
                # consistent after any crash. Only a power cut or kernel crash can roll back commits
                # made since the last WAL sync (at checkpoints). FULL would fsync every commit,
                # milliseconds each on an SD card or eMMC and inside the event loop. What bounds the
                # loss to one second is the caller checkpointing a partial answer once a second.
                mode = self._conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"{self.path}: SQLite refused WAL mode (got {mode!r})")
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.execute("PRAGMA foreign_keys=ON")
                apply_migrations(self._conn, migrations)
                self._has_fts = self._has_table("messages_fts")
                # Where the searched text is kept apart from a message's (migration 0009).
                self._has_search_text = self._has_table("message_search_text")
                self._mark_interrupted_executions()
        except BaseException:
            self._conn.close()
            raise
        self.approval_rules = ApprovalRuleTable(self)
        self.known_tools = KnownToolsTable(self)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        redact: RedactFnT | None = None,
        result_cap: int = DEFAULT_RESULT_CAP,
        busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
        migrations: Sequence[Migration] = MIGRATIONS,
        clock: Callable[[], float] = time.time,
    ) -> Store:
        """Open (creating if needed) the database at ``path`` and bring its schema up to date.

        ``redact`` is applied to message content, tool arguments, results and errors before they are
        written (build it with ``edgehost.store.redactor(config.secret_values())``). Raises
        ``StoreError`` when the file is not a SQLite database, is locked by a migration for longer
        than ``busy_timeout_s``, or a migration fails.
        """
        return cls(
            path,
            redact=redact,
            result_cap=result_cap,
            busy_timeout_s=busy_timeout_s,
            migrations=migrations,
            clock=clock,
        )

    def set_write_behind(self, wait: Callable[[], None] | None) -> None:
        """Make every read and write (from any thread) first call ``wait``: a queue that writes to this
        store from a thread of its own passes the function that returns once its queued writes are
        in, so whoever reads sees everything queued before. None removes it."""
        self._wait_for_writes = wait

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._access():
            try:
                self._conn.execute("PRAGMA optimize")
            except sqlite3.Error:
                pass
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- conversations -------------------------------------------------------------------------

    def create_conversation(self, title: str = "New conversation") -> int:
        """Create a conversation; return its id."""
        now = self._clock()
        with self._transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO conversations (title, created, updated) VALUES (?, ?, ?)",
                (self._redact(title), now, now),
            )
            return _rowid(cursor)

    def rename_conversation(self, conversation_id: int, title: str) -> None:
        """Set a conversation's title. Raises ``RecordNotFoundError`` for an unknown id."""
        with self._transaction() as conn:
            cursor = conn.execute(
                "UPDATE conversations SET title = ?, updated = ? WHERE id = ?",
                (self._redact(title), self._clock(), conversation_id),
            )
            _expect_one(cursor, f"no conversation {conversation_id}")

    def archive_conversation(self, conversation_id: int, archived: bool = True) -> None:
        """Hide a conversation from ``list_conversations`` (or show it again). Raises ``RecordNotFoundError``."""
        with self._transaction() as conn:
            cursor = conn.execute(
                "UPDATE conversations SET archived = ? WHERE id = ?", (int(archived), conversation_id)
            )
            _expect_one(cursor, f"no conversation {conversation_id}")

    def set_conversation_routing(self, conversation_id: int, routing: str | None) -> None:
        """Who decides the conversation's tool calls (auto | host | model; None: the setting).

        Raises ValueError for another value, ``RecordNotFoundError`` for an unknown conversation.
        """
        if routing not in (None, "auto", "host", "model"):
            raise ValueError(f"routing is auto, host, model or None, not {routing!r}")
        with self._transaction() as conn:
            cursor = conn.execute(
                "UPDATE conversations SET routing = ? WHERE id = ?", (routing, conversation_id)
            )
            _expect_one(cursor, f"no conversation {conversation_id}")

    def delete_conversation(self, conversation_id: int) -> None:
        """Delete a conversation with its messages, executions and conversation-scoped rules.

        Raises ``RecordNotFoundError`` for an unknown id.
        """
        with self._transaction() as conn:
            cursor = conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            _expect_one(cursor, f"no conversation {conversation_id}")

    def get_conversation(self, conversation_id: int) -> ConversationRecord | None:
        with self._reading() as conn:
            row = conn.execute(
                f"SELECT {_CONVERSATION_COLUMNS} FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
        return _conversation(row) if row else None

    def list_conversations(
        self, *, include_archived: bool = False, limit: int | None = None
    ) -> list[ConversationRecord]:
        """Conversations, most recently updated first."""
        where = "" if include_archived else "WHERE archived = 0"
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {_CONVERSATION_COLUMNS} FROM conversations {where} ORDER BY updated DESC, id DESC"
                " LIMIT ?",
                (-1 if limit is None else limit,),
            ).fetchall()
        return [_conversation(row) for row in rows]

    def search_conversations(
        self, query: str, *, include_archived: bool = True, limit: int = 50
    ) -> list[ConversationRecord]:
        """Conversations whose title contains ``query`` or whose messages contain all its words.

        Message text is matched by word prefix through FTS5 where SQLite has it ("lyon" finds
        "Lyon's"), else by substring. A question sent with resources attached is matched by what was
        typed and the resources' URIs, not by their texts (store/_attached.py). Most recently updated
        first.
        """
        query = query.strip()
        if not query:
            return self.list_conversations(include_archived=include_archived, limit=limit)
        title_like = "%" + _like_escape(query) + "%"
        words = re.findall(r"\w+", query)
        if self._has_fts and words:
            fts_query = " ".join('"' + word.replace('"', '""') + '"*' for word in words)
            message_match = (
                "SELECT conversation_id FROM messages WHERE superseded IS NULL AND id IN"
                " (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)"
            )
            params: tuple[Any, ...] = (title_like, fts_query)
        else:
            searched = "message_search" if self._has_search_text else "messages"
            message_match = (
                f"SELECT m.conversation_id FROM messages AS m JOIN {searched} AS s ON s.id = m.id"
                " WHERE m.superseded IS NULL AND s.content LIKE ? ESCAPE '\\'"
            )
            params = (title_like, title_like)
        archived = "" if include_archived else "AND archived = 0"
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {_CONVERSATION_COLUMNS} FROM conversations"
                f" WHERE (title LIKE ? ESCAPE '\\' OR id IN ({message_match})) {archived}"
                " ORDER BY updated DESC, id DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [_conversation(row) for row in rows]

    # -- messages ------------------------------------------------------------------------------

    def add_message(
        self,
        conversation_id: int,
        role: str,
        content: str,
        *,
        name: str | None = None,
        perf: Mapping[str, Any] | None = None,
        model: str | None = None,
        backend: str | None = None,
        tool_call_id: str | None = None,
    ) -> int:
        """Store a complete message (``name`` and ``tool_call_id``: the tool's and the call's, on a
        "tool" message); return its id.

        Raises ``ValueError`` for a role other than system/user/assistant/tool and
        ``RecordNotFoundError`` for an unknown conversation.
        """
        return self._insert_message(
            conversation_id, role, content, name, "complete", perf, model, backend, tool_call_id
        )

    def begin_message(
        self,
        conversation_id: int,
        role: str = "assistant",
        *,
        model: str | None = None,
        backend: str | None = None,
    ) -> int:
        """Start a message being generated (status "partial", empty); return its id.

        Follow with ``update_partial`` (at most once a second) and ``complete_message``.
        Raises ``ValueError`` for an unknown role, ``RecordNotFoundError`` for an unknown conversation.
        """
        return self._insert_message(conversation_id, role, "", None, "partial", None, model, backend, None)

    def update_partial(self, message_id: int, content: str) -> None:
        """Checkpoint the text generated so far (committed). Raises ``RecordNotFoundError`` unless partial."""
        with self._transaction() as conn:
            cursor = conn.execute(
                "UPDATE messages SET content = ? WHERE id = ? AND status = 'partial'",
                (self._redact(content), message_id),
            )
            _expect_one(cursor, f"no partial message {message_id}")

    def complete_message(self, message_id: int, content: str, perf: Mapping[str, Any] | None = None) -> None:
        """Store the final text of a message begun with ``begin_message``; mark it complete.

        Raises ``RecordNotFoundError`` unless the message exists and is partial.
        """
        with self._transaction() as conn:
            cursor = conn.execute(
                "UPDATE messages SET content = ?, status = 'complete', perf = ? WHERE id = ? AND status = 'partial'",
                (self._redact(content), _json_or_none(perf), message_id),
            )
            _expect_one(cursor, f"no partial message {message_id}")
            conn.execute(
                "UPDATE conversations SET updated = ?"
                " WHERE id = (SELECT conversation_id FROM messages WHERE id = ?)",
                (self._clock(), message_id),
            )

    def supersede_messages(self, conversation_id: int, from_message_id: int) -> int:
        """Mark ``from_message_id`` and every later current message of the conversation replaced (the
        question being answered again, its old answer and that answer's tool messages); return how many.

        They stay in the database but ``list_messages`` and ``search_conversations`` leave them out;
        executions are not touched. Raises ``RecordNotFoundError`` unless ``from_message_id`` is a
        current message of that conversation.
        """
        with self._transaction() as conn:
            found = conn.execute(
                "SELECT 1 FROM messages WHERE id = ? AND conversation_id = ? AND superseded IS NULL",
                (from_message_id, conversation_id),
            ).fetchone()
            if found is None:
                raise RecordNotFoundError(
                    f"no current message {from_message_id} in conversation {conversation_id}"
                )
            cursor = conn.execute(
                "UPDATE messages SET superseded = ? WHERE conversation_id = ? AND id >= ? AND superseded IS NULL",
                (self._clock(), conversation_id, from_message_id),
            )
            return cursor.rowcount

    def list_messages(self, conversation_id: int, *, include_superseded: bool = False) -> list[Message]:
        """The messages of a conversation in the order they were added; with ``include_superseded``
        also those replaced by a regenerated answer (``Message.superseded`` set)."""
        current = "" if include_superseded else "AND superseded IS NULL"
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? {current} ORDER BY id",
                (conversation_id,),
            ).fetchall()
        return [_message(row) for row in rows]

    def get_message(self, message_id: int) -> Message | None:
        with self._reading() as conn:
            row = conn.execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
        return _message(row) if row else None

    # -- maintenance ---------------------------------------------------------------------------

    def integrity_check(self) -> bool:
        """Whether ``PRAGMA integrity_check`` finds the database sound (False too when it cannot run)."""
        with self._access():
            try:
                rows = self._conn.execute("PRAGMA integrity_check").fetchall()
            except sqlite3.DatabaseError:
                return False
        return rows == [("ok",)]

    # -- internals -----------------------------------------------------------------------------

    def _has_table(self, name: str) -> bool:
        found = self._conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        return found.fetchone() is not None

    @staticmethod
    def _connect(path: Path, busy_timeout_s: float) -> sqlite3.Connection:
        # isolation_level=None: we issue BEGIN/COMMIT ourselves (BEGIN IMMEDIATE for writes, so two
        # processes wait on the busy timeout instead of failing a read-to-write upgrade).
        return sqlite3.connect(
            str(path), timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from exc

    @contextmanager
    def _access(self, *, wait: bool = True) -> Iterator[None]:
        """Hold the lock; the outermost access of a thread first waits for the write-behind queue
        (unless ``wait`` is False: a read of what that queue never writes)."""
        if wait and getattr(self._inside, "depth", 0) == 0 and self._wait_for_writes is not None:
            self._wait_for_writes()  # not under the lock: the queue's writer needs it
        self._inside.depth = getattr(self._inside, "depth", 0) + 1
        try:
            with self._lock:
                yield
        finally:
            self._inside.depth -= 1

    @contextmanager
    def _reading(self, *, wait: bool = True) -> Iterator[sqlite3.Connection]:
        with self._access(wait=wait), self._errors():
            yield self._conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._access(), self._errors():
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise

    def _insert_message(
        self,
        conversation_id: int,
        role: str,
        content: str,
        name: str | None,
        status: str,
        perf: Mapping[str, Any] | None,
        model: str | None,
        backend: str | None,
        tool_call_id: str | None,
    ) -> int:
        if role not in ROLES:
            raise ValueError(f"a message's role is one of {', '.join(ROLES)}, got {role!r}")
        now = self._clock()
        stored = self._redact(content)
        with self._transaction() as conn:
            _expect_conversation(conn, conversation_id)
            cursor = conn.execute(
                "INSERT INTO messages (conversation_id, role, content, name, created, status, perf, model,"
                " backend, tool_call_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    role,
                    stored,
                    name,
                    now,
                    status,
                    _json_or_none(perf),
                    model,
                    backend,
                    tool_call_id,
                ),
            )
            message_id = _rowid(cursor)
            searched = searchable_text(role, stored) if self._has_search_text else None
            if searched is not None:
                conn.execute(
                    "INSERT INTO message_search_text (id, text) VALUES (?, ?)", (message_id, searched)
                )
            conn.execute("UPDATE conversations SET updated = ? WHERE id = ?", (now, conversation_id))
            return message_id
