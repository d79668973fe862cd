"""Tool-call arguments: repaired JSON, values coerced by the tool's inputSchema, then validated.

All functions here are pure. The order the agent applies them in is
``arguments_object`` (what the model wrote) → ``coerce_arguments`` (typed by the schema) →
``validate_arguments`` (what is still wrong, as messages that name the field).
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import json_repair
from jsonschema import exceptions as schema_exceptions
from jsonschema import validators

from edgehost.schema_refs import resolve_ref
from edgehost.validation_messages import key_path_text

__all__ = [
    "MalformedJSON",
    "arguments_object",
    "check_arguments",
    "coerce_arguments",
    "is_valid",
    "load_json_lenient",
    "prepare_validators",
    "strip_code_fence",
    "validate_arguments",
]


class MalformedJSON(ValueError):
    """Text that is not JSON and that no repair turns into a JSON value with clear intent."""


_FENCE = re.compile(r"^\s*(`{3,})[A-Za-z0-9_+-]*[ \t]*\n?(.*?)\n?[ \t]*(?:\1\s*)?$", re.DOTALL)
_TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
_FALSE_WORDS = frozenset({"false", "no", "off", "0"})
_NULL_WORDS = frozenset({"null", "none", "nil", ""})
_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def strip_code_fence(text: str) -> str:
    """The text inside a Markdown code fence (```json … ```) wrapping all of ``text``; else ``text`` stripped."""
    match = _FENCE.match(text)
    if match is None:
        return text.strip()
    return match.group(2).strip()


def load_json_lenient(text: str) -> Any:
    """Parse JSON a model wrote, repairing it where the intent is clear.

    Handles a code fence around the value, trailing commas, single quotes, Python literals
    (True/False/None), raw newlines inside strings and missing closing brackets (through the
    ``json-repair`` library). Valid JSON is returned as it is. Raises MalformedJSON when invalid
    text is not an object or array, or repairs to nothing (the repair library would otherwise turn
    prose into an empty string).
    """
    body = strip_code_fence(text)
    if not body:
        raise MalformedJSON("empty JSON text")
    try:
        return json.loads(body)
    except ValueError:
        pass
    if body[0] not in "{[":
        raise MalformedJSON(f"not a JSON object or array: {_preview(body)}")
    try:
        repaired = json_repair.loads(body)
    except Exception as exc:  # json-repair raises assorted errors on hopeless input
        raise MalformedJSON(f"JSON beyond repair ({exc}): {_preview(body)}") from exc
    if not isinstance(repaired, (dict, list)) or (not repaired and len(body) > 2):
        raise MalformedJSON(f"JSON beyond repair: {_preview(body)}")
    return repaired


def arguments_object(value: Any) -> dict[str, Any]:
    """A call's arguments as a dict: an object as is, a JSON string parsed (leniently), null as {}.

    Raises MalformedJSON when the value is neither an object nor a string holding one.
    """
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str):
        if not value.strip():
            return {}
        parsed = load_json_lenient(value)
        if isinstance(parsed, dict):
            return parsed
        raise MalformedJSON(f"arguments must be a JSON object, got {type(parsed).__name__}")
    raise MalformedJSON(f"arguments must be a JSON object, got {type(value).__name__}")


def coerce_arguments(arguments: Mapping[str, Any], input_schema: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments with values converted to the types the schema asks for, where the meaning is plain.

    Numbers and booleans written as strings become numbers and booleans, one value where an array
    is expected becomes a one-element array, JSON text where an object or array is expected is
    parsed, and the xml dialects' text values are typed the same way; nested objects and array
    items are coerced by their own schemas. An object repeated exactly in an array is kept once (any
    item, where the schema asks for ``uniqueItems``). Values that cannot be converted are left as they are
    for ``validate_arguments`` to report. Never raises; returns a new dict.
    """
    coerced = _coerce(dict(arguments), dict(input_schema), dict(input_schema))
    return coerced if isinstance(coerced, dict) else dict(arguments)


def validate_arguments(arguments: Mapping[str, Any], input_schema: Mapping[str, Any]) -> list[str]:
    """Every way ``arguments`` breaks ``input_schema``, one message each naming the field; [] when valid.

    A broken schema is reported as one message rather than raised: the tool's server is at fault,
    and the model (which receives these messages) can do nothing about it.
    """
    validator = _validator(_schema_key(input_schema))
    if isinstance(validator, str):
        return [validator]
    errors = sorted(
        validator.iter_errors(dict(arguments)), key=lambda e: (list(map(str, e.absolute_path)), e.message)
    )
    return [_error_message(error) for error in errors]


def is_valid(value: Any, schema: Mapping[str, Any]) -> bool:
    """Whether ``value`` is valid against ``schema`` (the cached validator validate_arguments uses);
    False when the schema is invalid or cannot say (a reference to a part of a tool's schema it was
    cut from)."""
    validator = _validator(_schema_key(schema))
    if isinstance(validator, str):
        return False
    try:
        return bool(validator.is_valid(value))
    except Exception:  # noqa: BLE001 - jsonschema and referencing raise assorted errors on such schemas
        return False


async def prepare_validators(input_schemas: Iterable[Mapping[str, Any]]) -> None:
    """Check the schemas and build their validators now (when the catalog changes), so the first call
    of each tool does not wait ~3 ms for it. One schema per turn of the event loop: this is Python
    that uses the CPU (1-3 ms a schema, ~40 schemas as five servers start), and on a thread of the
    window's process it took the GIL from the window's thread as the first answer streamed."""
    for schema in input_schemas:
        _validator(_schema_key(schema))
        await asyncio.sleep(0)


def _schema_key(input_schema: Mapping[str, Any]) -> str:
    return json.dumps(input_schema or {"type": "object"}, sort_keys=True, default=str)


@functools.lru_cache(maxsize=512)
def _validator(schema_json: str) -> Any:
    """A checked validator for a schema (by its JSON text), or the message saying why it is invalid.

    Checking a schema and building its validator costs about a millisecond: once per tool, not per call.
    """
    schema = json.loads(schema_json)
    validator_class = validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except schema_exceptions.SchemaError as exc:
        return f"the tool's input schema is invalid: {exc.message}"
    return validator_class(schema)


def check_arguments(
    arguments: Mapping[str, Any], input_schema: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """``coerce_arguments`` then ``validate_arguments``: the typed arguments and what is still wrong."""
    coerced = coerce_arguments(arguments, input_schema)
    return coerced, validate_arguments(coerced, input_schema)


def _error_message(error: schema_exceptions.ValidationError) -> str:
    field = key_path_text(error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [name for name in error.validator_value if name not in error.instance]
        if missing:
            where = f"{field}." if field else ""
            return f"{where}{missing[0]}: required field is missing"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        return f"{field or 'arguments'}: {error.message}"
    return f"{field or 'arguments'}: {error.message}"


def _resolve(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    resolved = resolve_ref(schema, root)
    return resolved if isinstance(resolved, dict) else {}


def _schema_types(schema: dict[str, Any], root: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    types: list[str] = []
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key, []) or []:
            types.extend(t for t in _schema_types(_resolve(option, root), root) if t not in types)
    if not types:
        if "properties" in schema:
            types.append("object")
        elif "items" in schema:
            types.append("array")
        elif "enum" in schema or "const" in schema:
            values = schema.get("enum", [schema.get("const")])
            types.extend(_json_type(v) for v in values if _json_type(v) not in types)
    return types


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _subschema_for(schema: dict[str, Any], type_name: str, root: dict[str, Any]) -> dict[str, Any]:
    """The branch of an anyOf/oneOf that has ``type_name`` (so nested properties are found)."""
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key, []) or []:
            resolved = _resolve(option, root)
            if type_name in _schema_types(resolved, root):
                return resolved
    return schema


def _coerce(value: Any, schema: Any, root: dict[str, Any]) -> Any:
    schema = _resolve(schema, root)
    if not schema:
        return value
    types = _schema_types(schema, root)
    if not types or _json_type(value) in types or (_json_type(value) == "integer" and "number" in types):
        return _coerce_inside(value, schema, types, root)
    for type_name in types:
        converted = _convert(value, type_name)
        if converted is not _NO_CONVERSION:
            return _coerce_inside(converted, _subschema_for(schema, type_name, root), [type_name], root)
    return value


def _coerce_inside(value: Any, schema: dict[str, Any], types: list[str], root: dict[str, Any]) -> Any:
    if isinstance(value, dict):
        schema = _subschema_for(schema, "object", root) if "object" not in _own_types(schema) else schema
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        result: dict[str, Any] = {}
        for key, item in value.items():
            if key in properties:
                result[key] = _coerce(item, properties[key], root)
            elif isinstance(extra, dict):
                result[key] = _coerce(item, extra, root)
            else:
                result[key] = item
        return result
    if isinstance(value, list):
        schema = _subschema_for(schema, "array", root) if "array" not in _own_types(schema) else schema
        items = schema.get("items")
        if isinstance(items, dict):
            value = [_coerce(item, items, root) for item in value]
        return _without_repeats(value, everything=schema.get("uniqueItems") is True)
    return value


def _without_repeats(items: list[Any], everything: bool) -> list[Any]:
    """``items`` without the exact repeats of an object (``everything``: of any item) after its
    first. A small model under a grammar writes an entity or a relation twice ("create Anna, Anna");
    two equal objects in one call are never two things the asker meant."""
    kept: list[Any] = []
    seen: set[str] = set()
    for item in items:
        if isinstance(item, dict) or everything:
            key = json.dumps(item, sort_keys=True, default=repr)
            if key in seen:
                continue
            seen.add(key)
        kept.append(item)
    return kept


def _own_types(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    return list(declared) if isinstance(declared, list) else []


class _NoConversion:
    pass


_NO_CONVERSION: Any = _NoConversion()


def _convert(value: Any, type_name: str) -> Any:
    """``value`` as a ``type_name`` when the meaning is plain, else _NO_CONVERSION."""
    text = value.strip() if isinstance(value, str) else None
    if type_name == "integer":
        if text is not None and _INTEGER.fullmatch(text):
            return int(text)
        if text is not None and _NUMBER.fullmatch(text) and float(text).is_integer():
            return int(float(text))
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return int(value)
    elif type_name == "number":
        if text is not None and _NUMBER.fullmatch(text):
            number = float(text)
            return int(number) if _INTEGER.fullmatch(text) else number
    elif type_name == "boolean":
        if text is not None and text.lower() in _TRUE_WORDS:
            return True
        if text is not None and text.lower() in _FALSE_WORDS:
            return False
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return bool(value)
    elif type_name == "null":
        if text is not None and text.lower() in _NULL_WORDS:
            return None
    elif type_name == "string":
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return str(value)
    elif type_name == "array":
        if text is not None and text.startswith("["):
            try:
                parsed = load_json_lenient(text)
            except MalformedJSON:
                parsed = None
            if isinstance(parsed, list):
                return parsed
        if not isinstance(value, list):
            return [value]
    elif type_name == "object" and text is not None and text.startswith("{"):
        try:
            parsed = load_json_lenient(text)
        except MalformedJSON:
            return _NO_CONVERSION
        if isinstance(parsed, dict):
            return parsed
    return _NO_CONVERSION


def _preview(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
