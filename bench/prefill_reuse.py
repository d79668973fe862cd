"""How much of the conversation the worker prefills again each turn (the KV cache kept between turns).

A five-turn conversation with the embedded default model through WorkerBackend. A turn "adds" the
tokens its prompt has beyond the previous turn's prompt and reply (the new user message, the chat
markup around it, and the end of the previous reply). Re-evaluating the history would make the
ratio grow with every turn; keeping the cache keeps it near 1.

Prints ``RESULT prefill_reuse <ratio>``: prompt tokens evaluated on turn five / tokens it added
(target <= 1.2).
"""

from __future__ import annotations

import asyncio

from edgehost.llm.base import ChatMessage, GenerationFinished, GenerationRequest, Perf, TokenText
from edgehost.llm.default_model import default_model_path
from edgehost.llm.worker_backend import WorkerBackend

QUESTIONS = [
    "What is the capital of France?",
    "How many people live there?",
    "Name a famous museum in that city.",
    "What can I see in that museum?",
    "Which river flows through the city?",
]


async def turn(backend: WorkerBackend, messages: list[ChatMessage]) -> tuple[str, Perf]:
    parts: list[str] = []
    perf = Perf()
    async for event in backend.generate(GenerationRequest(messages, max_tokens=48, temperature=0.0)):
        if isinstance(event, TokenText):
            parts.append(event.text)
        elif isinstance(event, GenerationFinished):
            perf = event.perf
    return "".join(parts), perf


async def main() -> None:
    backend = WorkerBackend(
        "llamacpp", {"model_path": str(default_model_path()), "n_ctx": 4096, "threads": 1}
    )
    await backend.load()
    messages: list[ChatMessage] = []
    perfs: list[Perf] = []
    try:
        for question in QUESTIONS:
            messages.append(ChatMessage("user", question))
            reply, perf = await turn(backend, messages)
            messages.append(ChatMessage("assistant", reply))
            perfs.append(perf)
    finally:
        await backend.close()
    for number, perf in enumerate(perfs, 1):
        print(
            f"turn {number}: evaluated {perf.prompt_tokens}, reused {perf.cached_tokens}, generated {perf.generated_tokens}"
        )
    previous, fifth = perfs[3], perfs[4]
    added = (fifth.prompt_tokens + fifth.cached_tokens) - (
        previous.prompt_tokens + previous.cached_tokens + previous.generated_tokens
    )
    print(f"turn 5 added {added} tokens, evaluated {fifth.prompt_tokens}")
    print(f"RESULT prefill_reuse {fifth.prompt_tokens / added:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
