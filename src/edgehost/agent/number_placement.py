"""The numbers of a question placed with the numeric arguments of a call the host chose (decision 11):
which number is which argument's, read from the words beside each (agent/grounded_arguments.py offers
them). Pure functions."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from edgehost.agent._bm25 import terms
from edgehost.agent.question_values import CLAUSE_BREAK, WORD, written_numbers

__all__ = ["described_terms", "number_bound", "numbers_with_their_words", "placed_numbers", "within"]

# The words beside a number that say what it counts ("3 bedrooms", "a budget of 500 dollars").
NEAR_BEFORE, NEAR_AFTER = 3, 3
_FRACTION_WORDS = frozenset({"rate", "ratio", "fraction", "decimal", "probability"})
_PERCENT_WORDS = frozenset({"percent", "percentage"})
_PERCENT_TERMS = _PERCENT_WORDS | {"rate"}  # what a number written with % says of itself
_PHRASE_BREAKS = frozenset(
    {
        "and",
        "or",
        "but",
        "when",
        "where",
        "while",
        "if",
        "that",
        "which",
        "who",
        "because",
        "then",
    }
)


def placed_numbers(
    described: Mapping[str, Any], properties: dict[str, Any], text: str, needed: set[str]
) -> dict[str, Any]:
    """``properties`` with each number the question writes beside words of one numeric argument's name
    or description ("3 bedrooms" for ``bedrooms``, "1800 square feet" for ``area``, described in square
    feet) as that argument's only value, and no other's: offered every number in the question's order,
    the 135M model gave a house 1800 bedrooms and 3 square feet. A word counts less the more of the
    arguments have it, and not at all when all have it ("gas" in each of quantity1, temperature1,
    quantity2, temperature2 tells none of them); the best pairs are placed first.

    The required arguments are placed before the optional ones, by their words and then, when as many
    numbers are left as arguments, in the order the question writes them, to the arguments in the
    schema's order ("2 moles at 300 K and 3 moles at 400 K"). Then the optional ones the same way. An
    argument still without a place keeps the numbers left; an optional one with none left is left out.
    A number that is the only one an argument may take is that argument's."""
    numeric = [
        key
        for key, value in properties.items()
        if isinstance(value, Mapping)
        and value.get("type") in ("integer", "number")
        and len(value.get("enum") or ()) > 1
    ]
    if not numeric:
        return properties
    written = numbers_with_their_words(text)
    single = {
        value["enum"][0]
        for key, value in properties.items()
        if isinstance(value, Mapping)
        and value.get("type") in ("integer", "number")
        and key not in numeric
        and len(value.get("enum") or ()) == 1
    }
    placement = _Placement(described, properties, written, {s for v, s, _ in written if v in single})
    for group in ([k for k in numeric if k in needed], [k for k in numeric if k not in needed]):
        placement.by_words(group)
        placement.in_order(group)
    placed = placement.placed
    taken_values = {value for values in placed.values() for value in values}
    offered = {
        key: placed[key] if key in placed else [v for v in properties[key]["enum"] if v not in taken_values]
        for key in numeric
    }
    return {
        key: {**value, "enum": offered[key] or value["enum"]} if key in numeric else value
        for key, value in properties.items()
        if key in needed or key not in offered or offered[key]
    }


class _Placement:
    """The numbers of a question as they are given to numeric arguments (placed_numbers)."""

    def __init__(
        self,
        described: Mapping[str, Any],
        properties: Mapping[str, Any],
        written: list[tuple[int | float, int, set[str]]],
        taken: set[int],
    ) -> None:
        self.described, self.properties, self.written = described, properties, written
        self.placed: dict[str, list[Any]] = {}
        self.taken = set(taken)  # where the numbers given stand in the question

    def _values_at(self, key: str, position: int) -> list[Any]:
        fitted = (
            within(value, self.properties[key]) for value, start, _ in self.written if start == position
        )
        return [value for value in fitted if value is not None and value in self.properties[key]["enum"]]

    def _give(self, key: str, position: int) -> None:
        values = self._values_at(key, position)
        if values:
            self.placed[key] = _as_rate(values, key, self.described.get(key))
            self.taken.add(position)

    def by_words(self, group: list[str]) -> None:
        words = {key: described_terms(key, self.described.get(key)) for key in group}
        counts = Counter(term for key in group for term in words[key])
        pairs = []
        for key in group:
            for _value, start, beside in self.written:
                # A word every argument of the group has tells none of them apart.
                shared = {t for t in words[key] & beside if len(group) == 1 or counts[t] < len(group)}
                if shared and self._values_at(key, start):
                    pairs.append((sum(1 / counts[term] for term in shared), key, start))
        for _weight, key, start in sorted(set(pairs), key=lambda pair: (-pair[0], pair[2])):
            if key not in self.placed and start not in self.taken:
                self._give(key, start)

    def in_order(self, group: list[str]) -> None:
        left = [key for key in group if key not in self.placed]
        positions = sorted({start for _value, start, _beside in self.written} - self.taken)
        if left and len(left) == len(positions):
            for key, position in zip(left, positions, strict=True):
                self._give(key, position)


def _as_rate(values: list[Any], key: str, schema: Any) -> list[Any]:
    """Of the values a number written at one place may have (a percentage: 7 and 0.07), the one an
    argument takes: the fraction for a rate, a ratio or a probability ("annual_return: the annual return
    rate", 7% as 0.07) unless it is described in percent, else the number as written."""
    if len(values) < 2:
        return values
    described = described_terms(key, schema)
    fraction = bool(described & _FRACTION_WORDS) and not described & _PERCENT_WORDS
    return [values[-1] if fraction else values[0]]


def described_terms(key: str, schema: Any) -> set[str]:
    description = str(schema.get("description") or "") if isinstance(schema, Mapping) else ""
    return set(terms(key)) | set(terms(description))


def numbers_with_their_words(text: str) -> list[tuple[int | float, int, set[str]]]:
    """Each number of ``text`` (written_numbers), where it starts, and the terms of the words just
    before and after it, up to the numbers next to it; a percentage's also "percent" and "rate"."""
    numbers = written_numbers(text)
    spans = sorted({(start, end) for _value, start, end in numbers})
    words = [w for w in WORD.finditer(text) if not any(start <= w.start() < end for start, end in spans)]
    found = []
    for value, start, end in numbers:
        index = spans.index((start, end))
        after_previous = spans[index - 1][1] if index else 0
        before_next = spans[index + 1][0] if index + 1 < len(spans) else len(text)
        before = _phrase(
            [w for w in words if after_previous <= w.start() and w.end() <= start], text, start, before=True
        )
        after = _phrase(
            [w for w in words if end <= w.start() and w.end() <= before_next], text, end, before=False
        )
        near = [*before[-NEAR_BEFORE:], *after[:NEAR_AFTER]]
        # A percentage says what it is by its sign: a rate ("At 5% for 10 years").
        percent = _PERCENT_TERMS if text[end - 1 : end] == "%" else set()
        found.append((value, start, set(terms(" ".join(near))) | percent))
    return found


def _phrase(words: list[re.Match[str]], text: str, edge: int, *, before: bool) -> list[str]:
    """Of the ``words`` on one side of a number that starts or ends at ``edge``, those of its own
    phrase: up to a break, a comma or other CLAUSE_BREAK, or a word of _PHRASE_BREAKS (in "a rate of
    10% and initial investment of $2000", 10 is not the investment; in "the final temperature when 2
    moles", 2 is not a temperature)."""
    kept: list[str] = []
    for word in reversed(words) if before else words:
        gap = text[word.end() : edge] if before else text[edge : word.start()]
        if word.group(0).lower() in _PHRASE_BREAKS or CLAUSE_BREAK.search(gap):
            break
        kept.append(word.group(0))
        edge = word.start() if before else word.end()
    return kept[::-1] if before else kept


def within(number: float, schema: Mapping[str, Any]) -> float | None:
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
