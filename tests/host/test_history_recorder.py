"""The Host's history is written behind the turn, on a thread of its own: readers still see every
event recorded before, a slow or failed write holds nothing up, and the streamed answer is
checkpointed a second into it."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from edgehost.host import events as ev
from edgehost.host import history_recorder
from edgehost.host.history_recorder import CHECKPOINT_INTERVAL_S, HistoryRecorder
from edgehost.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(history_recorder, "monotonic", fake)
    return fake


WRITERS: dict[str, str] = {}  # text written -> the name of the thread that wrote it


@pytest.fixture
def slow_store(tmp_path: Path) -> Iterator[Store]:
    """A store whose writes take 50 ms each on the writer's thread (its redaction is slow), so a read
    that did not wait for the queue would find nothing."""
    WRITERS.clear()

    def slow_redact(text: str) -> str:
        WRITERS[text] = threading.current_thread().name
        if threading.current_thread().name == "edgehost-history":
            time.sleep(0.05)
        return text

    store = Store.open(tmp_path / "history.db", redact=slow_redact)
    yield store
    store.close()


@pytest.fixture
def recorder(slow_store: Store) -> Iterator[HistoryRecorder]:
    recorder = HistoryRecorder()
    recorder.attach(slow_store)
    yield recorder
    recorder.close()


def test_a_read_right_after_the_events_sees_every_one_of_them(
    recorder: HistoryRecorder, slow_store: Store
) -> None:
    conversation = slow_store.create_conversation("q")
    for n in range(4):
        recorder.record(ev.MessageAppended(conversation, "user", f"question {n}"))
    stored = slow_store.list_messages(conversation)
    assert [m.content for m in stored] == [f"question {n}" for n in range(4)]


def test_the_writes_happen_on_the_history_thread_not_the_callers(
    recorder: HistoryRecorder, slow_store: Store
) -> None:
    conversation = slow_store.create_conversation("q")
    for n in range(3):
        recorder.record(ev.MessageAppended(conversation, "user", f"question {n}"))
    assert len(slow_store.list_messages(conversation)) == 3
    assert {WRITERS[f"question {n}"] for n in range(3)} == {"edgehost-history"}


def test_a_reply_finished_within_a_second_is_one_complete_message(
    recorder: HistoryRecorder, slow_store: Store, clock: Clock
) -> None:
    conversation = slow_store.create_conversation("q")
    for word in ("The ", "board ", "is ", "fine."):
        recorder.record(ev.TextDelta(conversation, word))
        clock.now += 0.1
    recorder.record(ev.MessageAppended(conversation, "assistant", "The board is fine."))
    [message] = slow_store.list_messages(conversation)
    assert (message.role, message.content, message.status) == ("assistant", "The board is fine.", "complete")


def test_an_answer_streaming_past_a_second_is_kept_as_partial_until_it_ends(
    recorder: HistoryRecorder, slow_store: Store, clock: Clock
) -> None:
    conversation = slow_store.create_conversation("q")
    recorder.record(ev.TextDelta(conversation, "Once upon "))
    clock.now += CHECKPOINT_INTERVAL_S + 0.1
    recorder.record(ev.TextDelta(conversation, "a time"))
    [partial] = slow_store.list_messages(conversation)
    assert (partial.content, partial.status) == ("Once upon a time", "partial")

    recorder.record(ev.TextDelta(conversation, " there was a board."))
    recorder.record(ev.MessageAppended(conversation, "assistant", "Once upon a time there was a board."))
    [final] = slow_store.list_messages(conversation)
    assert (final.id, final.content, final.status) == (
        partial.id,
        "Once upon a time there was a board.",
        "complete",
    )


def test_a_stopped_turn_keeps_what_was_streamed(
    recorder: HistoryRecorder, slow_store: Store, clock: Clock
) -> None:
    conversation = slow_store.create_conversation("q")
    recorder.record(ev.TextDelta(conversation, "Half an "))
    recorder.record(ev.TextDelta(conversation, "answer"))
    recorder.finish_partial(conversation)
    [message] = slow_store.list_messages(conversation)
    assert (message.content, message.status) == ("Half an answer", "complete")


def test_a_failed_write_is_logged_and_the_writes_after_it_still_land(
    recorder: HistoryRecorder, slow_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    conversation = slow_store.create_conversation("q")
    with caplog.at_level(logging.ERROR, logger=history_recorder.__name__):
        recorder.record(ev.MessageAppended(conversation + 99, "user", "to a conversation that is gone"))
        recorder.record(ev.MessageAppended(conversation, "user", "still here"))
        stored = slow_store.list_messages(conversation)
    assert [m.content for m in stored] == ["still here"]
    assert "could not write to the history" in caplog.text


def test_closing_writes_what_is_queued(tmp_path: Path, slow_store: Store) -> None:
    recorder = HistoryRecorder()
    recorder.attach(slow_store)
    conversation = slow_store.create_conversation("q")
    for n in range(3):
        recorder.record(ev.MessageAppended(conversation, "user", f"question {n}"))
    recorder.close()
    slow_store.close()
    with Store.open(tmp_path / "history.db") as reopened:
        assert len(reopened.list_messages(conversation)) == 3
