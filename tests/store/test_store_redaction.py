"""Secrets from the config never reach the database file."""

from __future__ import annotations

import io
from pathlib import Path

from edgehost.store import REDACTED, Store, redactor

TOKEN = "ghp_abcdef0123456789"
PASSWORD = "hunter2hunter2"


def test_secrets_are_redacted_from_everything_stored(db_path: Path) -> None:
    with Store.open(db_path, redact=redactor({TOKEN, PASSWORD})) as store:
        conversation = store.create_conversation(f"token {TOKEN}")
        store.add_message(conversation, "tool", f"env says GITHUB_TOKEN={TOKEN}", name="shell__env")
        answer = store.begin_message(conversation)
        store.update_partial(answer, f"your password is {PASSWORD}")
        execution_id = store.record_execution_started(
            server="http",
            tool="http__get",
            arguments={"headers": {"Authorization": f"Bearer {TOKEN}"}, PASSWORD: [PASSWORD, 3]},
        )
        store.record_execution_finished(
            execution_id, status="error", result=f"echo {TOKEN}", error=f"401 for {PASSWORD}"
        )
        store.record_execution(server="s", tool="s__t", arguments={}, status="error", error=TOKEN)
        exported = io.StringIO()
        store.export_executions("json", exported)
        execution = store.get_execution(execution_id)
        messages = store.list_messages(conversation)
        conversation_title = store.get_conversation(conversation).title  # type: ignore[union-attr]

    assert execution is not None
    assert execution.arguments == {
        "headers": {"Authorization": f"Bearer {REDACTED}"},
        REDACTED: [REDACTED, 3],
    }
    assert (execution.result, execution.error) == (f"echo {REDACTED}", f"401 for {REDACTED}")
    assert [m.content for m in messages] == [
        f"env says GITHUB_TOKEN={REDACTED}",
        f"your password is {REDACTED}",
    ]
    assert conversation_title == f"token {REDACTED}"
    assert TOKEN not in exported.getvalue()
    for file in db_path.parent.glob("history.db*"):  # the database, its WAL and shared memory
        raw = file.read_bytes()
        assert TOKEN.encode() not in raw and PASSWORD.encode() not in raw, file


def test_a_secret_across_the_cut_is_redacted_before_cutting(db_path: Path) -> None:
    with Store.open(db_path, redact=redactor({TOKEN}), result_cap=20) as store:
        execution_id = store.record_execution(
            server="s", tool="s__t", arguments={}, status="ok", result="x" * 10 + TOKEN
        )
        execution = store.get_execution(execution_id)
    assert execution is not None and execution.result == "x" * 10 + REDACTED


def test_the_longest_secret_is_replaced_whole() -> None:
    redact = redactor({"abcd", "abcdefgh", ""})
    assert redact("key=abcdefgh and abcd") == f"key={REDACTED} and {REDACTED}"
    assert redactor([])("nothing to hide") == "nothing to hide"
