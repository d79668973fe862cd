"""The values a call the host chose may take (decision 11): what the user's question holds.

A model too small to decide which tool to call is also too small to invent good arguments: asked
"What's in notes.txt?" it copies the prompt's example value. So when the host forces a call, each
free text or number value of the tool's schema becomes an enum of what the question offers, and the
grammar (agent/grammar.py) holds the model to one of them:

- text: every run of one to four words of the question that does not begin or end with a filler or
  command word, and quoted phrases whole; plus the examples the property's description quotes when
  they share a word with the question;
- paths (a property named or described as a path, file, folder, source or destination): names that
  look like files (``notes.txt``, ``recipes/pasta.md``), the word before "folder" or after "called";
  else, for an optional path, only its default;
- IANA time zones (described as such): the zone whose city the question names (``Tokyo`` gives
  ``Asia/Tokyo``), else the zones the description quotes;
- clock times described as HH:MM: the times the question writes (``3pm`` gives ``15:00``);
- numbers: the numbers the question writes, brought within the schema's minimum and maximum ("11
  links" for a count of at most 10 offers 10: the nearest the tool can do).

A value with an enum or const keeps it; a value with no candidate keeps its schema. Pure functions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from edgehost.agent._bm25 import terms
from edgehost.agent.known_arguments import WRITTEN_PATH, offered_values

__all__ = [
    "clock_times",
    "grounded_schema",
    "named_timezones",
    "number_bound",
    "path_from_question",
    "path_values",
    "question_spans",
]

MAX_SPAN_WORDS = 4
# The words beside a number that say what it counts ("3 bedrooms", "a budget of 500 dollars").
NEAR_BEFORE, NEAR_AFTER = 2, 3
# Words a value does not start or end with: "the photos" is "photos", "Save" is not a value.
# fmt: off
_EDGE_WORDS = frozenset({
    "a", "an", "the", "my", "your", "our", "this", "that", "these", "those", "to", "in", "on", "at",
    "of", "for", "from", "into", "with", "and", "or", "is", "are", "be", "me", "please", "what",
    "whats", "what's", "which", "who", "how", "when", "where", "show", "tell", "give", "find", "it",
    "its", "i", "you", "was", "do", "does", "did", "have", "has", "much", "many", "save", "add", "list",
    "read", "delete", "remove", "rename", "create", "make", "write", "send", "echo", "repeat",
    "remember", "forget", "note", "convert", "called", "named",
})
# fmt: on
_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"|‘([^’]+)’|“([^”]+)”")
_WORD = re.compile(r"\w[\w./:@+\-]*\w|\w")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_DESCRIBED = re.compile(r"'([^'\s][^']{0,60})'")  # 'America/New_York' in "(e.g. 'America/New_York')"
_FILE_LIKE = re.compile(r"^[\w\-]+(?:/[\w\-.]+)*\.\w{1,5}$|^[\w\-.]+/[\w\-./]*$")
_PATH_NAMES = re.compile(r"path|file|folder|directory|source|destination", re.IGNORECASE)
_FOLDER_WORDS = frozenset({"folder", "directory", "dir"})
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b", re.IGNORECASE)


def _quoted(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]


def _related_examples(schema: Mapping[str, Any], text: str) -> list[str]:
    """The examples the property's description quotes that share a word with ``text``."""
    words = {w.lower() for w in _WORD.findall(text)}
    described = _DESCRIBED.findall(str(schema.get("description") or ""))
    return [d for d in described if words & {w.lower() for w in _WORD.findall(d)}]


def question_spans(text: str) -> list[str]:
    """The values a small model may copy from ``text``: quoted phrases whole, then every run of one to
    MAX_SPAN_WORDS words that does not start or end with a filler word, in order of appearance."""
    spans: list[str] = _quoted(text)
    words = _WORD.findall(text)
    for length in range(1, MAX_SPAN_WORDS + 1):
        for start in range(len(words) - length + 1):
            run = words[start : start + length]
            if run[0].lower() in _EDGE_WORDS or run[-1].lower() in _EDGE_WORDS:
                continue
            spans.append(" ".join(run))
    return list(dict.fromkeys(s.strip() for s in spans if s.strip()))


def grounded_schema(
    schema: Mapping[str, Any], text: str, tool: str = "", known: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """``schema`` with its free values limited to what ``text`` (the question) holds (module docstring).
    A text value that is only words of the ``tool``'s name ("files" for search_files) is offered last:
    the question names the tool with it, not the value. A ``known`` argument (the folder EdgeHost
    knows the tool's server serves) is offered what known_arguments.offered_values says: the paths
    the question writes whole, a folder it names inside the served one, then that folder."""
    named = frozenset(re.findall(r"[a-z]+", tool.lower()))
    grounded = _ground(dict(schema), text, required=True, named=named)
    properties = grounded.get("properties")
    if not known or not isinstance(properties, Mapping):
        return grounded
    folders = path_values(text)
    offered = {
        name: {**properties[name], "enum": offered_values(name, folder, text, folders)}
        for name, folder in known.items()
        if isinstance(properties.get(name), Mapping)
    }
    return {**grounded, "properties": {**properties, **offered}}


def _ground(
    schema: dict[str, Any], text: str, *, required: bool, name: str = "", named: frozenset[str] = frozenset()
) -> dict[str, Any]:
    kind = schema.get("type")
    if "enum" in schema or "const" in schema:
        return schema
    nullable = _nullable_of(schema)
    if nullable is not None:
        # "a string or null" (pydantic's Optional[str], the git server's timestamps) is left out unless
        # the question gives a value of its kind: one it quotes, or one that shares a word with the
        # examples its description quotes ("since yesterday" for '2 weeks ago', 'yesterday'). Left
        # free, the 135M model wrote "2015:07:01Tue18:30:00Z"; offered the question's words, "Can".
        if "enum" in nullable or "const" in nullable:
            return schema  # its own choices, or null
        grounded = _ground(nullable, text, required=required, name=name, named=named)
        if nullable.get("type") == "string" and isinstance(grounded.get("enum"), list):
            fitting = _quoted(text) + _related_examples(nullable, text)
            grounded["enum"] = [value for value in grounded["enum"] if value in fitting]
            if required and not grounded["enum"]:
                return schema  # one must be given, and the question holds none: left free
        return grounded
    if kind == "object" and isinstance(schema.get("properties"), Mapping):
        needed = set(schema.get("required") or [])
        properties = {
            key: _ground(dict(value), text, required=key in needed, name=key, named=named)
            if isinstance(value, Mapping)
            else value
            for key, value in schema["properties"].items()
        }
        # An optional argument the question gives no value for, or only its default, says nothing the
        # server would not assume: left out, it cannot be a small model's whole call (search_files
        # with path "", or with a pattern the model made up).
        properties = {
            key: value
            for key, value in properties.items()
            if key in needed or not (isinstance(value, Mapping) and _only_default(value))
        }
        return {**schema, "properties": _placed_numbers(schema["properties"], properties, text)}
    if kind == "array" and isinstance(schema.get("items"), Mapping):
        return {
            **schema,
            "items": _ground(dict(schema["items"]), text, required=True, name=name, named=named),
        }
    if kind == "string":
        values = _text_values(schema, text, required=required, name=name, named=named)
        if not values and required:
            return schema  # the question holds no value: the model must still give one
        kept = {key: value for key, value in schema.items() if key not in ("format", "pattern", "minLength")}
        return kept | {"enum": values}
    if kind in ("integer", "number"):
        written = [n for n in dict.fromkeys(_NUMBER.findall(text)) if kind == "number" or "." not in n]
        within = (_within(float(n) if "." in n else int(n), schema) for n in written)
        numbers = list(dict.fromkeys(n for n in within if n is not None))
        if not numbers and required:
            return schema
        return {**schema, "enum": numbers}
    return schema


def _placed_numbers(described: Mapping[str, Any], properties: dict[str, Any], text: str) -> dict[str, Any]:
    """``properties`` with each number the question writes beside words of one numeric argument's name
    or description ("3 bedrooms" for ``bedrooms``, "1800 square feet" for ``area``, described in square
    feet) as that argument's only value, and no other's: offered every number in the question's order,
    the 135M model gave a house 1800 bedrooms and 3 square feet. The best pairs are placed first; an
    argument no number is written beside keeps the numbers left."""
    numeric = [
        key
        for key, value in properties.items()
        if isinstance(value, Mapping)
        and value.get("type") in ("integer", "number")
        and len(value.get("enum") or ()) > 1
    ]
    if not numeric:
        return properties
    pairs = []
    for key in numeric:
        schema = described.get(key)
        description = str(schema.get("description") or "") if isinstance(schema, Mapping) else ""
        words = set(terms(key)) | set(terms(description))
        for written, beside in _numbers_with_their_words(text):
            value = _within(float(written) if "." in written else int(written), properties[key])
            if value is not None and value in properties[key]["enum"] and words & beside:
                pairs.append((len(words & beside), key, written, value))
    placed: dict[str, Any] = {}
    taken: set[str] = set()
    for _shared, key, written, value in sorted(pairs, key=lambda pair: -pair[0]):
        if key not in placed and written not in taken:
            placed[key], taken = value, taken | {written}
    taken_values = set(placed.values())
    return {
        key: {**value, "enum": [placed[key]]}
        if key in placed
        else {**value, "enum": [v for v in value["enum"] if v not in taken_values] or value["enum"]}
        if key in numeric
        else value
        for key, value in properties.items()
    }


def _numbers_with_their_words(text: str) -> list[tuple[str, set[str]]]:
    """Each number of ``text`` as written (a sign kept: "-2"), with the terms of the words just before
    and after it, up to the numbers next to it."""
    words = [w for w in _WORD.finditer(text) if not _NUMBER.fullmatch(w.group(0))]
    numbers = list(_NUMBER.finditer(text))
    found = []
    for index, number in enumerate(numbers):
        start = numbers[index - 1].end() if index else 0
        end = numbers[index + 1].start() if index + 1 < len(numbers) else len(text)
        before = [w.group(0) for w in words if start <= w.start() and w.end() <= number.start()]
        after = [w.group(0) for w in words if number.end() <= w.start() and w.end() <= end]
        near = [*before[-NEAR_BEFORE:], *after[:NEAR_AFTER]]
        found.append((number.group(0), set(terms(" ".join(near)))))
    return found


def _nullable_of(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """The one concrete type of a schema that is that type or null (``anyOf``/``oneOf`` with a null
    branch), with the schema's own description and default; None for any other schema."""
    variants = schema.get("anyOf") or schema.get("oneOf")
    if not isinstance(variants, list):
        return None
    concrete = [v for v in variants if isinstance(v, Mapping) and v.get("type") != "null"]
    if len(concrete) != 1 or len(concrete) == len(variants):
        return None
    own = {key: schema[key] for key in ("description", "title", "default") if key in schema}
    return {**concrete[0], **own}


def _within(number: float, schema: Mapping[str, Any]) -> float | None:
    """``number`` brought within the schema's closed ``minimum`` and ``maximum``; None past an open
    bound (``exclusiveMaximum``: the nearest value inside it is no plain one)."""
    low, high = (
        number_bound(schema, "minimum", "exclusiveMinimum"),
        number_bound(schema, "maximum", "exclusiveMaximum"),
    )
    if low is not None and (number <= low[0] if low[1] else number < low[0]):
        return None if low[1] else schema["minimum"]  # as the schema writes it (10, not 10.0)
    if high is not None and (number >= high[0] if high[1] else number > high[0]):
        return None if high[1] else schema["maximum"]
    return number


def number_bound(schema: Mapping[str, Any], closed: str, open_: str) -> tuple[float, bool] | None:
    """A number schema's bound as (value, open), from the closed keyword or the open one (draft 6 and
    later: a number; draft 4: a flag on the closed one); None when it has none (agent/grammar.py
    writes a bounded range with it too)."""
    value = schema.get(open_)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value), True
    value = schema.get(closed)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value), schema.get(open_) is True
    return None


def _only_default(schema: Mapping[str, Any]) -> bool:
    offered = schema.get("enum")
    return offered == [] or ("default" in schema and offered == [schema["default"]])


def _text_values(
    schema: Mapping[str, Any], text: str, *, required: bool, name: str, named: frozenset[str] = frozenset()
) -> list[str]:
    description = str(schema.get("description") or "")
    described = _DESCRIBED.findall(description)
    default = [schema["default"]] if isinstance(schema.get("default"), str) else []
    if "timezone" in f"{name} {description}".lower().replace(" ", "") or "IANA" in description:
        return _timezones(text, described)
    if "HH:MM" in description:
        return clock_times(text) or described
    if _PATH_NAMES.search(name):
        paths = path_values(text)
        if paths:
            return list(dict.fromkeys([*paths, *default]))
        if default and not required:
            return default
    related = _related_examples(schema, text)
    # An empty default means "not given": offered as a value, it lets a small model write a call that
    # asks for nothing (search_files with pattern "" and contains ""); it may leave the argument out.
    given = [d for d in default if d.strip()]
    spans = question_spans(text)
    naming = [span for span in spans if {w.lower() for w in _WORD.findall(span)} <= named]
    values = [span for span in spans if span not in naming]
    # A word of the tool's own name is a value only where one must be given: an optional argument
    # filled with it narrows the call to nothing (search_files with pattern "files").
    return list(dict.fromkeys([*values, *related, *given, *(naming if required else [])]))


def path_from_question(
    arguments: Mapping[str, Any], schema: Mapping[str, Any], text: str
) -> dict[str, Any] | None:
    """``arguments`` with the one path the question names put in the tool's one path field, where the
    model left it out or empty: the grammar offers the question's paths, but an optional path may be
    left out, and without a grammar (a remote model) nothing holds it (the 135M model wrote ``{}`` for
    "list the files in /tmp", and the tool listed its own folder, which read as /tmp). None when there
    is nothing to fill: the field is given, the tool has no single path field, or the question names
    no path or several."""
    properties = schema.get("properties") or {}
    fields = [
        key
        for key, value in properties.items()
        if _PATH_NAMES.search(key) and isinstance(value, Mapping) and value.get("type", "string") == "string"
    ]
    if len(fields) != 1 or str(arguments.get(fields[0]) or "").strip():
        return None
    paths = path_values(text)
    return {**arguments, fields[0]: paths[0]} if len(paths) == 1 else None


def path_values(text: str) -> list[str]:
    """Paths the question writes whole ("/tmp", "~/notes/todo.txt"), file names ("notes.txt"), and the
    folder it names ("the recipes folder", "called photos")."""
    words = _WORD.findall(text)
    found = [p.rstrip(".") for p in WRITTEN_PATH.findall(text)]
    found += [w for w in words if _FILE_LIKE.match(w) and not any(p.endswith("/" + w) for p in found)]
    for index, word in enumerate(words):
        before = words[index - 1] if index else ""
        after = words[index + 1] if index + 1 < len(words) else ""
        names_a_folder = after.lower() in _FOLDER_WORDS or before.lower() in ("called", "named")
        if names_a_folder and word.lower() not in _EDGE_WORDS | _FOLDER_WORDS:
            found.append(word)
    return list(dict.fromkeys(found))


@cache
def _zones_by_city() -> dict[str, str]:
    from zoneinfo import available_timezones

    zones: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        if "/" in zone and zone.split("/")[0] in {
            "Africa",
            "America",
            "Asia",
            "Atlantic",
            "Australia",
            "Europe",
            "Pacific",
            "Indian",
        }:
            zones.setdefault(zone.rsplit("/", 1)[-1].replace("_", " ").lower(), zone)
    return zones


def named_timezones(text: str) -> list[str]:
    """The IANA zones of the cities the question names ("Tokyo" gives "Asia/Tokyo")."""
    zones = _zones_by_city()
    return list(dict.fromkeys(zones[span.lower()] for span in question_spans(text) if span.lower() in zones))


def _timezones(text: str, described: list[str]) -> list[str]:
    return named_timezones(text) or described


def clock_times(text: str) -> list[str]:
    """The clock times the question writes, as HH:MM ("3pm" gives "15:00")."""
    times = []
    for hour, minute, half in _CLOCK.findall(text):
        if not minute and not half:
            continue  # a bare number is not a time
        value = int(hour) % 12 + (12 if half.lower() == "pm" else 0) if half else int(hour)
        if value < 24:
            times.append(f"{value:02d}:{minute or '00'}")
    return list(dict.fromkeys(times))
