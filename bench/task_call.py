"""A tool call run as an MCP Task (issue 13): how long after the task ends on the server its result
reaches EdgeHost.

server-everything's simulate-research-query is a task-only tool: four stages of one second each,
pollInterval 1000 ms. Each round calls it through a real ServerManager (stdio) and compares the wall
time of the call with the task's own duration as the server reports it (lastUpdatedAt - createdAt of
its final state, read with tasks/get after the call), in the same round.

Prints RESULT task_call_s (median wall time of the call), RESULT task_server_s (median of the
server's own duration: the baseline), RESULT task_result_delay_ms (median of the difference per
round) and RESULT task_call_ratio (task_call_s / task_server_s).
"""

from __future__ import annotations

import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

import anyio
import mcp_types as types

from edgehost.mcp.client_features import ClientFeatures
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.mcp.manager import ServerManager
from edgehost.mcp.tasks import TaskState
from edgehost.settings import Settings

REPO = Path(__file__).resolve().parent.parent
EVERYTHING = REPO / "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
ROUNDS = 5


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


async def main() -> None:
    import shutil

    node = shutil.which("node")
    if node is None or not EVERYTHING.exists():
        raise SystemExit("needs node and server-everything: make peers")
    config = ServersConfig([ServerConfig(name="everything", command=node, args=[str(EVERYTHING), "stdio"])])
    walls: list[float] = []
    servers: list[float] = []
    async with ServerManager(config, Settings(), features=ClientFeatures()) as manager:
        await manager.wait_ready(60.0)
        client = manager._supervisor("everything")._client
        assert client is not None
        for index in range(ROUNDS):
            states: list[TaskState] = []
            began = time.perf_counter()
            result = await manager.call_tool(
                "everything__simulate-research-query", {"topic": f"round {index}"}, on_task=states.append
            )
            wall = time.perf_counter() - began
            if result.is_error or not states:
                raise SystemExit(f"round {index}: the task call failed: {result}")
            task = await client.session.send_request(
                types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=states[0].task_id)),
                types.GetTaskResult,
            )
            server = _seconds(task.last_updated_at) - _seconds(task.created_at)
            walls.append(wall)
            servers.append(server)
            print(f"round {index}: call {wall:.3f} s, task on the server {server:.3f} s", file=sys.stderr)
    delays = [(w - s) * 1000 for w, s in zip(walls, servers, strict=True)]
    print(f"RESULT task_call_s {statistics.median(walls):.3f}")
    print(f"RESULT task_server_s {statistics.median(servers):.3f}")
    print(f"RESULT task_result_delay_ms {statistics.median(delays):.0f}")
    print(f"RESULT task_call_ratio {statistics.median(walls) / statistics.median(servers):.3f}")


if __name__ == "__main__":
    anyio.run(main)
