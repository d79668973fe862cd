"""Grounded answers (decision 11): which answers after a tool are passed off as answers, and what the
user sees instead of one that ignores the result."""

from __future__ import annotations

import json

from edgehost.agent.answer_numbers import numbers_in
from edgehost.agent.grounding import check_answer
from edgehost.agent.result_rendering import (
    answer_with_results,
    render_result,
    ungrounded_answer_text,
    without_result_frames,
)

TEMPERATURES = json.dumps({"zones": [{"name": "soc", "celsius": 45.23}, {"name": "gpu", "celsius": 41.0}]})


def test_an_invented_temperature_is_not_grounded_and_names_the_number() -> None:
    grounding = check_answer("Currently, the board is 2307.2 Celsius.", results=[TEMPERATURES])
    assert not grounding.grounded
    assert grounding.invented == ("2307.2",)
    assert "2307.2" in grounding.reason


def test_a_number_from_the_result_even_rounded_is_grounded() -> None:
    for answer in ("The SoC is at 45.23 °C.", "The SoC is at 45.2 °C.", "About 45 degrees; the GPU 41."):
        assert check_answer(answer, results=[TEMPERATURES]).grounded, answer


def test_rounding_must_be_to_the_places_written() -> None:
    # 46 is not 45.23 rounded to a whole number; 978 is 978.8 cut to one.
    assert not check_answer("The SoC is at 46 °C.", results=[TEMPERATURES]).grounded
    assert check_answer("978 MB are used.", results=['{"used_mb": 978.8}']).grounded
    assert not check_answer("977 MB are used.", results=['{"used_mb": 978.8}']).grounded


def test_numbers_from_the_question_and_the_arguments_count_and_so_do_list_lengths() -> None:
    assert check_answer("There are 2 zones.", results=[TEMPERATURES]).grounded
    assert check_answer(
        "12 plus 30 is 42.", results=["The sum of 12 and 30 is 42."], question="Add 12 and 30"
    ).grounded
    assert check_answer(
        "Tokyo is 9 hours ahead.", results=['{"datetime": "2026-11-24T19:00"}'], arguments=[{"offset": 9}]
    ).grounded


def test_an_empty_or_looping_answer_is_not_grounded() -> None:
    assert not check_answer("  ", results=[TEMPERATURES]).grounded
    loop = "This is a server, which is why it's a web server. " * 3
    assert "repeats itself" in check_answer(loop, results=[TEMPERATURES]).reason
    assert not check_answer("45 °C.", results=[TEMPERATURES], stopped_for_repetition=True).grounded


def test_a_list_of_three_items_is_not_mistaken_for_repetition() -> None:
    answer = "The SoC is at 45 °C. The GPU is at 41 °C. Both are fine."
    assert check_answer(answer, results=[TEMPERATURES]).grounded


def test_an_answer_without_numbers_is_grounded_unless_the_question_asks_for_an_amount() -> None:
    assert check_answer("The board is cool.", results=[TEMPERATURES], question="Is the board OK?").grounded
    memory = '{"total_mb": 23944, "available_mb": 21702}'
    vague = check_answer("The RAM is nearly full.", results=[memory], question="How much memory is free?")
    assert not vague.grounded and "amount without the result's numbers" in vague.reason
    assert check_answer("21702 MB are free.", results=[memory], question="How much memory is free?").grounded
    # The question's own number is not the amount asked for.
    assert not check_answer(
        "Gauge 3 reads fine.", results=['{"value": 7.5}'], question="What's the temperature on gauge 3?"
    ).grounded
    # Nothing measured: nothing to hold the answer to.
    assert check_answer("It is fine.", results=["ok"], question="How hot is it?").grounded


def test_numbers_are_read_as_written_with_thousands_separators() -> None:
    assert numbers_in("1,024 MB free of 8192.5, up 3 days") == ["1,024", "8192.5", "3"]
    assert check_answer("1,024 MB are free.", results=['{"available_mb": 1024}']).grounded


def test_structured_results_render_as_short_lines() -> None:
    text = render_result(TEMPERATURES)
    assert text.splitlines() == ["- zones:", "  - name soc, celsius 45.23", "  - name gpu, celsius 41.0"]
    assert render_result(json.dumps({"zones": []})) == "- zones: none"
    long = render_result("\n".join(f"line {i}" for i in range(40)), max_lines=5)
    assert long.splitlines()[-1] == "… (35 more lines in the tool card)"


def test_the_replacement_shows_the_result_and_marks_the_models_reply() -> None:
    grounding = check_answer("It is 2307.2 Celsius.", results=[TEMPERATURES])
    text = ungrounded_answer_text([("board__temperatures", TEMPERATURES)], "It is 2307.2 Celsius.", grounding)
    assert text.startswith("**board__temperatures** returned:")
    assert "celsius 45.23" in text
    assert "> It is 2307.2 Celsius." in text
    assert "does not match this result" in text
    assert "The model's reply" not in ungrounded_answer_text(
        [("board__temperatures", TEMPERATURES)], "", check_answer("", results=[TEMPERATURES])
    )


def test_a_grounded_answer_after_the_hosts_call_follows_the_result_it_does_not_repeat() -> None:
    """The 135M model's "the board has stayed up all week" passes the rules after 3 hours of uptime:
    the user reads the result first."""
    uptime = "The board has been up for 3 h 8 min since it booted (11335.62 seconds)."
    text = answer_with_results([("board__uptime", uptime)], "Yes, the board has stayed up all week.")
    assert text == f"**board__uptime** returned:\n\n{uptime}\n\nYes, the board has stayed up all week."
    echoed = answer_with_results([("board__uptime", uptime)], f"{uptime}")
    assert echoed == f"**board__uptime** returned:\n\n{uptime}"


def test_a_result_frame_in_the_models_own_spelling_ends_its_answer() -> None:
    assert (
        without_result_frames("The quick brown fox [RESULT name=everything__echo]") == "The quick brown fox"
    )
    assert without_result_frames("Nothing found. [end_tool_result]\nmore") == "Nothing found."
    assert without_result_frames("Done.\n[tool_result name=x]\n12 files") == "Done."
    # The heading of a result as the host renders it, copied from an earlier answer with made-up lines.
    copied = "**memory__delete_relations** returned:\n\n- entityName: Max\n- removedObservations: none"
    assert without_result_frames(copied) == ""
    assert without_result_frames(f"Removed.\n\n{copied}") == "Removed."
    # Words that only look alike stay: results, a bracketed note, a result named in prose.
    kept = "The [results] are in; [note] the result [3] stands."
    assert without_result_frames(kept) == kept


def test_list_numbering_is_not_a_number_the_answer_states() -> None:
    answer = "1. A note about the plumber.\n2. It is for Monday."
    assert check_answer(answer, results=["Call the plumber on Monday."]).grounded
    assert not check_answer("1. The plumber comes at 9.", results=["Call the plumber on Monday."]).grounded


def test_after_a_tool_that_found_nothing_no_answer_passes_for_one() -> None:
    # A board without thermal sensors: whatever the model says, the user reads that nothing was found.
    empty = json.dumps({"zones": []})
    grounding = check_answer("The board is cool and quiet.", results=[empty])
    assert not grounding.grounded and grounding.reason == "the tool returned nothing"
    text = ungrounded_answer_text([("board__temperatures", empty)], "The board is cool and quiet.", grounding)
    assert "- zones: none" in text and "(the tool returned nothing)" in text
    assert "does not match" not in text  # it may well say so itself; nothing in it comes from the tool
    assert not check_answer("None found.", results=["", "[]", '{"a": {"b": null}}']).grounded
    one_has_data = check_answer(
        "The board is cool.", results=[empty, TEMPERATURES], question="Is the board hot?"
    )
    assert one_has_data.grounded


def test_a_reply_that_says_nothing_of_the_result_gives_way_to_it() -> None:
    # After a delete whose path the user changed, the 135M model answered "True."; on a machine without
    # thermal sensors it answered "This is not possible." though the result says why.
    deleted = check_answer(
        "True.",
        results=["Deleted other.txt"],
        question="delete readme.txt",
        arguments=[{"path": "other.txt"}],
    )
    assert not deleted.grounded and deleted.reason == "it says nothing of the result"
    no_sensors = json.dumps({"zones": [], "note": "This machine has no thermal sensors."})
    assert not check_answer(
        "This is not possible.", results=[no_sensors], question="How hot is the board?"
    ).grounded
    text = ungrounded_answer_text([("files__delete_file", "Deleted other.txt")], "True.", deleted)
    assert text == "**files__delete_file** returned:\n\nDeleted other.txt"  # the reply adds nothing
    # A word of the result, the call or the question, or a number the result explains, is something.
    assert check_answer(
        "The file was deleted.", results=["Deleted other.txt"], question="delete readme.txt"
    ).grounded
    assert check_answer("other.txt is gone.", results=["ok"], arguments=[{"path": "other.txt"}]).grounded
    assert check_answer("1,024 MB.", results=['{"available_mb": 1024}']).grounded


MEMORY = json.dumps({"total_mb": 24105.6, "available_mb": 22101.8, "used_mb": 2003.7})


def test_a_number_given_under_the_name_of_another_is_not_grounded() -> None:
    # Seen with the embedded model in the web page: the used memory given as the available memory.
    answer = (
        "The results of this tool are available to the user:\n\ntotal_mb - 24105.6\navailable_mb - 2003.7"
    )
    grounding = check_answer(answer, results=[MEMORY], question="How much memory is free?")
    assert not grounding.grounded
    assert "available_mb 2003.7" in grounding.reason


def test_a_name_with_its_own_number_in_any_of_the_usual_forms_is_grounded() -> None:
    for answer in (
        "total_mb - 24105.6\navailable_mb - 22101.8",
        "available mb: 22,101.8 of total_mb = 24105.6",
        "Used memory is 2003.7 MB; available_mb is 22102.",
        "The available_mb tells how much is free: 22101.8 MB.",
    ):
        assert check_answer(answer, results=[MEMORY], question="How much memory is free?").grounded, answer


def test_the_used_memory_called_available_in_words_is_not_grounded() -> None:
    # Seen with the embedded model in the web page's test: 2407.5 was used_mb.
    memory = json.dumps({"total_mb": 24105.6, "available_mb": 21698.0, "used_mb": 2407.5})
    answer = "The user has 2407.5 MB of memory available to them, which is the maximum allowed amount."
    grounding = check_answer(answer, results=[memory], question="How much memory is free?")
    assert not grounding.grounded
    assert "used_mb 2407.5 called available" in grounding.reason


def test_numbers_named_rightly_in_words_are_grounded() -> None:
    memory = json.dumps({"total_mb": 24105.6, "available_mb": 21698.0, "used_mb": 2407.5})
    for answer in (
        "Total memory is 24105.6 MB, of which 21698 MB is available.",
        "You have 2407.5 MB used and 21698 MB free.",
        "21698 MB are free; 2407.5 MB are in use.",
        "The board has 24105.6 MB in total and 21698 MB available.",
    ):
        assert check_answer(answer, results=[memory], question="How much memory is free?").grounded, answer


def test_an_answer_with_the_total_where_the_free_memory_was_asked_is_not_grounded() -> None:
    # Seen with the embedded model in the web page's test: the whole answer was "24105.6".
    memory = json.dumps({"total_mb": 24105.6, "available_mb": 21790.3, "used_mb": 2315.3})
    grounding = check_answer("24105.6", results=[memory], question="How much memory is free?")
    assert not grounding.grounded
    assert "total_mb where the question asks for available_mb" in grounding.reason
    for answer in ("21790.3 MB", "You have 21790.3 MB free of 24105.6 MB."):
        assert check_answer(answer, results=[memory], question="How much memory is free?").grounded, answer
    # A question naming no key, or every key, leaves the choice of figures to the answer.
    assert check_answer("24105.6 MB.", results=[memory], question="How much memory is there?").grounded


CLOCK = json.dumps(
    {
        "date": "2026-11-26",
        "time": "01:54:53",
        "weekday": "Thursday",
        "time_zone": "UTC",
        "utc_offset": "+00:00",
    }
)
TOKYO = json.dumps({"timezone": "Asia/Tokyo", "datetime": "2026-11-26T10:54:53+09:00", "is_dst": False})


def test_asked_the_time_an_answer_must_give_the_hours_and_minutes_the_tool_read() -> None:
    # Seen with the embedded model and board__clock: the date given as the time, and an hour of its own.
    wrong = check_answer(
        "The time is 2026-11-26, which is midnight.", results=[CLOCK], question="What time is it?"
    )
    assert not wrong.grounded and wrong.reason == "it does not give the time the tool read"
    assert check_answer("It is 01:54.", results=[CLOCK], question="What time is it?").grounded
    assert check_answer("It's 1:54 on Thursday.", results=[CLOCK], question="What's the time?").grounded
    # The time inside an ISO timestamp counts (its hour follows a "T"), and a wrong one does not.
    assert check_answer(
        "It is 10:54 in Tokyo.", results=[TOKYO], question="What time is it in Tokyo?"
    ).grounded
    assert not check_answer(
        "It is 01:54 in Tokyo.", results=[TOKYO], question="What time is it in Tokyo?"
    ).grounded
    # A question about the time zone asks for no time.
    assert check_answer("The time zone is UTC.", results=[CLOCK], question="What is the time zone?").grounded


MEMORY_8GB = json.dumps({"total_mb": 7884.8, "available_mb": 4888.7, "used_mb": 2996.1})
CPU = json.dumps({"cores": [{"cpu": 4, "cur_khz": 1152000, "max_khz": 2304000}]})


def test_a_share_written_as_a_percentage_of_one_objects_numbers_is_grounded() -> None:
    # A 1B model's correct arithmetic: 2996.1 of 7884.8 is 38 %, and 62 % is free.
    for answer in ("38 % of the memory is in use.", "Memory: 38% used, 62 percent free."):
        assert check_answer(answer, results=[MEMORY_8GB], question="How much memory is used?").grounded, (
            answer
        )
    # A share that is none of them, and one written without a percent sign, are invented.
    assert check_answer("50 % of the memory is in use.", results=[MEMORY_8GB]).invented == ("50",)
    assert check_answer("38 of the memory is in use.", results=[MEMORY_8GB]).invented == ("38",)
    # Two numbers of different objects make no share: each zone holds one temperature.
    assert not check_answer("The SoC runs at 91 % of the GPU's heat.", results=[TEMPERATURES]).grounded


def test_a_size_or_frequency_in_another_unit_is_grounded_when_the_unit_is_written() -> None:
    assert check_answer("7.7 GB in all, 2.9 GB used.", results=[MEMORY_8GB]).grounded
    assert check_answer("Core 4 runs at 1.2 GHz of its 2.3 GHz.", results=[CPU]).grounded
    assert check_answer("Core 4 runs at 3.1 GHz.", results=[CPU]).invented == ("3.1",)
    # Without a unit, a converted number reads as any other number.
    assert check_answer("The total is 7.7.", results=[MEMORY_8GB]).invented == ("7.7",)
    # Asked an amount, worked-out numbers are the result's numbers.
    assert check_answer("About 2.9 GB.", results=[MEMORY_8GB], question="How much memory is used?").grounded


def test_an_unfilled_template_or_a_reply_that_breaks_off_is_not_grounded() -> None:
    # Seen with the embedded model after files__make_directory and files__write_file.
    created = ["created notes.txt (5 bytes)"]
    assert "template" in check_answer("{PATH_RESULT}", results=created).reason
    assert "template" in check_answer("Done: {{result}}", results=created).reason
    assert "breaks off" in check_answer("The result is:", results=created).reason
    assert "breaks off" in check_answer("Here's the corrected code:**\n", results=created).reason
    assert check_answer("Created notes.txt: it holds 5 bytes.", results=created).grounded
    # Seen after git_log: the sentence stops where the commit should follow.
    log = ["Commit: e2d7e43 Author: A Message: Add readme"]
    assert "breaks off" in check_answer("The latest commit in my repo is", results=log).reason
    assert "breaks off" in check_answer("The latest commit is e2d7e43 and", results=log).reason
    assert check_answer("The latest commit is e2d7e43, Add readme", results=log).grounded
    assert check_answer("Is e2d7e43 the commit you want to look at?", results=log).grounded
    # Seen after git_diff_staged: an empty list item after the colon is still nothing after it.
    staged = ["Staged changes:\n"]
    assert (
        "breaks off" in check_answer("Yes, anything staged for commit right now is: -", results=staged).reason
    )
    # A sentence may end on "in" or "that" without its stop.
    for answer in (
        "e2d7e43 added the readme, and I showed you that",
        "e2d7e43 is the commit the readme came in",
    ):
        assert check_answer(answer, results=log).grounded, answer


def test_asked_an_amount_an_answer_may_say_in_words_that_there_is_none() -> None:
    # Seen on the web page: the correct answer was marked as not matching the result.
    none = ['{"zones": [], "note": "this machine has no readable temperature sensors (no thermal zones)"}']
    answer = "The board has no readable temperature sensors."
    assert check_answer(answer, results=none, question="How hot is the board?").grounded
    assert not check_answer("It is warm.", results=[TEMPERATURES], question="How hot is the board?").grounded


def test_a_command_or_an_address_in_no_result_is_not_grounded_but_quoted_code_is() -> None:
    """Seen after "Show me the last two lines of old.log": the 135M model offered a `sudo curl` of an
    address of its own, which passed every other rule (it names old.log)."""
    log = "2026-11-01 12:00 disk ok\n2026-11-02 12:00 disk ok"
    question, arguments = "Show me the last two lines of old.log", [{"path": "old.log", "tail": 2}]
    invented = (
        "You can use the following command to restore old.log from a backup: ```bash sudo curl"
        " https://backup.example/restore.sh -o old.bin"  # the model stopped inside its block
    )
    grounding = check_answer(invented, results=[log], question=question, arguments=arguments)
    assert not grounding.grounded and "a command or code" in grounding.reason
    quoted = "The last two lines are:\n```\n2026-11-01 12:00 disk ok\n2026-11-02   12:00 disk ok\n```"
    assert check_answer(quoted, results=[log], question=question, arguments=arguments).grounded
    # A file's text inside a structured result is quoted as the file has it.
    source = json.dumps({"path": "f.py", "content": "def f():\n    return 1\n"})
    assert check_answer("It reads:\n```python\ndef f():\n    return 1\n```", results=[source]).grounded
    page = "Welcome to Python.org"
    assert check_answer(
        "The page at https://python.org/ says Welcome.",
        results=[page],
        question="what does https://python.org say?",
    ).grounded
    linked = check_answer(
        "It says Welcome; read more at https://evil.example/x.",
        results=[page],
        question="what does python.org say?",
    )
    assert not linked.grounded and "an address" in linked.reason


def test_a_call_written_out_as_the_answer_is_not_grounded() -> None:
    """After "whats in draft.txt" was read, the 135M model's answer was the call again, as JSON the loop
    could not run; the user read a request instead of the letter."""
    read = ["Dear Mr. Martin,\n\nThank you for your letter."]
    written = '{ "name": "filesystem__read_file", "arguments": {"path:draft.txt"} }'
    assert "tool call" in check_answer(written, results=read, question="whats in draft.txt").reason
    staged = ["Added README.md to the staging area"]
    marked = '[TOOL_CALL]{"name": "git__git_add", "arguments": {"files": ["README.md"]}}[END_TOOL_CALL]'
    assert not check_answer(marked, results=staged, question="Stage README.md").grounded
    # Naming what ran is an answer.
    assert check_answer("README.md was added to the staging area.", results=staged).grounded


def test_an_answer_that_reports_a_failure_no_result_reports_is_not_grounded() -> None:
    """After notes.txt was read, the 135M model wrote that the file had a "file not found" error; the
    user would think the read failed."""
    notes = ["Call the plumber on Monday. The wifi password is on the fridge."]
    wrong = 'The wifi (note.txt) is a file with an error message "file not found".'
    checked = check_answer(wrong, results=notes, question="what did i write down about the wifi")
    assert not checked.grounded and "error" in checked.reason
    for claim in ("I couldn't open it.", "That file does not exist.", "It failed."):
        assert not check_answer(claim + " The wifi password is on the fridge.", results=notes).grounded
    # A result that holds the word lets the answer say it.
    log = ["2024-03-01 08:06:40 ERROR backup failed: disk full"]
    assert check_answer("The backup failed with an error: the disk was full.", results=log).grounded
    refused = ["Could not open the door: it is locked."]
    assert check_answer("It couldn't open the door, which is locked.", results=refused).grounded
    assert check_answer("The wifi password is on the fridge.", results=notes).grounded
    # Another call of the turn that failed may be reported.
    missing = ["Error executing tool read_file: 'todo.txt' is not in the files folder"]
    both = "The wifi password is on the fridge; todo.txt gave an error."
    assert check_answer(both, results=notes, failed=missing).grounded


def test_a_reply_made_mostly_of_words_from_no_source_is_not_grounded() -> None:
    found = [
        json.dumps(
            {
                "entities": [
                    {
                        "name": "Clara",
                        "entityType": "sister",
                        "observations": ["my sister Clara lives in Porto"],
                    }
                ],
                "relations": [],
            }
        )
    ]
    question = "What do you know about Clara?"
    # Seen with the embedded model after search_nodes: it names Clara, and the rest is made up.
    invented = "The 'Clara' refers to a member of the edge host, which is a server for the EdgeHost-based AI."
    assert (
        check_answer(invented, results=found, question=question).reason
        == "most of what it says is in no result"
    )
    # A larger model's own words around what the result says pass.
    for answer in (
        "Clara is your sister, and she lives in Porto.",
        "According to what I have stored, your sister Clara lives in Porto.",
    ):
        assert check_answer(answer, results=found, question=question).grounded, answer


def test_a_reply_that_repeats_the_question_is_not_grounded_where_the_result_says_more() -> None:
    # Seen with the embedded model: the question back, the clock's answer left out.
    now = json.dumps(
        {"timezone": "Europe/London", "datetime": "2026-12-04T09:51:32+00:00", "day_of_week": "Friday"}
    )
    grounding = check_answer("What day is it?", results=[now], question="what day is it")
    assert not grounding.grounded
    assert grounding.says_nothing
    assert "repeats the question" in grounding.reason
    # An echo of the question is the whole result; so is a fact the memory server kept as written.
    assert check_answer(
        "The quick brown fox", results=["Echo: quick brown fox"], question="Echo back: the quick brown fox"
    ).grounded
    kept = json.dumps(
        [{"name": "Biscuit", "entityType": "dog", "observations": ["my dog Biscuit is five years old"]}]
    )
    assert check_answer(
        "My dog Biscuit is five years old.",
        results=[kept],
        question="Remember that my dog Biscuit is five years old.",
    ).grounded


def test_a_yes_or_no_answer_in_the_questions_words_is_grounded() -> None:
    now = json.dumps(
        {"timezone": "Europe/London", "datetime": "2026-12-04T09:51:32+00:00", "day_of_week": "Friday"}
    )
    assert check_answer("Yes, today is Friday.", results=[now], question="Is today Friday?").grounded
    staged = ["Staged changes:\n(none)"]
    assert check_answer(
        "notes.txt is not staged.", results=staged, question="Did notes.txt get staged?"
    ).grounded


def test_a_number_alone_answers_a_count() -> None:
    assert check_answer("4.", results=['{"cpu_count": 4}'], question="How many CPUs are there?").grounded
