"""``$ref`` in tool schemas: one resolver, so argument coercion and example values read a schema alike."""

from __future__ import annotations

from typing import Any

import pytest

from edgehost.agent.arguments import coerce_arguments
from edgehost.mcp.schema_values import example_arguments
from edgehost.schema_refs import resolve_ref

# Every way a local ref can be spelt: JSON-pointer escapes (~1 is "/", ~0 is "~"), percent-encoding,
# a ref whose target is itself a ref, draft-07 "definitions", and a ref with keywords beside it.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "slashed": {"$ref": "#/$defs/a~1b"},
        "tilde": {"$ref": "#/$defs/c~0d"},
        "percent": {"$ref": "#/$defs/e%25f"},
        "nested": {"$ref": "#/$defs/outer"},
        "draft7": {"$ref": "#/definitions/legacy"},
        "beside": {"$ref": "#/$defs/inner", "default": 5},
    },
    "required": ["slashed", "tilde", "percent", "nested", "draft7", "beside"],
    "$defs": {
        "a/b": {"type": "integer", "default": 3},
        "c~d": {"type": "boolean", "default": True},
        "e%f": {"type": "number", "default": 1.5},
        "outer": {"$ref": "#/$defs/inner"},
        "inner": {"type": "integer", "default": 7},
    },
    "definitions": {"legacy": {"type": "integer", "default": 9}},
}


def test_escaped_percent_encoded_nested_and_draft7_refs_give_the_example_their_target_holds() -> None:
    assert example_arguments(SCHEMA) == {
        "slashed": 3,
        "tilde": True,
        "percent": 1.5,
        "nested": 7,
        "draft7": 9,
        "beside": 5,  # the keyword written beside the ref wins over the target's
    }


def test_the_same_refs_type_the_arguments_a_model_wrote_as_text() -> None:
    written = {
        "slashed": "4",
        "tilde": "false",
        "percent": "2.5",
        "nested": "8",
        "draft7": "10",
        "beside": "6",
    }
    assert coerce_arguments(written, SCHEMA) == {
        "slashed": 4,
        "tilde": False,
        "percent": 2.5,
        "nested": 8,
        "draft7": 10,
        "beside": 6,
    }


@pytest.mark.parametrize("name", sorted(SCHEMA["properties"]))
def test_coercion_and_examples_agree_on_what_each_ref_points_to(name: str) -> None:
    example = example_arguments(SCHEMA)[name]
    assert type(coerce_arguments({name: str(example).lower()}, SCHEMA)[name]) is type(example)


def test_a_ref_to_the_root_types_a_recursive_structure_at_every_depth() -> None:
    tree = {
        "type": "object",
        "properties": {"size": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
    }
    coerced = coerce_arguments({"size": "1", "children": [{"size": "2", "children": [{"size": "3"}]}]}, tree)
    assert coerced == {"size": 1, "children": [{"size": 2, "children": [{"size": 3}]}]}


def test_a_ref_id_resolves_against_the_schemas_own_id() -> None:
    schema = {
        "$id": "https://example.com/tools/search.json",
        "type": "object",
        "properties": {"limit": {"$ref": "#/$defs/count"}},
        "$defs": {"count": {"type": "integer", "default": 10}},
    }
    assert resolve_ref(schema["properties"]["limit"], schema) == {"type": "integer", "default": 10}


def test_refs_in_a_circle_end_and_leave_the_schema_as_it_was() -> None:
    schema = {
        "type": "object",
        "properties": {"loop": {"$ref": "#/$defs/x"}},
        "required": ["loop"],
        "$defs": {"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/x"}},
    }
    loop = schema["properties"]["loop"]
    assert resolve_ref(loop, schema) is loop
    assert coerce_arguments({"loop": "3"}, schema) == {"loop": "3"}
    assert example_arguments(schema) == {"loop": None}


@pytest.mark.parametrize(
    "ref",
    ["#/$defs/missing", "#/$defs/a~1b/deeper", "other.json#/x", "https://example.com/s.json", "#/$defs/n"],
)
def test_a_ref_that_leads_nowhere_or_elsewhere_is_left_unresolved(ref: str) -> None:
    schema = {
        "type": "object",
        "properties": {"v": {"$ref": ref}},
        "$defs": {"a/b": {"type": "integer"}, "n": 5},
    }
    unresolved = schema["properties"]["v"]
    assert resolve_ref(unresolved, schema) is unresolved
    assert coerce_arguments({"v": "3"}, schema) == {"v": "3"}


def test_a_schema_without_a_ref_is_returned_as_it_is() -> None:
    plain = {"type": "string"}
    assert resolve_ref(plain, SCHEMA) is plain
    assert resolve_ref("not a schema", SCHEMA) == "not a schema"
