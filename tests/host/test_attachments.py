"""A question sent with attached resources is stored as one message (their texts, then the question);
the history gives it back as the question the user typed and a short mention of each resource."""

from __future__ import annotations

import asyncio

from tests.host.conftest import WAIT_S

from edgehost.host.attachments import AttachedResource, attachment_text, split_question
from edgehost.host.history_view import Question
from edgehost.llm.scripted import ScriptedBackend

MINUTES = "Minutes of the garden club, 3 May.\n\nAnna orders the seeds.\n\nTom repairs the fence."
PLAN = "[resource plan://beds, 3 characters]\nnot a header of this message\n\nRows of beans."


async def test_a_question_sent_with_attachments_reads_back_as_the_question_and_its_resources(make_host):
    backend = ScriptedBackend(["Anna orders the seeds."])
    host, _ = await make_host(backend)
    question = "Who orders the seeds?\n\nAnd who repairs the fence?"
    attached = [attachment_text("note://club/minutes", MINUTES), attachment_text("plan://beds", PLAN)]
    result = await asyncio.wait_for(host.submit(question, attachments=attached), WAIT_S)
    assert result is not None
    # The model reads each resource under a header naming it, before the question.
    sent = backend.requests[0].messages[-1].content
    assert sent.startswith("[resource note://club/minutes, 82 characters]\nMinutes of the garden club")
    assert sent.endswith(question)
    view = host.history.conversation(result.conversation_id)
    assert view is not None
    [shown] = [e for e in view.entries if isinstance(e, Question)]
    assert shown.text == question
    # The blank lines in the texts, and a text that itself starts like a header, do not confuse it.
    assert shown.attachments == (
        AttachedResource("note://club/minutes", MINUTES),
        AttachedResource("plan://beds", PLAN),
    )
    assert [a.label for a in shown.attachments] == ["minutes · 82 B", "beds · 81 B"]
    assert view.last_question == question


async def test_a_question_sent_without_attachments_reads_back_whole(make_host):
    host, _ = await make_host(ScriptedBackend(["Done."]))
    question = "[resource note://x, 2 characters]\nab but no blank line after it"
    result = await asyncio.wait_for(host.submit(question), WAIT_S)
    assert result is not None
    view = host.history.conversation(result.conversation_id)
    assert view is not None
    assert view.entries[0] == Question(question)


def test_a_message_stored_before_the_header_counted_characters_is_still_taken_apart() -> None:
    # As the window wrote it ("[resource URI]") and `edgehost chat` did ("Attached resource URI:").
    window = "[resource note://today]\nbuy milk\n\n[resource file:///tmp/a.txt]\nline\n\nWhat is on my list?"
    assert split_question(window) == (
        "What is on my list?",
        (AttachedResource("note://today", "buy milk"), AttachedResource("file:///tmp/a.txt", "line")),
    )
    terminal = "Attached resource note://today:\nbuy milk\n\nAnd bread?"
    assert split_question(terminal) == ("And bread?", (AttachedResource("note://today", "buy milk"),))


def test_a_resources_size_and_name_are_said_shortly() -> None:
    assert AttachedResource("demo://resource/static/document/architecture.md", "x" * 12_345).label == (
        "architecture.md · 12.3 kB"
    )
    assert AttachedResource("note://today", "é" * 800_000).label == "today · 1.6 MB"  # bytes, as sent
    assert AttachedResource("urn:isbn", "").label == "urn:isbn · 0 B"
