"""The arguments of a call that come in pairs, each given its one value of the two the question writes.

Offered the question's two currencies, zones or paths for each of a pair, the 135M model wrote one
of them for both. Where the names of the pair say their roles, each is offered its own:

- currencies (from and to, base and target): the amount's or the one after "from" is the source
  (agent/currencies.currency_roles);
- time zones (source and target): the places the question names, or one and the user's own zone the
  server's description names (agent/places.timezone_roles);
- paths (source and destination): what moves and where it goes (agent/path_roles.py);
- any other pair of texts named from and to (units, languages, formats): the amount's, or the one
  after "from", is the source ("How many teaspoons are in 2 tablespoons?" converts tablespoons);
- a range of moments (start and end, since and until): a question that writes one moment and says
  only "since" (or only "until") of it gives that end of the range, and the other is left out
  ("what changed since yesterday" is no log that ends yesterday at midnight);
- an edit (old_text and new_text, search and replace): what the question replaces and what it puts
  instead, or what it adds (written_texts.written_replacement, written_addition).

Used by agent/grounded_arguments.py once each argument has its own values. Pure functions.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Any

from edgehost.agent.currencies import currency_roles, wants_currency
from edgehost.agent.known_arguments import PATH_ARGUMENT
from edgehost.agent.path_roles import path_roles
from edgehost.agent.places import local_zone, timezone_roles, wants_zone
from edgehost.agent.question_dates import takes_a_date, takes_a_date_time
from edgehost.agent.written_texts import written_addition, written_replacement

__all__ = ["free_texts", "key_words", "paired_arguments", "takes_a_moment"]

# What the name of one of a pair of arguments says of its role.
_SOURCE_TERMS = frozenset({"from", "base", "source", "origin", "original"})
_TARGET_TERMS = frozenset({"to", "target", "destination", "desired", "quote"})
# The words of the name of a tool that moves or copies a file (into a folder, by its name).
_MOVING_TERMS = frozenset({"move", "copy", "rename", "mv", "cp"})
# What the name of one of a range's arguments says of its end, and the words a question says one with.
_START_TERMS = frozenset({"start", "since", "from", "after", "begin", "earliest"})
_END_TERMS = frozenset({"end", "until", "to", "before", "latest"})
_SINCE = re.compile(r"\b(?:since|after|starting)\b", re.I)
_UNTIL = re.compile(r"\b(?:until|till)\b", re.I)  # not "before lunch", not "up to 10 commits"
# What the name of one of a pair of text arguments says of its role in a replacement.
_REPLACED_TERMS = frozenset({"old", "original", "search", "find"})
_REPLACING_TERMS = frozenset({"new", "replacement", "replace"})


def paired_arguments(
    own: Mapping[str, Any], properties: dict[str, Any], text: str, named: frozenset[str], needed: set[str]
) -> tuple[dict[str, Any], list[str]]:
    """``properties`` (each argument with the values of ``text`` it may take; ``own``: as declared)
    with each pair of arguments the question gives both of offered its one value each (module
    docstring); ``named``: the words of the tool's name, ``needed``: the required arguments. Also
    the optional arguments the call must now give (an edit's)."""
    properties = _paired_currencies(own, properties, text)
    properties = _paired_timezones(own, properties, text)
    properties = _paired_paths(own, properties, text, named)
    properties = _paired_amounts(own, properties, text)
    properties = _one_end_of_a_range(own, properties, text, needed)
    return _paired_edit(own, properties, text, needed)


def free_texts(own: Mapping[str, Any], properties: dict[str, Any]) -> list[str]:
    """The text arguments of ``properties`` that have no choices of their own (``own``: as declared)."""
    return [
        key
        for key, value in properties.items()
        if isinstance(value, Mapping)
        and value.get("type") == "string"
        and isinstance(own.get(key), Mapping)
        and "enum" not in own[key]
    ]


def _offered(properties: dict[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """``properties`` with each argument of ``values`` offered its one value."""
    return {**properties, **{key: {**properties[key], "enum": [value]} for key, value in values.items()}}


def _in_roles(properties: dict[str, Any], pair: list[str], roles: tuple[str, str]) -> dict[str, Any]:
    """``properties`` with the two arguments of ``pair`` offered (the source's value, the target's):
    the one whose name says source (from, base) the first, the other the second; where the names say
    neither, in their order."""
    first, second = pair
    if key_words(first) & _TARGET_TERMS or key_words(second) & _SOURCE_TERMS:
        first, second = second, first
    return _offered(properties, {first: roles[0], second: roles[1]})


def _paired_currencies(own: Mapping[str, Any], properties: dict[str, Any], text: str) -> dict[str, Any]:
    """``properties`` with a pair of currency arguments each offered its one currency, when the question
    names two (agent/currencies.currency_roles): the currency converted, and the one it becomes."""
    pair = [
        key
        for key in free_texts(own, properties)
        if len(properties[key].get("enum") or ()) >= 2
        and wants_currency(key, str(own[key].get("description") or ""))
    ]
    roles = currency_roles(text) if len(pair) == 2 else None
    return properties if roles is None else _in_roles(properties, pair, roles)


def _paired_timezones(own: Mapping[str, Any], properties: dict[str, Any], text: str) -> dict[str, Any]:
    """``properties`` with a pair of zone arguments (source and target) each offered its one zone, when
    the question names two places, or one and the server's description says the user's own zone
    (places.timezone_roles): "whats 8am in san francisco in paris time" gives America/Los_Angeles and
    Europe/Paris. Offered both, the 135M model wrote Europe/Paris for both."""
    pair = [
        key for key in free_texts(own, properties) if wants_zone(key, str(own[key].get("description") or ""))
    ]
    named = [key_words(key) & (_SOURCE_TERMS | _TARGET_TERMS) for key in pair]
    if len(pair) != 2 or not all(named):
        return properties
    local = next(filter(None, (local_zone(str(own[key].get("description") or "")) for key in pair)), None)
    roles = timezone_roles(text, local)
    return properties if roles is None else _in_roles(properties, pair, roles)


def _paired_paths(
    own: Mapping[str, Any], properties: dict[str, Any], text: str, named: frozenset[str]
) -> dict[str, Any]:
    """``properties`` with a pair of path arguments (source and destination) each offered its one path,
    when the question writes what moves and where it goes (agent/path_roles.py): "move shopping.txt
    into the recipes folder" gives a tool that moves or copies (by the words of its name, ``named``)
    shopping.txt and recipes/shopping.txt."""
    pair = [
        key
        for key in free_texts(own, properties)
        if PATH_ARGUMENT.search(key) and key_words(key) & (_SOURCE_TERMS | _TARGET_TERMS)
    ]
    roles = path_roles(text, into=bool(named & _MOVING_TERMS)) if len(pair) == 2 else None
    return properties if roles is None else _in_roles(properties, pair, roles)


def _paired_amounts(own: Mapping[str, Any], properties: dict[str, Any], text: str) -> dict[str, Any]:
    """``properties`` with a pair of text arguments whose names say from and to (from_unit and to_unit),
    each still offered two or more values, offered one each when the question writes one of their
    values as the amount's ("2 tablespoons") or after "from", and another: that one is the source,
    the other the target. Offered both in the order written, "How many teaspoons are in 2
    tablespoons?" converted teaspoons."""
    texts = [key for key in free_texts(own, properties) if len(properties[key].get("enum") or ()) >= 2]
    sources = [key for key in texts if key_words(key) & _SOURCE_TERMS]
    targets = [key for key in texts if key_words(key) & _TARGET_TERMS]
    if len(sources) != 1 or len(targets) != 1 or sources == targets:
        return properties
    offered = [v for key in (*sources, *targets) for v in properties[key]["enum"] if isinstance(v, str)]
    given = [value for value in dict.fromkeys(offered) if _given_as_source(value, text)]
    if len(given) != 1:
        return properties
    rest = [v for v in properties[targets[0]]["enum"] if isinstance(v, str) and v.lower() != given[0].lower()]
    written = [v for v in rest if _writes(text, v)]
    if given[0] not in properties[sources[0]]["enum"] or len(written) != 1:
        return properties
    return _offered(properties, {sources[0]: given[0], targets[0]: written[0]})


def _given_as_source(value: str, text: str) -> bool:
    """Whether ``text`` writes ``value`` (or its plural) right after an amount or after "from"."""
    return _writes(text, value, after=r"(?<![\w.])\d[\d,.]*\s*|\bfrom\s+(?:an?\s+|the\s+)?")


def _writes(text: str, value: str, after: str = r"(?<!\w)") -> bool:
    """Whether ``text`` writes ``value`` whole, or its plural, where the pattern ``after`` stands before it."""
    return re.search(rf"(?:{after}){re.escape(value)}(?:e?s)?(?!\w)", text, re.I) is not None


def takes_a_moment(key: str, schema: Any) -> bool:
    """Whether the argument ``key`` (declared ``schema``) takes a date or a date-time."""
    return isinstance(schema, Mapping) and (takes_a_date(key, schema) or takes_a_date_time(schema))


def _one_end_of_a_range(
    own: Mapping[str, Any], properties: dict[str, Any], text: str, needed: set[str]
) -> dict[str, Any]:
    """``properties`` without the optional end of a range of moments the question does not give: both
    ends offered the one moment it writes, "since yesterday" leaves out the end, "until Friday" the
    start. Offered yesterday for both, the git log asked for the commits from midnight to midnight."""
    offered = [
        key
        for key, value in properties.items()
        if takes_a_moment(key, own.get(key)) and isinstance(value, Mapping) and value.get("enum")
    ]
    starts = [key for key in offered if key_words(key) & _START_TERMS]
    ends = [key for key in offered if key_words(key) & _END_TERMS]
    if len(starts) != 1 or len(ends) != 1 or starts == ends:
        return properties
    if properties[starts[0]]["enum"] != properties[ends[0]]["enum"] or len(properties[ends[0]]["enum"]) != 1:
        return properties
    since, until = _SINCE.search(text) is not None, _UNTIL.search(text) is not None
    if since == until:  # neither said: the one day whole; both: left as offered
        after = None if since else _the_day_after(properties[ends[0]]["enum"][0])
        return properties if after is None else _offered(properties, {ends[0]: after})
    unsaid = ends[0] if since else starts[0]
    return properties if unsaid in needed else {k: v for k, v in properties.items() if k != unsaid}


def _the_day_after(moment: Any) -> str | None:
    """The midnight after ``moment``, a date or a date-time at midnight, laid out as it is; None for
    another value. A range given one day ("what did I commit yesterday") ends when that day ends."""
    try:
        if isinstance(moment, str) and len(moment) == len("2026-12-04"):
            return (datetime.date.fromisoformat(moment) + datetime.timedelta(days=1)).isoformat()
        at = datetime.datetime.fromisoformat(moment) if isinstance(moment, str) else None
    except ValueError:
        return None
    if at is None or at.time() != datetime.time(0):
        return None
    return (at + datetime.timedelta(days=1)).isoformat(sep=moment[10], timespec="seconds")


def _paired_edit(
    own: Mapping[str, Any], properties: dict[str, Any], text: str, needed: set[str]
) -> tuple[dict[str, Any], list[str]]:
    """``properties`` with a pair of text arguments for what to replace and what to put instead
    (old_text and new_text, oldText and newText, search and replace) each offered its one value, when the
    question writes a replacement (written_texts.written_replacement): "so it says Monday instead of
    Friday" gives old_text "Friday" and new_text "Monday". Offered every run of the question's words,
    the 135M model took "fix my letter" and "draft.txt so it says". Where what is replaced is optional
    (the built-in files server's edit_file adds new_text as a line when it is left out) and the question
    writes an addition instead ("add 'buy eggs' to my todo list", written_texts.written_addition),
    it is left out and what is added is new_text; where the question writes neither, the host's call
    gives it (else a small model's call that leaves it out would add a line no one asked for). Also
    the arguments the call must now give."""
    texts = free_texts(own, properties)
    old = [key for key in texts if key_words(key) & _REPLACED_TERMS]
    new = [key for key in texts if key_words(key) & _REPLACING_TERMS]
    if len(old) != 1 or len(new) != 1 or old == new:
        return properties, []
    replaced, replacing = old[0], new[0]
    # What is replaced, optional beside a required replacement, is given unless an addition is asked.
    given = [replaced] if replaced not in needed and replacing in needed else []
    replacement = written_replacement(text)
    if replacement is not None:
        return _offered(properties, {replaced: replacement[0], replacing: replacement[1]}), given
    added = written_addition(text) if given else None
    if added is None:
        return properties, given
    kept = {key: value for key, value in properties.items() if key != replaced}
    return _offered(kept, {replacing: added}), []


def key_words(key: str) -> set[str]:
    """The words of an argument's name, stop words kept ("to_currency": to, currency)."""
    return {word.lower() for word in re.findall(r"[a-z]+|[A-Z][a-z]*", key)}
