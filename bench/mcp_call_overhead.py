"""Median time per tool call through ServerManager vs. the SDK Client alone, same server, same run.

Both talk to their own copy of tests/fixtures/servers/hostile.py over stdio; calls alternate one by
one so that machine noise hits both alike. Prints ``RESULT mcp_call_overhead <ratio>`` (target <= 1.10).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.mcp.manager import ServerManager
from edgehost.settings import Settings

SERVER = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "servers" / "hostile.py"
CALLS = 1000


async def main() -> None:
    arguments = {"text": "ping"}
    config = ServersConfig([ServerConfig(name="bench", command=sys.executable, args=[str(SERVER)])])
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    sdk_times: list[float] = []
    ours_times: list[float] = []
    async with Client(params, cache=None) as client, ServerManager(config, Settings()) as manager:
        await manager.wait_ready(60)
        for _ in range(20):  # warm both paths up
            await client.call_tool("echo", arguments)
            await manager.call_tool("bench__echo", arguments)
        for index in range(CALLS):
            pair: list[tuple[Callable[..., Awaitable[Any]], str, list[float]]] = [
                (client.call_tool, "echo", sdk_times),
                (manager.call_tool, "bench__echo", ours_times),
            ]
            for call, name, times in pair if index % 2 else reversed(pair):  # who goes first alternates
                started = time.perf_counter()
                await call(name, arguments)
                times.append(time.perf_counter() - started)
    sdk = statistics.median(sdk_times)
    ours = statistics.median(ours_times)
    print(f"median per call: SDK Client {sdk * 1000:.3f} ms, ServerManager {ours * 1000:.3f} ms")
    print(f"RESULT mcp_call_overhead {ours / sdk:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
