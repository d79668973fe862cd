"""The system prompt's KV cache kept on disk (llm/prompt_cache.py): after a restart of the worker a new
conversation evaluates only its question; a damaged or foreign file is ignored, never trusted."""

from __future__ import annotations

import asyncio
from pathlib import Path

from edgehost.llm.base import ChatMessage, GenerationFinished, GenerationRequest, Perf, TokenText
from edgehost.llm.worker_backend import WorkerBackend
from edgehost.slow_machine import scaled_wait

TIMEOUT_S = scaled_wait(180.0)
SYSTEM = "You are EdgeHost's assistant on a small board. " + " ".join(
    f"Rule {n}: answer briefly, in plain words, and say when you do not know." for n in range(1, 25)
)


async def ask(config: dict[str, object], logs: Path, system: str, question: str) -> tuple[str, Perf]:
    """One question in a new conversation on a freshly started worker (a restart of EdgeHost)."""
    backend = WorkerBackend(engine="llamacpp", config=config, log_dir=logs)
    try:
        await asyncio.wait_for(backend.load(), TIMEOUT_S)
        parts: list[str] = []
        perf = Perf()
        request = GenerationRequest(
            messages=[ChatMessage("system", system), ChatMessage("user", question)],
            max_tokens=12,
            temperature=0,
        )
        async for event in backend.generate(request):
            if isinstance(event, TokenText):
                parts.append(event.text)
            elif isinstance(event, GenerationFinished):
                perf = event.perf
        return "".join(parts), perf
    finally:
        await backend.close()


def config_for(model_path: Path, folder: Path) -> dict[str, object]:
    return {"model_path": str(model_path), "n_ctx": 2048, "threads": 2, "prompt_cache_dir": str(folder)}


async def test_after_a_restart_a_new_conversation_evaluates_only_its_question(
    model_path: Path, tmp_path: Path
) -> None:
    config = config_for(model_path, tmp_path / "prompts")
    first_answer, first = await ask(config, tmp_path, SYSTEM, "What is the capital of France?")
    assert first.cached_tokens == 0 and first.prompt_tokens > 300  # cold: the whole system prompt
    assert list((tmp_path / "prompts").glob("*.kv")), "the long prefill was not kept"
    answer, warm = await ask(config, tmp_path, SYSTEM, "What is the capital of France?")
    assert warm.cached_tokens > 300 and warm.prompt_tokens < 20
    assert answer == first_answer  # the loaded state gives the same greedy answer as a full prefill


async def test_a_damaged_file_or_another_system_prompt_starts_from_scratch(
    model_path: Path, tmp_path: Path
) -> None:
    config = config_for(model_path, tmp_path / "prompts")
    expected, _ = await ask(config, tmp_path, SYSTEM, "Name a colour.")
    [state] = (tmp_path / "prompts").glob("*.kv")
    state.write_bytes(state.read_bytes()[: state.stat().st_size // 2])  # a write cut off
    answer, perf = await ask(config, tmp_path, SYSTEM, "Name a colour.")
    assert perf.cached_tokens == 0 and answer == expected
    other, perf = await ask(config, tmp_path, "You answer in one word only.", "Name a colour.")
    assert perf.cached_tokens == 0 and other.strip()


async def test_a_save_keeps_only_the_caches_used_last_and_drops_stale_temporary_files(
    model_path: Path, tmp_path: Path
) -> None:
    import os
    import time

    from edgehost.llm.prompt_cache import KEEP, STALE_PART_S

    folder = tmp_path / "prompts"
    folder.mkdir()
    old = time.time() - 2 * STALE_PART_S
    # Caches of models removed since (or another context size), each older than the last.
    left_behind = []
    for n in range(KEEP + 1):
        state, tokens = folder / f"gone{n}.kv", folder / f"gone{n}.tokens.npy"
        state.write_bytes(b"kv")
        tokens.write_bytes(b"npy")
        os.utime(state, (old + n, old + n))
        left_behind.append(state)
    stale = folder / "x.kv.1234.part"
    stale.write_bytes(b"cut")
    os.utime(stale, (old, old))
    await ask(config_for(model_path, folder), tmp_path, SYSTEM, "Name a colour.")
    states = sorted(p.name for p in folder.glob("*.kv"))
    newest_left = [p.name for p in left_behind[-(KEEP - 1) :]]
    assert len(states) == KEEP and set(newest_left) <= set(states)  # this model's, and the newest others
    assert not (folder / "gone0.kv").exists() and not (folder / "gone0.tokens.npy").exists()
    assert not stale.exists()
