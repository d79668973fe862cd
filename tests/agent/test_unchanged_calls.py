"""A change that changed nothing, said so (agent/unchanged_calls.py), against the real reference
memory server (tests/peers) through the SDK's client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp.client.client import Client
from mcp.types import TextContent
from tests.agent.test_kept_names import memory_file, memory_server
from tests.support import CONNECT_TIMEOUT_S, tool_specs

from edgehost.agent.kept_names import KeptNames
from edgehost.agent.result_rendering import render_result
from edgehost.agent.tool_calls import ToolOutcome
from edgehost.agent.tools import ToolSpec
from edgehost.agent.unchanged_calls import UNCHANGED_NOTE, UnchangedNoted

NOTE = UNCHANGED_NOTE.format(server="memory")


def _ignore_progress(*_args: Any, **_kwargs: Any) -> None:
    return None


async def test_a_change_the_memory_did_not_make_is_said_to_have_changed_nothing(
    tmp_path: Path, node: str
) -> None:
    """The memory server answers "Relations deleted successfully" for a relation it does not have
    (the walk-through's "Remove the link between Lena and Max", typed "link", kept as "sister"), and
    skips an entity it has when asked to create it again."""
    store = memory_file(tmp_path, "Lena", "Max")
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(memory_server(store, node)) as client:
            tools = {t.name: t for t in tool_specs({"memory": (await client.list_tools()).tools})}
            reads: list[str] = []

            async def listing(tool: ToolSpec) -> Any:
                reads.append(tool.name)
                return (await client.call_tool(tool.tool_name, {})).structured_content

            class ClientExecutor:
                async def call(self, tool: ToolSpec, arguments: dict[str, Any], progress: Any) -> ToolOutcome:
                    result = await client.call_tool(tool.tool_name, arguments)
                    text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
                    return ToolOutcome(
                        text, is_error=bool(result.is_error), structured=result.structured_content
                    )

            kept = KeptNames(listing)
            assert await kept.servers_naming("What do you know about Lena?", list(tools.values())) == {
                "memory"
            }
            checked = UnchangedNoted(ClientExecutor(), kept)

            async def run(name: str, arguments: dict[str, Any]) -> ToolOutcome:
                return await checked.call(tools[f"memory__{name}"], arguments, _ignore_progress)

            sister = {"relations": [{"from": "Lena", "to": "Max", "relationType": "sister"}]}
            made = await run("create_relations", sister)
            assert NOTE not in made.text
            link = {"relations": [{"from": "Lena", "to": "Max", "relationType": "link"}]}
            missed = await run("delete_relations", link)
            assert "deleted successfully" in missed.text and missed.text.endswith(NOTE)
            assert NOTE not in (await run("delete_relations", sister)).text
            again = await run(
                "create_entities",
                {"entities": [{"name": "Lena", "entityType": "person", "observations": ["likes tea"]}]},
            )
            assert again.text.endswith(NOTE)  # the fact was not kept: Lena exists
            # The server's JSON (no entity created) is still rendered as such, the note under it.
            assert render_result(again.text) == f"(empty)\n\n{NOTE}"
            assert render_result(f'{{"relations": 1}}\n\n{NOTE}') == f"- relations: 1\n\n{NOTE}"
            # A tool that only reads is not read around.
            before = len(reads)
            searched = await run("search_nodes", {"query": "Lena"})
            assert NOTE not in searched.text and len(reads) == before
            # A call that fails is left as the server wrote it.
            failed = await run(
                "add_observations", {"observations": [{"entityName": "Nobody", "contents": ["x"]}]}
            )
            assert failed.is_error and NOTE not in failed.text
