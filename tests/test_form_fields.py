"""Reading a flat form schema (an elicitation's requestedSchema) and typing and checking what a person
wrote for each field: edgehost.form_fields, shared by the window's form and the terminal's questions."""

from __future__ import annotations

from typing import Any

import pytest

from edgehost.form_fields import (
    Choice,
    FormField,
    field_problem,
    form_fields,
    missing_fields,
    parse_field_text,
)

# The shapes of server-everything's trigger-elicitation-request, one of each kind the spec allows.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"title": "Name", "type": "string", "description": "Your full name", "maxLength": 20},
        "check": {"type": "boolean"},
        "email": {"type": "string", "format": "email"},
        "homepage": {"type": "string", "format": "uri"},
        "birthdate": {"type": "string", "format": "date"},
        "meeting": {"type": "string", "format": "date-time"},
        "integer": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
        "number": {"type": "number", "minimum": 0, "maximum": 1000, "default": 3.14},
        "friend": {"type": "string", "enum": ["Monica", "Rachel", "Joey"]},
        "instruments": {
            "type": "array",
            "minItems": 1,
            "maxItems": 2,
            "items": {"type": "string", "enum": ["Guitar", "Piano", "Drums"]},
            "default": ["Guitar"],
        },
        "hero": {"type": "string", "oneOf": [{"const": "hero-1", "title": "Superman"}, {"const": "hero-2"}]},
        "fish": {"type": "array", "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}]}},
        "pet": {"type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cats", "Dogs"]},
        "broken": "not a schema",
    },
    "required": ["name", "check"],
}


def fields_by_name() -> dict[str, FormField]:
    return {f.name: f for f in form_fields(SCHEMA)}


def test_every_primitive_property_becomes_a_field_in_schema_order_with_its_kind() -> None:
    fields = form_fields(SCHEMA)
    kinds = {f.name: f.kind for f in fields}
    assert list(kinds) == [name for name in SCHEMA["properties"] if name != "broken"]
    assert kinds["check"] == "boolean" and kinds["integer"] == "integer" and kinds["number"] == "number"
    assert kinds["friend"] == kinds["hero"] == kinds["pet"] == "choice"
    assert kinds["instruments"] == kinds["fish"] == "choices"
    assert kinds["email"] == kinds["name"] == "string"


def test_a_field_carries_title_description_required_default_and_limits() -> None:
    by_name = fields_by_name()
    name, integer, email = by_name["name"], by_name["integer"], by_name["email"]
    assert (name.title, name.description, name.required, name.max_length) == (
        "Name",
        "Your full name",
        True,
        20,
    )
    assert (email.title, email.required, email.has_default, email.format) == ("email", False, False, "email")
    assert (integer.has_default, integer.default, integer.minimum, integer.maximum) == (True, 42, 1.0, 100.0)
    assert by_name["instruments"].default == ["Guitar"] and by_name["instruments"].max_items == 2


def test_choices_are_titled_by_enum_names_one_of_titles_or_their_value() -> None:
    by_name = fields_by_name()
    assert by_name["pet"].choices == (Choice("Cats", "pet-1"), Choice("Dogs", "pet-2"))
    assert by_name["hero"].choices == (Choice("Superman", "hero-1"), Choice("hero-2", "hero-2"))
    assert by_name["fish"].choices == (Choice("Tuna", "fish-1"),)
    assert by_name["friend"].choices[2] == Choice("Joey", "Joey")


@pytest.mark.parametrize(
    ("field", "text", "value"),
    [
        ("check", "y", True),
        ("check", "No", False),
        ("integer", "7", 7),
        ("number", "2.5", 2.5),
        ("number", "12", 12),
        ("email", "ada@example.com", "ada@example.com"),
        ("homepage", "https://ada.example.org/about", "https://ada.example.org/about"),
        ("birthdate", "1815-12-10", "1815-12-10"),
        ("meeting", "2025-01-31T09:30:00Z", "2025-01-31T09:30:00Z"),
        ("friend", "2", "Rachel"),
        ("friend", "joey", "Joey"),
        ("hero", "superman", "hero-1"),
        ("hero", "hero-2", "hero-2"),
        ("pet", "Dogs", "pet-2"),
        ("instruments", "piano, 3", ["Piano", "Drums"]),
        ("instruments", "Piano, piano", ["Piano"]),
        ("name", "  Ada Lovelace ", "Ada Lovelace"),
    ],
)
def test_an_answer_is_typed_by_its_field(field: str, text: str, value: Any) -> None:
    assert parse_field_text(fields_by_name()[field], text) == value


@pytest.mark.parametrize(
    ("field", "text", "message"),
    [
        ("check", "maybe", "answer y (yes) or n (no)"),
        ("integer", "7.5", "a whole number, please"),
        ("integer", "500", "must be at most 100"),
        ("integer", "0", "must be at least 1"),
        ("number", "lots", "a number, please (like 3.5)"),
        ("number", "inf", "a finite number, please"),
        ("email", "ada@", "must be an email address, like name@example.com"),
        ("homepage", "not a web page", "must be an address, like https://example.com"),
        ("birthdate", "1815-13-10", "must be a date, like 2025-01-31"),
        ("birthdate", "10/12/1815", "must be a date, like 2025-01-31"),
        ("meeting", "2025-01-31", "must be a date and time, like 2025-01-31T09:30:00Z"),
        ("friend", "7", "'7' is not one of the choices: give its number (1-3) or its name"),
        ("instruments", "Guitar, Piano, Drums", "must be at most 2 choices"),
        ("name", "x" * 21, "must be at most 20 characters"),
    ],
)
def test_a_wrong_answer_says_what_would_do(field: str, text: str, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_field_text(fields_by_name()[field], text)
    assert str(raised.value) == message


def test_typed_values_are_checked_as_the_window_sends_them() -> None:
    by_name = fields_by_name()
    assert field_problem(by_name["instruments"], []) == "must be at least 1 choice"
    assert field_problem(by_name["friend"], "Phoebe") == "is not one of the choices"
    assert field_problem(by_name["check"], "yes") == "must be yes or no"
    assert field_problem(by_name["integer"], True) == "must be a number"
    assert field_problem(by_name["email"], "") is None  # empty: a matter of required, not of format


def test_required_fields_without_an_answer_or_with_blank_text_are_missing() -> None:
    fields = form_fields(SCHEMA)
    assert [f.name for f in missing_fields(fields, {"name": "  "})] == ["name", "check"]
    assert missing_fields(fields, {"name": "Ada", "check": False}) == []
