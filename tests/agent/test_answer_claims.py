"""Rules 15 to 17 of grounded answers (agent/answer_claims.py): a reply that claims a day, a search
that found nothing, or a call of its own, against the results beside it, is not passed off as the
answer. The replies are the embedded model's, as it wrote them after these results."""

from __future__ import annotations

import json

from edgehost.agent.grounding import check_answer

NOW = json.dumps(
    {
        "timezone": "Europe/London",
        "datetime": "2026-12-04T09:25:44+00:00",
        "day_of_week": "Friday",
        "is_dst": False,
    }
)
FOUND = "recipes/pasta.md:1: # Garlic pasta"


def test_a_weekday_the_result_does_not_give_is_not_grounded() -> None:
    grounding = check_answer("The answer is Sunday,", results=[NOW], question="what day is it")
    assert not grounding.grounded
    assert "Sunday" in grounding.reason


def test_the_weekday_and_month_a_result_date_stands_for_are_grounded() -> None:
    # The result writes 2026-12-04, not "December": the date stands for its month and weekday.
    assert check_answer("Today is Friday, 4 December.", results=[NOW], question="what day is it").grounded


def test_the_next_day_is_grounded_only_when_the_question_asks_for_it() -> None:
    assert check_answer("Tomorrow is Saturday.", results=[NOW], question="what day is it tomorrow?").grounded
    assert not check_answer("It is Saturday.", results=[NOW], question="what day is it?").grounded


def test_may_and_march_count_as_months_only_where_written_as_names() -> None:
    assert check_answer("You may want to read pasta.md again.", results=[FOUND], question="garlic?").grounded
    grounding = check_answer("You wrote pasta.md in March.", results=[FOUND], question="garlic?")
    assert not grounding.grounded
    assert "March" in grounding.reason


def test_saying_nothing_was_found_after_a_search_that_found_something_is_not_grounded() -> None:
    grounding = check_answer(
        "It appears that no recipes using garlic were found.",
        results=[FOUND],
        question="Do any of my recipes use garlic?",
        arguments=[{"path": "recipes/", "contains": "garlic"}],
    )
    assert not grounding.grounded
    assert "found something" in grounding.reason
    assert check_answer("Yes: pasta.md has garlic.", results=[FOUND], question="any garlic?").grounded


def test_saying_nothing_was_found_after_a_search_that_says_so_is_grounded() -> None:
    assert check_answer(
        "No files were found.", results=["No files match 'garlic'."], question="any garlic?"
    ).grounded


def test_a_tool_name_written_as_a_call_or_as_a_result_is_not_grounded() -> None:
    for answer, result, question in (
        (
            '{ "name":"git__git_create_branch" }',
            "Switched to branch 'feature/login'",
            "Switch to feature/login",
        ),
        ("Switched. git__git_checkout", "Switched to branch 'main'", "checkout main pls"),
        (
            "**files__list_directory(notes.txt)** returned: The dentist is on Thursday (Notes.txt)",
            "added a line at the end of notes.txt",
            "Now add a line saying the dentist is on Thursday",
        ),
    ):
        grounding = check_answer(answer, results=[result], question=question)
        assert not grounding.grounded, answer
        assert "tool name" in grounding.reason


def test_a_name_with_two_underscores_that_a_result_writes_is_grounded() -> None:
    result = "config.py:3: CACHE__SIZE = 64"
    assert check_answer(
        "It sets CACHE__SIZE to 64.", results=[result], question="what is the cache size?"
    ).grounded


def test_a_day_a_source_abbreviates_or_dates_another_way_is_grounded() -> None:
    info = "path: notes.txt\nmodified: Fri Dec 04 2026 09:25:44 GMT+0000"
    reply = "notes.txt was last changed on Friday, 4 December 2026."
    assert check_answer(reply, results=[info], question="when did notes.txt change?").grounded


def test_nothing_else_found_or_a_search_that_counts_zero_is_grounded() -> None:
    reply = "Only pasta.md uses garlic; no other recipes were found."
    assert check_answer(reply, results=[FOUND], question="Do any of my recipes use garlic?").grounded
    assert check_answer(
        "No matching files were found.", results=["Found 0 matching files."], question="any garlic?"
    ).grounded


def test_a_tool_name_is_read_in_any_case() -> None:
    result = "config.py:3: CACHE__SIZE = 64"
    assert check_answer(
        "It sets cache__size to 64.", results=[result], question="what is the cache size?"
    ).grounded
