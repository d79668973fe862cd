"""Stop sequences and UTF-8 assembled across streamed pieces."""

from __future__ import annotations

from edgehost.llm.textstream import StopMatch, StopMatcher, Utf8Assembler


def feed_all(matcher: StopMatcher, pieces: list[str]) -> tuple[str, StopMatch | None]:
    shown = []
    for piece in pieces:
        result = matcher.feed(piece)
        if isinstance(result, StopMatch):
            shown.append(result.text)
            return "".join(shown), result
        shown.append(result)
    shown.append(matcher.flush())
    return "".join(shown), None


def test_a_stop_sequence_split_across_pieces_is_found_and_never_shown() -> None:
    text, match = feed_all(StopMatcher(["[TOOL_CALL]"]), ["Let me check.", " [TOOL", "_CA", "LL] {"])
    assert text == "Let me check. "
    assert match is not None and match.stop_sequence == "[TOOL_CALL]"


def test_text_that_only_looks_like_a_stop_start_is_released() -> None:
    matcher = StopMatcher(["</tool_call>"])
    assert matcher.feed("a </") == "a "
    assert matcher.feed("b> c") == "</b> c"
    assert matcher.flush() == ""


def test_the_earliest_of_several_stop_sequences_wins() -> None:
    text, match = feed_all(StopMatcher(["END", "<|im_end|>"]), ["x <|im_end|> END"])
    assert (text, match and match.stop_sequence) == ("x ", "<|im_end|>")


def test_held_back_text_comes_out_at_the_end_of_the_stream() -> None:
    text, match = feed_all(StopMatcher(["STOP"]), ["all done ST"])
    assert (text, match) == ("all done ST", None)


def test_without_stop_sequences_text_passes_unchanged() -> None:
    assert feed_all(StopMatcher([]), ["a", "b"]) == ("ab", None)


def test_a_character_split_across_pieces_is_assembled() -> None:
    data = "Grüße 🙂".encode()
    assembler = Utf8Assembler()
    text = "".join(assembler.feed(data[i : i + 1]) for i in range(len(data))) + assembler.flush()
    assert text == "Grüße 🙂"


def test_an_unfinished_character_at_the_end_becomes_a_replacement_character() -> None:
    assembler = Utf8Assembler()
    assert assembler.feed("é".encode()[:1]) == ""
    assert assembler.flush() == "\ufffd"
