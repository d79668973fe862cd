"""Pure parts: names in the catalog, values from schemas, results as text."""

from __future__ import annotations

import re

import mcp_types as types

from edgehost.mcp._stderr import LineRing
from edgehost.mcp.catalog import ServerListing, build_catalog, namespace, unknown_tool_text
from edgehost.mcp.config import ServerConfig
from edgehost.mcp.results import result_text
from edgehost.mcp.schema_values import elicitation_defaults, example_arguments


def _tools(*names: str) -> ServerListing:
    return ServerListing(tools=tuple(types.Tool(name=n, input_schema={"type": "object"}) for n in names))


def test_colliding_names_are_resolved_the_same_way_whatever_the_listing_order() -> None:
    servers = [ServerConfig(name="s"), ServerConfig(name="s.")]
    forward = build_catalog({"s": _tools("a.b", "a/b", "a_b"), "s.": _tools("_a_b")}, servers, lambda _: True)
    backward = build_catalog(
        {"s": _tools("a_b", "a/b", "a.b"), "s.": _tools("_a_b")}, servers, lambda _: True
    )
    as_map = {(t.server, t.original_name): t.name for t in forward.tools}
    assert as_map == {(t.server, t.original_name): t.name for t in backward.tools}
    assert len(set(as_map.values())) == 4
    assert as_map[("s", "a.b")] == "s__a_b"  # the smallest of the colliding pair keeps the plain name
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name) for name in as_map.values())


def test_long_names_are_cut_to_64_characters() -> None:
    assert len(namespace("server", "t" * 200)) == 64


def test_example_arguments_use_defaults_enums_and_minimal_values() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "number"},
            "b": {"type": "integer", "minimum": 3},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "steps": {"type": "integer", "default": 5},
            "url": {"type": "string", "format": "uri"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "flag": {"type": "boolean"},
            "optional": {"type": "string"},
            "ref": {"$ref": "#/$defs/Point"},
        },
        "required": ["a", "b", "mode", "url", "tags", "flag", "ref"],
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
    }
    assert example_arguments(schema) == {
        "a": 1,
        "b": 3,
        "mode": "fast",
        "steps": 5,
        "url": "https://example.com",
        "tags": ["example"],
        "flag": False,
        "ref": {"x": 1},
    }


def test_an_elicitation_is_accepted_with_defaults_and_declined_when_a_required_field_has_none() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
        },
        "required": [],
    }
    assert elicitation_defaults(schema) == {"name": "John Doe", "age": 30}
    schema["properties"]["email"] = {"type": "string"}
    schema["required"] = ["email"]
    assert elicitation_defaults(schema) is None


def test_result_text_describes_binary_content_and_cuts_with_a_note() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="hello " * 100),
            types.ImageContent(type="image", data="AAAA", mime_type="image/png"),
        ]
    )
    full = result_text(result, 10_000)
    assert full.endswith("[image image/png, 3 bytes]")
    cut = result_text(result, 100)
    assert len(cut) <= 100 and "result cut" in cut


def test_a_servers_secrets_never_reach_its_stderr_ring() -> None:
    ring = LineRing(3, secrets={"s3cret-token"})
    for line in ("one", "auth with s3cret-token failed", "three", "four"):
        ring.append(line)
    assert ring.tail() == ("auth with [REDACTED] failed", "three", "four")


def test_a_resource_uri_is_routed_to_the_server_listing_it_or_a_matching_template() -> None:
    listing = ServerListing(
        resources=(types.Resource(name="doc", uri="demo://static/doc"),),
        resource_templates=(types.ResourceTemplate(name="item", uri_template="demo://items/{id}"),),
    )
    catalog = build_catalog({"demo": listing}, [ServerConfig(name="demo")], lambda _: True)
    assert catalog.server_for_uri("demo://static/doc") == "demo"
    assert catalog.server_for_uri("demo://items/42") == "demo"
    assert catalog.server_for_uri("demo://items/42/more") is None
    assert catalog.server_for_uri("other://x") is None


def test_an_unknown_tool_name_points_at_the_tool_meant() -> None:
    names = ["board__temperatures", "board__uptime", "files__read_file"]
    assert (
        unknown_tool_text("temperatures", names)
        == "no tool named 'temperatures' (did you mean board__temperatures?)"
    )
    assert unknown_tool_text("board__temperatures2", names).endswith("(did you mean board__temperatures?)")
    assert unknown_tool_text("weather", names) == "no tool named 'weather'"
