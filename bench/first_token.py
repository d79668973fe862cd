"""Time to the first token of a new conversation's first turn (issue 10's ``first_token_ms``).

The embedded default model in the real inference worker, with EdgeHost's system prompt and the tools
section of the reference servers (tests/fixtures/reference_tools.json), as a first turn sends them.

- cold: a fresh worker, a new conversation: the whole system prompt and tools section is prefilled;
- warm: the same worker, another new conversation with the same system prompt (the engine keeps the KV
  cache of the common prefix between prompts);
- baseline: the same worker, a follow-up question in that conversation: only the new message is
  prefilled, the prefill "of the user's message alone" the warm turn is held to (target <= 1.2x);
- restart: a new worker (as after a restart of EdgeHost), another new conversation: the system prompt's
  KV state comes from the disk cache the first worker wrote (llm/prompt_cache.py).

Prints ``RESULT first_token_cold_ms``, ``_warm_ms``, ``_baseline_ms``, ``_restart_ms``,
``RESULT first_token_warm_ratio`` and ``first_token_restart_ratio`` (each / baseline).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from edgehost.agent.prompting import build_system_prompt
from edgehost.agent.tools import ToolSpec
from edgehost.llm.base import ChatMessage, GenerationFinished, GenerationRequest, Perf, TokenText
from edgehost.llm.default_model import default_model_path
from edgehost.llm.worker_backend import WorkerBackend

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))  # the tests' helpers build tools as the real catalog names them
from tests.support import tool_specs  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MAX_TOKENS = 8


def reference_tools() -> list[ToolSpec]:
    """The reference servers' tools, as many as a small model's tools section shows (12)."""
    servers = json.loads((REPO / "tests" / "fixtures" / "reference_tools.json").read_text(encoding="utf-8"))
    return tool_specs(servers["servers"])[:12]


async def first_token(backend: WorkerBackend, messages: list[ChatMessage]) -> tuple[float, Perf, str]:
    began = time.perf_counter()
    first: float | None = None
    parts: list[str] = []
    perf = Perf()
    async for event in backend.generate(
        GenerationRequest(messages=messages, max_tokens=MAX_TOKENS, temperature=0)
    ):
        if isinstance(event, TokenText):
            first = first or time.perf_counter()
            parts.append(event.text)
        elif isinstance(event, GenerationFinished):
            perf = event.perf
    return ((first or time.perf_counter()) - began) * 1000, perf, "".join(parts)


async def run() -> None:
    system = build_system_prompt(reference_tools(), "bracket", {})
    with tempfile.TemporaryDirectory() as folder:
        config = {
            "model_path": str(default_model_path()),
            "n_ctx": 4096,
            "threads": 2,
            "prompt_cache_dir": str(Path(folder) / "prompts"),
        }
        backend = WorkerBackend(engine="llamacpp", config=config, log_dir=Path(folder))
        try:
            await backend.load()
            cold_messages = [
                ChatMessage("system", system),
                ChatMessage("user", "What is the capital of France?"),
            ]
            cold, cold_perf, answer = await first_token(backend, cold_messages)
            warm_messages = [ChatMessage("system", system), ChatMessage("user", "Name a river in Spain.")]
            warm, warm_perf, warm_answer = await first_token(backend, warm_messages)
            follow = [
                *warm_messages,
                ChatMessage("assistant", warm_answer),
                ChatMessage("user", "And one in Italy?"),
            ]
            baseline, base_perf, _ = await first_token(backend, follow)
        finally:
            await backend.close()
        restarted = WorkerBackend(engine="llamacpp", config=config, log_dir=Path(folder))
        try:
            await restarted.load()
            again = [ChatMessage("system", system), ChatMessage("user", "Which planet is the largest?")]
            restart, restart_perf, _ = await first_token(restarted, again)
        finally:
            await restarted.close()
    print(
        f"system prompt + tools: {cold_perf.prompt_tokens + cold_perf.cached_tokens} tokens; warm turn "
        f"evaluated {warm_perf.prompt_tokens} (reused {warm_perf.cached_tokens}); follow-up evaluated "
        f"{base_perf.prompt_tokens}; after a restart evaluated {restart_perf.prompt_tokens} (reused "
        f"{restart_perf.cached_tokens}); first answer {answer!r}"
    )
    print(f"RESULT first_token_cold_ms {cold:.1f}")
    print(f"RESULT first_token_warm_ms {warm:.1f}")
    print(f"RESULT first_token_baseline_ms {baseline:.1f}")
    print(f"RESULT first_token_restart_ms {restart:.1f}")
    print(f"RESULT first_token_warm_ratio {warm / baseline:.2f}")
    print(f"RESULT first_token_restart_ratio {restart / baseline:.2f}")


def main() -> int:
    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
