"""A deletion's values taken from what the memory keeps (agent/kept_values.py), against the real
reference memory server (tests/peers) through the SDK's client: its tools' schemas, its listing, and
the deletion the values make."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel
from tests.agent.test_kept_names import People, Person, memory_server
from tests.support import CONNECT_TIMEOUT_S, tool_specs

from edgehost.agent.kept_values import with_kept_values


def _store(folder: Path) -> Path:
    lines = [
        {"type": "entity", "name": "Home", "entityType": "place",
         "observations": ["garage code is 4512", "wifi password is on the fridge"]},
        {"type": "entity", "name": "Biscuit", "entityType": "dog", "observations": ["is five years old"]},
        {"type": "entity", "name": "Daniel", "entityType": "person", "observations": ["has the office code"]},
        {"type": "entity", "name": "Migration Project", "entityType": "project", "observations": []},
        {"type": "entity", "name": "Acme", "entityType": "company", "observations": []},
        {"type": "entity", "name": "Anna", "entityType": "person", "observations": ["birthday is 12 May"]},
        {"type": "entity", "name": "Bob", "entityType": "person", "observations": ["phone number is 555 0100"]},
        {"type": "relation", "from": "Daniel", "to": "Migration Project", "relationType": "works_on"},
        {"type": "relation", "from": "Daniel", "to": "Acme", "relationType": "works_at"},
    ]  # fmt: skip
    path = folder / "memory.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _offered_items(schema: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """Each kept item the list argument ``key`` offers: its fields' values."""
    items = schema["properties"][key]["items"]
    return [
        {
            name: field.get("enum", field.get("items", {}).get("enum"))
            for name, field in each["properties"].items()
        }
        for each in items.get("anyOf", [items])
    ]


def _item_values(schema: dict[str, Any], key: str) -> dict[str, Any]:
    [only] = _offered_items(schema, key)
    return only


async def test_a_deletion_takes_the_exact_kept_texts_the_question_speaks_of(
    tmp_path: Path, node: str
) -> None:
    """ "Forget the garage code" cannot give "garage code is 4512"; filled from its words, the memory
    server deleted nothing. Offered what the memory keeps, the call deletes the observation."""
    store = _store(tmp_path)
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(memory_server(store, node)) as client:
            tools = {t.tool_name: t for t in tool_specs({"memory": (await client.list_tools()).tools})}
            kept = (await client.call_tool("read_graph", {})).structured_content

            forget = with_kept_values(
                tools["delete_observations"], kept, "Forget the garage code, I've changed it."
            )
            offered = _item_values(forget.input_schema, "deletions")
            assert offered == {"entityName": ["Home"], "observations": ["garage code is 4512"]}
            # An item named, none of whose texts the question shares a word with: all its texts.
            age = with_kept_values(tools["delete_observations"], kept, "forget the bit about Biscuit's age")
            assert _item_values(age.input_schema, "deletions")["observations"] == ["is five years old"]

            unlink = with_kept_values(
                tools["delete_relations"],
                kept,
                "Daniel is off the migration project now, so drop the link between him and it.",
            )
            assert _item_values(unlink.input_schema, "relations") == {
                "from": ["Daniel"],
                "to": ["Migration Project"],
                "relationType": ["works_on"],
            }
            relations = unlink.input_schema["properties"]["relations"]
            assert (relations["minItems"], relations["maxItems"]) == (1, 1)  # it once, not twice

            # A name the question writes comes before words it shares: Bob's note shares two.
            anna = with_kept_values(tools["delete_observations"], kept, "Forget Anna's phone number")
            assert _item_values(anna.input_schema, "deletions")["entityName"] == ["Anna"]
            # Two relations alike are offered each whole: never Daniel, Acme and works_on.
            both = with_kept_values(tools["delete_relations"], kept, "Daniel left: drop every link of his")
            assert _offered_items(both.input_schema, "relations") == [
                {"from": ["Daniel"], "to": ["Migration Project"], "relationType": ["works_on"]},
                {"from": ["Daniel"], "to": ["Acme"], "relationType": ["works_at"]},
            ]

            # The call made of what was offered deletes the observation.
            call = {key: value[0] for key, value in offered.items()}
            call["observations"] = offered["observations"]
            await client.call_tool("delete_observations", {"deletions": [call]})
            after = (await client.call_tool("read_graph", {})).structured_content
            [home] = [e for e in after["entities"] if e["name"] == "Home"]
            assert home["observations"] == ["wifi password is on the fridge"]


async def test_a_deletion_of_whole_things_takes_the_kept_names_the_question_writes(
    tmp_path: Path, node: str
) -> None:
    """ "wipe biscuit from your memory" became ``delete_entities {"entityNames": ["wipe", "wipe"]}``:
    the words of the question, and nothing was deleted. Offered the kept names it writes, in any case,
    the call deletes Biscuit; a question that writes no kept name keeps its own words."""
    store = _store(tmp_path)
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(memory_server(store, node)) as client:
            tools = {t.tool_name: t for t in tool_specs({"memory": (await client.list_tools()).tools})}
            kept = (await client.call_tool("read_graph", {})).structured_content
            delete = tools["delete_entities"]

            wipe = with_kept_values(delete, kept, "wipe biscuit from your memory")
            names = wipe.input_schema["properties"]["entityNames"]
            assert (names["items"]["enum"], names["minItems"], names["maxItems"]) == (["Biscuit"], 1, 1)

            def offered(question: str) -> list[str]:
                return with_kept_values(delete, kept, question).input_schema["properties"]["entityNames"][
                    "items"
                ]["enum"]

            # In the question's order; never a name it spares, nor a kept word it writes in passing.
            assert offered("Forget Bob and Anna entirely") == ["Bob", "Anna"]
            assert offered("Forget Bob, not Anna") == ["Bob"]
            assert offered("Don't delete Anna, delete Bob") == ["Bob"]
            assert offered("Delete Bob, he moved home") == ["Bob"]
            assert with_kept_values(delete, kept, "Delete Tom from what you remember") is delete

            await client.call_tool("delete_entities", {"entityNames": names["items"]["enum"]})
            after = (await client.call_tool("read_graph", {})).structured_content
            assert "Biscuit" not in {e["name"] for e in after["entities"]}
            assert "Anna" in {e["name"] for e in after["entities"]}


async def test_a_tool_that_creates_or_a_question_of_nothing_kept_keeps_the_questions_values(
    tmp_path: Path, node: str
) -> None:
    store = _store(tmp_path)
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(memory_server(store, node)) as client:
            tools = {t.tool_name: t for t in tool_specs({"memory": (await client.list_tools()).tools})}
            kept = (await client.call_tool("read_graph", {})).structured_content
            link = tools["create_relations"]  # a new relation is the question's, not a kept one
            assert with_kept_values(link, kept, "Daniel now works on the Migration Project") is link
            forget = tools["delete_observations"]
            assert with_kept_values(forget, kept, "Forget my sister's shoe size") is forget
            assert with_kept_values(forget, None, "Forget the garage code") is forget  # not read


class NoteDeletion(BaseModel):
    personName: str  # a camelCase "...Name", as the memory server's entityName
    notes: list[str]


async def test_a_python_servers_deletion_whose_items_are_a_reference_takes_the_kept_texts() -> None:
    # pydantic writes the items of a list of models as a reference to "$defs".
    server = MCPServer("contacts")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def list_people() -> People:
        """Every person the address book keeps."""
        return People(people=[Person(name="Alice", notes=["lives in Lyon", "plays the cello"])])

    @server.tool(annotations=ToolAnnotations(destructive_hint=True))
    def delete_notes(deletions: list[NoteDeletion]) -> str:
        """Delete notes from people."""
        return "done"

    async with Client(server) as client:
        tools = {t.tool_name: t for t in tool_specs({"contacts": (await client.list_tools()).tools})}
        assert "$ref" in json.dumps(tools["delete_notes"].input_schema["properties"])
        kept = (await client.call_tool("list_people", {})).structured_content
        offered = with_kept_values(tools["delete_notes"], kept, "Alice gave up the cello, forget that")
        assert _item_values(offered.input_schema, "deletions") == {
            "personName": ["Alice"],
            "notes": ["plays the cello"],
        }
