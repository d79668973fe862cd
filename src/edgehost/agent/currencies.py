"""The currencies a question names, as the ISO 4217 codes a tool's arguments ask for (issue 33).

"How much will 20000 Japanese Yen be in United States Dollar?" names JPY and USD; a converter's
``base_currency`` wants "JPY", not "Japanese Yen". The names come from CLDR's English data
(resources/values/currencies.json, written by packaging/make_currencies.py): display names ("US
Dollar"), the forms for many ("euros", "British pounds"), a territory with its unit ("United States
dollar"), the unit alone where one currency owns its sign ("pounds": £) after an amount or "from",
"to", "into" or "in", English symbols ("$", "CA$")
and the codes themselves ("EUR").

For a pair of currency arguments (from and to, base and target), ``currency_roles`` tells which named
currency is converted and which it becomes: the one after "from" or after the amount ("500 US
dollars") is the source, the one after "to", "into" or "in" the target, else the question's order.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from functools import cache, lru_cache

from edgehost.paths import shipped_dir

__all__ = ["Mention", "currency_roles", "named_currencies", "wants_currency"]

log = logging.getLogger(__name__)

_WORD = re.compile(r"[A-Za-z]+|\d[\d,.]*|[^\sA-Za-z\d]+")
_NUMBER = re.compile(r"\d[\d,.]*")
_LONGEST_NAME = 6  # words ("cocos (keeling) islands dollar" is the longest worth reading)
_ASKS_FOR_CODE = re.compile(r"\bcurrency\s+(?:code|symbol)|ISO\s*4217", re.IGNORECASE)
_SOURCE_CUES = frozenset({"from"})
_TARGET_CUES = frozenset({"to", "into", "in"})


@dataclass(frozen=True, eq=False)  # one table per load: hashed by identity, so readings cache per table
class Currencies:
    codes: frozenset[str]
    names: dict[tuple[str, ...], str]  # lower-case words of a name -> code
    units: dict[str, str]  # a unit alone ("pounds"): a currency only after a number or a cue word
    symbols: dict[str, str]
    signs: re.Pattern[str] | None  # the symbols, longest first (_symbols_as_codes)


@dataclass(frozen=True)
class Mention:
    code: str
    start: int  # word indices in the question (_WORD's tokens)
    end: int
    after_number: bool  # "500 US dollars", "$20" counts too (the number follows the sign)
    cue: str | None  # "source" after "from", "target" after "to", "into" or "in"


@cache
def _currencies() -> Currencies:
    """The shipped table; empty (no currency is named) when the file is missing or unreadable."""
    try:
        data = json.loads((shipped_dir("resources") / "values" / "currencies.json").read_text("utf-8"))
        names = {tuple(_WORD.findall(name)): code for name, code in data["names"].items()}
        symbols = dict(data["symbols"])
        signs = "|".join(re.escape(sign) for sign in sorted(symbols, key=len, reverse=True))
        pattern = re.compile(rf"(?<![A-Za-z])(?:{signs})") if signs else None
        return Currencies(frozenset(data["codes"]), names, dict(data["units"]), symbols, pattern)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("currency names are not read from questions: %s", exc)
        return Currencies(frozenset(), {}, {}, {}, None)


def wants_currency(name: str, description: str) -> bool:
    """Whether a text argument takes a currency: its name says so ("from_currency", "baseCurrency") or
    its description asks for a currency's code ("Currency code.", "ISO 4217"); not an amount or a
    locale whose description only mentions currency."""
    return "currency" in name.lower() or _ASKS_FOR_CODE.search(description) is not None


def named_currencies(text: str) -> tuple[Mention, ...]:
    """The currencies ``text`` names, in its order, each once (the longest name at each place); read
    once per question for all the arguments that ask."""
    return _named_in(_currencies(), text)


@lru_cache(maxsize=16)
def _named_in(table: Currencies, text: str) -> tuple[Mention, ...]:
    words = _WORD.findall(_symbols_as_codes(table, text))
    lowered = [w.lower() for w in words]
    found: list[Mention] = []
    index = 0
    while index < len(words):
        code, end = _mention_at(table, words, lowered, index)
        if code is None:
            index += 1
            continue
        before = lowered[index - 1] if index else ""
        after_number = bool(_NUMBER.fullmatch(before)) or (
            end < len(words) and words[index] in table.codes and bool(_NUMBER.fullmatch(words[end]))
        )
        cue = "source" if before in _SOURCE_CUES else "target" if before in _TARGET_CUES else None
        found.append(Mention(code, index, end, after_number, cue))
        index = end
    first = {m.code: m for m in reversed(found)}
    return tuple(m for m in found if first[m.code] is m)


def _symbols_as_codes(table: Currencies, text: str) -> str:
    """``text`` with each symbol of the table written as its code, longest first ("CA$100" as
    "CAD 100", "€" as "EUR"), so that signs made of letters and a sign are read whole."""
    if table.signs is None:
        return text
    return table.signs.sub(lambda m: f" {table.symbols[m.group(0)]} ", text)


def _mention_at(
    table: Currencies, words: list[str], lowered: list[str], index: int
) -> tuple[str | None, int]:
    for length in range(min(_LONGEST_NAME, len(words) - index), 0, -1):
        code = table.names.get(tuple(lowered[index : index + length]))
        if code is not None:
            return code, index + length
    word, before = words[index], lowered[index - 1] if index else ""
    if lowered[index] in table.units and (_NUMBER.fullmatch(before) or before in _SOURCE_CUES | _TARGET_CUES):
        return table.units[lowered[index]], index + 1  # "30 pounds", "to rupees"; not "I won"
    after = lowered[index + 1] if index + 1 < len(words) else ""
    beside = _NUMBER.fullmatch(before) or _NUMBER.fullmatch(after) or before in _SOURCE_CUES | _TARGET_CUES
    # "EUR" in capitals, beside an amount or a cue ("100 USD", "USD 100", "to EUR", "USD to EUR"): a
    # code alone may be a word ("Show ALL hotels").
    if word in table.codes and (beside or after in _TARGET_CUES or after == "/" or before == "/"):
        return word, index + 1
    return None, index


def currency_roles(text: str) -> tuple[str, str] | None:
    """(the currency converted, the one it becomes) when ``text`` names at least two; else None."""
    mentions = named_currencies(text)
    if len(mentions) < 2:
        return None
    source = next((m for m in mentions if m.cue == "source"), None)
    source = source or next((m for m in mentions if m.after_number and m.cue != "target"), None)
    source = source or next((m for m in mentions if m.cue != "target"), mentions[0])
    target = next((m for m in mentions if m is not source and m.cue == "target"), None)
    target = target or next(m for m in mentions if m is not source)
    return source.code, target.code
