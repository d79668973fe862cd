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
)


class ScriptedBackend:
    def __init__(
        self,
        replies: Iterable[str] = (),
        *,
        chunk_size: int = 4,
        delay_s: float = 0.0,
        max_context: int = 4096,
        default_reply: str = "OK.",
    ) -> None:
        self._replies: deque[str] = deque(replies)
        self._chunk_size = chunk_size
        self._delay_s = delay_s
        self._default_reply = default_reply
        self._cancelled = asyncio.Event()
        self._capabilities = Capabilities(backend="scripted", max_context=max_context)
        self._info = ModelInfo(path="", name="scripted", format="scripted", context_length=max_context, chat_template=True)
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
        prompt_tokens = sum(len(m.content) for m in request.messages) // 4 + len(request.continuation) // 4
        emitted = ""
        generated = 0
        reason: str = "stop"
        stop_hit: str | None = None
        for index in range(0, len(reply), self._chunk_size):
            if self._cancelled.is_set():
                reason = "cancelled"
                break
            chunk = reply[index : index + self._chunk_size]
            candidate = emitted + chunk
            hit = next((s for s in request.stop if s and s in candidate), None)
            if hit is not None:
                chunk = candidate[: candidate.index(hit)][len(emitted) :]
                if chunk:
                    yield TokenText(chunk)
                reason, stop_hit = "stop_sequence", hit
                generated += 1
                break
            emitted = candidate
            generated += 1
            yield TokenText(chunk)
            if generated >= request.max_tokens:
                reason = "length"
                break
            if self._delay_s:
                await asyncio.sleep(self._delay_s)
            else:
                await asyncio.sleep(0)
        elapsed = (perf_counter() - start) * 1000
        yield GenerationFinished(
            reason=reason,  # type: ignore[arg-type]
            perf=Perf(prompt_tokens=prompt_tokens, generated_tokens=generated, decode_ms=elapsed,
                      context_tokens=prompt_tokens + generated),
            stop_sequence=stop_hit,
        )

    async def cancel(self) -> None:
        self._cancelled.set()

    async def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4) if text else 0

    async def reset(self) -> None:
        return None

    async def close(self) -> None:
        return None
