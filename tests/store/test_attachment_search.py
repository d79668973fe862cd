"""The conversation search matches what was typed, the answers and the URIs of the resources attached
to a question, not the resources' texts: searching "error" found every conversation that had attached a
log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from edgehost.store import MIGRATIONS, Store, attachment_text

LOG = attachment_text("file:///var/log/syslog", "08:01 kernel: error on usb 1-1\n\n08:02 retrying")
NOTES = attachment_text("note://today", "Buy milk.\n\nCall the plumber.")


def _ids(store: Store, query: str) -> set[int]:
    return {c.id for c in store.search_conversations(query)}


def _fts_consistent(path: Path) -> bool:
    """The search index holds exactly the words of what is searched (FTS5's check against its content)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.close()
    return True


def _ask(store: Store, title: str, question: str, *attached: str, answer: str = "") -> int:
    conversation = store.create_conversation(title)
    store.add_message(conversation, "user", "\n\n".join([*attached, question]))
    if answer:
        store.add_message(conversation, "assistant", answer)
    return conversation


def test_search_skips_the_text_of_attached_resources_but_finds_the_question_the_answer_and_the_uri(
    store: Store, db_path: Path
) -> None:
    boot = _ask(store, "Boot", "Why is the board slow?", LOG, answer="The USB disk keeps resetting.")
    shopping = _ask(store, "Shopping", "What is on my list?", NOTES)
    failed = _ask(store, "Failed", "The backup ended with an error: what now?")
    assert _ids(store, "error") == {failed}  # the attached log's "error" is not what was asked about
    assert _ids(store, "kernel") == _ids(store, "plumber") == set()
    assert _ids(store, "slow") == {boot}  # the question typed
    assert _ids(store, "resetting") == {boot}  # the answer
    assert _ids(store, "syslog") == {boot} and _ids(store, "note today") == {shopping}  # the URIs
    assert _fts_consistent(db_path) and store.integrity_check()
    # Deleting a conversation takes its question's words out of the index with it.
    store.delete_conversation(boot)
    assert _ids(store, "syslog") == set()
    later = _ask(store, "Later", "Anything about syslog?")
    assert _ids(store, "syslog") == {later}
    assert _fts_consistent(db_path)


def test_without_the_search_index_the_substring_search_skips_attached_texts_too(db_path: Path) -> None:
    # As a SQLite built without FTS5 searches: by substring.
    without_index = tuple(m for m in MIGRATIONS if not m.needs_fts5)
    with Store.open(db_path, migrations=without_index) as store:
        boot = _ask(store, "Boot", "Why is the board slow?", LOG)
        failed = _ask(store, "Failed", "The backup ended with an error: what now?")
        assert _ids(store, "rror") == {failed}
        assert _ids(store, "var/log") == {boot}


def test_questions_stored_before_are_searched_without_their_attached_texts_once_upgraded(
    db_path: Path,
) -> None:
    before = tuple(m for m in MIGRATIONS if m.name < "0009")
    with Store.open(db_path, migrations=before) as old:
        boot = _ask(old, "Boot", "Why is the board slow?", LOG)
        # As the window wrote it before the header counted characters.
        older = _ask(old, "Older", "Any trouble?", "[resource file:///var/log/dmesg]\nusb error -71")
        failed = _ask(old, "Failed", "The backup ended with an error: what now?")
        assert _ids(old, "error") == {boot, older, failed}  # the old index had the attached texts
    with Store.open(db_path) as upgraded:
        assert _ids(upgraded, "error") == {failed}
        assert _ids(upgraded, "slow") == {boot} and _ids(upgraded, "dmesg trouble") == {older}
        # The messages themselves keep every attached text.
        assert "kernel: error" in upgraded.list_messages(boot)[0].content
        assert _fts_consistent(db_path) and upgraded.integrity_check()
