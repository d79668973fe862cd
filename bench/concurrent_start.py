"""Time until 5 servers are ready through ServerManager vs. the slowest of them started alone.

The servers are tests/fixtures/servers/hostile.py: four start at once, one takes 2 s more (a server
that loads something first). Started one after the other they would take the sum of their starts;
started concurrently, about the slowest one's. Prints ``RESULT concurrent_start <ratio>`` (target <= 1.3).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.mcp.manager import ServerManager
from edgehost.mcp.server_state import ServerStatus
from edgehost.settings import Settings

SERVER = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "servers" / "hostile.py"
SLOW_START_S = "2.0"
REPEATS = 3


def _server(name: str, *args: str) -> ServerConfig:
    return ServerConfig(name=name, command=sys.executable, args=[str(SERVER), *args])


async def _time_to_ready(servers: list[ServerConfig]) -> float:
    started = time.perf_counter()
    async with ServerManager(ServersConfig(servers), Settings()) as manager:
        states = await manager.wait_ready(120)
        elapsed = time.perf_counter() - started
        not_ready = [s.name for s in states if s.status is not ServerStatus.READY]
        if not_ready:
            raise SystemExit(f"servers not ready: {not_ready}")
    return elapsed


async def main() -> None:
    slowest = _server("slow", "--slow-start", SLOW_START_S)
    others = [_server(f"fast{i}") for i in range(4)]
    alone: list[float] = []
    together: list[float] = []
    for _ in range(REPEATS):
        alone.append(await _time_to_ready([slowest]))
        together.append(await _time_to_ready([slowest, *others]))
    print(f"best of {REPEATS}: slowest alone {min(alone):.2f} s, all five {min(together):.2f} s")
    print(f"RESULT concurrent_start {min(together) / min(alone):.3f}")


if __name__ == "__main__":
    asyncio.run(main())
