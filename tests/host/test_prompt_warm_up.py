"""The prompt a new conversation starts with is prefilled while nobody waits: in a fresh data folder the
embedded model's first question read ~800 tokens of system prompt and tools first (13 s on a 2-core PC)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.slow_machine import scaled_wait

WAIT_S = scaled_wait(240.0)  # the model's load and a prefill of ~800 tokens on a loaded 2-core machine


async def test_the_first_question_in_a_fresh_data_folder_reads_only_itself(data_dir: Path) -> None:
    host = Host(Paths.resolve(None, data_dir), Settings(backend="llamacpp"), HostOptions())
    await host.start()
    try:
        await host.wait_model(WAIT_S)
        await host.wait_servers_ready(WAIT_S)
        await asyncio.wait_for(host.wait_warm(), WAIT_S)  # the prompt is prefilled by then
        result = await asyncio.wait_for(host.submit("Hello! Who are you?"), WAIT_S)
        assert result is not None
        # The system prompt and the tools were in the KV cache already: only the question was read.
        assert result.perf.cached_tokens > 300, result.perf
        assert result.perf.prompt_tokens < 60, result.perf
    finally:
        await host.aclose()
