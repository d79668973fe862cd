"""The dates a question writes (issue 33), laid out as a date argument wants them.

- a date with its year: "January 1, 2021", "10th December 2022", "2023 April 4th", "2022-12-10",
  "12/10/2022" (US order);
- a month and day without one ("March 3", "the 4th of July"): the year of the nearest date or year
  the question writes ("from 2023 April 4th to April 8th"; the next one where a range written after
  it would end before it begins: "Dec 28, 2026 to Jan 3"), else the coming one, or the last one when
  the question speaks of the past ("What did I spend on March 3?"). A lower-case "may" or "march" is
  a verb ("the 2 may be"), not the month;
- a date relative to today: "today", "tonight", "tomorrow", "yesterday", "(the) day after tomorrow",
  "(the) day before yesterday", "in 3 days", "in two weeks", "a week ago"; and a weekday: "Friday",
  "on Friday" and "this Friday" are the coming one (today when today is a Friday), or the last one,
  today included, when the question speaks of the past ("what did I spend on Monday?", "since
  Monday"); "next Friday" is the first after today, "last Friday" the last before it. A weekday in a
  name inside a sentence ("Is Black Friday", "the Sunday Times") or after "every" (one that recurs)
  is no date.

The past is what the question's verbs or "since" say (_PAST). Each date is laid out in the layout a
description names ("MM-DD-YYYY", read by ``date_format``), else ISO 8601's. Not read: ranges ("next
week", "this weekend"), "the Monday after next", and numeric dates without a year ("3/4", a fraction
as well). A date argument (``takes_a_date``) has format "date", "date" in its name or a described
layout, and is no date-time. Pure functions; today's date is a parameter (the machine's local date
when not given).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Any

from edgehost.agent._bm25 import terms
from edgehost.agent.question_values import NUMBER_WORDS, clock_times

__all__ = [
    "DATE_FORMAT",
    "MONTH_NAMES",
    "VERBS_AS_MONTHS",
    "WEEKDAYS",
    "date_format",
    "date_spans",
    "holds_a_moment",
    "is_month",
    "is_weekday",
    "looks_back",
    "month_name",
    "weekday_name",
    "takes_a_date",
    "takes_a_date_time",
    "written_date_times",
    "written_date_parts",
    "written_dates",
]

# Each month's names, its full name first.
_MONTH_FORMS = (
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
    ("november", "nov"), ("december", "dec"),
)  # fmt: skip
MONTH_NAMES = tuple(forms[0] for forms in _MONTH_FORMS)
_MONTHS = {name: number for number, forms in enumerate(_MONTH_FORMS, start=1) for name in forms}


def is_month(word: str) -> bool:
    """Whether ``word`` names a month ("May", "sept")."""
    return word.lower().rstrip(".") in _MONTHS


_MONTH = "(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"


_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"


_YEAR = r"(?P<year>\d{4})"


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# The weekday a written date may begin with ("on Saturday, January 1, 2022"): that date's, no other.
_ITS_WEEKDAY = r"(?:(?:" + "|".join(WEEKDAYS) + r"),?\s+(?:the\s+)?)?"


# A date written with its year: "January 1, 2021", "10th December 2022", "2023 April 4th",
# "2022-12-10", "12/10/2022" (US order).
_WITH_YEAR = [
    re.compile(rf"\b{_ITS_WEEKDAY}{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_ITS_WEEKDAY}{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_YEAR}\s+{_MONTH}\s+{_DAY}\b", re.IGNORECASE),
    re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\b"),
    re.compile(r"\b(?P<month>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4})\b"),
]
# A month and day without a year: "March 3", "the 4th of July".
_WITHOUT_YEAR = [
    re.compile(rf"\b{_ITS_WEEKDAY}{_MONTH}\s+{_DAY}\b", re.IGNORECASE),
    re.compile(rf"\b{_ITS_WEEKDAY}{_DAY}(?:\s+of)?\s+{_MONTH}(?!\w)", re.IGNORECASE),
]
VERBS_AS_MONTHS = frozenset({"may", "march"})  # lower case, a verb: "the 2 may be", "march 5 miles"
# A year written alone, which a month and day near it take: "on March 3 in 2023".
_LONE_YEAR = re.compile(r"(?<![\d/-])\b(?:19|20)\d{2}\b(?![/-]\d)")
# A question about the past: a weekday or a month and day alone is the last one, not the coming one.
_PAST = re.compile(r"\b(?:did|was|were|had|since|happened|spent|went|made|sent)\b", re.IGNORECASE)
# Days from today.
_NAMED_DAYS = {
    "day after tomorrow": 2,
    "day before yesterday": -2,
    "today": 0,
    "tonight": 0,
    "tomorrow": 1,
    "yesterday": -1,
}
_NAMED_DAY = re.compile(
    r"\b(?:the\s+)?(?:" + "|".join(name.replace(" ", r"\s+") for name in _NAMED_DAYS) + r")\b", re.IGNORECASE
)
_COUNTS = {"a": 1, "an": 1, "one": 1, **NUMBER_WORDS}
_COUNT = r"(?P<count>\d{1,3}|" + "|".join(sorted(_COUNTS, key=len, reverse=True)) + ")"
_IN_DAYS = re.compile(rf"\bin\s+{_COUNT}\s+(?P<unit>day|week)s?\b", re.IGNORECASE)
_DAYS_AGO = re.compile(rf"\b{_COUNT}\s+(?P<unit>day|week)s?\s+ago\b", re.IGNORECASE)


def is_weekday(word: str) -> bool:
    """Whether ``word`` names a day of the week ("Friday")."""
    return word.lower() in WEEKDAYS


def month_name(word: str) -> str | None:
    """The month ``word`` names, in full and in lower case ("Dec" and "december": "december")."""
    number = _MONTHS.get(word.lower().rstrip("."))
    return None if number is None else MONTH_NAMES[number - 1]


def weekday_name(word: str) -> str | None:
    """The day of the week ``word`` names, whole or as its first three letters ("Fri": "friday")."""
    lower = word.lower().rstrip(".")
    return next((day for day in WEEKDAYS if lower == day or lower == day[:3]), None)


_WEEKDAY = re.compile(
    r"\b(?:(?P<which>next|last|this|on|coming|every)\s+)?(?P<weekday>" + "|".join(WEEKDAYS) + r")\b",
    re.IGNORECASE,
)
# A capitalised word beside a weekday that makes it a name's: "Black Friday", "the Sunday Times".
_NAME_BEFORE = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+\s+$")
_NAME_AFTER = re.compile(r"^\s+(?!I\b)[A-Z]")


# The date format a description names: "in the format of MM-DD-YYYY", "(YYYY-MM-DD)".
DATE_FORMAT = re.compile(
    r"\b(?:Y{2,4}|MM|DD)(?P<sep>[-/.])(?:Y{2,4}|MM|DD)(?P=sep)(?:Y{2,4}|MM|DD)\b", re.IGNORECASE
)


def date_format(description: str) -> str:
    """The date format ``description`` names ("MM-DD-YYYY"; "MM-DD-YYY" read so too), else ISO 8601's
    "YYYY-MM-DD"."""
    match = DATE_FORMAT.search(description)
    if not match:
        return "YYYY-MM-DD"
    layout = match.group(0).upper()
    return re.sub("Y{3,4}", "YYYY", layout)


def written_dates(
    text: str, layout: str = "YYYY-MM-DD", today: datetime.date | None = None, *, past: bool = False
) -> list[str]:
    """The dates ``text`` writes (module docstring), in the order it writes them, in ``layout`` (YYYY,
    MM and DD in any order, one separator): "starting from 10th December 2022" gives "2022-12-10",
    "tomorrow" the day after ``today``. ``past``: the dates are of the past whatever the question's
    verbs say (an argument that ``looks_back``)."""
    found = _dates_where_written(text, today or datetime.date.today(), past=past)
    return list(dict.fromkeys(_laid_out(layout, date) for _start, _end, date in sorted(found)))


def date_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` writes its dates (start, end): the numbers inside them are a date's parts, not
    counts ("since 12 May", "3 days ago")."""
    return [(start, end) for start, end, _date in _dates_where_written(text, datetime.date.today())]


# A word of a written date, which may name its month.
_MONTH_WORD = re.compile(r"[A-Za-z]+")
# A description's examples of a date relative to today that lies behind it, and of one ahead.
_BEHIND = re.compile(r"\b(?:ago|yesterday)\b", re.IGNORECASE)
_AHEAD = re.compile(r"\b(?:tomorrow|next|from\s+now|later|upcoming|future)\b", re.IGNORECASE)


def looks_back(description: str) -> bool:
    """Whether an argument takes dates of the past, by its description: its examples of a date relative
    to today are all behind it ("relative dates (e.g., '2 weeks ago', 'yesterday')", the git log's
    start and end). A month and day without a year is then the last one: "show me the commits from 3
    March to 10 March", asked in December, is of this March, not the next."""
    return bool(_BEHIND.search(description)) and not _AHEAD.search(description)


def written_date_parts(text: str, part: str) -> list[int]:
    """The ``part`` ("year", "month" or "day") of each date ``text`` writes it of, in the order they are
    written: "What happened on 4 July 1776?" gives the year 1776, the month 7 and the day 4. A part the
    date does not write is not given: "on 4 July" has no year (the one a date argument would get is
    worked out), "3 days ago" no day."""
    values: list[int] = []
    for start, end, date in sorted(_dates_where_written(text, datetime.date.today())):
        span = text[start:end]
        numbers = [int(n) for n in re.findall(r"\d+", span)]
        named_month = any(is_month(word) for word in _MONTH_WORD.findall(span))
        wrote = {
            "year": date.year in numbers and date.year >= 1000,
            "day": date.day in numbers,
            "month": named_month or (date.month in numbers and len(numbers) >= 3),  # "2022-12-12"
        }
        if wrote.get(part):
            values.append(getattr(date, part))
    return list(dict.fromkeys(values))


def _dates_where_written(
    text: str, today: datetime.date, *, past: bool = False
) -> list[tuple[int, int, datetime.date]]:
    past = past or bool(_PAST.search(text))
    found: list[tuple[int, int, datetime.date]] = []  # start, end, date

    def add(match: re.Match[str], date: datetime.date | None) -> None:
        start, end = match.span()
        if date is not None and not any(start < e and s < end for s, e, _date in found):
            found.append((start, end, date))

    for pattern in _WITH_YEAR:
        for match in pattern.finditer(text):
            add(match, _calendar_date(int(match.group("year")), match.group("month"), match.group("day")))
    written = [(start, date) for start, _end, date in found]
    lone_years = [
        (m.start(), int(m.group(0)))
        for m in _LONE_YEAR.finditer(text)
        if not any(start <= m.start() < end for start, end, _date in found)  # not a written date's
    ]
    for pattern in _WITHOUT_YEAR:
        for match in pattern.finditer(text):
            if match.group("month") in VERBS_AS_MONTHS:
                continue
            add(match, _yearless_date(match, written, lone_years, today, past))
    for match in _NAMED_DAY.finditer(text):
        words = match.group(0).lower().split()
        add(match, today + datetime.timedelta(days=_NAMED_DAYS[" ".join(words).removeprefix("the ")]))
    for pattern, sign in ((_IN_DAYS, 1), (_DAYS_AGO, -1)):
        for match in pattern.finditer(text):
            count = match.group("count").lower()
            days = (int(count) if count.isdigit() else _COUNTS[count]) * (
                7 if match.group("unit") == "week" else 1
            )
            add(match, today + datetime.timedelta(days=sign * days))
    for match in _WEEKDAY.finditer(text):
        which = (match.group("which") or "").lower()
        named = not which and (
            _NAME_BEFORE.search(text[: match.start()]) or _NAME_AFTER.match(text[match.end() :])
        )
        if which != "every" and not named:
            weekday = WEEKDAYS.index(match.group("weekday").lower())
            coming = which in ("", "on", "this")
            add(match, _weekday_date(today, weekday, ("past" if past else "") if coming else which))
    return found


def _calendar_date(year: int, month: str, day: str) -> datetime.date | None:
    number = int(month) if month.isdigit() else _MONTHS[month.lower().rstrip(".")]
    try:
        return datetime.date(year, number, int(day))
    except ValueError:
        return None  # "Feb 30, 2021"


def _yearless_date(
    match: re.Match[str],
    written: list[tuple[int, datetime.date]],
    lone_years: list[tuple[int, int]],
    today: datetime.date,
    past: bool,
) -> datetime.date | None:
    """The date of a month and day written without a year (module docstring)."""
    month, day = match.group("month"), match.group("day")
    hints = [(start, date.year, date) for start, date in written] + [(s, y, None) for s, y in lone_years]
    if hints:
        start, year, beside = min(hints, key=lambda hint: abs(hint[0] - match.start()))
        date = _calendar_date(year, month, day)
        if date is not None and beside is not None and start < match.start() and date < beside:
            date = _calendar_date(year + 1, month, day)  # "Dec 28, 2026 to Jan 3"
        return date
    date = _calendar_date(today.year, month, day)
    if date is None:
        return _calendar_date(today.year + (-1 if past else 1), month, day)  # Feb 29 of another year
    if past and date > today:
        return _calendar_date(today.year - 1, month, day)
    if not past and date < today:
        return _calendar_date(today.year + 1, month, day)
    return date


def _weekday_date(today: datetime.date, weekday: int, which: str) -> datetime.date:
    """The date of ``weekday`` (0 is Monday): the coming one, on or after today; "past", the last one
    on or before today; "next", the first after today; "last", the last before it."""
    behind = (today.weekday() - weekday) % 7
    if which == "last":
        return today - datetime.timedelta(days=behind or 7)
    if which == "past":
        return today - datetime.timedelta(days=behind)
    ahead = (weekday - today.weekday()) % 7
    if which == "next":
        ahead = ahead or 7
    return today + datetime.timedelta(days=ahead)


def _laid_out(layout: str, date: datetime.date) -> str:
    year = f"{date.year:04d}"
    if "YYYY" not in layout:
        layout, year = layout.replace("YY", "YYYY"), year[-2:]  # a two-digit year: "MM/DD/YY"
    return layout.replace("YYYY", year).replace("MM", f"{date.month:02d}").replace("DD", f"{date.day:02d}")


# A description of a date argument that takes a clock time too.
_WITH_TIME = re.compile(r"date[- ]?time|timestamp|\bHH\b|\band time\b", re.IGNORECASE)


def takes_a_date(name: str, schema: Mapping[str, Any]) -> bool:
    """Whether the argument ``name`` takes a date alone: format "date", a name with "date" or a
    described layout (MM-DD-YYYY), and not a date-time (one with a clock time as well: "tomorrow at
    5pm" is no date alone)."""
    description = str(schema.get("description") or "")
    if schema.get("format") == "date-time" or _WITH_TIME.search(description):
        return False
    return schema.get("format") == "date" or "date" in terms(name) or bool(DATE_FORMAT.search(description))


# A clock time's layout in a description: "HH:MM", "HH:MM:SS".
_TIME_LAYOUT = re.compile(r"\bHH:MM(?::SS)?\b", re.IGNORECASE)
_ISO = re.compile(r"\b(?:ISO[- ]?8601|RFC[- ]?3339)\b", re.IGNORECASE)


def takes_a_date_time(schema: Mapping[str, Any]) -> bool:
    """Whether the argument takes a date with a clock time: format "date-time", a described layout
    with both ("YYYY-MM-DD HH:MM:SS"), or a date and time described as ISO 8601."""
    description = str(schema.get("description") or "")
    return schema.get("format") == "date-time" or bool(
        (DATE_FORMAT.search(description) and _TIME_LAYOUT.search(description))
        or (_ISO.search(description) and _WITH_TIME.search(description))
    )


def written_date_times(
    text: str, schema: Mapping[str, Any], now: datetime.datetime | None = None
) -> list[str]:
    """The date-times ``text`` writes for a date-time argument (takes_a_date_time): each date it
    writes at each clock time it writes ("tomorrow at 5pm"), a time alone on today, a date alone at
    midnight, as the argument lays them out: format "date-time" and ISO 8601 as RFC 3339 with the
    local offset ("2026-12-04T17:00:00+01:00"), a described layout as described ("2026-12-04
    17:00:00"). Nothing where it writes neither a date nor a time."""
    today = (now or datetime.datetime.now()).date()
    description = str(schema.get("description") or "")
    dates = [
        datetime.date.fromisoformat(d) for d in written_dates(text, today=today, past=looks_back(description))
    ]
    times = [datetime.time.fromisoformat(t) for t in clock_times(text)]
    if not dates and not times:
        return []
    # The local offset of each moment's own day (summer time), or ``now``'s where it has one.
    zone = now.tzinfo if now is not None else None
    moments = [
        datetime.datetime.combine(day, clock, tzinfo=zone)
        if zone
        else datetime.datetime.combine(day, clock).astimezone()
        for day in dates or [today]
        for clock in times or [datetime.time()]
    ]
    date_layout, time_layout = DATE_FORMAT.search(description), _TIME_LAYOUT.search(description)
    if schema.get("format") == "date-time" or date_layout is None or time_layout is None:
        return list(dict.fromkeys(m.isoformat(timespec="seconds") for m in moments))
    between = description[date_layout.end() : time_layout.start()]
    joint = between if 0 < len(between) <= 3 and not between.strip(" T") else " "
    clock_layout = "%H:%M:%S" if time_layout.group(0).upper().endswith("SS") else "%H:%M"
    layout = date_format(description)
    return list(
        dict.fromkeys(f"{_laid_out(layout, m.date())}{joint}{m.strftime(clock_layout)}" for m in moments)
    )


def holds_a_moment(text: str) -> bool:
    """Whether ``text`` writes a date or a clock time ("dentist tomorrow", "call at 3pm")."""
    return bool(written_dates(text) or clock_times(text))
