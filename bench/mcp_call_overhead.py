"""Median time per tool call through ServerManager vs. the SDK Client alone, same server, same run.

Each path talks to its own copy of tests/fixtures/servers/hostile.py over stdio; the bare Client declares
the same client features as ours (on 2026-07-28 connections they ride along on every request, so they
are part of the protocol's cost, not of our supervisor's). Calls alternate one
by one (who goes first alternates too), and the whole comparison is repeated with fresh server
processes, so that machine noise and where the OS happens to place a process hit both paths alike;
the figure is the median of the repeats' ratios. Prints ``RESULT mcp_call_overhead <ratio>``
(target <= 1.10).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client import Client, ClientRequestContext
from mcp.client.stdio import StdioServerParameters

from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.mcp.manager import ServerManager
from edgehost.settings import Settings

SERVER = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "servers" / "hostile.py"
REPEATS = 7
CALLS = 300
WARM_UP_CALLS = 20

CallFnT = Callable[..., Awaitable[Any]]


async def _one_repeat() -> tuple[float, float]:
    arguments = {"text": "ping"}
    config = ServersConfig([ServerConfig(name="bench", command=sys.executable, args=[str(SERVER)])])
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    sdk_times: list[float] = []
    ours_times: list[float] = []

    async def decline_sampling(context: ClientRequestContext, params: Any) -> types.ErrorData:
        return types.ErrorData(code=-1, message="declined")

    async def decline_elicitation(context: ClientRequestContext, params: Any) -> types.ErrorData:
        return types.ErrorData(code=-1, message="declined")

    async def no_roots(context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[])

    async def ignore_log(params: types.LoggingMessageNotificationParams) -> None:
        return None

    bare = Client(
        params,
        cache=None,
        sampling_callback=decline_sampling,
        elicitation_callback=decline_elicitation,
        list_roots_callback=no_roots,
        logging_callback=ignore_log,
        log_level="info",
    )
    async with bare as client, ServerManager(config, Settings()) as manager:
        await manager.wait_ready(60)
        pair: list[tuple[CallFnT, str, list[float]]] = [
            (client.call_tool, "echo", sdk_times),
            (manager.call_tool, "bench__echo", ours_times),
        ]
        for _ in range(WARM_UP_CALLS):
            for call, name, _times in pair:
                await call(name, arguments)
        for index in range(CALLS):
            for call, name, times in pair if index % 2 else reversed(pair):
                started = time.perf_counter()
                await call(name, arguments)
                times.append(time.perf_counter() - started)
    return statistics.median(sdk_times), statistics.median(ours_times)


async def main() -> None:
    ratios = []
    for _ in range(REPEATS):
        sdk, ours = await _one_repeat()
        ratios.append(ours / sdk)
        print(f"median per call: SDK Client {sdk * 1000:.3f} ms, ServerManager {ours * 1000:.3f} ms")
    print(f"RESULT mcp_call_overhead {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    asyncio.run(main())
