"""Named migrations: a fresh file gets them all, an old file gets the missing ones, a failure rolls back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from edgehost.store import MIGRATIONS, Migration, Store, StoreError
from edgehost.store._migrations import applied_migrations, apply_migrations


def _applied(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return applied_migrations(conn)
    finally:
        conn.close()


def test_a_new_database_records_every_migration_and_uses_wal(db_path: Path) -> None:
    with Store.open(db_path):
        pass
    assert _applied(db_path) == [m.name for m in MIGRATIONS]
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_a_database_made_without_the_search_index_is_upgraded_on_open(db_path: Path) -> None:
    # As a SQLite built without FTS5 leaves it (the other migrations are what this code reads).
    without_index = tuple(m for m in MIGRATIONS if not m.needs_fts5)
    with Store.open(db_path, migrations=without_index) as old:
        conversation = old.create_conversation("Family")
        old.add_message(conversation, "user", "my sister lives in Lyon")
        # Without the search index, message text is matched as a substring.
        assert [c.id for c in old.search_conversations("ster liv")] == [conversation]
    assert _applied(db_path) == [m.name for m in without_index]

    with Store.open(db_path) as upgraded:
        searching = ["0002_message_search", "0010_searched_text_index"]
        assert _applied(db_path) == [*(m.name for m in without_index), *searching]
        # The index covers the messages written before it existed: words match by prefix.
        assert [c.id for c in upgraded.search_conversations("Lyo")] == [conversation]
        assert upgraded.search_conversations("ster liv") == []
        later = upgraded.create_conversation("Later")
        upgraded.add_message(later, "user", "the weather in Lyon")
        assert {c.id for c in upgraded.search_conversations("lyon")} == {conversation, later}
        assert upgraded.integrity_check()


def test_reopening_an_up_to_date_database_applies_nothing(db_path: Path) -> None:
    with Store.open(db_path) as store:
        store.create_conversation("kept")
    with Store.open(db_path) as store:
        assert [c.title for c in store.list_conversations()] == ["kept"]
    assert _applied(db_path) == [m.name for m in MIGRATIONS]


def test_a_failing_migration_is_rolled_back_and_the_earlier_ones_stay(db_path: Path) -> None:
    broken = Migration(
        "0099_broken", "CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);"
    )
    with pytest.raises(StoreError, match="no_such_table"):
        Store.open(db_path, migrations=(*MIGRATIONS, broken))
    assert _applied(db_path) == [m.name for m in MIGRATIONS]
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'half_done'").fetchone() is None
    finally:
        conn.close()


def test_a_file_that_is_not_a_database_raises_store_error(db_path: Path) -> None:
    db_path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match="history.db"):
        Store.open(db_path)


def test_a_damaged_page_fails_the_integrity_check(db_path: Path) -> None:
    with Store.open(db_path) as store:
        conversation = store.create_conversation("c")
        for i in range(200):
            store.add_message(conversation, "user", f"message {i} " * 30)
        assert store.integrity_check()
    conn = sqlite3.connect(db_path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        messages_root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'messages'").fetchone()[
            0
        ]
    finally:
        conn.close()
    with db_path.open("r+b") as file:
        file.seek((messages_root - 1) * page_size)
        file.write(b"\xff" * page_size)
    with Store.open(db_path) as store:
        assert store.integrity_check() is False


def test_tool_results_written_as_framed_user_turns_become_tool_messages(db_path: Path) -> None:
    before = tuple(m for m in MIGRATIONS if m.name < "0006")
    with Store.open(db_path, migrations=before) as old:
        conversation = old.create_conversation("Board")
    framed = [
        "How hot is the board?",
        "[TOOL_RESULT name=board__temperature]\nsoc: 41.2 °C\nbig cores: 43 °C\n[END_TOOL_RESULT]",
        "[TOOL_RESULT name=time__now]\n\n[END_TOOL_RESULT]\nAnswer with this result: what time is it?",
        "[TOOL_RESULT name=broken] no newline, not one of ours",
    ]
    conn = sqlite3.connect(db_path)
    with conn:
        conn.executemany(
            "INSERT INTO messages (conversation_id, role, content, created, status) VALUES (?, 'user', ?, 0, 'complete')",
            [(conversation, text) for text in framed],
        )
    conn.close()

    with Store.open(db_path) as upgraded:
        messages = upgraded.list_messages(conversation)
        assert [(m.role, m.name, m.content, m.tool_call_id) for m in messages] == [
            ("user", None, "How hot is the board?", None),
            ("tool", "board__temperature", "soc: 41.2 °C\nbig cores: 43 °C", None),
            ("tool", "time__now", "", None),
            ("user", None, "[TOOL_RESULT name=broken] no newline, not one of ours", None),
        ]
        # The search index follows the rewritten text.
        assert [c.id for c in upgraded.search_conversations("cores")] == [conversation]
        assert upgraded.search_conversations("END_TOOL_RESULT") == []
        later = upgraded.add_message(conversation, "tool", "12:00", name="time__now", tool_call_id="c7")
        assert upgraded.get_message(later).tool_call_id == "c7"  # type: ignore[union-attr]


def test_calls_recorded_before_structured_results_were_kept_read_as_having_none(db_path: Path) -> None:
    before = tuple(m for m in MIGRATIONS if m.name != "0011_structured_result")
    conn = sqlite3.connect(db_path, isolation_level=None)
    try:
        apply_migrations(conn, before)
        conn.execute(
            "INSERT INTO executions (server, tool, arguments, started, status, result, result_truncated)"
            " VALUES ('s', 's__t', '{}', 1.0, 'ok', 'done', 0)"
        )
    finally:
        conn.close()
    with Store.open(db_path) as upgraded:
        [old] = upgraded.list_executions()
        later = upgraded.record_execution_started(server="s", tool="s__t", arguments={})
        upgraded.record_execution_finished(later, status="ok", result="{}", structured_result={"n": 1})
        shown = upgraded.get_execution(later)
    assert (old.result, old.structured_result) == ("done", None)
    assert shown is not None and shown.structured_result == {"n": 1}
    assert _applied(db_path)[-1] == "0011_structured_result"
