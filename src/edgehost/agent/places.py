"""The time zones of the places a question names, as the IANA names a tool's arguments ask for (issue 33).

"whats 8am in san francisco in paris time" names America/Los_Angeles and Europe/Paris; a time
server's ``source_timezone`` wants "America/Los_Angeles", and no zone is named after San Francisco.
The names come from GeoNames (resources/values/places.json, written by packaging/make_places.py):
cities of 100,000 people or more, and countries and US states that keep one time ("Japan",
"California"). A place is read where the question writes it as a name (capitalised, not as the
question's first word: "Split the bill" is no city), after "in", "at", "from", "to", "into" or "for"
("in san francisco"), or before "time" ("tokyo time").

For a pair of zone arguments (source and target), ``timezone_roles`` tells which zone the time is
given in and which it is wanted in: the place after "from", or the one the clock time is given in
("8am in San Francisco", "9:00 in Paris"), is the source; the one after "to" or "into", or before
"time" ("in Paris time"), the target; else the question's order. A question with one place reads the
other as the user's own zone: "at 18:00 here, what time is it in Singapore" converts from it, "5pm
Tokyo time, what is that for me" to it.

Only argument values read these names. Tool ranking reads the zones' own city names alone
(question_values.named_timezones): a town in a fact to remember ("she lives in Lyon") is not a
question of time.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from functools import cache, lru_cache

from edgehost.agent.question_values import clock_times
from edgehost.paths import shipped_dir

__all__ = ["ZoneMention", "local_zone", "named_zones", "timezone_roles", "wants_zone"]

log = logging.getLogger(__name__)

_WORD = re.compile(r"[^\W\d_]+(?:[.'’-][^\W\d_]+)*\.?|\d+(?::\d+)?(?:\s*[ap]\.?m\.?)?", re.IGNORECASE)
_LONGEST_NAME = 4  # words ("rio de janeiro", "salt lake city")
_SOURCE_CUES = frozenset({"from"})
_TARGET_CUES = frozenset({"to", "into"})
_PLACE_CUES = _SOURCE_CUES | _TARGET_CUES | {"in", "at", "for"}
_CLOCK_REACH = 3  # words between a clock time and the place it is given in ("8am in San Francisco")
# The zone a description names as the user's own: "Use 'Europe/Paris' as local timezone".
_LOCAL_ZONE = re.compile(r"'([A-Za-z_]+(?:/[A-Za-z0-9_+-]+)*)'\s+as\s+(?:the\s+)?local\b", re.IGNORECASE)


@dataclass(frozen=True)
class ZoneMention:
    zone: str
    start: int  # word indices in the question (_WORD's tokens)
    end: int
    role: str | None  # "source" after "from", "target" after "to" or "into" or before "time"
    given_at: bool = False  # a clock time just before it is given in this place ("8am in San Francisco")


@cache
def _zones() -> dict[tuple[str, ...], str]:
    """The shipped table, by the lower-case words of a name; empty (no place is read) when the file
    is missing or unreadable."""
    try:
        data = json.loads((shipped_dir("resources") / "values" / "places.json").read_text("utf-8"))
        return {
            tuple(w.lower().rstrip(".") for w in _WORD.findall(name)): str(zone)
            for name, zone in data["zones"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("place names are not read as time zones: %s", exc)
        return {}


def named_zones(text: str) -> tuple[ZoneMention, ...]:
    """The zones of the places ``text`` names, in its order, each zone once (the longest name at each
    place)."""
    return _named_in(text)


@lru_cache(maxsize=16)
def _named_in(text: str) -> tuple[ZoneMention, ...]:
    zones = _zones()
    words = _WORD.findall(text)
    lowered = [w.lower().rstrip(".") for w in words]
    found: list[ZoneMention] = []
    index = 0
    while index < len(words):
        mention = _mention_at(zones, words, lowered, index)
        if mention is None:
            index += 1
            continue
        if all(m.zone != mention.zone for m in found):
            found.append(mention)
        index = mention.end
    return tuple(found)


def _mention_at(
    zones: dict[tuple[str, ...], str], words: list[str], lowered: list[str], index: int
) -> ZoneMention | None:
    before = lowered[index - 1] if index else ""
    for length in range(min(_LONGEST_NAME, len(words) - index), 0, -1):
        zone = zones.get(tuple(lowered[index : index + length]))
        if zone is None:
            continue
        end = index + length
        after = lowered[end] if end < len(words) else ""
        written_as_name = index > 0 and words[index][0].isupper()
        if not (written_as_name or before in _PLACE_CUES or after == "time"):
            continue
        given_at = _given_at(lowered, index)
        role = (
            "source"
            if before in _SOURCE_CUES
            else "target"
            if before in _TARGET_CUES or (after == "time" and not given_at)
            else None
        )
        return ZoneMention(zone, index, end, role, given_at)
    return None


def _given_at(lowered: list[str], index: int) -> bool:
    """Whether the place at ``index`` is the one a clock time just before it is given in ("8am in San
    Francisco", "3pm London time")."""
    return bool(clock_times(" ".join(lowered[max(0, index - _CLOCK_REACH) : index])))


def timezone_roles(text: str, local: str | None = None) -> tuple[str, str] | None:
    """(the zone a time is given in, the zone it is wanted in) when ``text`` names two places, or one
    and ``local`` (the user's own zone) is known; else None."""
    mentions = named_zones(text)
    if not mentions or (len(mentions) == 1 and not local):
        return None
    if len(mentions) == 1:
        only = mentions[0]
        given_there = only.role == "source" or (only.role != "target" and only.given_at)
        return (only.zone, str(local)) if given_there else (str(local), only.zone)
    source = next((m for m in mentions if m.role == "source"), None)
    source = source or next((m for m in mentions if m.role != "target" and m.given_at), None)
    source = source or next((m for m in mentions if m.role != "target"), mentions[0])
    target = next((m for m in mentions if m is not source and m.role == "target"), None)
    target = target or next(m for m in mentions if m is not source)
    return source.zone, target.zone


def wants_zone(name: str, description: str) -> bool:
    """Whether an argument named ``name`` and so described takes a time zone (an IANA name)."""
    return "timezone" in f"{name} {description}".lower().replace(" ", "") or "IANA" in description


def local_zone(description: str) -> str | None:
    """The zone a description names as the user's own ("Use 'Europe/Paris' as local timezone")."""
    found = _LOCAL_ZONE.search(description)
    return found.group(1) if found else None
