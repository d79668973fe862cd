"""One reply of the model within a turn, streamed: the request (stop sequences, the grammar of a
forced or started tool call), its text shown as it comes, and the tool calls found in it (decision 6:
a call the model begins is finished under a grammar)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from edgehost.agent import events as ev
from edgehost.agent._dialects import DRIFTED_CLOSERS, call_prefix
from edgehost.agent.detector import (
    ProseDelta,
    ToolCallDetector,
    ToolCallIncomplete,
    ToolCallMalformed,
    ToolCallParsed,
    closing_marker,
    opening_marker,
)
from edgehost.agent.grammar import PROSE_GRAMMAR
from edgehost.agent.prompting import RESULT_CLOSE, RESULT_PREFIX
from edgehost.agent.tools import ToolSpec
from edgehost.llm.base import (
    Backend,
    ChatMessage,
    GenerationFinished,
    GenerationRequest,
    NativeToolCall,
    Perf,
    TokenText,
)

__all__ = ["Emit", "ReplyStreamer", "Round"]

Emit = Callable[[Any], None]  # where the events go (the host's emit)

# Dialects whose opening marker can hand generation over to a grammar (decision 6).
GRAMMAR_DIALECTS = ("bracket", "hermes", "tool-request")
# A small model that has seen tool results tends to write one itself; a result is never the model's
# to write, so its opening frame ends the reply.
RESULT_FRAMES = (RESULT_PREFIX, "<tool_response>", RESULT_CLOSE, "</tool_response>")
END_OF_CALL = "<|eom_id|>"  # Llama 3.x ends a tool call (then waits for its result) with this token


@dataclass
class Round:
    """One reply of the model, filled in as it streams (so a cancel keeps what came)."""

    raw: str = ""
    prose: str = ""
    calls: list[ToolCallParsed] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    perf: Perf = field(default_factory=Perf)
    finished_reason: str = "stop"
    appended: bool = False  # already part of the conversation
    chosen_by: str = "model"  # who chose the calls of this reply: model | host (routing) | user (pin)


class ReplyStreamer:
    """Streams the model's replies for one backend into Rounds, reporting text as TextDelta events."""

    def __init__(self, backend: Backend, emit: Emit, grammar_builder: Callable[..., str] | None) -> None:
        self.backend = backend
        self.emit = emit
        self._grammar = grammar_builder

    async def stream(
        self,
        conv_id: int,
        messages: list[ChatMessage],
        tools: Sequence[ToolSpec],
        dialect: str,
        forced: Sequence[ToolSpec],
        round_: Round,
        *,
        max_tokens: int,
        temperature: float | None,
        model_may_call: bool = True,
        grounded_in: str | None = None,
    ) -> None:
        """Stream one reply of the model into ``round_`` (filled as it goes, so a cancel keeps it).

        ``forced``: the reply must be a call to one of these tools (best first), under a grammar
        where the backend has one. Otherwise, with ``model_may_call``, a call the model starts is
        finished under a grammar (decision 6); without it the reply ends where a call would begin.
        """
        caps = self.backend.capabilities
        detector = ToolCallDetector()
        use_grammar = caps.supports_grammar and bool(tools) and self._grammar is not None
        grammar = self._first_grammar(dialect, forced, use_grammar, model_may_call, grounded_in)
        openers = (
            [opening_marker(dialect)]
            if (use_grammar or not model_may_call) and dialect in GRAMMAR_DIALECTS and grammar is None
            else []
        )
        closers = _closers(dialect)
        continuation = ""
        if forced and grammar is None:
            # No grammar to limit the choice: the host writes the call's start for its best candidate
            # and the model continues with the arguments.
            continuation = call_prefix(dialect, forced[0].name)
            round_.raw = continuation
            self._feed(conv_id, detector, continuation, round_)
        while True:
            request = GenerationRequest(
                messages=messages,
                continuation=continuation,
                max_tokens=max_tokens,
                temperature=temperature,
                stop=[*closers, *openers, *RESULT_FRAMES],
                grammar=grammar,
                # A call's values are copied from the question: no penalty for repeating them.
                penalize_repetition=not forced and grammar in (None, PROSE_GRAMMAR),
            )
            marker = await self._generate(conv_id, request, detector, round_)
            if marker is None or marker not in openers or not model_may_call or self._grammar is None:
                break
            # Decision 6: the model chose to call a tool; finish the call under a grammar.
            continuation = round_.raw
            grammar = self._grammar(dialect, list(tools))
            openers = []
        for leftover in detector.finish():
            self._record(conv_id, leftover, round_)

    def _first_grammar(
        self,
        dialect: str,
        forced: Sequence[ToolSpec],
        use_grammar: bool,
        model_may_call: bool,
        grounded_in: str | None,
    ) -> str | None:
        """The grammar a reply starts under: a call to one of ``forced``, or prose where the host
        decides the calls; None for none."""
        grammar: str | None = None
        if not forced and not model_may_call and use_grammar:
            grammar = PROSE_GRAMMAR  # the host decides the calls: the model answers in words
        if forced and use_grammar:
            # A call the host chose is filled in from the question only (decision 11).
            grounded = {"grounded_in": grounded_in} if grounded_in is not None else {}
            grammar = self._grammar(dialect, list(forced), pinned=True, **grounded)  # type: ignore[misc]
        return grammar

    async def _generate(
        self, conv_id: int, request: GenerationRequest, detector: ToolCallDetector, round_: Round
    ) -> str | None:
        """Generate one stretch of the reply into ``round_``; returns the tool marker it stopped at,
        now part of the reply, or None."""
        finished: GenerationFinished | None = None
        async for item in self.backend.generate(request):
            if isinstance(item, TokenText):
                round_.raw += item.text
                self._feed(conv_id, detector, item.text, round_)
            elif isinstance(item, NativeToolCall):
                arguments = (
                    item.arguments if isinstance(item.arguments, dict) else _loads_or_raw(item.arguments)
                )
                round_.calls.append(
                    ToolCallParsed(item.name, arguments, json.dumps(arguments), "native", len(round_.calls))
                )
            elif isinstance(item, GenerationFinished):
                finished = item
        assert finished is not None
        round_.perf = round_.perf + finished.perf
        round_.finished_reason = finished.reason
        marker = finished.stop_sequence if finished.reason == "stop_sequence" else None
        # A tool marker is part of the call it ends; Llama's end of call only when a call is open.
        if not marker or marker in RESULT_FRAMES or (marker == END_OF_CALL and not detector.in_call):
            return None
        round_.raw += marker
        self._feed(conv_id, detector, marker, round_)
        return marker

    def _feed(self, conv_id: int, detector: ToolCallDetector, text: str, round_: Round) -> None:
        for item in detector.feed(text):
            self._record(conv_id, item, round_)

    def _record(self, conv_id: int, item: Any, round_: Round) -> None:
        if isinstance(item, ProseDelta):
            if item.text:
                round_.prose += item.text
                self.emit(ev.TextDelta(conv_id, item.text))
        elif isinstance(item, ToolCallParsed):
            round_.calls.append(item)
        elif isinstance(item, ToolCallIncomplete):
            round_.problems.append(
                f"Error: your tool call was cut off before its closing marker ({item.reason}). Send the whole call again."
            )
        elif isinstance(item, ToolCallMalformed):
            round_.problems.append(
                f"Error: your tool call could not be read: {item.error}. Use the exact format shown."
            )


def _closers(dialect: str) -> list[str]:
    """Where a reply stops: our closing markers, the ones small models write instead ([/TOOL_CALL])
    and Llama's end of call."""
    drifted = {c for d in GRAMMAR_DIALECTS for c in DRIFTED_CLOSERS.get(d, ())} | {END_OF_CALL}
    return sorted(
        ({closing_marker(d) for d in GRAMMAR_DIALECTS} | {closing_marker(dialect)} | drifted) - {""}
    )


def _loads_or_raw(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_raw": value}
