"""The prompt a new conversation starts with is prefilled while nobody waits: in a fresh data folder the
embedded model's first question read ~800 tokens of system prompt and tools first (13 s on a 2-core PC)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from edgehost.host.host import Host, HostOptions
from edgehost.paths import Paths
from edgehost.settings import Settings

WAIT_S = 240.0  # the model's load and a prefill of ~800 tokens on a loaded 2-core machine
PREFILLED = "prefilled the prompt of a new conversation"


class _Prefilled(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.done = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if PREFILLED in record.getMessage():
            self.done.set()


async def test_the_first_question_in_a_fresh_data_folder_reads_only_itself(data_dir: Path) -> None:
    logger = logging.getLogger("edgehost.host.host")
    prefilled = _Prefilled()
    logger.addHandler(prefilled)
    level = logger.level
    logger.setLevel(logging.INFO)
    host = Host(Paths.resolve(None, data_dir), Settings(backend="llamacpp"), HostOptions())
    await host.start()
    try:
        await asyncio.wait_for(prefilled.done.wait(), WAIT_S)  # once the model and the servers are ready
        result = await asyncio.wait_for(host.submit("Hello! Who are you?"), WAIT_S)
        assert result is not None
        # The system prompt and the tools were in the KV cache already: only the question was read.
        assert result.perf.cached_tokens > 300, result.perf
        assert result.perf.prompt_tokens < 60, result.perf
    finally:
        await host.aclose()
        logger.removeHandler(prefilled)
        logger.setLevel(level)
