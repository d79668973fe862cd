"""The incremental tool-call detector, fed the way a backend streams tokens."""

from __future__ import annotations

import pytest

from edgehost.agent._dialects import PROMPT_DIALECTS
from edgehost.agent.detector import (
    ALL_DIALECTS,
    DIALECTS,
    DetectorEvent,
    ProseDelta,
    ToolCallDetector,
    ToolCallIncomplete,
    ToolCallMalformed,
    ToolCallParsed,
    ToolCallStarted,
    closing_marker,
    detect_calls,
    dialect_example,
    opening_marker,
    opening_markers,
    stop_sequences,
)

ARGUMENTS = {"city": "Paris", "days": 3, "tags": ["a", "b"], "metric": True}


def prose(events: list[DetectorEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ProseDelta))


def parsed(events: list[DetectorEvent]) -> list[ToolCallParsed]:
    return [e for e in events if isinstance(e, ToolCallParsed)]


@pytest.mark.parametrize("dialect", PROMPT_DIALECTS)
def test_every_dialect_example_is_detected_as_that_dialect(dialect: str) -> None:
    events = detect_calls(dialect_example(dialect, "weather__get_forecast", ARGUMENTS), chunk_size=1)
    [call] = parsed(events)
    assert (call.name, call.dialect, call.index) == ("weather__get_forecast", dialect, 0)
    if dialect in ("xml-args", "qwen-xml"):  # text values, typed later by the schema
        assert call.arguments == {"city": "Paris", "days": "3", "tags": '["a", "b"]', "metric": "true"}
    else:
        assert call.arguments == ARGUMENTS
    assert prose(events) == ""


@pytest.mark.parametrize("dialect", [d for d in PROMPT_DIALECTS if d != "bare-json"])
def test_a_marker_split_at_every_position_is_still_found_and_never_shown(dialect: str) -> None:
    call = dialect_example(dialect, "everything__echo", {"message": "hi"})
    text = f"Before. {call} After."
    for cut in range(1, len(text)):
        detector = ToolCallDetector()
        events = detector.feed(text[:cut]) + detector.feed(text[cut:]) + detector.finish()
        assert [c.name for c in parsed(events)] == ["everything__echo"], cut
        assert prose(events) == "Before.  After.", cut


def test_prose_streams_at_once_and_is_held_back_only_while_a_marker_may_be_starting() -> None:
    detector = ToolCallDetector()
    assert detector.feed("Hello ") == [ProseDelta("Hello ")]
    assert detector.feed("world [TOOL") == [ProseDelta("world ")]
    assert detector.feed("S are") == [ProseDelta("[TOOLS are")]
    assert detector.feed(" <tool") == [ProseDelta(" ")]
    assert detector.feed("box>") == [ProseDelta("<toolbox>")]
    assert detector.finish() == []


def test_a_held_back_prefix_at_the_end_of_the_reply_is_prose() -> None:
    detector = ToolCallDetector()
    assert detector.feed("see [TOOL_CA") == [ProseDelta("see ")]
    assert detector.finish() == [ProseDelta("[TOOL_CA")]


def test_the_start_event_tells_where_a_grammar_can_take_over() -> None:
    text = 'Sure. [TOOL_CALL]\n{"name": "a", "arguments": {}}[END_TOOL_CALL]'
    detector = ToolCallDetector()
    events = [e for piece in text for e in detector.feed(piece)]
    [started] = [e for e in events if isinstance(e, ToolCallStarted)]
    assert started.dialect == "bracket" and started.index == 0
    assert text[: started.resume_at] == "Sure. [TOOL_CALL]"
    assert events.index(started) < events.index(parsed(events)[0])


def test_xml_args_resumes_right_after_the_tag_name_so_the_grammar_writes_the_attribute() -> None:
    text = 'Hi <tool_call name="a"><argument name="k">v</argument></tool_call>'
    [started] = [e for e in detect_calls(text, chunk_size=1) if isinstance(e, ToolCallStarted)]
    assert text[: started.resume_at] == "Hi <tool_call"


def test_pending_call_closed_says_generation_may_stop_after_the_closing_marker() -> None:
    detector = ToolCallDetector()
    detector.feed('[TOOL_CALL]{"name": "a", "arguments": {}}')
    assert detector.in_call and not detector.pending_call_closed
    events = detector.feed("[END_TOOL_CALL]\n")
    assert [c.name for c in parsed(events)] == ["a"]
    assert detector.pending_call_closed and not detector.in_call
    detector.feed("More text")
    assert not detector.pending_call_closed


def test_calls_in_one_reply_are_numbered_in_order() -> None:
    text = (
        dialect_example("bracket", "a", {})
        + " and "
        + dialect_example("mistral", "b", {})[:-1]
        + ', {"name": "c", "arguments": {}}]'
        + dialect_example("hermes", "d", {})
    )
    events = detect_calls(text, chunk_size=4)
    assert [(c.name, c.index) for c in parsed(events)] == [("a", 0), ("b", 1), ("c", 2), ("d", 3)]
    starts = [e.index for e in events if isinstance(e, ToolCallStarted)]
    assert starts == [0, 1, 3]


@pytest.mark.parametrize(
    "text",
    [
        "Use the [TOOL_CALL] marker to call a tool.",
        "Qwen writes <tool_call> then JSON.",
        'The tag `<tool_call>` opens a call: `<tool_call>{"name": "x"}</tool_call>`.',
        '``[TOOL_CALL]{"name": "x", "arguments": {}}[END_TOOL_CALL]``',
        '```json\n[TOOL_CALLS][{"name": "x", "arguments": {}}]\n```\n',
        "<tool_calls> and <tool_call/> are not markers",
        "[TOOL_CALL]" + " " * 100 + '{"name": "x"}[END_TOOL_CALL]',
    ],
)
def test_text_that_only_mentions_a_marker_is_prose(text: str) -> None:
    for chunk_size in (1, 5, 0):
        events = detect_calls(text, chunk_size=chunk_size)
        assert prose(events) == text
        assert all(isinstance(e, ProseDelta) for e in events)


def test_an_inline_code_span_ends_at_the_end_of_its_line() -> None:
    text = 'an unclosed `tick\n[TOOL_CALL]{"name": "a", "arguments": {}}[END_TOOL_CALL]'
    events = detect_calls(text, chunk_size=1)
    assert [c.name for c in parsed(events)] == ["a"]


def test_a_call_after_a_closed_code_fence_is_found() -> None:
    text = '```\n[TOOL_CALL] example\n```\nNow: [TOOL_CALL]{"name": "a", "arguments": {}}[END_TOOL_CALL]'
    events = detect_calls(text, chunk_size=2)
    assert [c.name for c in parsed(events)] == ["a"]
    assert prose(events) == "```\n[TOOL_CALL] example\n```\nNow: "


def test_a_cut_off_call_is_reported_incomplete_with_its_text() -> None:
    detector = ToolCallDetector()
    detector.feed('Ok <tool_call>\n{"name": "files__write", "arguments": {"text": "abc')
    [incomplete] = detector.finish()
    assert isinstance(incomplete, ToolCallIncomplete)
    assert incomplete.dialect == "hermes"
    assert incomplete.raw.startswith("<tool_call>") and incomplete.raw.endswith('"abc')
    assert "</tool_call>" in incomplete.reason


def test_a_call_whose_closing_marker_was_eaten_by_a_stop_sequence_is_parsed() -> None:
    for dialect in ("bracket", "hermes", "tool-request", "qwen-xml", "xml-args"):
        text = dialect_example(dialect, "a", {"k": "v"}).removesuffix(closing_marker(dialect))
        calls = parsed(detect_calls(text, chunk_size=3))
        assert [(c.name, c.arguments) for c in calls] == [("a", {"k": "v"})], dialect


def test_json_beyond_repair_is_malformed_with_the_reason() -> None:
    events = detect_calls('[TOOL_CALL]{"name": "a", "arguments": 42}[END_TOOL_CALL]')
    [malformed] = [e for e in events if isinstance(e, ToolCallMalformed)]
    assert malformed.dialect == "bracket" and "arguments" in malformed.error
    assert malformed.raw == '[TOOL_CALL]{"name": "a", "arguments": 42}[END_TOOL_CALL]'


def test_a_bare_json_reply_is_held_back_until_it_is_clear() -> None:
    detector = ToolCallDetector()
    events = detector.feed('{"name": "a", ')
    assert events == [ToolCallStarted("bare-json", 0, 0)]
    assert detector.feed('"parameters": {"x": 1}}') == []
    assert detector.pending_call_closed
    assert detector.feed("\n") == []
    [call] = detector.finish()
    assert isinstance(call, ToolCallParsed) and call.arguments == {"x": 1}


def test_a_json_object_followed_by_prose_is_prose() -> None:
    detector = ToolCallDetector()
    assert detector.feed('{"name": "a", "parameters": {}}') == [ToolCallStarted("bare-json", 0, 0)]
    assert prose(detector.feed(" is a call.")) == '{"name": "a", "parameters": {}} is a call.'
    assert detector.finish() == []


def test_bare_json_is_only_recognised_at_the_start_of_the_reply() -> None:
    text = 'The answer: {"name": "a", "parameters": {}}'
    assert detect_calls(text) == [ProseDelta(text)]


def test_finish_readies_the_detector_for_the_next_reply() -> None:
    detector = ToolCallDetector()
    detector.feed('[TOOL_CALL]{"name": "a"')
    assert isinstance(detector.finish()[0], ToolCallIncomplete)
    events = detector.feed('{"name": "b", "arguments": {}}') + detector.finish()
    assert [(c.name, c.index, c.dialect) for c in parsed(events)] == [("b", 0, "bare-json")]


def test_restricting_dialects_turns_the_others_into_prose() -> None:
    text = dialect_example("bracket", "a", {}) + dialect_example("hermes", "b", {})
    events = detect_calls(text, dialects=["hermes"], chunk_size=1)
    assert [c.name for c in parsed(events)] == ["b"]
    assert prose(events) == dialect_example("bracket", "a", {})


def test_an_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tool-call dialect"):
        ToolCallDetector(["bracket", "yaml"])


def test_marker_tables_for_the_backend_and_the_grammar() -> None:
    assert set(DIALECTS) == set(ALL_DIALECTS)
    assert stop_sequences("bracket") == ["[END_TOOL_CALL]"]
    assert stop_sequences("mistral") == [] and stop_sequences("bare-json") == []
    assert opening_marker("qwen-xml") == opening_marker("hermes") == "<tool_call>"
    assert opening_markers(PROMPT_DIALECTS) == [
        "[TOOL_CALL]",
        "<tool_call",
        "<tool_call>",
        "[TOOL_REQUEST]",
        "[TOOL_CALLS]",
    ]
    assert opening_markers() == [*opening_markers(PROMPT_DIALECTS), "<function=", "<|python_tag|>"]


def test_a_long_call_body_is_collected_without_rescanning() -> None:
    content = "x" * 200_000
    text = f'[TOOL_CALL]{{"name": "files__write", "arguments": {{"content": "{content}"}}}}[END_TOOL_CALL]'
    [call] = parsed(detect_calls(text, chunk_size=4))
    assert call.arguments["content"] == content


def test_the_named_mistral_form_is_one_call_per_marker() -> None:
    text = '[TOOL_CALLS]a[ARGS]{"q": 1}[TOOL_CALLS]b[ARGS]{}'
    events = detect_calls(text, chunk_size=1)
    assert [(c.name, c.arguments, c.index) for c in parsed(events)] == [("a", {"q": 1}, 0), ("b", {}, 1)]
    cut = detect_calls('[TOOL_CALLS]a[ARGS]{"q": "unfini', chunk_size=2)
    assert isinstance(cut[-1], ToolCallIncomplete)
    assert prose(detect_calls("[TOOL_CALLS]are what Mistral writes")) == "[TOOL_CALLS]are what Mistral writes"


def test_the_mistral_form_with_a_call_id_is_read_at_every_split() -> None:
    # Mistral Small 3.2's template writes [TOOL_CALLS]name[CALL_ID]id[ARGS]{arguments}.
    text = 'Sure.[TOOL_CALLS]a[CALL_ID]abc123XYZ[ARGS]{"q": 1}[TOOL_CALLS]b[CALL_ID]9[ARGS]{}'
    for cut in range(1, len(text)):
        detector = ToolCallDetector()
        events = detector.feed(text[:cut]) + detector.feed(text[cut:]) + detector.finish()
        assert [(c.name, c.arguments, c.index) for c in parsed(events)] == [
            ("a", {"q": 1}, 0),
            ("b", {}, 1),
        ], cut
        assert prose(events) == "Sure.", cut
    cut_off = detect_calls('[TOOL_CALLS]a[CALL_ID]abc123XYZ[ARGS]{"q": "unfini', chunk_size=2)
    assert isinstance(cut_off[-1], ToolCallIncomplete)
    assert prose(detect_calls("[TOOL_CALLS]a[CALL_ID] is a marker")) == "[TOOL_CALLS]a[CALL_ID] is a marker"


def merged(events: list[DetectorEvent]) -> list[DetectorEvent]:
    out: list[DetectorEvent] = []
    for event in events:
        last = out[-1] if out else None
        if isinstance(event, ProseDelta) and isinstance(last, ProseDelta):
            out[-1] = ProseDelta(last.text + event.text)
        else:
            out.append(event)
    return out


def test_random_mixes_of_markers_and_prose_give_the_same_events_at_every_chunking() -> None:
    import random

    pieces = [
        *("Hi ", "[", "<", "`", "```", "\n", " ", "{", "}", '"', "'", ":", ",", "]", "a", "name", "[ARGS]"),
        *("[TOOL_CALL]", "[END_TOOL_CALL]", "<tool_call>", "</tool_call>", "<tool_call ", "[TOOL_CALLS]"),
        *("[TOOL_", "<tool", "<function=x>", "</function>", "[TOOL_REQUEST]", "[END_TOOL_REQUEST]"),
        *("[CALL_ID]", "[CALL_ID]c1"),
        *(dialect_example(d, "t", {"k": "v"}) for d in PROMPT_DIALECTS),
    ]
    rng = random.Random(20261122)
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        whole = merged(detect_calls(text))
        for chunk_size in (1, 2, 5):
            assert merged(detect_calls(text, chunk_size=chunk_size)) == whole, (text, chunk_size)
