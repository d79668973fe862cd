"""Arguments: lenient JSON, coercion by the tool's inputSchema, validation messages that name the field."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from edgehost.agent.arguments import (
    MalformedJSON,
    arguments_object,
    check_arguments,
    coerce_arguments,
    load_json_lenient,
    prepare_validators,
    validate_arguments,
)

FORECAST = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer", "minimum": 1},
        "hourly": {"type": "boolean"},
        "threshold": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "sizes": {"type": "array", "items": {"type": "integer"}},
        "options": {
            "type": "object",
            "properties": {"units": {"enum": ["metric", "imperial"]}, "limit": {"type": "integer"}},
        },
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1,}', {"a": 1}),
        ("{'a': 'b'}", {"a": "b"}),
        ('{"a": True, "b": None, "c": False}', {"a": True, "b": None, "c": False}),
        ('```json\n{"a": [1, 2,]}\n```', {"a": [1, 2]}),
        ('{"text": "line one\nline two"}', {"text": "line one\nline two"}),
        ('{"a": {"b": 1}', {"a": {"b": 1}}),
        ("[1, 2, 3,]", [1, 2, 3]),
    ],
)
def test_json_is_repaired_where_the_intent_is_clear(text: str, expected: object) -> None:
    assert load_json_lenient(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "call the weather tool", "{{{{"])
def test_text_that_holds_no_json_object_is_malformed(text: str) -> None:
    with pytest.raises(MalformedJSON):
        load_json_lenient(text)


def test_arguments_given_as_a_json_string_are_parsed() -> None:
    assert arguments_object('{"city": "Oslo", "days": 2,}') == {"city": "Oslo", "days": 2}
    assert arguments_object(None) == {} and arguments_object("") == {}
    with pytest.raises(MalformedJSON, match="must be a JSON object"):
        arguments_object("[1, 2]")
    with pytest.raises(MalformedJSON):
        arguments_object(7)


def test_strings_are_typed_by_the_schema() -> None:
    coerced = coerce_arguments(
        {"city": "Oslo", "days": "3", "hourly": "false", "threshold": "2.5", "note": "null"}, FORECAST
    )
    assert coerced == {"city": "Oslo", "days": 3, "hourly": False, "threshold": 2.5, "note": "null"}


def test_one_value_where_an_array_is_expected_becomes_an_array() -> None:
    coerced = coerce_arguments({"city": "Oslo", "days": 1, "tags": "rain", "sizes": "4"}, FORECAST)
    assert coerced["tags"] == ["rain"] and coerced["sizes"] == [4]


def test_xml_text_values_holding_json_are_parsed_for_arrays_and_objects() -> None:
    coerced = coerce_arguments(
        {"city": "Oslo", "days": "2", "sizes": "[1, '2']", "options": '{"units": "metric", "limit": "5"}'},
        FORECAST,
    )
    assert coerced["sizes"] == [1, 2]
    assert coerced["options"] == {"units": "metric", "limit": 5}


def test_numbers_where_a_string_is_expected_become_strings() -> None:
    assert coerce_arguments({"city": 1234, "days": 2.0}, FORECAST) == {"city": "1234", "days": 2}


def test_values_that_cannot_be_converted_are_left_for_validation() -> None:
    arguments = {"city": "Oslo", "days": "three", "hourly": "maybe"}
    assert coerce_arguments(arguments, FORECAST) == arguments


def test_refs_to_definitions_are_followed() -> None:
    schema = {
        "type": "object",
        "properties": {"point": {"$ref": "#/$defs/point"}},
        "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}}},
    }
    assert coerce_arguments({"point": {"x": "1.5"}}, schema) == {"point": {"x": 1.5}}


def test_validation_messages_name_the_field() -> None:
    errors = validate_arguments({"days": 0, "options": {"units": "kelvin"}, "colour": "red"}, FORECAST)
    assert "city: required field is missing" in errors
    assert any(e.startswith("days: 0 is less than the minimum of 1") for e in errors)
    assert any(e.startswith("options.units: 'kelvin' is not one of") for e in errors)
    assert any("'colour' was unexpected" in e for e in errors)


def test_valid_arguments_have_no_errors() -> None:
    assert validate_arguments({"city": "Oslo", "days": 2}, FORECAST) == []
    assert validate_arguments({}, {}) == []


def test_a_broken_schema_is_reported_not_raised() -> None:
    [error] = validate_arguments({"a": 1}, {"type": "object", "properties": {"a": {"type": "float"}}})
    assert "input schema is invalid" in error


def test_check_arguments_coerces_then_validates() -> None:
    arguments, errors = check_arguments({"city": "Oslo", "days": "0"}, FORECAST)
    assert arguments == {"city": "Oslo", "days": 0}
    assert errors == ["days: 0 is less than the minimum of 1"]


def test_a_qwen_xml_call_from_the_corpus_is_typed_by_its_schema() -> None:
    from pathlib import Path

    from edgehost.agent.detector import ToolCallParsed, detect_calls

    transcript = (
        Path(__file__).resolve().parent.parent / "fixtures" / "transcripts" / "qwen_xml_typed_params.txt"
    )
    [call] = [
        e for e in detect_calls(transcript.read_text(encoding="utf-8")) if isinstance(e, ToolCallParsed)
    ]
    schema = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "max_results": {"type": "integer"},
            "case_sensitive": {"type": "boolean"},
            "roots": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["pattern"],
    }
    arguments, errors = check_arguments(call.arguments, schema)
    assert arguments == {
        "pattern": "*.log",
        "max_results": 20,
        "case_sensitive": False,
        "roots": ["/var/log", "/tmp"],
    }
    assert errors == []


async def test_validators_are_prepared_one_schema_per_turn_of_the_event_loop() -> None:
    """Preparing is Python that uses the CPU: done in one piece (or on a thread of the window's
    process) it held the window while the first answer streamed. Between two schemas, the loop runs."""
    schemas = [
        {"type": "object", "properties": {f"field_{n}_{i}": {"type": "string"} for i in range(5)}}
        for n in range(20)
    ]
    turns = 0
    done = False

    async def ticker() -> None:
        nonlocal turns
        while not done:
            turns += 1
            await asyncio.sleep(0)

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    await prepare_validators(schemas)
    done = True
    await ticking
    assert turns >= len(schemas)


def _memory_schema(tool: str) -> dict:
    """The reference memory server's inputSchema for ``tool``, as the server lists it."""
    listed = json.loads((Path(__file__).parents[1] / "fixtures" / "reference_tools.json").read_text())
    return next(t["inputSchema"] for t in listed["servers"]["memory"] if t["name"] == tool)


def test_an_entity_written_twice_in_one_call_is_created_once() -> None:
    anna = {"name": "Anna", "entityType": "person", "observations": ["lives in Lyon"]}
    tom = {"name": "Tom", "entityType": "person", "observations": ["plays chess"]}
    coerced = coerce_arguments({"entities": [anna, tom, dict(anna)]}, _memory_schema("create_entities"))
    assert coerced == {"entities": [anna, tom]}


def test_objects_that_differ_in_one_field_are_both_kept() -> None:
    knows = {"from": "Anna", "to": "Tom", "relationType": "knows"}
    married = {**knows, "relationType": "is married to"}
    coerced = coerce_arguments({"relations": [knows, married]}, _memory_schema("delete_relations"))
    assert coerced == {"relations": [knows, married]}


def test_repeated_numbers_stay_unless_the_schema_asks_for_unique_items() -> None:
    sizes = {"sizes": ["3", 3, 5]}
    assert coerce_arguments(sizes, FORECAST) == {"sizes": [3, 3, 5]}
    unique = {"type": "object", "properties": {"tags": {"type": "array", "uniqueItems": True}}}
    assert coerce_arguments({"tags": ["a", "b", "a"]}, unique) == {"tags": ["a", "b"]}
