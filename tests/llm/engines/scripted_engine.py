"""An Engine for worker tests that yields configured text pieces, and dies on request.

Loaded by the worker process as "scripted_engine:create_engine" (the tests put this folder on
PYTHONPATH). A prompt containing "CRASH" makes the process kill itself with SIGSEGV, as a runtime
crashing in native code would.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from edgehost.llm.base import Capabilities, ChatMessage, ModelInfo, Perf
from edgehost.llm.chat_format import chatml


class ScriptedEngine:
    def __init__(self, config: dict[str, Any]) -> None:
        self._pieces: list[str] = list(config.get("pieces", ["Hello", " world", "."]))
        self._abort = threading.Event()
        self._perf = Perf()
        self.capabilities = Capabilities(backend="scripted-engine", max_context=1024)

    def load(self) -> ModelInfo:
        return ModelInfo(path="", name="scripted", format="test", context_length=1024, chat_template=False)

    def format_chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        add_generation_prompt: bool = True,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> str:
        return chatml(messages, add_generation_prompt=add_generation_prompt)

    def tokenize(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def generate(
        self,
        prompt: str,
        *,
        max_tokens: int,
        stop: Sequence[str],
        grammar: str | None,
        temperature: float | None,
        penalize_repetition: bool = True,
    ) -> Iterator[str]:
        if "CRASH" in prompt:
            sys.stderr.write("scripted engine: crashing on purpose\n")
            sys.stderr.flush()
            # Aimed at this thread, so it dies here like a real segfault, before yielding anything.
            signal.pthread_kill(threading.get_ident(), signal.SIGSEGV)
        self._abort.clear()
        return self._run(max_tokens)

    def _run(self, max_tokens: int) -> Iterator[str]:
        generated = 0
        try:
            for piece in self._pieces[:max_tokens]:
                if self._abort.is_set():
                    return
                generated += 1
                yield piece
        finally:
            self._perf = Perf(generated_tokens=generated)

    def abort(self) -> None:
        self._abort.set()

    def last_perf(self) -> Perf:
        return self._perf

    def reset(self) -> None:
        return None

    def close(self) -> None:
        return None


def create_engine(config: dict[str, Any]) -> ScriptedEngine:
    return ScriptedEngine(config)
