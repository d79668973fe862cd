"""The dates a question writes, laid out for a date argument (agent/question_dates.py)."""

from __future__ import annotations

import datetime

import pytest

from edgehost.agent.question_dates import written_date_times, written_dates

WEDNESDAY = datetime.date(2026, 12, 2)


@pytest.mark.parametrize(
    ("question", "dates"),
    [
        ("Book a table for tomorrow", ["2026-12-03"]),
        ("what's on tonight?", ["2026-12-02"]),
        ("move it to the day after tomorrow", ["2026-12-04"]),
        ("day before yesterday", ["2026-11-30"]),
        ("what did I spend yesterday and today", ["2026-12-01", "2026-12-02"]),
        ("remind me in 3 days", ["2026-12-05"]),
        ("in two weeks", ["2026-12-16"]),
        ("the invoice I sent a week ago", ["2026-11-25"]),
        ("lunch on Friday", ["2026-12-04"]),
        ("next Friday", ["2026-12-04"]),
        ("this Wednesday", ["2026-12-02"]),
        ("next Wednesday", ["2026-12-09"]),
        ("since last Wednesday", ["2026-11-25"]),
        ("since last Monday", ["2026-11-30"]),
        # Of the past, a weekday alone is the last one, today's included.
        ("what did I spend on Monday?", ["2026-11-30"]),
        ("everything since Wednesday", ["2026-12-02"]),
    ],
)
def test_a_date_relative_to_today_is_the_day_it_names(question: str, dates: list[str]) -> None:
    assert written_dates(question, today=WEDNESDAY) == dates


def test_a_month_and_day_take_the_year_written_nearest_else_the_coming_one() -> None:
    nights = "a room from 2023 April 4th to April 8th"
    assert written_dates(nights, today=WEDNESDAY) == ["2023-04-04", "2023-04-08"]
    assert written_dates("What happened on March 3 in 2023?", today=WEDNESDAY) == ["2023-03-03"]
    # A range does not end before it begins.
    assert written_dates("from Dec 28, 2026 to Jan 3", today=WEDNESDAY) == ["2026-12-28", "2027-01-03"]
    # No year written: the coming one, or of the past the last one.
    coming = written_dates("book a flight on Jan 5 or the 25th of December", today=WEDNESDAY)
    assert coming == ["2027-01-05", "2026-12-25"]
    assert written_dates("what did I spend on Dec 25?", today=WEDNESDAY) == ["2025-12-25"]
    assert written_dates("on March 3, 10am", today=WEDNESDAY) == ["2027-03-03"]  # a clock time after it
    # The weekday a date is written with is that date's, not the coming one.
    assert written_dates("on Saturday, January 1, 2022", today=WEDNESDAY) == ["2022-01-01"]


def test_words_that_only_look_like_dates_are_none() -> None:
    for text in (
        "the 2 may be late",
        "I want to march 5 miles",
        "every Friday at 5",
        "Fridays at 5",
        "Is Black Friday worth it?",
        "read the Sunday Times",
        "sales in March 2024",
        "3/4 of the cake",
        "Feb 30",
    ):
        assert written_dates(text, today=WEDNESDAY) == [], text


def test_relative_dates_take_the_layout_the_argument_names() -> None:
    assert written_dates("tomorrow or on 5 January 2027", "MM/DD/YY", today=WEDNESDAY) == [
        "12/03/26",
        "01/05/27",
    ]


def test_date_times_pair_each_written_date_with_each_written_time() -> None:
    morning = datetime.datetime(2026, 12, 2, 9, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
    rfc = {"type": "string", "format": "date-time"}
    assert written_date_times("call me tomorrow at 5pm", rfc, morning) == ["2026-12-03T17:00:00+01:00"]
    assert written_date_times("at 3:15pm", rfc, morning) == ["2026-12-02T15:15:00+01:00"]  # today
    assert written_date_times("on Friday", rfc, morning) == ["2026-12-04T00:00:00+01:00"]  # from midnight
    assert written_date_times("from 9am to 5pm on Jan 5", rfc, morning) == [
        "2027-01-05T09:00:00+01:00",
        "2027-01-05T17:00:00+01:00",
    ]
    us = {"type": "string", "description": "When, as MM/DD/YYYY HH:MM"}
    assert written_date_times("next Friday at noon-ish, say 12:30", us, morning) == ["12/04/2026 12:30"]
    assert written_date_times("whenever suits you", rfc, morning) == []
