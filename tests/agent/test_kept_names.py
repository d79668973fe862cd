"""The things a server keeps that a question names (agent/kept_names.py), read from the real reference
memory server (tests/peers) through the SDK's client, as the host reads them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, get_default_environment
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel
from tests.conftest import peer_path
from tests.support import CONNECT_TIMEOUT_S, tool_specs

from edgehost.agent.kept_names import KeptNames, kept_names_in, lists_kept_names, names_in
from edgehost.agent.ranking import KEPT_WEIGHT, kept_bonus
from edgehost.agent.tools import ToolSpec


def memory_file(folder: Path, *names: str) -> Path:
    """A memory server's store holding a person of each of ``names``."""
    path = folder / "memory.jsonl"
    entities = [{"type": "entity", "name": n, "entityType": "person", "observations": []} for n in names]
    path.write_text("".join(json.dumps(e) + "\n" for e in entities), encoding="utf-8")
    return path


def memory_server(store: Path, node: str) -> StdioServerParameters:
    script = peer_path("@modelcontextprotocol", "server-memory", "dist", "index.js")
    env = {**get_default_environment(), "MEMORY_FILE_PATH": str(store)}
    return StdioServerParameters(command=node, args=[str(script)], env=env)


def test_a_name_is_named_whole_in_any_case() -> None:
    kept = ["Alice", "Project Falcon", "Al"]
    assert names_in("alice's cat is called Miso", kept) == ("Alice",)
    assert names_in("How is the project falcon going?", kept) == ("Project Falcon",)
    assert names_in("Alicework and Alan", kept) == ()  # a word that begins alike; "Al" is too short
    assert kept_names_in({"entities": [{"name": "Alice"}, {"name": " "}, {"name": "Alice"}], "n": 2}) == (
        "Alice",
    )
    assert kept_names_in("not structured") == ()


async def test_the_memory_servers_names_are_read_with_its_listing_tool_and_again_after_a_change(
    tmp_path: Path, node: str
) -> None:
    store = memory_file(tmp_path, "Alice")
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(memory_server(store, node)) as client:
            tools = tool_specs({"memory": (await client.list_tools()).tools})
            [lister] = [t for t in tools if lists_kept_names(t)]
            assert lister.name == "memory__read_graph"  # read-only, no argument, a list of named things
            listings: list[str] = []

            async def listing(tool: ToolSpec) -> Any:
                listings.append(tool.name)
                return (await client.call_tool(tool.original_name or tool.name, {})).structured_content

            allowed = [True]  # the approval rules let EdgeHost read the listing by itself
            kept = KeptNames(listing, may_call=lambda _tool: allowed[0])
            assert await kept.names(tools) == ("Alice",)
            assert await kept.servers_naming("Alice also has a cat named Miso.", tools) == {"memory"}
            assert await kept.servers_naming("Tell me a joke about cats.", tools) == frozenset()
            assert listings == ["memory__read_graph"]  # read once for the three
            assert [e["name"] for e in kept.last_read("memory")["entities"]] == ["Alice"]
            await client.call_tool(
                "create_entities", {"entities": [{"name": "Bob", "entityType": "person", "observations": []}]}
            )
            kept.changed("memory")  # the host's own call changed what the server keeps
            assert kept.last_read("memory") is None  # out of date: no value is taken from it
            assert await kept.servers_naming("Bob likes tea", tools) == {"memory"}
            assert len(listings) == 2
            assert [e["name"] for e in kept.last_read("memory")["entities"]] == ["Alice", "Bob"]
            allowed[0] = False  # a rule of the user's now asks before read_graph runs
            assert kept.last_read("memory") is None
            allowed[0] = True
    # The server is gone: the listing fails, names nothing, and the turn goes on.
    kept.changed("memory")
    assert await kept.servers_naming("Bob likes tea", tools) == frozenset()


class Person(BaseModel):
    name: str
    notes: list[str]


class People(BaseModel):
    people: list[Person]


async def test_a_listing_whose_items_a_python_server_defines_apart_is_found() -> None:
    # pydantic writes the items of a list of models as a reference to "$defs".
    server = MCPServer("contacts")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def list_people() -> People:
        """Every person the address book keeps."""
        return People(people=[Person(name="Alice", notes=["lives in Lyon"])])

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def find_person(query: str) -> People:
        """The people whose name holds the query."""
        return People(people=[])

    async with Client(server) as client:
        tools = {t.tool_name: t for t in tool_specs({"contacts": (await client.list_tools()).tools})}
        assert "$defs" in (tools["list_people"].output_schema or {})
        assert lists_kept_names(tools["list_people"])
        assert not lists_kept_names(tools["find_person"])  # it needs a query: no listing of all

        async def listing(tool: ToolSpec) -> Any:
            return (await client.call_tool(tool.tool_name, {})).structured_content

        assert await KeptNames(listing).servers_naming("alice's birthday", list(tools.values())) == {
            "contacts"
        }


def test_a_statement_about_a_kept_thing_favours_the_tools_that_act_on_what_exists(
    reference_tools: dict[str, ToolSpec],
) -> None:
    memory = [t for t in reference_tools.values() if t.server == "memory"]
    bonus = dict(
        zip(
            (t.tool_name for t in memory),
            kept_bonus("Alice also has a cat.", memory, frozenset({"memory"})),
            strict=True,
        )
    )
    assert bonus["add_observations"] == KEPT_WEIGHT and bonus["create_entities"] == 0.0
    assert bonus["delete_observations"] == 0.0  # a statement adds; it does not delete
    forget = kept_bonus("Forget Alice, please.", memory, frozenset({"memory"}))
    assert dict(zip((t.tool_name for t in memory), forget, strict=True))["delete_entities"] == KEPT_WEIGHT
    # A question of it looks it up; a server that keeps nothing it names gains nothing.
    assert not any(kept_bonus("What do you know about Alice?", memory, frozenset({"memory"})))
    assert not any(kept_bonus("Alice also has a cat.", memory, frozenset()))
