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
   question names, whole or abbreviated ("Fri Dec 04"), nor a date there stands for (``2026-12-04``
   stands for Friday and December; the day before and after too where the question says "tomorrow" or
   "yesterday"). Reasoning from a day to another ("in three days it will be Monday") is not followed:
   the user then reads the result beside the reply. "May" and "March"
   count only capitalised inside a sentence: "you may" and "march on" are verbs;
16. it says nothing was found ("no recipes using garlic were found", "found nothing", "no matches",
   "didn't find"), not of the rest ("no other recipe"), where a result holds something and none may
   say it found nothing (no result writes no, none, nothing, empty, zero or 0, nor is blank or ``[]``);
17. it writes a tool's name as the catalog names it (``server__tool``) that no source writes, in any
   case: it is a call, or a result the model made up, not an answer.

Pure functions only; each returns the reason in words a user can read, or "".
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence

from edgehost.agent.question_dates import (
    MONTH_NAMES,
    VERBS_AS_MONTHS,
    WEEKDAYS,
    month_name,
    weekday_name,
    written_dates,
)
from edgehost.agent.tools import NAMESPACE_SEPARATOR

__all__ = ["unfounded_claim"]

# A weekday or a month written in full: what an answer names (a source may abbreviate, "Fri Dec 04").
_CALENDAR_WORD = re.compile(r"\b(?:" + "|".join(WEEKDAYS + MONTH_NAMES) + r")\b", re.IGNORECASE)
# How much of a source is read for its days and dates (a file's text may be long).
MAX_SOURCE_CHARS = 20_000
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_NEXT_OR_LAST_DAY = re.compile(r"\b(?:tomorrow|yesterday)\b", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n\s*[-*]?\s*)$")
# A claim that a search found nothing (rule 16), and what a result that found nothing writes.
_NONE_FOUND = re.compile(
    r"\bno\s+(?:[\w'-]+\s+){0,6}?(?:(?:was|were|is|are|has\s+been|have\s+been)\s+)?(?:found|matched)\b"
    r"|\bnothing\s+(?:(?:was|is|has\s+been)\s+)?(?:found|matched|matches)\b|\bfound\s+nothing\b"
    r"|\bno\s+(?:results?|matches|match(?:ing)?\s+\w+)\b|\bnone\s+(?:were|was)\s+found\b"
    r"|\b(?:did|do|does|could|can)\s*(?:n[o']t|\s+not)\s+find\b",
    re.IGNORECASE,
)
# A result that may have found nothing: it says no, none, nothing, empty or zero, writes a 0, or is
# blank or an empty JSON list or object.
_SAYS_EMPTY = re.compile(
    r"\b(?:no|none|nothing|empty|zero)\b|(?<![\w.])0(?![\w.])|^\s*$|\[\s*\]|\{\s*\}", re.IGNORECASE
)
# Words that make "nothing found" a claim about the rest: "no other recipes were found".
_OF_THE_REST = re.compile(r"\b(?:other|others|else|more|further|another)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+")
_TOOL_NAME = re.compile(rf"\b[A-Za-z0-9][\w.-]*?{re.escape(NAMESPACE_SEPARATOR)}[A-Za-z0-9][\w-]*")


def unfounded_claim(answer: str, results: Sequence[str], question: str, arguments: Sequence[str]) -> str:
    """Why ``answer`` claims what the results do not (rules 15 to 17), or "" when it claims nothing
    of the kind. ``arguments``: the turn's calls' arguments, as text."""
    sources = [*results, question, *arguments]
    return (
        _unfounded_day(answer, sources, question)
        or _none_found_against(answer, results)
        or _tool_name_written(answer, sources)
    )


def _named_in_answer(text: str) -> set[str]:
    """The weekdays and months ``text`` names in full, in lower case; "May" and "March" only where
    capitalised inside a sentence ("you may", "march on" are verbs)."""
    found = set()
    for match in _CALENDAR_WORD.finditer(text):
        word = match.group(0)
        verb = word.lower() in VERBS_AS_MONTHS
        if verb and (not word[0].isupper() or _SENTENCE_START.search(text[: match.start()])):
            continue
        found.add(word.lower())
    return found


def _named_in_source(text: str) -> set[str]:
    """The weekdays and months ``text`` names, whole or abbreviated ("Fri Dec 04 2026"), in full."""
    found = set()
    for word in re.findall(r"[A-Za-z]+", text[:MAX_SOURCE_CHARS]):
        name = weekday_name(word) or month_name(word)
        if name is not None:
            found.add(name)
    return found


def _dated_words(texts: Iterable[str], around: bool) -> set[str]:
    """The weekdays and months of the dates in ``texts`` (ISO timestamps, and the layouts
    question_dates reads: "Dec 04 2026", "4 December 2026", "12/04/2026"); with ``around``, of the days
    next to them too."""
    found = set()
    for text in texts:
        head = text[:MAX_SOURCE_CHARS]
        dates = [f"{y}-{m}-{d}" for y, m, d in _ISO_DATE.findall(head)] + written_dates(head)
        for written in dates:
            try:
                date = dt.date.fromisoformat(written)
            except ValueError:
                continue
            for shift in (-1, 0, 1) if around else (0,):
                shifted = date + dt.timedelta(days=shift)
                found |= {WEEKDAYS[shifted.weekday()], MONTH_NAMES[shifted.month - 1]}
    return found


def _unfounded_day(answer: str, sources: Sequence[str], question: str) -> str:
    """Rule 15: a weekday or month the answer names that no source names or stands for."""
    named = _named_in_answer(answer)
    if not named:
        return ""
    known = {w for text in sources for w in _named_in_source(text)}
    known |= _dated_words(sources, around=bool(_NEXT_OR_LAST_DAY.search(question)))
    unknown = sorted(named - known)
    if unknown:
        return f"it names {', '.join(w.capitalize() for w in unknown)}, which no result says"
    return ""


def _none_found_against(answer: str, results: Sequence[str]) -> str:
    """Rule 16: the answer says nothing was found, of all there is, and a result holds something while
    none may say it found nothing."""
    if not results or any(_SAYS_EMPTY.search(text) for text in results):
        return ""
    for sentence in _SENTENCE.findall(answer):
        claim = _NONE_FOUND.search(sentence)
        if claim is not None and not _OF_THE_REST.search(sentence):
            return f"it says {claim.group(0)!r}, but the tool found something"
    return ""


def _tool_name_written(answer: str, sources: Sequence[str]) -> str:
    """Rule 17: a tool's namespaced name (``server__tool``) that no source writes."""
    written = " ".join(sources).lower()
    for match in _TOOL_NAME.finditer(answer):
        if match.group(0).lower() not in written:
            return f"it writes the tool name {match.group(0)}: a call or a result of its own, not an answer"
    return ""
