"""A backend that replays scripted replies: the fake used by tests, benchmarks and --self-test.

Replies are queued with ``enqueue``; each ``generate`` streams the next one in small chunks,
honouring stop sequences and cancellation like a real backend.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Iterable
from time import perf_counter

from edgehost.llm.base import (
    Capabilities,
    GenerationEvent,
    GenerationFinished,
    GenerationRequest,
    ModelInfo,
    Perf,
    TokenText,
    estimate_tokens,
)
from edgehost.settings import DEFAULT_CONTEXT_LENGTH


class ScriptedBackend:
    def __init__(
        self,
        replies: Iterable[str] = (),
        *,
        chunk_size: int = 4,
        delay_s: float = 0.0,
        max_context: int = DEFAULT_CONTEXT_LENGTH,
        default_reply: str = "OK.",
    ) -> None:
        self._replies: deque[str] = deque(replies)
        self._chunk_size = chunk_size
        self._delay_s = delay_s
        self._default_reply = default_reply
        self._cancelled = asyncio.Event()
        self._capabilities = Capabilities(backend="scripted", max_context=max_context)
        self._info = ModelInfo(
            path="", name="scripted", format="scripted", context_length=max_context, chat_template=True
        )
        self.requests: list[GenerationRequest] = []

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    @property
    def model_info(self) -> ModelInfo | None:
        return self._info

    def enqueue(self, *replies: str) -> None:
        self._replies.extend(replies)

    async def load(self) -> ModelInfo:
        return self._info

    async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationEvent]:
        self.requests.append(request)
        self._cancelled.clear()
        reply = self._replies.popleft() if self._replies else self._default_reply
        start = perf_counter()
        prompt_tokens = sum(estimate_tokens(m.content) for m in request.messages) + estimate_tokens(
            request.continuation
        )
        reason: str = "stop"
        # Like a real backend, end at the earliest stop sequence and never show any of it.
        hits = [(reply.index(s), s) for s in request.stop if s and s in reply]
        stop_hit: str | None = None
        if hits:
            cut, stop_hit = min(hits)
            reply, reason = reply[:cut], "stop_sequence"
        generated = 0
        for index in range(0, len(reply), self._chunk_size):
            # Each chunk takes its time, the first one too (a model reads its prompt before it writes).
            await asyncio.sleep(self._delay_s)
            if self._cancelled.is_set():
                reason, stop_hit = "cancelled", None
                break
            if generated >= request.max_tokens:
                reason, stop_hit = "length", None
                break
            generated += 1
            yield TokenText(reply[index : index + self._chunk_size])
        elapsed = (perf_counter() - start) * 1000
        yield GenerationFinished(
            reason=reason,  # type: ignore[arg-type]
            perf=Perf(
                prompt_tokens=prompt_tokens,
                generated_tokens=generated,
                decode_ms=elapsed,
                context_tokens=prompt_tokens + generated,
            ),
            stop_sequence=stop_hit,
        )

    async def cancel(self) -> None:
        self._cancelled.set()

    async def count_tokens(self, text: str) -> int:
        return estimate_tokens(text)

    async def reset(self) -> None:
        return None

    async def close(self) -> None:
        return None
