"""Values built from JSON schemas: example arguments for a tool, default answers to an elicitation.

Pure functions; used by `edgehost probe` (call every tool with valid arguments) and by the headless
elicitation handler (accept with the schema's defaults).
"""

from __future__ import annotations

from typing import Any

from edgehost.schema_refs import resolve_ref

__all__ = ["elicitation_defaults", "example_arguments", "example_value"]

# Nesting beyond this is a recursive schema; an example that deep helps nobody.
_MAX_DEPTH = 8

_STRING_FORMAT_EXAMPLES = {
    "uri": "https://example.com",
    "url": "https://example.com",
    "email": "user@example.com",
    "date-time": "2025-01-01T00:00:00Z",
    "date": "2025-01-01",
    "time": "00:00:00",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "127.0.0.1",
}


def example_arguments(schema: dict[str, Any] | None) -> dict[str, Any]:
    """Arguments that satisfy a tool's inputSchema: defaults where given, else minimal valid values.

    Every required property is filled, and every optional property that has a default.
    """
    if not schema:
        return {}
    value = example_value(schema, root=schema)
    return value if isinstance(value, dict) else {}


def example_value(schema: Any, *, root: dict[str, Any] | None = None, depth: int = 0) -> Any:
    """One value valid against ``schema`` (default, const, first enum member, else a minimal value)."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return None
    root = root if root is not None else schema
    schema = resolve_ref(schema, root)
    if "default" in schema:
        return schema["default"]
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("oneOf", "anyOf"):
        alternatives = schema.get(key)
        if isinstance(alternatives, list) and alternatives:
            usable = [a for a in alternatives if not (isinstance(a, dict) and a.get("type") == "null")]
            first = usable[0] if usable else alternatives[0]
            if isinstance(first, dict) and "const" in first:
                return first["const"]
            return example_value(first, root=root, depth=depth + 1)
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            if isinstance(part, dict):
                merged.update(resolve_ref(part, root))
        return example_value(merged, root=root, depth=depth + 1)
    kind = _primary_type(schema)
    if kind == "object":
        return _example_object(schema, root, depth)
    if kind == "array":
        count = int(schema.get("minItems", 0) or 0)
        return [example_value(schema.get("items", {}), root=root, depth=depth + 1) for _ in range(count)]
    if kind == "string":
        return _example_string(schema)
    if kind in ("integer", "number"):
        return _example_number(schema, integer=kind == "integer")
    if kind == "boolean":
        return False
    return None


def elicitation_defaults(requested_schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The content of an elicitation accepted with the schema's defaults.

    Returns None when a required field has no default (the request must then be declined).
    """
    properties = (requested_schema or {}).get("properties") or {}
    required = set((requested_schema or {}).get("required") or [])
    content: dict[str, Any] = {}
    for name, field_schema in properties.items():
        if isinstance(field_schema, dict) and "default" in field_schema:
            content[name] = field_schema["default"]
        elif name in required:
            return None
    return content


def _primary_type(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind is None and "properties" in schema:
        return "object"
    return kind if isinstance(kind, str) else None


def _example_object(schema: dict[str, Any], root: dict[str, Any], depth: int) -> dict[str, Any]:
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    result: dict[str, Any] = {}
    for name, prop in properties.items():
        prop = resolve_ref(prop, root) if isinstance(prop, dict) else prop
        if name in required or (isinstance(prop, dict) and "default" in prop):
            result[name] = example_value(prop, root=root, depth=depth + 1)
    for name in required:
        result.setdefault(name, "example")
    return result


def _example_string(schema: dict[str, Any]) -> str:
    text = _STRING_FORMAT_EXAMPLES.get(str(schema.get("format", "")), "example")
    min_length = int(schema.get("minLength", 0) or 0)
    if len(text) < min_length:
        text = text + "x" * (min_length - len(text))
    max_length = schema.get("maxLength")
    if isinstance(max_length, int):
        text = text[:max_length]
    return text


def _example_number(schema: dict[str, Any], *, integer: bool) -> int | float:
    value: float = 1
    if isinstance(schema.get("minimum"), int | float):
        value = schema["minimum"]
    elif isinstance(schema.get("exclusiveMinimum"), int | float):
        value = schema["exclusiveMinimum"] + 1
    if isinstance(schema.get("maximum"), int | float):
        value = min(value, schema["maximum"])
    elif isinstance(schema.get("exclusiveMaximum"), int | float):
        value = min(value, schema["exclusiveMaximum"] - 1)
    return int(value) if integer else value
