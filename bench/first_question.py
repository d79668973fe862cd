"""How long the first question in a fresh data folder waits for its first token, with the new
conversation's prompt prefilled ahead (agent/prompt_warm_up.py) and without (the baseline, before it).

A real Host (embedded model in the inference worker, the built-in servers, host routing) in a new data
folder each run; the question is asked once the host is ready and (with the warm-up) once the warm-up has
run, as a user who reads the window for a few seconds would. Rounds alternate so machine noise hits both.

Prints ``RESULT first_question_ms`` (median, warmed), ``RESULT first_question_baseline_ms`` (median,
not warmed), ``RESULT first_question_ratio`` (warmed / baseline), and the prompt tokens each read.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from edgehost.host import events as ev
from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.paths import Paths
from edgehost.settings import Settings

ROUNDS = 3
QUESTION = "Hello! Who are you?"


async def first_question(warm: bool) -> tuple[float, int]:
    """(ms from submit to the first token, prompt tokens the first turn read) in a fresh data folder."""
    with tempfile.TemporaryDirectory(prefix="edgehost-first-question-") as folder:
        host = Host(
            Paths.resolve(None, Path(folder)), Settings(backend="llamacpp"), HostOptions(warm_prompt=warm)
        )
        await host.start()
        try:
            await host.wait_model()
            await host.wait_servers_ready(60)
            await host.wait_warm()  # the tools embedded (and, when warm, the prompt prefilled)
            first_token = asyncio.get_running_loop().create_future()

            def on_event(event: object) -> None:
                if isinstance(event, ev.TextDelta) and not first_token.done():
                    first_token.set_result(time.perf_counter())

            host.subscribe(on_event)
            started = time.perf_counter()
            result = await host.submit(QUESTION)
            assert result is not None
            arrived = first_token.result() if first_token.done() else time.perf_counter()
            return (arrived - started) * 1000, result.perf.prompt_tokens
        finally:
            await host.aclose()


async def main() -> None:
    warm_ms: list[float] = []
    cold_ms: list[float] = []
    tokens: dict[bool, int] = {}
    for _ in range(ROUNDS):
        for warm in (True, False):
            ms, read = await first_question(warm)
            (warm_ms if warm else cold_ms).append(ms)
            tokens[warm] = read
            print(
                f"{'warmed' if warm else 'baseline'}: {ms:.0f} ms to the first token, {read} prompt tokens read"
            )
    warm_median, cold_median = statistics.median(warm_ms), statistics.median(cold_ms)
    print(f"RESULT first_question_ms {warm_median:.0f}")
    print(f"RESULT first_question_baseline_ms {cold_median:.0f}")
    print(f"RESULT first_question_ratio {warm_median / cold_median:.2f}")
    print(f"RESULT first_question_prompt_tokens {tokens[True]}")
    print(f"RESULT first_question_baseline_prompt_tokens {tokens[False]}")


if __name__ == "__main__":
    asyncio.run(main())
