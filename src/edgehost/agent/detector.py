"""Incremental tool-call detector: a pure state machine fed the model's text as it streams.

``feed`` takes any piece of text (a token, a chunk) and returns events: prose for the user, held back
only while a possible marker is pending; a call's start, its parsed form, or why it could not be read.
``finish`` ends the reply (a call still open is reported incomplete) and readies the detector for the next.

What counts as a call (and what is only a mention):
- an opening marker counts only when its body starts right after it (after whitespace): ``{`` or a
  code fence for the JSON dialects, ``[``/``{`` or ``name[ARGS]`` for mistral, ``<function`` for qwen-xml, ``name`` for
  xml-args. "use the [TOOL_CALL] marker" is prose: the marker is followed by a word.
- markers inside Markdown code are prose: an inline code span (a run of one or two backticks, closed
  by the same run or the end of the line) or a fenced block (three or more backticks, closed by a run
  at least as long).
- bare-json: a reply whose first non-space character is ``{`` is held back until its object closes;
  it is a call when it has "name" and "arguments" (or "parameters") and nothing but whitespace
  follows it to the end of the reply, otherwise prose.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from edgehost.agent._detector_events import (
    DetectorEvent,
    ProseDelta,
    ToolCallIncomplete,
    ToolCallMalformed,
    ToolCallParsed,
    ToolCallStarted,
)
from edgehost.agent._dialects import (
    ALL_DIALECTS,
    DIALECTS,
    PROMPT_DIALECTS,
    WAIT,
    Dialect,
    DialectMarkers,
    JsonScanner,
    MalformedCall,
    ReplyStart,
    closing_marker,
    dialect,
    dialect_example,
    opening_marker,
    stop_sequences,
)

__all__ = [
    "ALL_DIALECTS",
    "DIALECTS",
    "PROMPT_DIALECTS",
    "DetectorEvent",
    "Dialect",
    "DialectMarkers",
    "ProseDelta",
    "ToolCallDetector",
    "ToolCallIncomplete",
    "ToolCallMalformed",
    "ToolCallParsed",
    "ToolCallStarted",
    "closing_marker",
    "detect_calls",
    "dialect_example",
    "opening_markers",
    "opening_marker",
    "stop_sequences",
]

# An opening marker followed by more whitespace than this is prose (a call body follows at once).
_MAX_GAP = 64
_WHITESPACE = " \t\r\n"
_INLINE_CODE_STOP = re.compile(r"[`\n]")
_FENCE_STOP = re.compile(r"`")

_START, _PROSE, _AFTER_MARKER, _BODY, _BARE, _BARE_CLOSED = range(6)
_NO_DIALECT = Dialect(name="", opening="", closing="")  # before the first call (never read then)


@dataclass(frozen=True)
class _Trigger:
    """A literal that may open a call; ``resume`` of its characters precede the body."""

    text: str
    resume: int
    body_starts: tuple[tuple[str, Dialect], ...]  # (what the body starts with, its dialect)
    dialects: tuple[Dialect, ...]  # the dialects it opens, in order


def _triggers(dialects: tuple[Dialect, ...]) -> list[_Trigger]:
    starts: dict[str, list[tuple[str, Dialect]]] = {}
    opened: dict[str, list[Dialect]] = {}
    resume: dict[str, int] = {}
    for d in dialects:
        for text in d.trigger_texts:
            starts.setdefault(text, []).extend((prefix, d) for prefix in d.body_starts)
            opened.setdefault(text, []).append(d)
            resume[text] = len(d.opening)
    return [_Trigger(text, resume[text], tuple(found), tuple(opened[text])) for text, found in starts.items()]


@functools.lru_cache(maxsize=32)
def _trigger_tables(
    names: tuple[str, ...],
) -> tuple[tuple[Dialect, ...], list[_Trigger], dict[str, list[_Trigger]], re.Pattern[str]]:
    """The dialects called ``names``, their triggers by first character, and the pattern of
    characters that can start one (built once per set: a detector is made for every round).
    Raises ValueError for an unknown name."""
    dialects = tuple(dialect(name) for name in names)
    triggers = _triggers(dialects)
    by_first: dict[str, list[_Trigger]] = {}
    for trigger in triggers:
        by_first.setdefault(trigger.text[0], []).append(trigger)
    chars = "".join(re.escape(c) for c in by_first)
    return dialects, triggers, by_first, re.compile(f"[{chars}`]")


def opening_markers(dialects: Iterable[str] = ALL_DIALECTS) -> list[str]:
    """The distinct opening markers of ``dialects`` (triggers for a lazy grammar). Raises ValueError."""
    markers: list[str] = []
    for name in dialects:
        marker = opening_marker(name)
        if marker and marker not in markers:
            markers.append(marker)
    return markers


class ToolCallDetector:
    """Finds tool calls in streamed model text; see the module docstring for the rules.

    ``dialects`` are the dialects accepted at once (default: all). Raises ValueError for an unknown one.
    """

    def __init__(self, dialects: Iterable[str] = ALL_DIALECTS) -> None:
        self.dialects: tuple[str, ...] = tuple(dialects)
        accepted, self._triggers, self._by_first, self._prose_stop = _trigger_tables(self.dialects)
        self._reply_wide = tuple(d for d in accepted if d.reply_wide)
        self._state: int = _PROSE
        self._buf: str = ""
        self._closed: bool = False
        self._reset()
        self._index = 0

    # -- public surface -------------------------------------------------------------------------

    @property
    def in_call(self) -> bool:
        """Whether text fed now belongs to a call body (or a held-back bare-json object)."""
        return self._state in (_BODY, _BARE)

    @property
    def pending_call_closed(self) -> bool:
        """True right after a call's end (closing marker, mistral array, bare-json object) while only
        whitespace followed: the backend may stop generating now."""
        return self._closed

    def feed(self, text: str) -> list[DetectorEvent]:
        """Events for the next piece of the reply. Never raises for any text."""
        if not text:
            return []
        if self._state == _PROSE and not self._buf and not self._ticks:
            code = self._code
            stop = self._prose_stop if not code else _INLINE_CODE_STOP if code < 3 else _FENCE_STOP
            if stop.search(text) is None:
                self._base += len(text)
                if self._closed and text.strip(_WHITESPACE):
                    self._closed = False
                return [ProseDelta(text)]
        events: list[DetectorEvent] = []
        self._buf += text
        self._process(events, final=False)
        return events

    def finish(self) -> list[DetectorEvent]:
        """Events at the end of the reply: held-back text, and an open call as incomplete (or parsed,
        when only its closing marker is missing: a stop sequence ate it). Resets for the next reply."""
        events: list[DetectorEvent] = []
        self._process(events, final=True)
        state = self._state
        raw = "".join(self._parts)
        if state == _BODY:
            body = raw[self._body_offset :]
            if self._dialect.is_complete(body):
                self._emit_calls(events, raw, body)
            else:
                closing = self._dialect.closing
                reason = (
                    f"generation ended before the closing marker {closing}"
                    if closing
                    else "generation ended before the call's JSON was complete"
                )
                events.append(ToolCallIncomplete(raw, self._dialect.name, reason))
                self._index += 1
        elif state == _BARE:
            if self._started:
                reason = "generation ended before the JSON object was complete"
                events.append(ToolCallIncomplete(raw[self._body_offset :], self._dialect.name, reason))
                self._index += 1
            elif raw:
                events.append(ProseDelta(raw))
        elif state == _BARE_CLOSED:
            self._emit_calls(events, raw.strip(), raw[self._body_offset :])
        self._reset()
        self._index = 0
        return events

    # -- the state machine ----------------------------------------------------------------------

    def _reset(self) -> None:
        self._state = _START if self._reply_wide else _PROSE
        self._buf = ""  # unconsumed text; starts at absolute offset self._base
        self._base = 0
        self._code = 0  # backtick run that opened the current code span/fence (0: not in code)
        self._ticks = 0  # backticks at the end of the text so far, run not yet ended
        self._closed = False
        self._started = False
        self._trigger: _Trigger | None = None
        self._dialect: Dialect = _NO_DIALECT
        self._parts: list[str] = []  # raw text of the current call
        self._tail = ""  # last characters of the call, to find a closing marker split across pieces
        self._body_offset = 0
        self._scanner = JsonScanner()
        self._bare_head_open = False  # whether the bare object's first key may still show it is a call
        self._bare_at = 0

    def _process(self, events: list[DetectorEvent], final: bool) -> None:
        buf = self._buf
        pos = 0
        n = len(buf)
        while pos < n:
            state = self._state
            if state == _PROSE:
                new = self._prose(buf, pos, events, final)
            elif state == _AFTER_MARKER:
                new = self._after_marker(buf, pos, events, final)
            elif state == _BODY:
                new = self._body(buf, pos, events)
            elif state == _START:
                new = self._start(buf, pos, final, events)
            elif state == _BARE:
                new = self._bare(buf, pos, events)
            else:
                new = self._bare_closed(buf, pos, events)
            if new == pos and self._state == state:
                break  # waiting for more text
            pos = new
        self._base += pos
        self._buf = buf[pos:]

    def _prose_out(self, events: list[DetectorEvent], text: str) -> None:
        if text:
            last = events[-1] if events else None
            if isinstance(last, ProseDelta):  # one delta per feed, not one per scan step
                events.pop()
                text = last.text + text
            events.append(ProseDelta(text))
            if self._closed and text.strip(_WHITESPACE):
                self._closed = False

    def _prose(self, buf: str, pos: int, events: list[DetectorEvent], final: bool) -> int:
        n = len(buf)
        if self._ticks and buf[pos] != "`":
            self._end_tick_run()
        if self._code:
            stop = (_INLINE_CODE_STOP if self._code < 3 else _FENCE_STOP).search(buf, pos)
            if stop is None:
                self._prose_out(events, buf[pos:])
                return n
            i = stop.start()
            if buf[i] == "\n":
                self._code = 0
                self._prose_out(events, buf[pos : i + 1])
                return i + 1
            return self._tick_run(buf, pos, i, events, final)
        found = self._prose_stop.search(buf, pos)
        if found is None:
            self._prose_out(events, buf[pos:])
            return n
        i = found.start()
        char = buf[i]
        if char == "`":
            return self._tick_run(buf, pos, i, events, final)
        waiting = False
        for trigger in self._by_first[char]:
            if buf.startswith(trigger.text, i):
                self._prose_out(events, buf[pos:i])
                self._trigger = trigger
                self._state = _AFTER_MARKER
                return i
            if not final and n - i < len(trigger.text) and trigger.text.startswith(buf[i:]):
                waiting = True
        if waiting:
            self._prose_out(events, buf[pos:i])
            return i
        self._prose_out(events, buf[pos : i + 1])
        return i + 1

    def _tick_run(self, buf: str, pos: int, i: int, events: list[DetectorEvent], final: bool) -> int:
        n = len(buf)
        j = i
        while j < n and buf[j] == "`":
            j += 1
        self._prose_out(events, buf[pos:j])
        self._ticks += j - i
        if j < n or final:
            self._end_tick_run()
        return j

    def _end_tick_run(self) -> None:
        run, self._ticks = self._ticks, 0
        if not self._code:
            self._code = run
        elif run == self._code or (self._code >= 3 and run > self._code):
            self._code = 0

    def _after_marker(self, buf: str, pos: int, events: list[DetectorEvent], final: bool) -> int:
        trigger = self._trigger
        assert trigger is not None
        n = len(buf)
        j = pos + len(trigger.text)
        for d in trigger.dialects:
            head = d.match_head(buf, j, final)
            if head == WAIT:
                return pos
            if head is not None:
                self._start_call(d, pos, trigger.resume, buf[pos:head], events)
                return head
        limit = j + _MAX_GAP
        while j < n and buf[j] in _WHITESPACE and j < limit:
            j += 1
        if j < n and j < limit:
            waiting = False
            for prefix, dialect in trigger.body_starts:
                if buf.startswith(prefix, j):
                    self._start_call(dialect, pos, trigger.resume, buf[pos:j], events)
                    return j
                if not final and n - j < len(prefix) and prefix.startswith(buf[j:]):
                    waiting = True
            if waiting:
                return pos
        elif j >= n and not final:
            return pos
        self._state = _PROSE
        end = pos + len(trigger.text)
        self._prose_out(events, buf[pos:end])
        return end

    def _start_call(
        self, dialect: Dialect, start: int, resume: int, head: str, events: list[DetectorEvent]
    ) -> None:
        events.append(ToolCallStarted(dialect.name, self._index, self._base + start + resume))
        self._closed = False
        self._state = _BODY
        self._dialect = dialect
        self._parts = [head]
        self._tail = ""
        self._body_offset = resume
        self._scanner = JsonScanner()

    def _body(self, buf: str, pos: int, events: list[DetectorEvent]) -> int:
        closing = self._dialect.closing
        if not closing:  # mistral: the call ends with its JSON value
            end = self._scanner.feed(buf, pos)
            if end is None:
                self._parts.append(buf[pos:])
                return len(buf)
            self._parts.append(buf[pos:end])
            raw = "".join(self._parts)
            self._end_call(events, raw, raw[self._body_offset :])
            return end
        tail = self._tail
        window = tail + buf[pos:] if tail else buf[pos:]
        k = window.find(closing)
        if k < 0:
            self._parts.append(buf[pos:])
            self._tail = window[-(len(closing) - 1) :]
            return len(buf)
        end = pos + k - len(tail) + len(closing)
        self._parts.append(buf[pos:end])
        raw = "".join(self._parts)
        self._end_call(events, raw, raw[self._body_offset : len(raw) - len(closing)])
        return end

    def _end_call(self, events: list[DetectorEvent], raw: str, body: str) -> None:
        self._emit_calls(events, raw, body)
        self._state = _PROSE
        self._parts = []
        self._tail = ""
        self._closed = True

    def _emit_calls(self, events: list[DetectorEvent], raw: str, body: str) -> None:
        try:
            calls = self._dialect.parse(body)
        except MalformedCall as exc:
            events.append(ToolCallMalformed(raw, self._dialect.name, str(exc)))
            self._index += 1
            return
        for name, arguments in calls:
            events.append(ToolCallParsed(name, arguments, raw, self._dialect.name, self._index))
            self._index += 1

    # -- reply-wide dialects (bare-json, pythonic): a whole reply that is one call -----------------

    def _hold_back(self, dialect: Dialect, buf: str, pos: int, j: int) -> None:
        """Hold the reply back from ``j``: it may be one whole-reply call."""
        self._state = _BARE
        self._dialect = dialect
        self._parts = [buf[pos:j]]
        self._body_offset = j - pos
        self._scanner = JsonScanner()
        self._started = False
        self._bare_head_open = True
        self._bare_at = self._base + j

    def _start(self, buf: str, pos: int, final: bool, events: list[DetectorEvent]) -> int:
        n = len(buf)
        j = pos
        while j < n and buf[j] in _WHITESPACE:
            j += 1
        if j >= n and not final:
            return pos
        for d in self._reply_wide if j < n else ():
            start = d.reply_start(buf, j, final)
            if start is ReplyStart.WAIT:
                return pos
            if start is ReplyStart.NO:
                continue
            self._hold_back(d, buf, pos, j)
            if start is ReplyStart.STARTED:
                self._started = True
                events.append(ToolCallStarted(d.name, self._index, self._bare_at))
            return j
        self._state = _PROSE
        return pos

    def _bare(self, buf: str, pos: int, events: list[DetectorEvent]) -> int:
        end = self._scanner.feed(buf, pos)
        self._parts.append(buf[pos:] if end is None else buf[pos:end])
        if not self._started and self._bare_head_open:
            is_call = self._dialect.reply_head_is_call("".join(self._parts)[self._body_offset :])
            if is_call:
                self._started = True
                events.append(ToolCallStarted(self._dialect.name, self._index, self._bare_at))
            elif is_call is not None:
                self._bare_head_open = False
        if end is None:
            return len(buf)
        raw = "".join(self._parts)
        try:
            self._dialect.parse(raw[self._body_offset :])
        except MalformedCall:
            if self._dialect.malformed_reply_is_call:
                self._end_call(events, raw, raw[self._body_offset :])
                return end
            self._release_bare(events)
            return end
        self._state = _BARE_CLOSED
        self._closed = True
        return end

    def _bare_closed(self, buf: str, pos: int, events: list[DetectorEvent]) -> int:
        n = len(buf)
        j = pos
        while j < n and buf[j] in _WHITESPACE:
            j += 1
        self._parts.append(buf[pos:j])
        if j < n:
            self._release_bare(events)
        return j

    def _release_bare(self, events: list[DetectorEvent]) -> None:
        """The held-back object was not a whole-reply call after all: it is prose."""
        self._prose_out(events, "".join(self._parts))
        self._parts = []
        self._state = _PROSE
        self._closed = False
        self._started = False


def detect_calls(
    text: str, *, dialects: Iterable[str] = ALL_DIALECTS, chunk_size: int = 0
) -> list[DetectorEvent]:
    """All events for a whole reply fed in ``chunk_size``-character pieces (0: at once), as if streamed.

    Raises ValueError for an unknown dialect.
    """
    detector = ToolCallDetector(dialects)
    step = chunk_size if chunk_size > 0 else max(len(text), 1)
    events: list[DetectorEvent] = []
    for start in range(0, len(text), step):
        events.extend(detector.feed(text[start : start + step]))
    events.extend(detector.finish())
    return events
