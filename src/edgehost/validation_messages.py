"""Validation errors as messages a user acts on, naming the file, line and field.

The settings file, the board profiles and the servers file are checked by pydantic models. This
module rewrites pydantic's messages ("Input should be a valid string") into ones a user can act on
("must be a string, not 3"), and places them at the key's line and column with the maps of
``edgehost.key_locations``.
"""

from __future__ import annotations

import difflib
import json
import types
import typing
from collections.abc import Iterable
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from edgehost.errors import ConfigError
from edgehost.key_locations import KeyLocations, KeyPath

__all__ = [
    "config_error",
    "describe_error",
    "first_error",
    "key_path_text",
    "near_miss",
]


def key_path_text(key_path: Iterable[str | int]) -> str:
    """``mcpServers.git.args[2]``: dots between keys, brackets around list indices."""
    text = ""
    for part in key_path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def first_error(
    exc: ValidationError, locations: KeyLocations | None = None, prefix: KeyPath = ()
) -> ErrorDetails:
    """The error of ``exc`` to report: the one written first in the file (``prefix`` + its loc is its key
    path there), else the first pydantic lists."""
    errors = exc.errors(include_url=False)
    if locations is None:
        return errors[0]

    def written_at(error: ErrorDetails) -> tuple[int, int]:
        position = locations.position_of((*prefix, *error["loc"]))
        return (position.line, position.column) if position else (1 << 30, 0)

    return min(errors, key=written_at)


def config_error(
    exc: ValidationError,
    model: type[BaseModel],
    *,
    path: str,
    locations: KeyLocations | None,
    toml: bool = False,
) -> ConfigError:
    """A ConfigError for the first problem of ``exc``: ``file:line:column: what is wrong (field 'a.b[2]')``."""
    error = first_error(exc, locations)
    loc = tuple(error["loc"])
    position = locations.position_of(loc) if locations else None
    return ConfigError(
        describe_error(error, model, toml=toml),
        path=path,
        line=position.line if position else None,
        column=position.column if position else None,
        field=key_path_text(loc) or None,
    )


_WANTED = {
    "string_type": "a string",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "tuple_type": "a list",
    "set_type": "a list",
}
_TABLE_TYPES = {"dict_type", "model_type", "model_attributes_type", "dataclass_type"}
_RANGE_TYPES = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def describe_error(error: ErrorDetails, model: type[BaseModel], *, toml: bool = False) -> str:
    """What is wrong, in words a user acts on: "must be a string, not 3", "unknown key 'theem' (did you
    mean 'theme'?)", "must be one of "auto", "rkllm", not "gpu"". A field whose ``description`` says
    what it takes ("an object of strings") is described by that instead of its bare type."""
    kind, loc, ctx = error["type"], tuple(error["loc"]), error.get("ctx") or {}
    table = "a table" if toml else "an object"
    got = f", not {_shown(error.get('input'), toml)}"
    if kind == "missing":
        return "is required but missing"
    if kind == "extra_forbidden":
        return _unknown_key(model, loc)
    if kind in ("literal_error", "enum"):
        choices = _choices(model, loc) or str(ctx.get("expected", ""))
        return f"must be one of {choices}{got}"
    info = _field_info(model, loc)
    if (
        info is not None
        and info.description
        and (
            kind in _WANTED
            or kind in _TABLE_TYPES
            or kind in _RANGE_TYPES
            or kind == "string_pattern_mismatch"
        )
    ):
        return f"must be {info.description}{got}"
    item = f"item {loc[-1]} " if loc and isinstance(loc[-1], int) else ""
    if kind in _WANTED:
        return f"{item}must be {_WANTED[kind]}{got}"
    if kind in _TABLE_TYPES:
        return f"{item}must be {table}{got}"
    if kind in _RANGE_TYPES:
        return f"{item}{_range(kind, ctx)}{got}"
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        return "must not be empty"
    if kind == "too_short":
        return f"must have at least {ctx.get('min_length')} items"
    if kind == "too_long":
        return f"must have at most {ctx.get('max_length')} items"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    message = error["msg"]  # a PydanticCustomError's own message, or pydantic's words as a last resort
    return message[:1].lower() + message[1:] if message.startswith("Input should") else message


def _range(kind: str, ctx: dict[str, Any]) -> str:
    if kind == "greater_than":
        return "must be positive" if ctx.get("gt") == 0 else f"must be more than {ctx.get('gt')}"
    if kind == "greater_than_equal":
        return "must not be negative" if ctx.get("ge") == 0 else f"must be at least {ctx.get('ge')}"
    if kind == "less_than":
        return f"must be less than {ctx.get('lt')}"
    return f"must be at most {ctx.get('le')}"


def _shown(value: Any, toml: bool) -> str:
    if isinstance(value, dict):
        return "a table" if toml else "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def near_miss(key: str, known: Iterable[str]) -> str | None:
    """The known key ``key`` is most likely a misspelling of (``theem`` -> ``theme``), if any."""
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.8)
    return close[0] if close else None


def _unknown_key(model: type[BaseModel], loc: KeyPath) -> str:
    key = str(loc[-1]) if loc else "?"
    parent = _model_at(model, loc[:-1])
    known = _key_names(parent) if parent is not None else []
    meant = near_miss(key, known)
    if meant:
        return f"unknown key {key!r} (did you mean {meant!r}?)"
    return f"unknown key {key!r}; known keys: {', '.join(known)}" if known else f"unknown key {key!r}"


def _key_names(model: type[BaseModel]) -> list[str]:
    return [_aliases(name, info)[0] for name, info in model.model_fields.items()]


def _aliases(name: str, info: FieldInfo) -> list[str]:
    alias = info.validation_alias
    if isinstance(alias, str):
        return [alias]
    if alias is not None and hasattr(alias, "choices"):
        return [choice for choice in alias.choices if isinstance(choice, str)] or [name]
    return [info.alias or name]


def _field(model: type[BaseModel], key: str | int) -> FieldInfo | None:
    if not isinstance(key, str):
        return None
    for name, info in model.model_fields.items():
        if key == name or key in _aliases(name, info):
            return info
    return None


def _model_in(annotation: Any) -> type[BaseModel] | None:
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _model_at(model: type[BaseModel], loc: KeyPath) -> type[BaseModel] | None:
    current: type[BaseModel] | None = model
    for key in loc:
        info = _field(current, key) if current is not None else None
        current = _model_in(info.annotation) if info is not None else None
    return current


def _field_info(model: type[BaseModel], loc: KeyPath) -> FieldInfo | None:
    """The field ``loc`` names, when it names one (not an item inside one)."""
    if not loc:
        return None
    parent = _model_at(model, loc[:-1])
    return _field(parent, loc[-1]) if parent is not None else None


def _choices(model: type[BaseModel], loc: KeyPath) -> str | None:
    """The values a Literal at ``loc`` allows, as JSON: ``"auto", "rkllm"``; None if not found."""
    for depth in range(len(loc), 0, -1):
        info = _field_info(model, loc[:depth])
        if info is None:
            continue
        annotation: Any = info.annotation
        for _ in loc[depth:]:  # into list items / mapping values
            args = [a for a in typing.get_args(_unwrap(annotation)) if a is not type(None)]
            annotation = args[-1] if args else None
        values = _literal_values(annotation)
        return ", ".join(json.dumps(v) for v in values) if values else None
    return None


def _unwrap(annotation: Any) -> Any:
    """``X`` of ``Annotated[X, ...]`` and of ``X | None``."""
    while True:
        if typing.get_origin(annotation) is Annotated:
            annotation = typing.get_args(annotation)[0]
        elif typing.get_origin(annotation) in (Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation
            annotation = args[0]
        else:
            return annotation


def _literal_values(annotation: Any) -> list[Any]:
    annotation = _unwrap(annotation)
    if typing.get_origin(annotation) is Literal:
        return list(typing.get_args(annotation))
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return [v for arg in typing.get_args(annotation) for v in _literal_values(arg)]
    return []
