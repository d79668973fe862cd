"""Messages replaced by a regenerated answer: kept in the file, left out of the conversation's view."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from edgehost.store import MIGRATIONS, RecordNotFoundError, Store
from edgehost.store._migrations import applied_migrations


def _ask_and_answer(store: Store, conversation: int, question: str, answer: str) -> tuple[int, int, int]:
    """A question, a tool result and an answer; their ids."""
    asked = store.add_message(conversation, "user", question)
    tool = store.add_message(conversation, "tool", "load 0.4", name="board__cpu_status")
    answered = store.add_message(conversation, "assistant", answer)
    return asked, tool, answered


def test_superseded_messages_are_left_out_of_the_conversation_but_kept(store: Store) -> None:
    conversation = store.create_conversation("CPU")
    store.add_message(conversation, "user", "Hello")
    store.add_message(conversation, "assistant", "Hi.")
    asked, tool, answered = _ask_and_answer(store, conversation, "Is the CPU busy?", "Busy cores.")

    assert store.supersede_messages(conversation, asked) == 3
    store.add_message(conversation, "user", "Is the CPU busy?")
    store.add_message(conversation, "assistant", "Calm cores.")

    assert [(m.role, m.content) for m in store.list_messages(conversation)] == [
        ("user", "Hello"),
        ("assistant", "Hi."),
        ("user", "Is the CPU busy?"),
        ("assistant", "Calm cores."),
    ]
    everything = store.list_messages(conversation, include_superseded=True)
    assert [m.id for m in everything if m.superseded is not None] == [asked, tool, answered]
    assert [m.content for m in everything if m.superseded is None][-1] == "Calm cores."
    replaced = store.get_message(answered)
    assert replaced is not None and replaced.status == "complete" and replaced.superseded is not None


def test_superseding_leaves_other_conversations_and_the_executions_alone(store: Store) -> None:
    conversation = store.create_conversation("CPU")
    other = store.create_conversation("Other")
    asked, _tool, answered = _ask_and_answer(store, conversation, "Is the CPU busy?", "Busy cores.")
    store.add_message(other, "user", "Unrelated question")
    execution = store.record_execution(
        server="board",
        tool="board__cpu_status",
        arguments={},
        status="ok",
        conversation_id=conversation,
        message_id=answered,
        result="load 0.4",
    )
    before = store.get_execution(execution)

    store.supersede_messages(conversation, asked)

    assert [m.content for m in store.list_messages(other)] == ["Unrelated question"]
    assert store.get_execution(execution) == before
    assert before is not None and before.message_id == answered


def test_only_a_current_message_of_that_conversation_starts_a_replacement(store: Store) -> None:
    conversation = store.create_conversation("CPU")
    other = store.create_conversation("Other")
    asked, _tool, _answered = _ask_and_answer(store, conversation, "Is the CPU busy?", "Busy cores.")
    with pytest.raises(RecordNotFoundError):
        store.supersede_messages(other, asked)
    with pytest.raises(RecordNotFoundError):
        store.supersede_messages(conversation, asked + 1000)
    store.supersede_messages(conversation, asked)
    with pytest.raises(RecordNotFoundError):
        store.supersede_messages(conversation, asked)


def test_search_does_not_find_a_conversation_by_a_replaced_answer(store: Store) -> None:
    conversation = store.create_conversation("CPU")
    asked, _tool, _answered = _ask_and_answer(store, conversation, "Is the CPU busy?", "Busy cores.")
    assert [c.id for c in store.search_conversations("busy cores")] == [conversation]
    store.supersede_messages(conversation, asked)
    store.add_message(conversation, "user", "How is the CPU?")
    store.add_message(conversation, "assistant", "Calm cores.")
    assert store.search_conversations("busy cores") == []
    assert [c.id for c in store.search_conversations("calm")] == [conversation]


def test_a_database_made_before_superseding_existed_is_upgraded_and_its_messages_are_current(
    db_path: Path,
) -> None:
    previous = tuple(m for m in MIGRATIONS if m.name != "0003_superseded_messages")
    with Store.open(db_path, migrations=previous) as old:
        conversation = old.create_conversation("CPU")
        asked, _tool, _answered = _ask_and_answer(old, conversation, "Is the CPU busy?", "Busy cores.")
    conn = sqlite3.connect(db_path)
    try:
        assert "0003_superseded_messages" not in applied_migrations(conn)
    finally:
        conn.close()

    with Store.open(db_path) as upgraded:
        kept = upgraded.list_messages(conversation)
        assert [m.content for m in kept] == ["Is the CPU busy?", "load 0.4", "Busy cores."]
        assert all(m.superseded is None for m in kept)
        assert upgraded.supersede_messages(conversation, asked) == 3
        assert upgraded.list_messages(conversation) == []
        assert upgraded.integrity_check()
