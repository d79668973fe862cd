"""Numbers as replies and tool results write them, for the grounding rules (agent/grounding.py,
agent/labelled_numbers.py): where they stand in a text, and whether one is another rounded or cut."""

from __future__ import annotations

import re
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation

__all__ = ["ENUMERATORS", "NUMBER", "decimal_of", "finite", "is_in", "numbers_in"]

# A number as people and models write it: 42, -3, 45.2, 1,024 (thousands), 0.5.
NUMBER = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.])-?\d+(?:\.\d+)?")
# "1. ", "2) " at the start of a line number a list; they are not facts.
ENUMERATORS = re.compile(r"^\s*\d{1,2}[.)]\s", re.MULTILINE)


def decimal_of(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def numbers_in(text: str) -> list[str]:
    """The numbers written in ``text``, as written (thousands separators kept)."""
    return NUMBER.findall(text)


def is_in(number: Decimal, sources: set[Decimal]) -> bool:
    """Whether ``number`` is one of ``sources``, or one of them rounded or cut to the places it writes."""
    if number in sources:
        return True
    exponent = number.as_tuple().exponent
    places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    quantum = Decimal(1).scaleb(-places)
    # Rounded or cut to the places written: 45 or 45.2 for 45.23, 978 for 978.8.
    return any(
        number in (source.quantize(quantum, ROUND_HALF_UP), source.quantize(quantum, ROUND_DOWN))
        for source in sources
        if finite(source)
    )


def finite(value: Decimal) -> bool:
    return value.is_finite() and abs(value) < Decimal(10) ** 30
