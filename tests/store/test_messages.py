"""Messages: complete ones, and an answer checkpointed while it is generated."""

from __future__ import annotations

import pytest

from edgehost.store import RecordNotFoundError, Store


def test_messages_come_back_in_order_with_their_fields(store: Store) -> None:
    conversation = store.create_conversation("c")
    store.add_message(conversation, "system", "You are helpful.")
    store.add_message(conversation, "user", "List /tmp")
    store.add_message(conversation, "tool", "a.txt", name="files__list")
    store.add_message(
        conversation, "assistant", "One file.", perf={"tokens_per_s": 12.5}, model="qwen", backend="llamacpp"
    )
    messages = store.list_messages(conversation)
    assert [(m.role, m.content, m.status) for m in messages] == [
        ("system", "You are helpful.", "complete"),
        ("user", "List /tmp", "complete"),
        ("tool", "a.txt", "complete"),
        ("assistant", "One file.", "complete"),
    ]
    assert messages[2].name == "files__list"
    assert (messages[3].perf, messages[3].model, messages[3].backend) == (
        {"tokens_per_s": 12.5},
        "qwen",
        "llamacpp",
    )
    assert store.get_message(messages[0].id) == messages[0]


def test_a_partial_answer_is_checkpointed_then_completed(store: Store) -> None:
    conversation = store.create_conversation("c")
    answer = store.begin_message(conversation, model="m", backend="rkllm")
    begun = store.get_message(answer)
    assert begun is not None and (begun.content, begun.status) == ("", "partial")
    store.update_partial(answer, "The answer")
    checkpoint = store.get_message(answer)
    assert checkpoint is not None and (checkpoint.content, checkpoint.status) == ("The answer", "partial")
    store.complete_message(answer, "The answer is 42.", {"prefill_ms": 30})
    done = store.get_message(answer)
    assert done is not None
    assert (done.content, done.status, done.perf, done.backend) == (
        "The answer is 42.",
        "complete",
        {"prefill_ms": 30},
        "rkllm",
    )


def test_a_completed_message_takes_no_more_checkpoints(store: Store) -> None:
    conversation = store.create_conversation("c")
    answer = store.begin_message(conversation)
    store.complete_message(answer, "final")
    with pytest.raises(RecordNotFoundError):
        store.update_partial(answer, "late checkpoint")
    with pytest.raises(RecordNotFoundError):
        store.complete_message(answer, "twice")
    message = store.get_message(answer)
    assert message is not None and message.content == "final"


def test_a_message_for_an_unknown_conversation_raises(store: Store) -> None:
    with pytest.raises(RecordNotFoundError, match="no conversation 7"):
        store.add_message(7, "user", "hello")
    with pytest.raises(RecordNotFoundError):
        store.begin_message(7)


def test_an_unknown_role_is_refused(store: Store) -> None:
    conversation = store.create_conversation("c")
    with pytest.raises(ValueError, match="role"):
        store.add_message(conversation, "narrator", "Once upon a time")


def test_adding_a_message_updates_the_conversation(store: Store) -> None:
    conversation = store.create_conversation("c")
    before = store.get_conversation(conversation)
    store.add_message(conversation, "user", "hi")
    after = store.get_conversation(conversation)
    assert before is not None and after is not None and after.updated >= before.updated
