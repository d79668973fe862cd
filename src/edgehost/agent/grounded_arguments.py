"""The values a call the host chose may take (decision 11): what the user's question holds.

A model too small to decide which tool to call is also too small to invent good arguments: asked
"What's in notes.txt?" it copies the prompt's example value. So when the host forces a call, each
free text or number value of the tool's schema becomes an enum of what the question offers, and the
grammar (agent/grammar.py) holds the model to one of them:

- text: every run of one to four words of the question that does not begin or end with a filler or
  command word, and quoted phrases whole (agent/question_values.py reads them); plus the examples the
  property's description quotes when they share a word with the question; agent/value_fit.py then
  keeps the one that fits each argument best;
- paths (a property named or described as a path, file, folder, source or destination): names that
  look like files (``notes.txt``, ``recipes/pasta.md``), the word before "folder" or after "called";
  else, for an optional path, only its default; a path inside the place the host knows the tool
  works in (known_arguments: git_add's ``files`` in its ``repo_path``), "." alone where the question
  asks for all of it and writes no path ("stage everything", "git add .");
- a file's name or pattern (a property so described): the files and globs the question writes, and a
  kind of file it names by its extension alone (".md files" gives ``*.md``); the words of these and
  of the paths, and of the tool's name, are then no value of its other text properties;
- IANA time zones (described as such): the zone whose city the question names (``Tokyo`` gives
  ``Asia/Tokyo``), else the zones the description quotes;
- currencies (an argument named or described as one): the ISO codes of those the question names
  ("Japanese Yen" gives JPY, agent/currencies.py);
- clock times described as HH:MM: the times the question writes (``3pm`` gives ``15:00``);
- date-times (format "date-time", or a described layout such as YYYY-MM-DD HH:MM:SS): each date the
  question writes at each time it writes, laid out so ("tomorrow at 5pm"; agent/question_dates.py);
- dates (a date's name, format "date" or a described layout such as MM-DD-YYYY): the dates the
  question writes, in that layout: with their year, a month and day ("March 3"), or a day relative to
  today ("tomorrow", "next Friday", "3 days ago"; agent/question_dates.py);
- numbers: the numbers the question writes ("12,000", "two", "7%"), brought within the schema's
  minimum and maximum ("11 links" for a count of at most 10 offers 10: the nearest the tool can do),
  each placed with the argument whose words stand beside it (agent/number_placement.py);
- lists: a list of numbers the question writes in brackets, whole; a list of text, the series it
  writes ("chicken and mushrooms");
- choices (an enum of text): the ones the question names, where it names any ("on Saturday" of the
  days of the week); else all of them;
- flags (a boolean): true where the question says the words of the flag's name ("with detailed
  description" for ``detail``, "in which year" for ``want_year``), false where it says them after
  "no", "not" or "without"; else free.

A pair of arguments (currencies, zones, a source and a destination, an edit's old and new text) then
takes one value each where the question gives both (agent/paired_arguments.py). A const keeps it; a
value with no candidate keeps its schema. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from edgehost.agent._bm25 import terms
from edgehost.agent._bm25 import words as name_words
from edgehost.agent.argument_sharing import (
    NAMES_A_FILE,
    free_text_list,
    moments_apart,
    offered_told_facts,
    places_apart,
    text_instead_of_names,
)
from edgehost.agent.arguments import is_valid
from edgehost.agent.currencies import named_currencies, wants_currency
from edgehost.agent.known_arguments import FILE_NAME, PATH_ARGUMENT, offered_values
from edgehost.agent.number_placement import (
    described_terms,
    numbers_with_their_words,
    placed_numbers,
    within,
)
from edgehost.agent.paired_arguments import key_words, paired_arguments
from edgehost.agent.places import local_zone, named_zones, wants_zone
from edgehost.agent.question_dates import (
    date_format,
    date_spans,
    looks_back,
    takes_a_date,
    takes_a_date_time,
    written_date_parts,
    written_date_times,
    written_dates,
)
from edgehost.agent.question_values import (
    EXAMPLE_CLAUSE,
    WORD,
    clock_times,
    folder_values,
    named_timezones,
    path_values,
    placed_paths,
    question_spans,
    quoted_phrases,
    series_as_written,
    written_lists,
    written_numbers,
    written_series,
)
from edgehost.agent.value_fit import TEXT_WORDS
from edgehost.agent.written_texts import written_out

__all__ = [
    "grounded_schema",
    "names_the_tool",
    "path_from_question",
    "tool_words",
]

# 'America/New_York' in "(e.g. 'America/New_York')"; not the apostrophes of "the state".
_DESCRIBED = re.compile(r"(?<!\w)'([^'\s][^']{0,60})'(?!\w)")
# A question that asks for all of a place: "stage everything", "add all my changes", "git add .".
_WHOLE = re.compile(r"\b(?:everything|all|whole)\b|(?<!\S)\.(?!\S)", re.IGNORECASE)
_UNIVERSAL = re.compile(r"\b(?:UTC|GMT|Zulu)\b", re.IGNORECASE)
# The words of the name of an argument that counts what a tool gives, and those a question asks for a
# count of them with.
_COUNTS = frozenset({"count", "limit", "max", "top", "num", "number", "results"})
_COUNTED = frozenset({"last", "first", "latest", "recent", "top", "newest", "oldest"})
# ... but not "the last 2 days": a time, not a count (number_placement's terms, stemmed).
_TIME_UNITS = frozenset(terms("seconds minutes hours days weeks months years"))
# A tool's description that says its patterns are globs ("glob-style patterns"), and how it writes
# a pattern that matches in every folder below the one searched.
_GLOB_DESCRIBED = re.compile(r"\bglob\b", re.IGNORECASE)
_IN_EVERY_FOLDER = "**/"
# The words of the name of an argument that may be a pattern of names (key_words: "filePattern").
_PATTERN_NAMES = frozenset({"pattern", "patterns", "glob"})
_GLOB = re.compile(r"(?<!\S)[\w.\-/]*\*[\w.\-/*]*(?!\S)")
# A commit's hash as people write it (7 to 40 hex digits, with a digit and a letter), and the names of
# an argument that takes one: "show me commit a1b2c3d" is revision "a1b2c3d", not "commit"; "the last
# commit" is HEAD.
_COMMIT_HASH = re.compile(r"(?<![\w-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])")
_REVISION_WORDS = frozenset({"revision", "rev", "commit", "sha", "hash", "ref"})
_LAST_COMMIT = re.compile(
    r"(?<!\bto\s)(?<!\bsecond\s)(?<!\bbefore\s)(?<!\bbefore\sthe\s)\b(?:the\s+)?"
    r"(?:last|latest|newest|most\s+recent)\s+commit\b"
    r"(?!\s+(?:on|of|in|from|to)\b)",
    re.IGNORECASE,
)
# A kind of file the question names by its extension alone ("all the .md files"): the glob "*.md".
_EXTENSION = re.compile(r"(?<![\w./*])\.([A-Za-z][A-Za-z0-9]{0,7})\b(?![./\w])")
# The verbs of a flag's name ("want_year", "include_details"): the question need not say them.
_FLAG_VERBS = frozenset(
    {"is", "has", "include", "with", "want", "use", "show", "get", "consider", "enable", "allow", "return"}
)
_NEGATIONS = frozenset({"no", "not", "without", "don", "dont", "never", "exclude", "excluding"})
# Words before a flag's word that may negate it: "don't include any images" ("don", "t", "include",
# "any" before "images").
_NEGATION_REACH = 4


def tool_words(tool: str) -> frozenset[str]:
    """The words of a tool's name ("bfcl__whole_foods_find_top_brands": whole, foods, find ...)."""
    return frozenset(re.findall(r"[a-z]+", tool.lower()))


def names_the_tool(span: str, named: frozenset[str], *, in_any_number: bool = True) -> bool:
    """Whether ``span`` is only words of the tool's name (``named``, tool_words): "Whole Foods" for
    whole_foods.find_top_brands names the tool, not the product; ``in_any_number``, "flight" names
    find_flights too (not so for a path: "notes/" is a folder of list_note's)."""
    folded = set(terms(span)) if in_any_number else set()
    return {w.lower() for w in WORD.findall(span)} <= named or (
        bool(folded) and folded <= set(terms(" ".join(named)))
    )


def _related_examples(schema: Mapping[str, Any], text: str) -> list[str]:
    """The examples the property's description quotes that share a word with ``text``."""
    words = {w.lower() for w in WORD.findall(text)}
    described = _DESCRIBED.findall(str(schema.get("description") or ""))
    return [d for d in described if words & {w.lower() for w in WORD.findall(d)}]


def grounded_schema(
    schema: Mapping[str, Any],
    text: str,
    tool: str = "",
    known: Mapping[str, str] | None = None,
    description: str = "",
) -> dict[str, Any]:
    """``schema`` with its free values limited to what ``text`` (the question) holds (module docstring).
    A text value that is only words of the ``tool``'s name ("files" for search_files) is offered last:
    the question names the tool with it, not the value. A ``known`` argument (the folder EdgeHost
    knows the tool's server serves) is offered what known_arguments.offered_values says: the paths
    the question writes whole, a folder it names inside the served one, then that folder. The tool's
    ``description`` says what an undescribed pattern is (_described_patterns)."""
    named = tool_words(tool)
    schema = _described_patterns(schema, description)
    folders = path_values(text)
    known_values = {
        name: offered_values(name, folder, text, folders) for name, folder in (known or {}).items()
    }
    given = (
        {name: _given_places(values, known[name]) for name, values in known_values.items()} if known else {}
    )
    grounded = _listed(_ground(dict(schema), text, required=True, named=named, places=given), schema, text)
    properties = grounded.get("properties")
    if not known or not isinstance(properties, Mapping):
        return grounded
    offered = {
        name: {**properties[name], "enum": values}
        for name, values in known_values.items()
        if isinstance(properties.get(name), Mapping)
    }
    return {**grounded, "properties": {**properties, **_whole_place(properties, text, known), **offered}}


def _whole_place(properties: Mapping[str, Any], text: str, known: Mapping[str, str]) -> dict[str, Any]:
    """The path arguments of ``properties`` other than the ``known`` ones, offered "." alone (all of
    the place the host knows the tool works in) where the question asks for all of it and writes no
    path, file or pattern of its own: its runs of words are no paths. "stage everything" offered
    git_add's ``files`` "stage" and "everything", and "git add ." the word "git"; the git server takes
    ``["."]`` for all of the repository. Those that are not text or a list of text stay as they are."""
    if not _WHOLE.search(text) or path_values(text) or _GLOB.search(text) or _EXTENSION.search(text):
        return {}
    whole: dict[str, Any] = {}
    for key, value in properties.items():
        if key in known or not PATH_ARGUMENT.search(key) or not isinstance(value, Mapping):
            continue
        items = value.get("items")
        if value.get("type") == "string":
            whole[key] = {**value, "enum": ["."]}
        elif value.get("type") == "array" and isinstance(items, Mapping) and items.get("type") == "string":
            listed = {k: v for k, v in value.items() if k != "enum"}  # _listed's series: no file was written
            whole[key] = {**listed, "items": {**items, "enum": ["."]}}
    return whole


def _given_places(values: list[str], folder: str) -> list[str]:
    """What the question gives a known argument among its offered ``values``: each but the served
    ``folder``, a folder inside it by its own path ("recipes" of ``folder/recipes``). Only these are
    places the other arguments' values are set apart from (argument_sharing.places_apart): "Switch to
    the feature/login branch" reads "feature/login" as a path, yet no repository is named, and the
    branch lost its name."""
    inside = folder.rstrip("/") + "/"
    return [v.removeprefix(inside) for v in values if v != folder]


def _described_patterns(schema: Mapping[str, Any], description: str) -> Mapping[str, Any]:
    """``schema`` with a text argument named for a pattern and described by nothing of its own
    described as the tool's description says, where that says the patterns are globs: the filesystem
    server's search_files has an undescribed ``pattern``, and its description says "The patterns
    should be glob-style patterns ... '**/*.ext' to match files in all subdirectories". Read as free
    text, "find all the .md files" gave it "md files"; described, it is offered ``**/*.md`` (its
    ``*.md`` matches the files of the searched folder alone, not those in its folders)."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not _GLOB_DESCRIBED.search(description):
        return schema
    said = _IN_EVERY_FOLDER + " matches in every folder." if _IN_EVERY_FOLDER in description else ""
    patterns = {
        key: {**value, "description": f"A glob pattern of file names, as the tool's description says.{said}"}
        for key, value in properties.items()
        if isinstance(value, Mapping)
        and value.get("type") == "string"
        and not value.get("description")
        and key_words(key) & _PATTERN_NAMES
    }
    return {**schema, "properties": {**properties, **patterns}} if patterns else schema


def _listed(grounded: dict[str, Any], schema: Mapping[str, Any], text: str) -> dict[str, Any]:
    """``grounded`` with each of its own list-of-text arguments (not inside an object of a list)
    offered the series the question writes whole: "uses chicken and mushrooms" gives ["chicken",
    "mushrooms"] (item by item, the 135M model stopped after one); a list of paths, the files the
    question writes, all of them: "Open notes.txt and todo.md together" gives ["notes.txt", "todo.md"]
    (item by item, the model read todo.md alone)."""
    properties, own = grounded.get("properties"), schema.get("properties")
    if not isinstance(properties, Mapping) or not isinstance(own, Mapping):
        return grounded
    series = written_series(text)
    files = [path for path in path_values(text) if FILE_NAME.search(path)]
    file_lists = [files] if len(files) >= 2 else []
    listed = {
        key: {**value, "enum": fitting}
        for key, value in properties.items()
        if free_text_list(own, key, value)
        and (
            fitting := [
                items
                for items in (file_lists if PATH_ARGUMENT.search(key) else series)
                if is_valid(items, own[key])
            ]
        )
    }
    return {**grounded, "properties": {**properties, **listed}} if listed else grounded


def _ground(
    schema: dict[str, Any],
    text: str,
    *,
    required: bool,
    name: str = "",
    named: frozenset[str] = frozenset(),
    places: Mapping[str, list[str]] | None = None,
) -> dict[str, Any]:
    """``schema`` with its free values limited to what ``text`` gives (grounded_schema). ``places``:
    the places the question gives each argument of an object the host knows (_given_places)."""
    kind = schema.get("type")
    if "enum" in schema:
        return _named_choices(schema, text)
    if "const" in schema:
        return schema
    nullable = _nullable_of(schema)
    if nullable is not None:
        return _ground_nullable(schema, nullable, text, required=required, name=name, named=named)
    if kind == "object" and isinstance(schema.get("properties"), Mapping):
        return _ground_object(schema, text, named, places or {})
    if kind == "array" and isinstance(schema.get("items"), Mapping):
        if schema["items"].get("type") in ("integer", "number", "array"):
            # A list the question writes in brackets is offered whole: item by item, the 135M model
            # stopped after two of "[200,300,400,500]".
            lists = [value for value in written_lists(text) if is_valid(value, schema)]
            if lists:
                return {**schema, "enum": lists}
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
    if kind == "boolean" and name:
        said = _said_flag(name, text)
        return schema if said is None else {**schema, "enum": [said]}
    if kind in ("integer", "number"):
        numbers = _offered_numbers(name, schema, text, decimals=kind == "number")
        if not numbers and required:
            return schema
        return {**schema, "enum": numbers}
    return schema


# The terms of an argument that takes a part of a date, which may be a number a date writes; the words
# of one that counts them; the largest day and month.
_DATE_PARTS = frozenset({"day", "week", "month", "year", "date"})
_COUNTED_PARTS = frozenset({"days", "weeks", "months", "years"})
_PART_MOST = {"day": 31, "month": 12}


def _offered_numbers(name: str, schema: Mapping[str, Any], text: str, *, decimals: bool) -> list[Any]:
    """The numbers the question gives an argument, in its order. A written date's numbers are its parts:
    an argument named for one ("year", "birth_year", "dayOfMonth") is given that part of each date the
    question writes ("What happened on 4 July 1776?": year 1776, not 4) and no number of another part,
    and no count is given one ("since 12 May" no max_count of 12, "How many years since January 1,
    2022?" no years of 2022, "3 days ago" none of 3)."""
    part = _calendar_part(name)
    if part:
        dated = [n for n in (within(v, schema) for v in written_date_parts(text, part)) if n is not None]
        if dated:
            return dated
    written = written_numbers(text, decimals=decimals)
    if part or not _takes_a_date_part(name, schema):
        dates = date_spans(text)
        written = [(v, at, to) for v, at, to in written if not any(s <= at < e for s, e in dates)]
    if part in _PART_MOST:
        written = [(v, at, to) for v, at, to in written if 1 <= v <= _PART_MOST[part]]  # 1969 is no day
    fitted = (within(value, schema) for value, _start, _end in written)
    return list(dict.fromkeys(n for n in fitted if n is not None))


def _takes_a_date_part(name: str, schema: Mapping[str, Any]) -> bool:
    if _COUNTED_PARTS & set(name_words(name)):
        return False
    return bool(_DATE_PARTS & set(terms(f"{name} {schema.get('description') or ''}")))


def _calendar_part(name: str) -> str | None:
    """The part of a date an argument's name says it is ("year", "birth_year", "dayOfMonth": day), by
    its words as written: "years" or "days" count, they name no part of a date."""
    return next((w for w in name_words(name) if w in ("year", "month", "day")), None)


def _ground_nullable(
    schema: dict[str, Any],
    nullable: dict[str, Any],
    text: str,
    *,
    required: bool,
    name: str,
    named: frozenset[str],
) -> dict[str, Any]:
    """A value that may be null (``nullable``, of ``schema``): "a string or null" (pydantic's
    Optional[str], the git server's timestamps) is left out unless the question gives a value of its
    kind: one it quotes, or one that shares a word with the examples its description quotes ("since
    yesterday" for '2 weeks ago', 'yesterday'). Left free, the 135M model wrote
    "2015:07:01Tue18:30:00Z"; offered the question's words, "Can"."""
    if "enum" in nullable or "const" in nullable:
        return schema  # its own choices, or null
    grounded = _ground(nullable, text, required=required, name=name, named=named)
    if nullable.get("type") == "string" and isinstance(grounded.get("enum"), list):
        # A value read rather than copied (a date in its layout, a clock time, a zone, a path for a
        # path) is one the question gives too. Not a path for another kind: "a new branch named
        # experiment off main" reads "experiment" as a thing's name, and base_branch took it.
        read = {p for p in path_values(text) if PATH_ARGUMENT.search(name) or "/" in p}
        copied = set(question_spans(text)) - read
        fitting = quoted_phrases(text) + _related_examples(nullable, text)
        grounded["enum"] = [v for v in grounded["enum"] if v in fitting or v not in copied]
        if required and not grounded["enum"]:
            return schema  # one must be given, and the question holds none: left free
    return grounded


def _ground_object(
    schema: dict[str, Any], text: str, named: frozenset[str], places: Mapping[str, list[str]]
) -> dict[str, Any]:
    """Each property grounded; then what the properties decide together: optional ones with nothing
    to say left out, a currency pair, the numbers placed, the values the question states required."""
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
    properties, edited = paired_arguments(schema["properties"], properties, text, named, needed)
    properties = offered_told_facts(schema["properties"], properties, text)
    properties = places_apart(schema["properties"], properties, named, text, places)
    properties = moments_apart(schema["properties"], properties)
    properties = placed_numbers(schema["properties"], properties, text, needed)
    # An optional argument whose value the question states outright is passed: left to the model,
    # the 135M one dropped "detail": true for "with detailed description" and the 2000 of "an
    # initial investment of 2000".
    stated = [
        key
        for key, value in properties.items()
        if key not in needed and (key in edited or _stated(key, schema["properties"], value, text))
    ]
    stated += text_instead_of_names(schema["properties"], properties, needed | set(stated))
    grounded = {**schema, "properties": properties}
    return {**grounded, "required": [*(schema.get("required") or []), *stated]} if stated else grounded


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


def _numeric(described: Mapping[str, Any]) -> list[str]:
    """The number arguments of an object whose properties are ``described``."""
    return [
        key
        for key, schema in described.items()
        if isinstance(schema, Mapping) and schema.get("type") in ("integer", "number")
    ]


def _stated(key: str, described: Mapping[str, Any], grounded: Any, text: str) -> bool:
    """Whether the question states the value of the optional argument ``key`` (of the object whose
    properties are ``described``) outright: a flag it says, a choice it names, a number beside words
    of this argument and of no other numeric one ("an initial investment of 2000"; "the last two
    lines" is a tail's, not also a head's "first N lines"), a currency or a date it writes."""
    own = described.get(key)
    if not isinstance(own, Mapping) or not isinstance(grounded, Mapping) or not grounded.get("enum"):
        return False
    if own.get("type") == "boolean" or len(grounded["enum"]) < len(own.get("enum") or ()):
        return True
    if own.get("type") in ("integer", "number") and len(grounded["enum"]) == 1:
        numeric = _numeric(described)
        words = described_terms(key, own) - {
            term for other in numeric if other != key for term in described_terms(other, described[other])
        }
        # The only count a tool takes is the one a question asks for as "the last 3", "the top 5"
        # (git_log's undescribed max_count: "Show me the last 3 commits").
        counted = _COUNTED if key_words(key) & _COUNTS and len(numeric) == 1 else frozenset()
        return any(
            within(value, own) in grounded["enum"]
            and (words & beside or (counted & beside and not _TIME_UNITS & beside))
            for value, _start, beside in numbers_with_their_words(text)
        )
    if own.get("type") != "string" or "enum" in own:
        return False
    description = str(own.get("description") or "")
    if wants_currency(key, description):
        return bool(named_currencies(text))
    if takes_a_date_time(own):
        return set(grounded["enum"]) <= set(written_date_times(text, own))
    # As many dates as the object takes ("since last Monday" gives a start, not also an end).
    dates = written_dates(text, date_format(description))
    taking = sum(
        takes_a_date(other, schema) for other, schema in described.items() if isinstance(schema, Mapping)
    )
    return len(dates) >= taking and set(grounded["enum"]) <= set(dates)


def _named_choices(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """``schema`` with its enum cut to the choices ``text`` names as whole words, in the enum's order,
    where it names any text choice; else as it is."""
    choices = schema["enum"]
    if not isinstance(choices, list) or not all(isinstance(choice, str) for choice in choices):
        return schema
    named = [choice for choice in choices if _names(text, choice)]
    return {**schema, "enum": named} if named else schema


def _names(text: str, choice: str) -> bool:
    """Whether ``text`` names ``choice`` as whole words, in any case: not inside a contraction ("it's"
    names no "s") and not a word every sentence has ("it", "in": no language, no unit)."""
    words = WORD.findall(choice)
    if not words or not terms(choice):
        return False
    pattern = r"(?<![\w'’])" + r"\W+".join(map(re.escape, words)) + r"(?![\w'’])"
    return re.search(pattern, text, re.IGNORECASE) is not None


def _described_choices(description: str) -> list[str]:
    """The values a description quotes outside its examples: the choices it offers in prose ("local
    branches ('local'), remote branches ('remote') or all branches ('all')"), not "e.g. 'UTC'"."""
    return list(dict.fromkeys(_DESCRIBED.findall(EXAMPLE_CLAUSE.sub(" ", description))))


def _said_flag(name: str, text: str) -> bool | None:
    """True when ``text`` says every word of the flag ``name`` but its verb ("want", "include"), False
    when one follows "no", "not" or "without", None when it does not say them."""
    wanted = [term for term in terms(name) if term not in _FLAG_VERBS]
    words = [w.lower() for w in WORD.findall(text)]
    said = None
    for term in wanted:
        places = [i for i, w in enumerate(words) if any(_same_flag_word(term, t) for t in terms(w))]
        if not places:
            return None
        negated = all(set(words[max(0, i - _NEGATION_REACH) : i]) & _NEGATIONS for i in places)
        said = False if negated else (True if said is None else said)
    return said


def _same_flag_word(term: str, word: str) -> bool:
    """A word of a flag's name said in the question: the same, or one the start of the other
    ("detail", "detailed"); not two words that only begin alike ("public", "publish")."""
    return term == word or (
        min(len(term), len(word)) >= 4 and (term.startswith(word) or word.startswith(term))
    )


def _only_default(schema: Mapping[str, Any]) -> bool:
    offered = schema.get("enum")
    return offered == [] or ("default" in schema and offered == [schema["default"]])


def _text_values(
    schema: Mapping[str, Any], text: str, *, required: bool, name: str, named: frozenset[str] = frozenset()
) -> list[str]:
    description = str(schema.get("description") or "")
    described = _DESCRIBED.findall(description)
    default = [schema["default"]] if isinstance(schema.get("default"), str) else []
    if wants_zone(name, description):
        return _timezones(text, described, description)
    if takes_a_date_time(schema):
        moments = written_date_times(text, schema)
        if moments:
            return moments
    elif "HH:MM" in description:
        return clock_times(text) or described
    if wants_currency(name, description):
        codes = [mention.code for mention in named_currencies(text)]
        if codes:
            return codes
    if takes_a_date(name, schema):
        dates = written_dates(text, date_format(description), past=looks_back(description))
        if dates:
            return dates
    if _takes_a_revision(name):
        revisions = _COMMIT_HASH.findall(text) + (["HEAD"] if _LAST_COMMIT.search(text) else [])
        if revisions:
            return revisions
    if PATH_ARGUMENT.search(name):
        # "the files folder" of a files tool is the folder it serves, not one named "files" in it; so
        # "archive in the files folder" is no files/archive.
        placed = [
            p for p in placed_paths(text) if not names_the_tool(p.split("/")[0], named, in_any_number=False)
        ]
        paths = [
            p for p in [*placed, *path_values(text)] if not names_the_tool(p, named, in_any_number=False)
        ]
        if paths:
            return list(dict.fromkeys([*paths, *default]))
        if default and not required:
            return default
    elif NAMES_A_FILE.search(description):
        # A file's name or a glob ("File name to look for: a glob such as '*.md'") is one the question
        # writes; "garlic" of "Do any of my recipes use garlic?" is what the files say, not their name.
        folders = set(folder_values(text))
        names = [p for p in path_values(text) if not p.endswith("/") and p not in folders]
        names += _GLOB.findall(text)
        names += [f"*.{extension}" for extension in _EXTENSION.findall(text)]
        if _IN_EVERY_FOLDER in description:  # a name the question gives is looked for in every folder
            names = [n if "/" in n else f"{_IN_EVERY_FOLDER}{n}" for n in names]
        if names:
            return list(dict.fromkeys([*names, *(d for d in default if d.strip())]))
        if default and not required:
            return default
    choices = _described_choices(description)
    if len(choices) >= 2:
        return [c for c in choices if _names(text, c)] or choices
    related = _related_examples(schema, text)
    # An empty default means "not given": offered as a value, it lets a small model write a call that
    # asks for nothing (search_files with pattern "" and contains ""); it may leave the argument out.
    given = [d for d in default if d.strip()]
    spans = [*written_out(text), *series_as_written(text), *question_spans(text)]
    naming = [span for span in spans if names_the_tool(span, named)]
    values = [span for span in spans if span not in naming]
    # A word of the tool's own name is a value only where one must be given: an optional argument
    # filled with it narrows the call to nothing (search_files with pattern "files").
    return list(dict.fromkeys([*values, *related, *given, *(naming if required else [])]))


def _takes_a_revision(name: str) -> bool:
    """Whether the argument ``name`` takes a commit ("revision", "commit_sha"), not a text about one
    ("commit_message") nor a word that holds one's letters ("shape")."""
    words = key_words(name) | set(terms(name))
    return bool(words & _REVISION_WORDS) and not words & TEXT_WORDS


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
        if PATH_ARGUMENT.search(key)
        and isinstance(value, Mapping)
        and value.get("type", "string") == "string"
    ]
    if len(fields) != 1 or str(arguments.get(fields[0]) or "").strip():
        return None
    paths = path_values(text)
    return {**arguments, fields[0]: paths[0]} if len(paths) == 1 else None


def _timezones(text: str, described: list[str], description: str) -> list[str]:
    """The zones of the places the question names (places.named_zones) and of the zones' own cities;
    UTC where it says UTC or GMT; else the zones the description quotes, the user's own first."""
    named = [mention.zone for mention in named_zones(text)] + named_timezones(text)
    if _UNIVERSAL.search(text):
        named.append("UTC")
    if named:
        return list(dict.fromkeys(named))
    local = local_zone(description)
    return list(dict.fromkeys([local, *described])) if local else described
