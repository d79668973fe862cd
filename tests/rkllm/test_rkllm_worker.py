"""The RKLLM engine inside the real inference worker process, on the stub runtime."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from edgehost.llm.base import BackendCrashed, ChatMessage, GenerationFinished, GenerationRequest, TokenText
from edgehost.llm.worker_backend import WorkerBackend

# Starting a worker imports edgehost and loads the stub; generous for a loaded 2-core machine.
TURN_TIMEOUT_S = 60.0


async def reply(backend: WorkerBackend, text: str) -> tuple[str, GenerationFinished]:
    async def collect() -> tuple[str, GenerationFinished]:
        pieces: list[str] = []
        async for event in backend.generate(GenerationRequest(messages=[ChatMessage("user", text)])):
            if isinstance(event, TokenText):
                pieces.append(event.text)
            elif isinstance(event, GenerationFinished):
                return "".join(pieces), event
        raise AssertionError("the stream ended without GenerationFinished")

    return await asyncio.wait_for(collect(), TURN_TIMEOUT_S)


async def test_a_crash_inside_the_library_surfaces_as_backend_crashed_and_the_next_turn_works(
    engine_config: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    backend = WorkerBackend(engine="rkllm", config=engine_config(), log_dir=tmp_path / "logs")
    try:
        info = await asyncio.wait_for(backend.load(), TURN_TIMEOUT_S)
        assert info.format == "rkllm"
        assert backend.capabilities.native_tool_dialect == "hermes"
        text, finished = await reply(backend, "REPLY:first\n")
        assert text == "first"
        assert finished.perf.prefill_ms == 12.5
        with pytest.raises(BackendCrashed, match="signal 11"):
            await reply(backend, "please CRASH now")
        text, _ = await reply(backend, "REPLY:alive again\n")
        assert text == "alive again"
    finally:
        await backend.close()
