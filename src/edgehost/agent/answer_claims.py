"""What an answer after a tool claims that its results do not: rules 15 to 17 of agent/grounding.py.

Seen in the embedded 135M model's replies beside results it had right in front of it (the everyday
questions' calibration half, bench/agent_tool_accuracy.py --record):

- "The answer is Sunday," after time__get_current_time returned ``day_of_week: Friday``;
- "It appears that no recipes using garlic were found." after files__search_files returned
  ``recipes/pasta.md:1: # Garlic pasta``;
- "**files__list_directory(notes.txt)** returned: The dentist is on Thursday" after an edit: a call
  and a result of its own making, written as EdgeHost writes a result; ``{ "name":"git__git_create_branch" }``
  and "git__git_checkout" after a checkout.

A reply shown beside the result it contradicts is worse than none: the user must pick which to
believe. So the reply is ungrounded, and the user reads the result with the reply marked, when

15. it names a day of the week or a month that none of the results, the calls' arguments or the
   question names, nor a date there stands for (``2026-12-04`` stands for Friday and December; the
   day before and after too where the question says "tomorrow" or "yesterday"). "May" and "March"
   count only capitalised inside a sentence: "you may" and "march on" are verbs;
16. it says nothing was found ("no recipes using garlic were found", "found nothing", "no matches",
   "didn't find") where a result holds something and none says it found nothing;
17. it writes a tool's name as the catalog names it (``server__tool``) that no source writes: it is
   a call, or a result the model made up, not an answer.

Pure functions only; each returns the reason in words a user can read, or "".
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence

from edgehost.agent.tools import NAMESPACE_SEPARATOR

__all__ = ["unfounded_claim"]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
)  # fmt: skip
_VERBS_AS_MONTHS = frozenset({"may", "march"})
_CALENDAR_WORD = re.compile(r"\b(?:" + "|".join(_WEEKDAYS + _MONTHS) + r")\b", re.IGNORECASE)
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_NEXT_OR_LAST_DAY = re.compile(r"\b(?:tomorrow|yesterday)\b", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n\s*[-*]?\s*)$")
# A claim that a search found nothing (rule 16), and what a result that found nothing writes.
_NONE_FOUND = re.compile(
    r"\bno\s+(?:[\w'-]+\s+){0,6}?(?:(?:was|were|is|are|has\s+been|have\s+been)\s+)?(?:found|matched|located)\b"
    r"|\bnothing\s+(?:(?:was|is|has\s+been)\s+)?(?:found|matched|matches)\b|\bfound\s+nothing\b"
    r"|\bno\s+(?:results?|matches|match(?:ing)?\s+\w+)\b|\bnone\s+(?:were|was)\s+found\b"
    r"|\b(?:did|do|does|could|can)\s*(?:n[o']t|\s+not)\s+find\b",
    re.IGNORECASE,
)
_SAYS_EMPTY = re.compile(r"\b(?:no|none|nothing|empty|0\s+(?:files|matches|results))\b|^\s*$", re.IGNORECASE)
_TOOL_NAME = re.compile(rf"\b[A-Za-z0-9][\w.-]*?{NAMESPACE_SEPARATOR}[A-Za-z0-9][\w-]*")


def unfounded_claim(answer: str, results: Sequence[str], question: str, arguments: Sequence[str]) -> str:
    """Why ``answer`` claims what the results do not (rules 15 to 17), or "" when it claims nothing
    of the kind. ``arguments``: the turn's calls' arguments, as text."""
    sources = [*results, question, *arguments]
    return (
        _unfounded_day(answer, sources, question)
        or _none_found_against(answer, results)
        or _tool_name_written(answer, sources)
    )


def _calendar_words(text: str, *, strict: bool) -> set[str]:
    """The weekdays and months ``text`` names, in lower case; with ``strict``, "May" and "March" only
    where capitalised inside a sentence (an answer's); else every one (a source's)."""
    found = set()
    for match in _CALENDAR_WORD.finditer(text):
        word = match.group(0)
        verb = word.lower() in _VERBS_AS_MONTHS
        if strict and verb and (not word[0].isupper() or _SENTENCE_START.search(text[: match.start()])):
            continue
        found.add(word.lower())
    return found


def _dated_words(texts: Iterable[str], around: bool) -> set[str]:
    """The weekdays and months of the ISO dates in ``texts``; with ``around``, of the days next to them."""
    found = set()
    for text in texts:
        for year, month, day in _ISO_DATE.findall(text):
            try:
                date = dt.date(int(year), int(month), int(day))
            except ValueError:
                continue
            for shift in (-1, 0, 1) if around else (0,):
                shifted = date + dt.timedelta(days=shift)
                found |= {_WEEKDAYS[shifted.weekday()], _MONTHS[shifted.month - 1]}
    return found


def _unfounded_day(answer: str, sources: Sequence[str], question: str) -> str:
    """Rule 15: a weekday or month the answer names that no source names or stands for."""
    named = _calendar_words(answer, strict=True)
    if not named:
        return ""
    known = {w for text in sources for w in _calendar_words(text, strict=False)}
    known |= _dated_words(sources, around=bool(_NEXT_OR_LAST_DAY.search(question)))
    unknown = sorted(named - known)
    if unknown:
        return f"it names {', '.join(w.capitalize() for w in unknown)}, which no result says"
    return ""


def _none_found_against(answer: str, results: Sequence[str]) -> str:
    """Rule 16: the answer says nothing was found, and a result holds something while none says so."""
    claim = _NONE_FOUND.search(answer)
    if claim is None or not results or any(_SAYS_EMPTY.search(text) for text in results):
        return ""
    return f"it says {claim.group(0)!r}, but the tool found something"


def _tool_name_written(answer: str, sources: Sequence[str]) -> str:
    """Rule 17: a tool's namespaced name (``server__tool``) that no source writes."""
    written = " ".join(sources)
    for match in _TOOL_NAME.finditer(answer):
        if match.group(0) not in written:
            return f"it writes the tool name {match.group(0)}: a call or a result of its own, not an answer"
    return ""
