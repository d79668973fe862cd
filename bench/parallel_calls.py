"""Several calls in one reply (issue 13): a reply with 4 calls of a 1-second tool on 2 servers, run at
once (the default, at most 4 together) against one after another (max_parallel_calls = 1), same run.

The servers are real stdio MCP servers (tests/fixtures/servers/hostile.py, its `overlap` tool sleeps
for the seconds asked); the model is scripted (it writes the Mistral-style [TOOL_CALLS] array at
once), so the turn's time is the calls' time plus the host's own work. Goal: <= 1.3 s parallel.

Prints RESULT parallel_calls SECONDS, RESULT serial_calls SECONDS, RESULT parallel_speedup.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from edgehost.agent.approval import ApprovalDecision, ApprovalRequest
from edgehost.agent.config import AgentConfig
from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.llm.scripted import ScriptedBackend
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.paths import Paths
from edgehost.settings import Settings

HOSTILE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "servers" / "hostile.py"
TOOL_S = 1.0
# Four different calls (a repeat of an identical one would be answered from the first): a, b, a, b.
REPLY = "[TOOL_CALLS]" + json.dumps(
    [
        {"name": f"{server}__overlap", "arguments": {"seconds": TOOL_S + index / 1000}}
        for index, server in enumerate(("a", "b", "a", "b"))
    ]
)


async def allow(_request: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision(allow=True, decided_by="user")


async def turn_seconds(parallel: int) -> float:
    servers = ServersConfig(
        [ServerConfig(name=n, command=sys.executable, args=[str(HOSTILE)], trusted=True) for n in ("a", "b")]
    )
    with tempfile.TemporaryDirectory() as data:
        host = Host(
            Paths.resolve(None, data),
            Settings(),
            HostOptions(
                backend=ScriptedBackend([REPLY, "Done."], chunk_size=10_000),
                servers=servers,
                approver=allow,
                agent=AgentConfig(max_parallel_calls=parallel, routing="model"),
            ),
        )
        await host.start()
        try:
            await host.wait_servers_ready(60)
            began = time.perf_counter()
            completed = await host.submit("Check both servers")
            seconds = time.perf_counter() - began
            assert completed is not None and len(completed.executions) == 4, completed
            assert all(e["status"] == "ok" for e in completed.executions), completed.executions
            return seconds
        finally:
            await host.aclose()


async def main() -> None:
    serial = await turn_seconds(1)
    parallel = await turn_seconds(4)
    print(f"RESULT parallel_calls {parallel:.2f}")
    print(f"RESULT serial_calls {serial:.2f}")
    print(f"RESULT parallel_speedup {serial / parallel:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
