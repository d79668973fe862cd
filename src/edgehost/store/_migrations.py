"""The schema as named migrations, applied in order, each in its own transaction.

A migration is never edited once released: a change to the schema is a new entry at the end of
``MIGRATIONS``. Opening a database applies the entries its ``migrations`` table does not list.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from edgehost.store._attached import HEADER_STARTS, searchable_text

__all__ = ["MIGRATIONS", "Migration", "apply_migrations", "applied_migrations", "fts5_available"]


class Migration(NamedTuple):
    name: str
    sql: str
    # A migration that needs FTS5 is skipped (not recorded) where SQLite was built without it, and
    # applied on a later open by a SQLite that has it; search falls back to LIKE meanwhile.
    needs_fts5: bool = False
    # What SQL cannot compute, run after ``sql`` in the same transaction.
    then: Callable[[sqlite3.Connection], None] | None = None


_INITIAL = """
CREATE TABLE conversations (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1))
);
CREATE INDEX conversations_by_updated ON conversations (updated);

CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content TEXT NOT NULL,
    name TEXT,
    created REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('complete', 'partial')),
    perf TEXT,
    model TEXT,
    backend TEXT
);
CREATE INDEX messages_by_conversation ON messages (conversation_id, id);

CREATE TABLE executions (
    id INTEGER PRIMARY KEY,
    conversation_id INTEGER REFERENCES conversations (id) ON DELETE CASCADE,
    message_id INTEGER REFERENCES messages (id) ON DELETE SET NULL,
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    dialect TEXT,
    decision TEXT CHECK (decision IN ('allowed', 'denied', 'auto')),
    decided_by TEXT,
    started REAL NOT NULL,
    duration_ms REAL,
    status TEXT NOT NULL
        CHECK (status IN ('running', 'ok', 'error', 'denied', 'timeout', 'cancelled', 'invalid', 'interrupted')),
    result_size INTEGER,
    result TEXT,
    result_truncated INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    pid INTEGER
);
CREATE INDEX executions_by_started ON executions (started);
CREATE INDEX executions_by_conversation ON executions (conversation_id, started);
CREATE INDEX executions_running ON executions (status) WHERE status = 'running';

CREATE TABLE approval_rules (
    id INTEGER PRIMARY KEY,
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('allow', 'ask', 'deny')),
    scope TEXT NOT NULL CHECK (scope IN ('always', 'conversation')),
    conversation_id INTEGER REFERENCES conversations (id) ON DELETE CASCADE,
    created REAL NOT NULL,
    CHECK ((scope = 'conversation') = (conversation_id IS NOT NULL))
);
CREATE UNIQUE INDEX approval_rules_unique ON approval_rules (server, tool, scope, ifnull(conversation_id, 0));
"""

# An external-content index over messages.content, kept in step by triggers; 'rebuild' indexes the
# messages written before this migration.
_MESSAGE_SEARCH = """
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    content, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
END;
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
"""

# When a message was replaced by a regenerated answer (NULL: it is current). A column of its own rather
# than a third ``status``: SQLite cannot change the CHECK on ``status`` without rebuilding the table
# (and the search index on it), and a replaced message keeps whether it was complete or partial.
_SUPERSEDED_MESSAGES = """
ALTER TABLE messages ADD COLUMN superseded REAL;
"""

# Who decides a conversation's tool calls when the user chose for it (NULL: the routing setting).
_CONVERSATION_ROUTING = """
ALTER TABLE conversations ADD COLUMN routing TEXT CHECK (routing IN ('auto', 'host', 'model'));
"""

# What the model proposed when the user edited a call's arguments before allowing it (NULL: not edited;
# ``arguments`` is what ran).
_PROPOSED_ARGUMENTS = """
ALTER TABLE executions ADD COLUMN proposed_arguments TEXT;
"""

# A tool result is a message of its own (role "tool", the tool's name, the id of the call it answers);
# the framing a chat template without a tool role needs is applied when the prompt is rendered. Results
# written before as framed user turns ("[TOOL_RESULT name=NAME]\nTEXT\n[END_TOOL_RESULT]", perhaps
# followed by the question they answer) become tool messages holding TEXT.
_TOOL_RESULT_MESSAGES = """
ALTER TABLE messages ADD COLUMN tool_call_id TEXT;
UPDATE messages
SET role = 'tool',
    name = substr(content, 19, instr(content, ']') - 19),
    content = substr(
        content,
        instr(content, char(10)) + 1,
        instr(content, char(10) || '[END_TOOL_RESULT]') - instr(content, char(10)) - 1
    )
WHERE role = 'user'
  AND content LIKE '[TOOL_RESULT name=%'
  AND instr(content, ']') > 19
  AND instr(content, char(10) || '[END_TOOL_RESULT]') > instr(content, char(10));
"""

# The tools each server listed when last connected (store/_known_tools.py).
_KNOWN_TOOLS = """
CREATE TABLE known_tools (server TEXT PRIMARY KEY, tools TEXT NOT NULL, updated REAL NOT NULL);
"""

# Who chose to make each call: the model, the host (routing, for a small model), the user (a pinned tool,
# `edgehost call`) or `probe`. NULL for calls recorded before.
_CHOSEN_BY = """
ALTER TABLE executions ADD COLUMN chosen_by TEXT;
"""

# A call's structured result (the CallToolResult's structuredContent, as JSON), for what renders it: the
# view of an MCP App's tool. NULL for calls without one, and for those recorded before.
_STRUCTURED_RESULT = """
ALTER TABLE executions ADD COLUMN structured_result TEXT;
"""

# What a search matches of a message whose text holds more than that (store/_attached.py): a question
# sent with resources, by their URIs and the question typed, not by the resources' texts. Only such
# messages have a row; ``message_search`` gives every message's searched text.
_MESSAGE_SEARCH_TEXT = """
CREATE TABLE message_search_text (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE VIEW message_search AS
SELECT m.id AS id, coalesce(s.text, m.content) AS content
FROM messages AS m LEFT JOIN message_search_text AS s ON s.id = m.id;
CREATE TRIGGER message_search_text_forget AFTER DELETE ON messages BEGIN
    DELETE FROM message_search_text WHERE id = old.id;
END;
"""


def _fill_message_search_text(conn: sqlite3.Connection) -> None:
    """The searched text of the questions sent with resources before it was kept."""
    starts = " OR ".join("substr(content, 1, ?) = ?" for _ in HEADER_STARTS)
    found = conn.execute(
        f"SELECT id, content FROM messages WHERE role = 'user' AND ({starts})",
        [value for start in HEADER_STARTS for value in (len(start), start)],
    )
    for message_id, content in found.fetchall():
        text = searchable_text("user", content)
        if text is not None:
            conn.execute("INSERT INTO message_search_text (id, text) VALUES (?, ?)", (message_id, text))


# The search index over ``message_search`` instead of the messages' whole text (0002): it holds, for
# each message, the words of its searched text. A message's words are taken out before it is deleted or
# changed, while the view still gives what was indexed; a searched text written, changed or removed
# replaces the message's words.
_SEARCHED_TEXT_INDEX = """
DROP TRIGGER IF EXISTS messages_fts_insert;
DROP TRIGGER IF EXISTS messages_fts_delete;
DROP TRIGGER IF EXISTS messages_fts_update;
DROP TABLE IF EXISTS messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    content, content = 'message_search', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, content) SELECT id, content FROM message_search WHERE id = new.id;
END;
CREATE TRIGGER messages_fts_delete BEFORE DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content)
    SELECT 'delete', id, content FROM message_search WHERE id = old.id;
END;
CREATE TRIGGER messages_fts_unindex BEFORE UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content)
    SELECT 'delete', id, content FROM message_search WHERE id = old.id;
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts (rowid, content) SELECT id, content FROM message_search WHERE id = new.id;
END;
CREATE TRIGGER message_search_text_insert AFTER INSERT ON message_search_text BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content)
    SELECT 'delete', id, content FROM messages WHERE id = new.id;
    INSERT INTO messages_fts (rowid, content) SELECT id, new.text FROM messages WHERE id = new.id;
END;
CREATE TRIGGER message_search_text_update AFTER UPDATE OF text ON message_search_text BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content)
    SELECT 'delete', id, old.text FROM messages WHERE id = old.id;
    INSERT INTO messages_fts (rowid, content) SELECT id, new.text FROM messages WHERE id = new.id;
END;
CREATE TRIGGER message_search_text_delete AFTER DELETE ON message_search_text BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content)
    SELECT 'delete', id, old.text FROM messages WHERE id = old.id;
    INSERT INTO messages_fts (rowid, content) SELECT id, content FROM messages WHERE id = old.id;
END;
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
"""

MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_initial", _INITIAL),
    Migration("0002_message_search", _MESSAGE_SEARCH, needs_fts5=True),
    Migration("0003_superseded_messages", _SUPERSEDED_MESSAGES),
    Migration("0004_conversation_routing", _CONVERSATION_ROUTING),
    Migration("0005_proposed_arguments", _PROPOSED_ARGUMENTS),
    Migration("0006_tool_result_messages", _TOOL_RESULT_MESSAGES),
    Migration("0007_known_tools", _KNOWN_TOOLS),
    Migration("0008_chosen_by", _CHOSEN_BY),
    Migration("0009_message_search_text", _MESSAGE_SEARCH_TEXT, then=_fill_message_search_text),
    Migration("0010_searched_text_index", _SEARCHED_TEXT_INDEX, needs_fts5=True),
    Migration("0011_structured_result", _STRUCTURED_RESULT),
)

_MIGRATIONS_TABLE = "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied REAL NOT NULL)"


def fts5_available(conn: sqlite3.Connection) -> bool:
    """Whether this SQLite library was compiled with FTS5."""
    return any(row[0] == "ENABLE_FTS5" for row in conn.execute("PRAGMA compile_options"))


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    """Names of the migrations recorded in the database, in the order they were applied."""
    conn.execute(_MIGRATIONS_TABLE)
    return [row[0] for row in conn.execute("SELECT name FROM migrations ORDER BY applied, rowid")]


def apply_migrations(conn: sqlite3.Connection, migrations: Sequence[Migration] = MIGRATIONS) -> list[str]:
    """Apply the migrations the database lacks, each in one transaction; return the names applied.

    ``conn`` must be in autocommit mode (``isolation_level=None``). Each migration takes the write
    lock first and re-checks the table, so two processes opening an old database at once apply each
    migration once. Raises ``sqlite3.Error`` when a migration fails (that migration is rolled back,
    earlier ones stay).
    """
    conn.execute(_MIGRATIONS_TABLE)
    has_fts5 = fts5_available(conn)
    applied: list[str] = []
    for migration in migrations:
        if migration.needs_fts5 and not has_fts5:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM migrations WHERE name = ?", (migration.name,)).fetchone():
                conn.execute("COMMIT")
                continue
            for statement in _statements(migration.sql):
                conn.execute(statement)
            if migration.then is not None:
                migration.then(conn)
            conn.execute(
                "INSERT INTO migrations (name, applied) VALUES (?, ?)", (migration.name, time.time())
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(migration.name)
    return applied


def _statements(script: str) -> Iterator[str]:
    """Split a script into statements (``executescript`` would commit the open transaction)."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                yield pending.strip()
            pending = ""
    if pending.strip(" \n;"):
        raise ValueError(f"incomplete SQL statement in migration: {pending.strip()[:80]!r}")
