"""The fields of a flat JSON-schema form (an elicitation's requestedSchema, a prompt's arguments): read
from the schema, typed from what a person wrote, and checked.

Qt-free and pure: the window's form (edgehost.ui.schema_form) builds its widgets from these fields,
and `edgehost chat` asks them one by one on the terminal (edgehost.cli.terminal_elicitation).
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "Choice",
    "FieldKind",
    "FormField",
    "choices_of",
    "field_problem",
    "form_fields",
    "missing_fields",
    "parse_field_text",
]

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "choices"]
"""choice: one of an enum; choices: an array of enum members (a multi-select)."""

_TRUE_WORDS = frozenset({"y", "yes", "true", "1", "on"})
_FALSE_WORDS = frozenset({"n", "no", "false", "0", "off"})
_INTEGER = re.compile(r"[+-]?\d+")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
FORMAT_EXAMPLES = {
    "email": "an email address, like name@example.com",
    "uri": "an address, like https://example.com",
    "date": "a date, like 2025-01-31",
    "date-time": "a date and time, like 2025-01-31T09:30:00Z",
}


@dataclass(frozen=True)
class Choice:
    title: str  # what a person sees
    value: Any  # what the server receives


@dataclass(frozen=True)
class FormField:
    """One property of a flat object schema, as a form asks it."""

    name: str
    title: str
    description: str
    kind: FieldKind
    required: bool
    has_default: bool = False
    default: Any = None
    choices: tuple[Choice, ...] = ()
    format: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    secret: bool = False  # ``writeOnly`` in the schema (a token, a password): typed unseen, never shown


def choices_of(prop: Mapping[str, Any]) -> list[Choice]:
    """The members of an enum: ``enum`` (titled by the legacy ``enumNames``), or a ``oneOf`` /
    ``anyOf`` of titled ``const`` values; [] when ``prop`` is not an enum."""
    if isinstance(prop.get("enum"), list):
        names = prop.get("enumNames") if isinstance(prop.get("enumNames"), list) else None
        return [
            Choice(str(names[i]) if names and i < len(names) else str(value), value)
            for i, value in enumerate(prop["enum"])
        ]
    options = prop.get("oneOf") or prop.get("anyOf")
    if (
        isinstance(options, list)
        and options
        and all(isinstance(o, Mapping) and "const" in o for o in options)
    ):
        return [Choice(str(o.get("title") or o["const"]), o["const"]) for o in options]
    return []


def form_fields(schema: Mapping[str, Any] | None) -> list[FormField]:
    """The fields of a flat object schema, in its order. A property of another type (an object, an
    array of free values) is asked as text, as the window does; a property that is not an object
    schema is skipped."""
    schema = schema or {}
    required = set(schema.get("required") or [])
    fields = []
    for name, prop in (schema.get("properties") or {}).items():
        if isinstance(prop, Mapping):
            fields.append(_field(str(name), prop, name in required))
    return fields


def _field(name: str, prop: Mapping[str, Any], required: bool) -> FormField:
    items = prop.get("items")
    choices: list[Choice] = []
    kind: FieldKind
    if prop.get("type") == "array" and isinstance(items, Mapping) and (choices := choices_of(items)):
        kind = "choices"
    elif choices := choices_of(prop):
        kind = "choice"
    elif prop.get("type") in ("boolean", "integer", "number"):
        kind = prop["type"]
    else:
        kind = "string"
    return FormField(
        name=name,
        title=str(prop.get("title") or name),
        description=str(prop.get("description") or ""),
        kind=kind,
        required=required,
        has_default="default" in prop,
        default=prop.get("default"),
        choices=tuple(choices),
        format=str(prop["format"]) if prop.get("format") else None,
        minimum=_number(prop.get("minimum")),
        maximum=_number(prop.get("maximum")),
        min_length=_count(prop.get("minLength")),
        max_length=_count(prop.get("maxLength")),
        min_items=_count(prop.get("minItems")),
        max_items=_count(prop.get("maxItems")),
        secret=prop.get("writeOnly") is True,
    )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def parse_field_text(field: FormField, text: str) -> Any:
    """The value ``text`` (one non-empty answer, as typed) means for ``field``, then checked.

    A choice is given by its number in the list (from 1), its title or its value, case-insensitively;
    several choices are separated by commas.

    Raises ValueError with a message for the person (what is wrong, what would do).
    """
    text = text.strip()
    value: Any
    if field.kind == "boolean":
        word = text.lower()
        if word not in _TRUE_WORDS | _FALSE_WORDS:
            raise ValueError("answer y (yes) or n (no)")
        value = word in _TRUE_WORDS
    elif field.kind == "integer":
        if not _INTEGER.fullmatch(text):
            raise ValueError("a whole number, please")
        value = int(text)
    elif field.kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError("a number, please (like 3.5)") from None
        if not math.isfinite(number):
            raise ValueError("a finite number, please")
        value = int(text) if _INTEGER.fullmatch(text) else number
    elif field.kind == "choice":
        value = _choice(field.choices, text)
    elif field.kind == "choices":
        value = []
        for part in (p.strip() for p in text.split(",")):
            chosen = _choice(field.choices, part) if part else None
            if part and chosen not in value:
                value.append(chosen)
    else:
        value = text
    problem = field_problem(field, value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _choice(choices: Sequence[Choice], text: str) -> Any:
    if text.isdigit() and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1].value
    wanted = text.casefold()
    for choice in choices:
        if wanted in (choice.title.casefold(), str(choice.value).casefold()):
            return choice.value
    raise ValueError(f"{text!r} is not one of the choices: give its number (1-{len(choices)}) or its name")


def field_problem(field: FormField, value: Any) -> str | None:
    """What is wrong with ``value`` for ``field`` (type, range, length, format, choices), or None."""
    if field.kind == "boolean":
        return None if isinstance(value, bool) else "must be yes or no"
    if field.kind in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number"
        if field.kind == "integer" and not float(value).is_integer():
            return "must be a whole number"
        return _range_problem(value, field.minimum, field.maximum, "")
    if field.kind == "choice":
        return None if any(c.value == value for c in field.choices) else "is not one of the choices"
    if field.kind == "choices":
        if not isinstance(value, list) or any(all(c.value != v for c in field.choices) for v in value):
            return "must be some of the choices"
        return _range_problem(len(value), field.min_items, field.max_items, " choice")
    if not isinstance(value, str):
        return "must be text"
    length = _range_problem(len(value), field.min_length, field.max_length, " character")
    if length is not None:
        return length
    if field.format is not None and value and not _format_ok(field.format, value):
        return f"must be {FORMAT_EXAMPLES.get(field.format, f'in the {field.format} format')}"
    return None


def _range_problem(amount: float, low: float | None, high: float | None, unit: str) -> str | None:
    def counted(limit: float) -> str:
        shown = f"{limit:g}"
        return f"{shown}{unit}{'s' if unit and limit != 1 else ''}"

    if low is not None and amount < low:
        return f"must be at least {counted(low)}"
    if high is not None and amount > high:
        return f"must be at most {counted(high)}"
    return None


def _format_ok(fmt: str, value: str) -> bool:
    """Whether ``value`` has the string format elicitation defines (email, uri, date, date-time);
    another format is not checked."""
    if fmt == "email":
        return bool(_EMAIL.fullmatch(value))
    if fmt == "uri":
        return bool(_URI.fullmatch(value))
    try:
        if fmt == "date":
            return bool(_DATE.fullmatch(value)) and bool(datetime.date.fromisoformat(value))
        if fmt == "date-time":
            has_time = value[10:11] in ("T", "t", " ")
            return has_time and bool(datetime.datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        return False
    return True


def missing_fields(fields: Sequence[FormField], content: Mapping[str, Any]) -> list[FormField]:
    """The required fields ``content`` has no value for (absent, None, or blank text)."""
    return [f for f in fields if f.required and _blank(content.get(f.name))]


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())
