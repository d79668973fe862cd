"""Conversations: create, rename, archive, delete, list and search (titles and message text)."""

from __future__ import annotations

import pytest

from edgehost.store import RecordNotFoundError, Store


def test_a_created_conversation_is_listed_with_its_title(store: Store) -> None:
    conversation_id = store.create_conversation("Trip to Lyon")
    [conversation] = store.list_conversations()
    assert conversation.id == conversation_id
    assert conversation.title == "Trip to Lyon"
    assert conversation.archived is False
    assert conversation.created <= conversation.updated


def test_conversations_are_listed_most_recently_updated_first(store: Store) -> None:
    first = store.create_conversation("first")
    second = store.create_conversation("second")
    store.add_message(first, "user", "back to the first one")
    assert [c.id for c in store.list_conversations()] == [first, second]
    assert [c.id for c in store.list_conversations(limit=1)] == [first]


def test_rename_changes_the_title(store: Store) -> None:
    conversation_id = store.create_conversation("New conversation")
    store.rename_conversation(conversation_id, "Groceries")
    conversation = store.get_conversation(conversation_id)
    assert conversation is not None and conversation.title == "Groceries"


def test_an_archived_conversation_is_hidden_unless_asked_for(store: Store) -> None:
    kept = store.create_conversation("kept")
    archived = store.create_conversation("archived")
    store.archive_conversation(archived)
    assert [c.id for c in store.list_conversations()] == [kept]
    assert {c.id for c in store.list_conversations(include_archived=True)} == {kept, archived}
    store.archive_conversation(archived, archived=False)
    assert {c.id for c in store.list_conversations()} == {kept, archived}


def test_deleting_a_conversation_deletes_its_messages_executions_and_rules(store: Store) -> None:
    doomed = store.create_conversation("doomed")
    other = store.create_conversation("other")
    store.add_message(doomed, "user", "hello")
    store.record_execution(server="s", tool="s__t", arguments={}, status="ok", conversation_id=doomed)
    store.record_execution(server="s", tool="s__t", arguments={}, status="ok", conversation_id=other)
    store.approval_rules.save({"server": "s", "tool": "*", "action": "allow"}, conversation_id=doomed)
    store.delete_conversation(doomed)
    assert store.get_conversation(doomed) is None
    assert store.list_messages(doomed) == []
    assert [e.conversation_id for e in store.list_executions()] == [other]
    assert store.approval_rules.load(doomed) == []
    assert store.search_conversations("hello") == []


@pytest.mark.parametrize("operation", ["rename", "archive", "delete"])
def test_an_unknown_conversation_id_raises_record_not_found(store: Store, operation: str) -> None:
    with pytest.raises(RecordNotFoundError, match="no conversation 42"):
        if operation == "rename":
            store.rename_conversation(42, "x")
        elif operation == "archive":
            store.archive_conversation(42)
        else:
            store.delete_conversation(42)


def test_search_finds_titles_and_message_words_by_prefix(store: Store) -> None:
    lyon = store.create_conversation("Family")
    store.add_message(lyon, "user", "Keep in mind that my sister lives in Lyon.")
    weather = store.create_conversation("Weather in Lyon")
    unrelated = store.create_conversation("Groceries")
    store.add_message(unrelated, "user", "milk and eggs")
    assert {c.id for c in store.search_conversations("lyon")} == {lyon, weather}
    assert [c.id for c in store.search_conversations("sist")] == [lyon]  # word prefix
    assert [c.id for c in store.search_conversations("sister Lyon")] == [lyon]  # every word
    assert store.search_conversations("sister eggs") == []
    assert store.search_conversations("Paris") == []


def test_search_text_with_fts_syntax_or_like_wildcards_is_taken_literally(store: Store) -> None:
    conversation = store.create_conversation("100% done_now")
    store.add_message(conversation, "user", 'he said "NEAR(a b)" AND OR')
    assert [c.id for c in store.search_conversations('"NEAR(a')] == [conversation]
    assert [c.id for c in store.search_conversations("100%")] == [conversation]
    assert store.search_conversations("1000") == []
    assert store.search_conversations("100_") == []  # "_" is not a LIKE wildcard here


def test_a_blank_search_lists_every_conversation(store: Store) -> None:
    ids = {store.create_conversation("a"), store.create_conversation("b")}
    assert {c.id for c in store.search_conversations("  ")} == ids
