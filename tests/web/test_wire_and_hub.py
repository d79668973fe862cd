"""The page's protocol on its own: commands are checked, events numbered, and a resuming page gets
exactly the events it missed."""

from __future__ import annotations

import json

import pytest

from edgehost.host import events as ev
from edgehost.web.hub import EventHub
from edgehost.web.wire import CommandError, approval_decision, event_json, parse_command


def test_a_submit_command_is_read_with_its_fields() -> None:
    command = parse_command(json.dumps({"id": 3, "command": "submit", "text": "hi", "conversation_id": 7}))
    assert (command.id, command.name, dict(command.fields)) == (
        3,
        "submit",
        {"text": "hi", "conversation_id": 7},
    )


@pytest.mark.parametrize(
    ("message", "complaint"),
    [
        ("not json", "not JSON"),
        ("[1]", "a JSON object"),
        ('{"command": "rm -rf"}', "unknown command 'rm -rf'"),
        ('{"command": "submit"}', "'text' must be a string"),
        ('{"command": "submit", "text": "  "}', "'text' is empty"),
        ('{"command": "submit", "text": "hi", "conversation_id": "7"}', "'conversation_id' must be a number"),
        ('{"command": "resume", "after": true}', "'after' must be a number"),
        ('{"command": "approve", "request_id": "r", "allow": 1}', "'allow' must be true or false"),
        ('{"command": "approve", "request_id": "r", "allow": true, "scope": "forever"}', "'scope' is once"),
        ('{"command": "approve", "request_id": "r", "allow": true, "arguments": [1]}', "must be an object"),
    ],
)
def test_a_bad_command_is_refused_saying_what_is_wrong(message: str, complaint: str) -> None:
    with pytest.raises(CommandError, match=complaint):
        parse_command(message)


def test_a_decision_from_the_page_is_recorded_as_the_webs() -> None:
    allowed = approval_decision({"allow": True, "scope": "conversation", "arguments": {"path": "b.txt"}})
    assert (allowed.allow, allowed.scope, allowed.arguments, allowed.decided_by) == (
        True,
        "conversation",
        {"path": "b.txt"},
        "web",
    )
    denied = approval_decision({"allow": False, "reason": "  not that file "})
    assert (denied.allow, denied.reason, denied.decided_by) == (False, "not that file", "web")


def test_a_downloads_progress_reaches_the_page_in_the_windows_words() -> None:
    going = ev.ModelDownloadProgressed("qwen", "downloading", 412_000_000, 1_117_000_000, 5.2e6, 135.0)
    checking = ev.ModelDownloadProgressed("qwen", "verifying", 1, 4, None, None)
    assert event_json(7, going)["data"]["text"] == "412 of 1,117 MB · 5.2 MB/s · 2 min 15 s left"
    assert event_json(8, checking)["data"]["text"] == "Checking the file (25 %)…"
    assert event_json(8, checking)["data"]["done_bytes"] == 1


def test_events_are_numbered_and_a_resuming_page_gets_exactly_those_it_missed() -> None:
    hub = EventHub(keep=5)
    subscriber, unsubscribe = hub.subscribe()
    for text in "abcdefg":
        hub(ev.TextDelta(1, text))
    sent = [subscriber.queue.get_nowait() for _ in range(7)]
    assert [m["seq"] for m in sent] == [1, 2, 3, 4, 5, 6, 7]
    assert sent[0] == {"seq": 1, "event": "TextDelta", "data": {"conversation_id": 1, "text": "a"}}
    unsubscribe()
    hub(ev.TextDelta(1, "h"))
    assert subscriber.queue.empty()
    # Kept: 4..8. A page that saw 5 gets 6, 7, 8; one that saw 2 lost 3 for good and must reload.
    assert [m["data"]["text"] for m in hub.since(5, hub.epoch) or []] == ["f", "g", "h"]
    assert hub.since(3, hub.epoch) is not None and hub.since(2, hub.epoch) is None
    assert hub.since(8, hub.epoch) == []
    assert hub.since(5, "another process") is None  # numbers of an earlier process mean nothing here
    assert hub.since(9, hub.epoch) is None


def test_a_page_that_falls_too_far_behind_is_told_to_go_and_resume() -> None:
    hub = EventHub()
    subscriber, _unsubscribe = hub.subscribe()
    for _ in range(subscriber.queue.maxsize + 1):
        hub(ev.TextDelta(1, "x"))
    assert subscriber.dropped
    messages = [subscriber.queue.get_nowait() for _ in range(subscriber.queue.qsize())]
    assert messages[-1] is None  # the sender closes its socket; the page resumes from what it applied
