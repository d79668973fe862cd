"""What finding the things a server keeps in a question costs a turn (agent/kept_names.py).

The reference memory server (tests/peers, node) on a store of ENTITIES people, each with three
observations (a large personal memory); the question names one of them. Median over 50 turns:

  RESULT kept_names_read_ms      servers_naming after a change: read_graph over stdio, then the match
  RESULT kept_names_cached_ms    servers_naming within MAX_AGE_S of the last read: the match alone
  RESULT kept_names_read_ratio_to_list_tools    kept_names_read_ms / listing the same server's tools (the
                                 same run's baseline: the round trip every connection makes)
  RESULT unchanged_check_change_ms   an add_observations read around (agent/unchanged_calls.py): the
                                 listing before and after it, and the call
  RESULT unchanged_check_ratio   unchanged_check_change_ms / the same call made directly, same run
  RESULT kept_values_ms          a delete_observations offered the kept texts a question speaks of
                                 (agent/kept_values.py), over the same store's listing
  RESULT kept_values_ratio_to_read   kept_values_ms / kept_names_read_ms
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, get_default_environment

from edgehost.agent.kept_names import KeptNames, lists_kept_names
from edgehost.agent.kept_values import with_kept_values
from edgehost.agent.tool_calls import ToolOutcome
from edgehost.agent.tools import ToolSpec
from edgehost.agent.unchanged_calls import UnchangedNoted

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support import tool_specs  # noqa: E402

ENTITIES = 500
RUNS = 50
QUESTION = "Person 250 also has a cat named Miso."
SERVER = Path(__file__).resolve().parents[1] / "tests/peers/node_modules/@modelcontextprotocol/server-memory"


async def median_ms(function: Callable[[], Awaitable[object]]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        await function()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def main() -> None:
    node = shutil.which("node")
    if node is None or not SERVER.exists():
        sys.exit("needs node and the memory server: run `make peers`")
    with tempfile.TemporaryDirectory(prefix="edgehost-kept-names-") as folder:
        store = Path(folder) / "memory.jsonl"
        people = (
            {"type": "entity", "name": f"Person {i}", "entityType": "person", "observations": ["a", "b", "c"]}
            for i in range(ENTITIES)
        )
        store.write_text("".join(json.dumps(p) + "\n" for p in people), encoding="utf-8")
        env = {**get_default_environment(), "MEMORY_FILE_PATH": str(store)}
        params = StdioServerParameters(command=node, args=[str(SERVER / "dist/index.js")], env=env)
        async with Client(params) as client:
            tools = tool_specs({"memory": (await client.list_tools()).tools})
            assert any(lists_kept_names(t) for t in tools)

            async def listing(tool: ToolSpec) -> Any:
                return (await client.call_tool(tool.original_name or tool.name, {})).structured_content

            kept = KeptNames(listing)
            assert await kept.servers_naming(QUESTION, tools) == {"memory"}

            async def read() -> object:
                kept.changed("memory")
                return await kept.servers_naming(QUESTION, tools)

            read_ms = await median_ms(read)
            cached_ms = await median_ms(lambda: kept.servers_naming(QUESTION, tools))
            baseline_ms = await median_ms(client.list_tools)

            class Direct:
                async def call(
                    self, tool: ToolSpec, arguments: dict[str, Any], _progress: Any
                ) -> ToolOutcome:
                    result = await client.call_tool(tool.tool_name, arguments)
                    return ToolOutcome(str(result.content), is_error=bool(result.is_error))

            [add] = [t for t in tools if t.tool_name == "add_observations"]
            added = iter(range(10 * RUNS))

            def change(executor: Any) -> Callable[[], Awaitable[object]]:
                def one() -> Awaitable[object]:
                    content = {"entityName": "Person 250", "contents": [f"fact {next(added)}"]}
                    return executor.call(add, {"observations": [content]}, None)

                return one

            direct_ms = await median_ms(change(Direct()))
            checked_ms = await median_ms(change(UnchangedNoted(Direct(), kept)))
            [forget] = [t for t in tools if t.tool_name == "delete_observations"]
            await kept.servers_naming(QUESTION, tools)  # the listing as the last change left it
            listing = kept.last_read("memory")
            asked = "Forget fact 7 about Person 250"
            assert with_kept_values(forget, listing, asked) is not forget
            values_ms = await median_ms(lambda: asyncio.to_thread(with_kept_values, forget, listing, asked))
    print(f"RESULT kept_names_read_ms {read_ms:.2f}")
    print(f"RESULT kept_names_cached_ms {cached_ms:.3f}")
    print(f"RESULT kept_names_read_ratio_to_list_tools {read_ms / baseline_ms:.1f}")
    print(f"RESULT unchanged_check_change_ms {checked_ms:.2f}")
    print(f"RESULT unchanged_check_ratio {checked_ms / direct_ms:.1f}")
    print(f"RESULT kept_values_ms {values_ms:.2f}")
    print(f"RESULT kept_values_ratio_to_read {values_ms / read_ms:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
