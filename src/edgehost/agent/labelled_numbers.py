"""Numbers given under the wrong name: rules 6 and 7 of agent/grounding.py.

A result that is JSON labels its numbers (``available_mb``, ``used_mb``); a reply that writes one
under another's name, in the key's own words or in prose ("2407.5 MB of memory available" when
2407.5 is used_mb), or that answers what the question asks for with another key's value (the total
for "how much is free?"), states a wrong fact with a right number.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from edgehost.agent.answer_numbers import ENUMERATORS, NUMBER, decimal_of, is_in, numbers_in

__all__ = ["answers_another_key", "labelled_results", "mislabelled"]


def _labelled_numbers(value: Any, found: dict[str, set[Decimal]]) -> dict[str, set[Decimal]]:
    """{key: the numbers under it} over every mapping of a JSON value."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, (int, float)) and not isinstance(item, bool):
                number = decimal_of(str(item))
                if number is not None and len(str(key)) > 2:
                    found.setdefault(str(key).lower(), set()).add(number)
            _labelled_numbers(item, found)
    elif isinstance(value, list):
        for item in value:
            _labelled_numbers(item, found)
    return found


def labelled_results(results: Sequence[str]) -> dict[str, set[Decimal]]:
    """{key: the numbers under it} over the results that are JSON."""
    labelled: dict[str, set[Decimal]] = {}
    for text in results:
        try:
            _labelled_numbers(json.loads(text), labelled)
        except (json.JSONDecodeError, ValueError):
            continue
    return labelled


def mislabelled(answer: str, labelled: Mapping[str, set[Decimal]]) -> tuple[str, ...]:
    """Rule 6: "key: number" in the answer where the number is not the key's (as "key: its value")."""
    wrong: list[str] = []
    for key, values in labelled.items():
        name = r"[_\s]+".join(re.escape(part) for part in re.split(r"[_\s]+", key) if part)
        pattern = rf"(?<![\w]){name}(?![\w])\s*(?:[:=\-–—]|\bis\b|\bwas\b|\bof\b)\s*({NUMBER.pattern})"
        for match in re.finditer(pattern, answer, re.IGNORECASE):
            number = decimal_of(match.group(1))
            if number is not None and not is_in(number, values):
                wrong.append(f"{key} {match.group(1)}")
    wrong += _misnamed_in_words(answer, labelled)
    return tuple(dict.fromkeys(wrong))


# Words of a key that name a unit, not what is measured (used_mb -> used, soc_celsius -> soc).
_UNIT_WORDS = frozenset(
    [
        "mb",
        "gb",
        "kb",
        "tb",
        "b",
        "bytes",
        "c",
        "celsius",
        "f",
        "pct",
        "percent",
        "s",
        "ms",
        "sec",
        "secs",
        "seconds",
        "min",
        "minutes",
        "h",
        "hours",
        "mhz",
        "ghz",
    ]
)
_SYNONYMS = {"available": {"free"}, "free": {"available"}, "used": {"use", "in-use"}}
_CLAUSE = re.compile(
    r"[,;:!?()\n]|\.(?!\d)|\band\b|\bbut\b|\bwhile\b|\bwhereas\b|\bof which\b", re.IGNORECASE
)


def _key_words(key: str) -> set[str]:
    words = {w for w in re.split(r"[_\W]+", key.lower()) if w and w not in _UNIT_WORDS and not w.isdigit()}
    return words | {synonym for w in words for synonym in _SYNONYMS.get(w, ())}


def _misnamed_in_words(answer: str, labelled: Mapping[str, set[Decimal]]) -> list[str]:
    """Rule 6 in prose: a number that is one key's value only, whose nearest words in its clause name
    another key and not its own ("2407.5 MB of memory available"; in "21790.3 MB free of 24105.6 MB"
    "free" is nearest the first number)."""
    words_of = {key: _key_words(key) for key in labelled}
    wrong: list[str] = []
    for clause in _CLAUSE.split(answer):
        numbers = list(NUMBER.finditer(clause))
        if not numbers:
            continue
        near: list[set[str]] = [set() for _ in numbers]
        for word in re.finditer(r"[a-z][a-z-]*", clause.lower()):
            distances = [
                max(number.start() - word.end(), word.start() - number.end(), 0) for number in numbers
            ]
            near[distances.index(min(distances))].add(word.group())
        for number_match, words in zip(numbers, near, strict=True):
            written = number_match.group()
            number = decimal_of(written)
            if number is None:
                continue
            owners = [key for key, values in labelled.items() if is_in(number, values)]
            if len(owners) != 1 or not words_of[owners[0]]:
                continue
            own = words_of[owners[0]]
            others = set().union(*(words_of[k] for k in labelled if k != owners[0])) - own
            if not words & own and words & others:
                wrong.append(f"{owners[0]} {written} called {sorted(words & others)[0]}")
    return wrong


def answers_another_key(answer: str, question: str, labelled: Mapping[str, set[Decimal]]) -> str:
    """Rule 7: the question names what it asks for in a key's words ("how much memory is *free*" ->
    available_mb), the answer states numbers of the result, and none of them is a value of an asked key
    (it gives the total instead). "" when the rule does not apply or holds."""
    question_words = set(re.findall(r"[a-z][a-z-]*", question.lower()))
    asked = {key for key in labelled if _key_words(key) & question_words}
    if not asked or len(asked) == len(labelled):
        return ""
    owners = {
        key
        for written in numbers_in(ENUMERATORS.sub("", answer))
        if (number := decimal_of(written)) is not None
        for key, values in labelled.items()
        if is_in(number, values)
    }
    if owners and not owners & asked:
        return f"it answers with {', '.join(sorted(owners))} where the question asks for {', '.join(sorted(asked))}"
    return ""
