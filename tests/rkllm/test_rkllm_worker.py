"""The RKLLM engine inside the real inference worker process, on the stub runtime."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from edgehost.llm.base import BackendCrashed, ChatMessage, GenerationFinished, GenerationRequest, TokenText
from edgehost.llm.worker_backend import WorkerBackend
from edgehost.slow_machine import scaled_wait

# Starting a worker imports edgehost and loads the stub; generous for a loaded 2-core machine.
TURN_TIMEOUT_S = scaled_wait(60.0)


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


async def test_a_prompt_cache_save_that_crashed_the_runtime_is_not_tried_again_for_that_model(
    engine_config: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    folder = tmp_path / "prompts"
    system = "Answer briefly and call a tool when one fits. " * 30
    config = engine_config(prompt_cache_dir=str(folder))
    backend = WorkerBackend(engine="rkllm", config=config, log_dir=tmp_path / "logs")
    try:
        await asyncio.wait_for(backend.load(), TURN_TIMEOUT_S)
        with pytest.raises(BackendCrashed, match="signal 11"):  # the runtime dies while it saves
            await reply(backend, f"{system} please CRASH now")
    finally:
        await backend.close()
    assert list(folder.glob("*.saving"))  # the save never finished
    restarted = WorkerBackend(engine="rkllm", config=config, log_dir=tmp_path / "logs")
    try:
        await asyncio.wait_for(restarted.load(), TURN_TIMEOUT_S)
        text, _ = await reply(restarted, f"{system} REPLY:still answering\n")
        assert text == "still answering"
        assert not list(folder.glob("*.rkllm-cache"))  # no save was asked for again
    finally:
        await restarted.close()
    assert "prompt caching is off" in (tmp_path / "logs" / "worker.log").read_text()
