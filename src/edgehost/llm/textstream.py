"""Turning a runtime's output into clean text: UTF-8 assembled across pieces, stop sequences matched.

Both are incremental and pure (no I/O), shared by every engine and the worker loop.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LoopDetector", "StopMatch", "StopMatcher", "Utf8Assembler"]


class Utf8Assembler:
    """Decodes bytes that may split a character across pieces (RKLLM callbacks, llama.cpp tokens)."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> str:
        return self._decoder.decode(data)

    def flush(self) -> str:
        """The rest at the end of a stream; an unfinished character becomes U+FFFD."""
        return self._decoder.decode(b"", final=True)


@dataclass(frozen=True)
class StopMatch:
    text: str  # text to emit before the stop sequence
    stop_sequence: str


class StopMatcher:
    """Finds the first stop sequence in streamed text, even when it is split across pieces.

    ``feed`` returns the text that can be shown now: text that could still be the start of a stop
    sequence is held back until the next piece decides it. When a stop sequence completes, ``feed``
    returns a StopMatch with the text before it; nothing after it is ever emitted.
    """

    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = tuple(s for s in stops if s)
        self._pending = ""

    def feed(self, piece: str) -> str | StopMatch:
        if not self._stops:
            return piece
        text = self._pending + piece
        first: tuple[int, str] | None = None
        for stop in self._stops:
            index = text.find(stop)
            if index >= 0 and (first is None or index < first[0]):
                first = (index, stop)
        if first is not None:
            self._pending = ""
            return StopMatch(text=text[: first[0]], stop_sequence=first[1])
        keep = self._longest_stop_prefix_suffix(text)
        self._pending = text[len(text) - keep :] if keep else ""
        return text[: len(text) - keep]

    def flush(self) -> str:
        """Held-back text at the end of the stream (no stop sequence completed)."""
        rest, self._pending = self._pending, ""
        return rest

    def _longest_stop_prefix_suffix(self, text: str) -> int:
        longest = 0
        for stop in self._stops:
            for length in range(min(len(stop) - 1, len(text)), longest, -1):
                if text.endswith(stop[:length]):
                    longest = length
                    break
        return longest


class LoopDetector:
    """Notices a reply that has started to repeat itself: the same span of at least ``min_unit``
    characters (with a letter and a space in it, so table rules and indentation do not count) three
    times back to back at the end of the text, as very small models do ("This is a server, which is
    why it's a web server." again and again). ``feed`` returns True once that happened."""

    def __init__(self, *, min_unit: int = 12, max_unit: int = 200, times: int = 3) -> None:
        self._min, self._max, self._times = min_unit, max_unit, times
        self._text = ""

    def feed(self, text: str) -> bool:
        self._text = (self._text + text)[-self._max * self._times :]
        tail = self._text
        for unit in range(self._min, min(self._max, len(tail) // self._times) + 1):
            if tail[-1] != tail[-unit - 1]:
                continue  # cheap test first: most lengths fail here
            last = tail[-unit:]
            if (
                " " in last
                and any(c.isalpha() for c in last)
                and all(tail[-unit * (k + 1) : len(tail) - unit * k] == last for k in range(1, self._times))
            ):
                return True
        return False
