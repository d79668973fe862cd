"""The values a call the host chose may take: what the question holds (agent/grounded_arguments.py),
over the real reference servers' schemas."""

from __future__ import annotations

import asyncio
import datetime
from pathlib import Path
from typing import Any

import pytest

from edgehost.agent.grammar import tool_call_grammar
from edgehost.agent.grounded_arguments import grounded_schema, path_from_question
from edgehost.agent.question_values import path_values, placed_paths, question_spans
from edgehost.agent.tools import ToolSpec
from edgehost.agent.written_texts import told_facts, written_addition, written_out, written_replacement
from edgehost.servers.files import build_server

PATH = "Path relative to the files folder, e.g. 'notes/todo.txt'."


def enums(schema: dict[str, Any]) -> dict[str, Any]:
    return {key: value.get("enum") for key, value in schema["properties"].items()}


def test_spans_are_runs_of_words_without_filler_at_their_edges_and_quoted_phrases_whole() -> None:
    spans = question_spans("Save the text 'buy milk' to shopping.txt")
    assert spans[0] == "buy milk"
    assert {"shopping.txt", "milk", "buy milk to shopping.txt"} <= set(spans)
    assert not {"Save", "the", "to", "Save the text"} & set(spans)


def test_a_set_phrase_of_when_or_how_is_no_value_nor_part_of_one() -> None:
    """ "What do you know about me so far?" searched the memory for "far"; "keep that in mind from now
    on" offered "mind" and "now" as a kept thing's name."""
    assert question_spans("What do you know about me so far?") == []
    kept = question_spans("I'm allergic to peanuts, please keep that in mind from now on.")
    assert not {"mind", "now", "mind from now"} & set(kept) and "allergic to peanuts" in kept
    hot = question_spans("Is the board running hot right now?")
    assert "running hot" in hot and not [span for span in hot if "now" in span or "right" in span]
    assert "Far Cry" in question_spans("Is Far Cry installed?")  # "far" alone is a word like any
    # Phrases a user may mean as the value itself stay.
    assert "thank" in question_spans("Write thank you for the lovely dinner to card.txt")
    assert "course books" in question_spans("Find the list of course books")


def test_apostrophes_inside_words_quote_nothing() -> None:
    """ "My sister Anna's birthday is on 12 May, don't let me forget it" offered the memory entity the
    "quoted" run "s birthday is on 12 May, don" first."""
    spans = question_spans("My sister Anna's birthday is on 12 May, don't let me forget it")
    assert "Anna" in spans and not any("birthday is on 12 May, don" in span for span in spans)
    assert question_spans("Name the cake 'Anna's cake' please")[0] == "Anna's cake"
    assert question_spans("it's called 'draft two' now")[0] == "draft two"


def test_a_span_keeps_the_apostrophe_it_crosses_and_never_starts_or_ends_on_its_tail() -> None:
    """WORD reads "Okoye's" as "Okoye" and "s": spans once offered "Okoye s entry", "he s" and "s
    scared", and a memory entity was deleted by the name "Biscuit s"."""
    spans = question_spans("Add to Ms Okoye's entry that Tim's scared of thunder, and don't wait.")
    assert {"Ms Okoye", "Okoye's entry", "Tim's scared", "Tim's scared of thunder"} <= set(spans)
    assert not [span for span in spans if " s " in f" {span} " or span.endswith("'s") or span == "don"]
    assert question_spans("It’s Anna’s cake") == ["Anna", "cake", "Anna’s cake"]


def test_a_pronoun_is_never_a_value_of_its_own() -> None:
    """Asked alone, "Forget the bit about his age." deleted the memory entity "his": a pronoun stands
    for a name the question does not write (agent/references.py reads a follow-up's), so no span
    starts or ends with one, as with "it" and "my"."""
    assert question_spans("Forget the bit about his age.") == ["bit", "age", "bit about his age"]
    assert "she" not in question_spans("Also remember that she only works mornings.")
    assert "record" not in question_spans("Lena is Max's sister, record that.")


def test_a_path_is_a_file_name_of_the_question_or_the_folder_it_names() -> None:
    optional = {
        "type": "object",
        "properties": {"path": {"type": "string", "description": PATH, "default": ""}},
    }
    assert enums(grounded_schema(optional, "Delete old.log")) == {"path": ["old.log", ""]}
    assert enums(grounded_schema(optional, "Read recipes/pasta.md for me.")) == {
        "path": ["recipes/pasta.md", ""]
    }
    assert enums(grounded_schema(optional, "What's inside the recipes folder?")) == {"path": ["recipes", ""]}
    assert enums(grounded_schema(optional, "Create a folder called photos.")) == {"path": ["photos", ""]}
    # A folder written with its "/" is one path, whole or relative.
    assert path_values("move notes.txt into archive/") == ["archive/", "notes.txt"]
    assert path_values("list /home/anna/archive/ please") == ["/home/anna/archive/"]
    # No name in the question: an optional path is left out, so the server's default (the folder itself)
    # holds and the model cannot fill it with "" or a word of its own.
    assert enums(grounded_schema(optional, "List the files in my folder.")) == {}


def test_time_zones_come_from_the_cities_the_question_names(reference_tools: dict[str, ToolSpec]) -> None:
    convert = dict(reference_tools["time__convert_time"].input_schema)
    values = enums(grounded_schema(convert, "Convert 3pm Berlin time to Sydney time."))
    assert values == {
        "source_timezone": ["Europe/Berlin"],
        "time": ["15:00"],
        "target_timezone": ["Australia/Sydney"],
    }
    now = dict(reference_tools["time__get_current_time"].input_schema)
    assert enums(grounded_schema(now, "What time is it in Tokyo?")) == {"timezone": ["Asia/Tokyo"]}
    # No city named: the zones the description offers (its local-time fallback among them).
    assert "UTC" in enums(grounded_schema(now, "What time is it?"))["timezone"]


def test_numbers_are_the_questions_and_an_enum_is_cut_to_the_choices_named(
    reference_tools: dict[str, ToolSpec],
) -> None:
    add = dict(reference_tools["everything__get-sum"].input_schema)
    # As many numbers as arguments, none written beside an argument's words: in the order written.
    assert enums(grounded_schema(add, "What is 250 plus 175?")) == {"a": [250], "b": [175]}
    annotated = dict(reference_tools["everything__get-annotated-message"].input_schema)
    assert grounded_schema(annotated, "show an error")["properties"]["messageType"]["enum"] == ["error"]
    assert grounded_schema(annotated, "show an annotated message")["properties"]["messageType"]["enum"] == [
        "error",
        "success",
        "debug",
    ]


def test_an_optional_number_the_question_does_not_give_is_left_out() -> None:
    schema = {
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "default": 10}},
        "required": ["query"],
    }
    assert enums(grounded_schema(schema, "Search the notes for pasta")).keys() == {"query"}
    assert enums(grounded_schema(schema, "Show 3 notes about pasta"))["limit"] == [3]


def test_nested_values_are_grounded_too(reference_tools: dict[str, ToolSpec]) -> None:
    create = dict(reference_tools["memory__create_entities"].input_schema)
    item = grounded_schema(create, "Remember that my sister Anna lives in Lyon.")["properties"]["entities"][
        "items"
    ]
    assert {"Anna", "Lyon", "sister Anna"} <= set(item["properties"]["name"]["enum"])
    assert item["properties"]["observations"]["enum"] == [["my sister Anna lives in Lyon"]]


def test_a_grounded_grammar_admits_only_the_questions_values() -> None:
    pytest.importorskip("llama_cpp")
    tool = ToolSpec(
        "files__read_file",
        "files",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string", "description": PATH}},
            "required": ["path"],
        },
    )
    grammar = tool_call_grammar("bracket", [tool], pinned=True, grounded_in="What's in notes.txt?")
    assert '\\"notes.txt\\"' in grammar
    assert "notes/todo.txt" not in grammar  # the description's example is not in the question


SEARCH = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "File name to look for.", "default": ""},
        "contains": {"type": "string", "description": "Only files whose text contains this.", "default": ""},
    },
}


def test_an_empty_default_is_not_offered_as_a_text_value() -> None:
    # Offered, "" let the model search for nothing; the argument may still be left out.
    values = enums(grounded_schema(SEARCH, "Find the files that mention pasta.", "files__search_files"))
    assert "" not in values["contains"] and "pasta" in values["contains"]


def test_a_files_name_is_one_the_question_writes_not_what_the_files_say() -> None:
    # "pasta" is what the files say: a search of names for it found nothing in a folder of recipes.
    assert "pattern" not in enums(
        grounded_schema(SEARCH, "Find the files that mention pasta.", "files__search_files")
    )
    assert enums(grounded_schema(SEARCH, "find every *.md file", "files__search_files"))["pattern"] == [
        "*.md"
    ]
    called = enums(grounded_schema(SEARCH, "find the file called budget.xlsx", "files__search_files"))
    assert called["pattern"] == ["budget.xlsx"]


def test_a_kind_of_file_named_by_its_extension_is_looked_for_by_its_glob_not_its_text() -> None:
    # "find all the .md files" searched the files whose text holds "md".
    values = enums(grounded_schema(SEARCH, "find all the .md files", "files__search_files"))
    assert values["pattern"] == ["*.md"] and not {"md", "md files"} & set(values["contains"])
    assert enums(grounded_schema(SEARCH, "any .txt file here?", "files__search_files"))["pattern"] == [
        "*.txt"
    ]
    # A dot between words or after one is no extension.
    assert "pattern" not in enums(
        grounded_schema(SEARCH, "Find the files that say e.g. pasta.", "files__search_files")
    )


def test_an_undescribed_pattern_is_a_glob_where_the_tools_description_says_so(
    reference_tools: dict[str, ToolSpec],
) -> None:
    # The filesystem server's search_files says "glob-style patterns" of its undescribed pattern only,
    # and that '**/*.ext' matches in all subdirectories: its '*.md' matches the searched folder alone.
    search = reference_tools["filesystem__search_files"]

    def pattern(question: str, description: str = search.description) -> list[str] | None:
        return enums(grounded_schema(search.input_schema, question, search.name, description=description))[
            "pattern"
        ]

    assert pattern("find all the .md files") == ["**/*.md"]
    assert pattern("search for *.log files in the logs folder") == ["**/*.log"]  # the folder is no name
    assert pattern("find recipes/pasta.md") == ["recipes/pasta.md"]  # a path is where it is
    assert pattern("find all the .md files", description="Find files by a glob pattern.") == ["*.md"]
    assert "md files" in (pattern("find all the .md files", description="Returns file names.") or [])


def test_the_folder_a_question_names_is_where_a_search_looks_not_what_it_looks_for() -> None:
    searched = {**SEARCH, "properties": {**SEARCH["properties"], "path": {"type": "string", "default": ""}}}
    garlic = "Do any of my recipes use garlic? (recipes/)"
    values = enums(grounded_schema(searched, garlic, "files__search_files"))
    assert values["path"] == ["recipes/", ""]
    assert "garlic" in values["contains"] and "recipes" not in values["contains"]
    # The 135M model then searched for "recipes use": no run of words with the folder's in it is offered.
    assert not [value for value in values["contains"] if "recipes" in value]
    # A phrase the question quotes is the user's own, whatever words of the path it has.
    commit = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "message": {"type": "string"}},
        "required": ["path", "message"],
    }
    said = enums(grounded_schema(commit, "Commit README.md with the message 'Update README'", "commit"))
    assert said["path"][0] == "README.md" and said["message"][0] == "Update README"
    wifi = enums(grounded_schema(searched, "search notes.txt for the wifi password", "files__search_files"))
    assert wifi["contains"] == ["wifi", "password", "wifi password"]
    # Looking by name is left out, so the search must look by text: the server refuses neither.
    assert "contains" in grounded_schema(searched, garlic, "files__search_files")["required"]
    assert "contains" not in grounded_schema(searched, "find every *.md file", "files__search_files").get(
        "required", []
    )


def test_a_word_of_the_tools_own_name_is_offered_last_and_only_where_a_value_must_be_given() -> None:
    values = enums(grounded_schema(SEARCH, "Find the files that mention pasta.", "files__search_files"))
    assert values["contains"][:3] == ["mention", "pasta", "mention pasta"]
    assert "files" not in values["contains"]  # optional: "files" would narrow the search to nothing
    required = {**SEARCH, "required": ["contains"]}
    values = enums(grounded_schema(required, "Find the files that mention pasta.", "files__search_files"))
    assert values["contains"][-1] == "files"  # it names the tool, not what to look for


def test_an_optional_argument_the_question_gives_no_value_for_is_left_out() -> None:
    none_named = enums(grounded_schema(SEARCH, "files", "files__search_files"))
    assert none_named == {}  # the call is search_files({}), not search_files({"pattern": ""})


def test_a_path_written_from_the_root_or_home_is_a_value_whole() -> None:
    assert path_values("list the files in /tmp?") == ["/tmp"]
    assert path_values("what is in ~/notes/todo.txt.") == ["~/notes/todo.txt"]
    assert path_values("read the file at /etc/hostname") == ["/etc/hostname"]  # not also etc/hostname
    assert path_values("fetch https://example.com/a") == []  # a URL's slashes are not a path
    # A number is no file name, though "17.5" reads like one with its extension; "syslog.1" is one.
    assert path_values("add 17.5 and 24.25") == []
    assert path_values("make a folder called 2.5") == []
    assert path_values("show me syslog.1 and the last 3.5 lines") == ["syslog.1"]


def test_the_one_path_the_question_names_fills_a_path_the_model_left_out() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string", "default": ""}}}
    assert path_from_question({}, schema, "List the files in /tmp") == {"path": "/tmp"}
    assert path_from_question({"path": " "}, schema, "List the files in /tmp") == {"path": "/tmp"}
    assert path_from_question({"path": "notes"}, schema, "List the files in /tmp") is None  # given
    assert path_from_question({}, schema, "List my files") is None  # the question names none
    assert path_from_question({}, schema, "Compare /tmp/a.txt with /tmp/b.txt") is None  # which one?
    two = {"type": "object", "properties": {"source": {"type": "string"}, "destination": {"type": "string"}}}
    assert path_from_question({}, two, "Move /tmp/a.txt") is None  # which field?


def test_a_number_written_beside_an_arguments_words_goes_to_that_argument_alone() -> None:
    # Offered every number in the question's order, the embedded model gave the house 1800 bedrooms
    # and 3 square feet (BFCL simple_python_110).
    schema = {
        "type": "object",
        "properties": {
            "area": {"type": "integer", "description": "The area of the house in square feet"},
            "bedrooms": {"type": "integer", "description": "Number of bedrooms"},
            "floors": {"type": "integer"},
        },
        "required": ["area", "bedrooms"],
    }
    question = "Price a house with 3 bedrooms and 1800 square feet on 2 floors"
    grounded = grounded_schema(schema, question)["properties"]
    assert grounded["area"]["enum"] == [1800]
    assert grounded["bedrooms"]["enum"] == [3]
    assert grounded["floors"]["enum"] == [2]  # named by its own word
    # Beside no argument's words, as many numbers as required arguments go to them in the order written;
    # the optional one, with no number left, is left out.
    unnamed = grounded_schema(schema, "one with 3 and 1800")["properties"]
    assert unnamed["area"]["enum"] == [3] and unnamed["bedrooms"]["enum"] == [1800]
    assert "floors" not in unnamed
    # More numbers than arguments: each keeps them all, in the question's order.
    many = grounded_schema(schema, "one with 3, 1800 or 2")["properties"]
    assert many["area"]["enum"] == [3, 1800, 2] and many["bedrooms"]["enum"] == [3, 1800, 2]


def test_numbers_are_read_as_people_write_them() -> None:
    schema = {
        "type": "object",
        "properties": {
            "distance": {"type": "integer", "description": "Distance travelled in miles"},
            "dice": {"type": "integer", "description": "How many dice are rolled"},
            "annual_return": {"type": "number", "description": "The annual return rate"},
            "flows": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["distance", "dice", "annual_return", "flows"],
    }
    question = "A CO2-free car travels 12,000 miles; roll two dice; 7% a year; flows [200,300,400]"
    grounded = grounded_schema(schema, question)["properties"]
    assert grounded["distance"]["enum"] == [12000]  # not 12 and 0, nor the 2 of CO2
    assert grounded["dice"]["enum"] == [2]
    assert grounded["annual_return"]["enum"] == [0.07]  # a rate takes 7% as a fraction
    assert grounded["flows"]["enum"] == [[200, 300, 400]]  # the list whole, its numbers no one else's


def test_a_signed_number_keeps_its_sign_when_placed() -> None:
    schema = {
        "type": "object",
        "properties": {"offset": {"type": "integer"}, "count": {"type": "integer"}},
        "required": ["offset", "count"],
    }
    grounded = grounded_schema(schema, "set the offset to -2 and the count to 2")["properties"]
    assert grounded["offset"]["enum"] == [-2] and grounded["count"]["enum"] == [2]


def test_a_nullable_argument_keeps_its_own_choices_and_a_required_one_stays_answerable() -> None:
    schema = {
        "type": "object",
        "properties": {
            "since": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "e.g. 'yesterday'"},
            "order": {
                "anyOf": [{"type": "string", "enum": ["asc", "desc"]}, {"type": "null"}],
                "default": None,
            },
        },
        "required": ["since"],
    }
    grounded = grounded_schema(schema, "show them in desc order")["properties"]
    assert grounded["order"] == schema["properties"]["order"]  # its own choices, or null
    assert grounded["since"] == schema["properties"]["since"]  # required, nothing of its kind: free
    told = grounded_schema(schema, "what changed since yesterday")["properties"]
    assert told["since"]["enum"] == ["yesterday"]


def test_a_date_is_offered_in_the_format_its_argument_describes() -> None:
    schema = {
        "type": "object",
        "properties": {
            "start_date": {"type": "string", "description": "The first night, in the format MM-DD-YYYY."},
            "until": {"type": "string", "format": "date"},
        },
        "required": ["start_date", "until"],
    }
    question = "Book from May 12, 2022 until the 3rd of June 2022, please"
    grounded = grounded_schema(schema, question)["properties"]
    assert grounded["start_date"]["enum"] == ["05-12-2022", "06-03-2022"]
    assert grounded["until"]["enum"] == ["2022-05-12", "2022-06-03"]  # ISO 8601 when none is named
    # No year written: the coming one; relative to today, the day it names (agent/question_dates.py).
    today = datetime.date.today()
    may = datetime.date(today.year + (today > datetime.date(today.year, 5, 12)), 5, 12)
    assert grounded_schema(schema, "Book from May 12")["properties"]["until"]["enum"] == [may.isoformat()]


def test_a_date_argument_is_offered_the_day_a_relative_date_names() -> None:
    # A flight search that requires its date laid out: a small model wrote one of its own ("2023-05-12")
    # for "tomorrow", as nothing of the question was a date.
    schema = {
        "type": "object",
        "properties": {
            "destination": {"type": "string", "description": "The city to fly to."},
            "departure_date": {"type": "string", "description": "The day of departure, YYYY-MM-DD."},
        },
        "required": ["destination", "departure_date"],
    }
    today = datetime.date.today()
    grounded = grounded_schema(schema, "Find me a flight to Lisbon for tomorrow")["properties"]
    assert grounded["departure_date"]["enum"] == [(today + datetime.timedelta(days=1)).isoformat()]


def test_a_folder_named_as_a_word_of_the_tools_name_in_another_number_is_still_offered() -> None:
    # A text made only of the tool name's words in another number ("flight" of find_flights) is no
    # value; a path is one all the same: "notes/" is a folder list_note may read.
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "The folder to read"}},
        "required": ["path"],
    }
    grounded = grounded_schema(schema, "List the note files in notes/", "docs__list_note")
    assert grounded["properties"]["path"]["enum"] == ["notes/"]


def test_a_date_time_argument_is_not_held_to_a_date_alone() -> None:
    # "tomorrow at 5pm" offered as tomorrow's date alone would lose the hour.
    schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "remind_date": {"type": "string", "format": "date-time"},
            "due_date": {"type": "string", "description": "When it is due, a date and time (ISO 8601)."},
        },
        "required": ["title", "remind_date", "due_date"],
    }
    grounded = grounded_schema(schema, "Remind me tomorrow at 5pm to call mom")["properties"]
    tomorrow = datetime.date.today() + datetime.timedelta(days=1)
    # The date and the hour together, as RFC 3339 with the local offset the format asks for.
    at_five = (
        datetime.datetime.combine(tomorrow, datetime.time(17)).astimezone().isoformat(timespec="seconds")
    )
    for key in ("remind_date", "due_date"):
        assert grounded[key]["enum"] == [at_five], grounded[key]


def test_a_date_time_in_a_described_layout_is_laid_out_so() -> None:
    schema = {
        "type": "object",
        "properties": {
            "start": {"type": "string", "description": "Start of the meeting, format YYYY-MM-DD HH:MM:SS"},
            "when": {"type": "string", "description": "Time of day as HH:MM"},
        },
        "required": ["start", "when"],
    }
    grounded = grounded_schema(schema, "Set up a meeting on March 3, 2027 at 10:30am")["properties"]
    assert grounded["start"]["enum"] == ["2027-03-03 10:30:00"]  # not the clock time alone
    assert grounded["when"]["enum"] == ["10:30"]  # a time of day alone stays one


def test_one_date_written_states_only_one_of_two_optional_dates() -> None:
    # "since last Monday" gave both start_date and end_date that Monday: the range became one day.
    day = {"type": "string", "format": "date"}
    schema = {
        "type": "object",
        "properties": {"category": {"type": "string"}, "start_date": day, "end_date": day},
        "required": ["category"],
    }
    one = grounded_schema(schema, "How much did I spend on food since last Monday?")
    assert "start_date" not in one["required"] and "end_date" not in one["required"]
    both = grounded_schema(schema, "What did I spend on food between 2026-11-02 and 2026-11-09?")
    assert {"start_date", "end_date"} <= set(both["required"])


def test_a_list_argument_is_offered_the_series_the_question_writes_whole() -> None:
    schema = {
        "type": "object",
        "properties": {
            "ingredients": {"type": "array", "items": {"type": "string"}},
            "meal": {"type": "string"},
        },
        "required": ["ingredients"],
    }
    grounded = grounded_schema(schema, "A lunch recipe that uses chicken and mushrooms.")["properties"]
    assert grounded["ingredients"]["enum"] == [["chicken", "mushrooms"]]
    grounded = grounded_schema(schema, "Something with rice, beans or lentils")["properties"]
    assert grounded["ingredients"]["enum"] == [["rice", "beans", "lentils"]]
    # No series written: items are the question's words, one by one.
    assert "enum" not in grounded_schema(schema, "A recipe with chicken")["properties"]["ingredients"]


def test_a_list_of_paths_is_offered_every_file_the_question_writes(
    reference_tools: dict[str, ToolSpec],
) -> None:
    tool = reference_tools["filesystem__read_multiple_files"]
    grounded = grounded_schema(tool.input_schema, "Open notes.txt and todo.md together", tool.tool_name)
    assert grounded["properties"]["paths"]["enum"] == [["notes.txt", "todo.md"]]
    # One file is a list of one, item by item; a sum's numbers are no files.
    one = grounded_schema(tool.input_schema, "Open notes.txt", tool.tool_name)["properties"]["paths"]
    assert "enum" not in one and one["items"]["enum"] == ["notes.txt"]
    numbers = grounded_schema(tool.input_schema, "add 17.5 and 24.25", tool.tool_name)["properties"]["paths"]
    assert "enum" not in numbers


def _content_offered(reference_tools: dict[str, ToolSpec], question: str) -> list[str]:
    """What the filesystem server's write_file is offered for its content."""
    tool = reference_tools["filesystem__write_file"]
    return grounded_schema(tool.input_schema, question, tool.tool_name)["properties"]["content"]["enum"]


def test_a_free_text_is_offered_the_series_the_question_writes_across_commas_whole(
    reference_tools: dict[str, ToolSpec],
) -> None:
    content = _content_offered(
        reference_tools, "Create a file called shopping.txt with eggs, milk and flour in it"
    )
    assert content[0] == "eggs, milk and flour" and "eggs" in content
    # The last item ends where a clause begins.
    assert (
        _content_offered(reference_tools, "Add salt, pepper, and garlic to soup.md")[0]
        == "salt, pepper, and garlic"
    )
    # Whole words of one sentence: "eggs" is not where "eggshell" starts.
    question = "Mind the eggshell. Write eggs, milk and flour to list.txt"
    assert _content_offered(reference_tools, question)[0] == "eggs, milk and flour"


def test_values_are_read_as_people_write_them_and_nothing_odd_breaks_the_reading() -> None:
    from edgehost.agent.question_dates import written_dates
    from edgehost.agent.question_values import written_numbers, written_series

    assert [v for v, _s, _e in written_numbers("a tip on twenty-five dollars")] == [25]
    assert [v for v, _s, _e in written_numbers("add the numbers in [1 2]")] == [1, 2]  # not a JSON list
    assert written_numbers("is " + "7" * 5000 + " prime?") == []  # no count, and no error
    assert written_series("salt, pepper, and garlic") == [["salt", "pepper", "garlic"]]
    assert written_dates("Feb 30, 2021 or March 3, 2024", "dd/mm/yyyy".upper()) == ["03/03/2024"]
    percent = {
        "type": "object",
        "properties": {"rate": {"type": "number", "description": "The rate, in percent (5 for 5%)"}},
        "required": ["rate"],
    }
    assert grounded_schema(percent, "at 7% a year")["properties"]["rate"]["enum"] == [7]
    # A list whose items refer to a part of the schema it was cut from is not validated, not an error.
    referring = {
        "type": "object",
        "properties": {"m": {"type": "array", "items": {"type": "array", "items": {"$ref": "#/$defs/P"}}}},
        "$defs": {"P": {"type": "number"}},
    }
    assert "properties" in grounded_schema(referring, "det [[1,2],[3,4]]")


def test_a_choice_the_question_names_is_the_only_one_offered() -> None:
    hours = {
        "type": "object",
        "properties": {"day": {"type": "string", "enum": ["Monday", "Saturday", "Sunday"]}},
        "required": ["day"],
    }
    assert enums(grounded_schema(hours, "Is the museum open on saturday?")) == {"day": ["Saturday"]}
    assert enums(grounded_schema(hours, "Is the museum open at the weekend?")) == {
        "day": ["Monday", "Saturday", "Sunday"]
    }


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("the most recent sculpture by James Plensa with a detailed description", {"detail": [True]}),
        ("the most recent sculpture by James Plensa, no details", {"detail": [False]}),
        ("Who invented the telephone and in which year?", {"want_year": [True]}),
        ("the most recent sculpture by James Plensa", {}),
    ],
)
def test_a_flag_is_set_by_the_words_of_its_name_and_unset_after_a_negation(
    question: str, said: dict[str, list[bool]]
) -> None:
    flags = {
        "type": "object",
        "properties": {"detail": {"type": "boolean"}, "want_year": {"type": "boolean"}},
    }
    offered = {key: value for key, value in enums(grounded_schema(flags, question)).items() if value}
    assert offered == said


def test_an_optional_argument_whose_value_the_question_states_must_be_given() -> None:
    schema = {
        "type": "object",
        "properties": {
            "cash_flows": {"type": "array", "items": {"type": "integer"}},
            "initial_investment": {"type": "integer", "description": "The initial investment."},
            "detail": {"type": "boolean"},
            "day": {"type": "string", "enum": ["Monday", "Saturday"]},
            "date": {"type": "string", "description": "The date, YYYY-MM-DD."},
            "years": {"type": "integer", "description": "How many years."},
            "note": {"type": "string"},
        },
        "required": ["cash_flows"],
    }
    question = "NPV of [200,300] with an initial investment of 2000 on Saturday, January 1, 2022, in detail"
    grounded = grounded_schema(schema, question)
    assert grounded["required"] == ["cash_flows", "initial_investment", "detail", "day", "date"]
    assert enums(grounded)["date"] == ["2022-01-01"]
    # Stated nowhere: still optional (a number not beside its words, free text).
    assert grounded_schema(schema, "NPV of [200,300] over 5")["required"] == ["cash_flows"]


def test_the_choices_a_description_offers_in_prose_are_the_values(
    reference_tools: dict[str, ToolSpec],
) -> None:
    branch = dict(reference_tools["git__git_branch"].input_schema)
    assert enums(grounded_schema(branch, "What branch am I on?"))["branch_type"] == ["local", "remote", "all"]
    assert enums(grounded_schema(branch, "list the remote branches"))["branch_type"] == ["remote"]
    # Examples are no choices: the zones the question names are.
    now = dict(reference_tools["time__get_current_time"].input_schema)
    assert enums(grounded_schema(now, "What time is it in Tokyo?"))["timezone"] == ["Asia/Tokyo"]


def test_a_number_beside_words_two_arguments_share_states_neither(
    reference_tools: dict[str, ToolSpec],
) -> None:
    read = dict(reference_tools["filesystem__read_text_file"].input_schema)
    assert grounded_schema(read, "Show me the last two lines of old.log")["required"] == ["path", "tail"]
    assert grounded_schema(read, "Show me two lines of old.log")["required"] == ["path"]


def test_the_folder_a_tool_is_named_after_is_the_one_it_serves_not_a_path_in_it() -> None:
    listing = {
        "type": "object",
        "properties": {"path": {"type": "string", "default": "", "description": PATH}},
    }
    question = "Can you show the file sizes for everything in the files folder, please?"
    assert "path" not in grounded_schema(listing, question, "files__list_directory")["properties"]
    assert enums(grounded_schema(listing, "what is in the recipes folder", "files__list_directory")) == {
        "path": ["recipes", ""]
    }


def test_apostrophes_contractions_and_common_words_name_no_choice() -> None:
    issues = {
        "type": "object",
        "properties": {
            "state": {"type": "string", "description": "The issue's state: 'open', 'closed' or 'all'"}
        },
        "required": ["state"],
    }
    assert enums(grounded_schema(issues, "List the open issues"))["state"] == ["open"]
    shirt = {
        "type": "object",
        "properties": {
            "size": {"type": "string", "enum": ["S", "M", "L"]},
            "language": {"type": "string", "enum": ["en", "it", "de"]},
        },
        "required": ["size"],
    }
    grounded = grounded_schema(shirt, "I'm after a large shirt, it's for Tom's party; translate it")
    assert enums(grounded) == {"size": ["S", "M", "L"], "language": ["en", "it", "de"]}
    assert grounded["required"] == ["size"]


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("don't include hidden files", False),
        ("Don't include any hidden files", False),
        ("include hidden files too", True),
        ("Publish the post", None),  # "publish" is not "public"
    ],
)
def test_a_flag_is_unset_by_a_contracted_negation_and_not_set_by_a_word_that_only_begins_alike(
    question: str, said: bool | None
) -> None:
    flags = {
        "type": "object",
        "properties": {"include_hidden": {"type": "boolean"}, "is_public": {"type": "boolean"}},
    }
    offered = {key: value[0] for key, value in enums(grounded_schema(flags, question)).items() if value}
    assert offered == ({} if said is None else {"include_hidden": said})


@pytest.mark.parametrize(
    ("question", "old", "new"),
    [
        ("Could you fix my letter in draft.txt so it says Monday instead of Friday?", "Friday", "Monday"),
        ("Replace Friday with Monday in draft.txt", "Friday", "Monday"),
        ("in notes/budget.md change 'rent: 900' to 'rent: 950'", "rent: 900", "rent: 950"),
        ("In todo.md, change the date from Friday to Monday please", "Friday", "Monday"),
        ("change the word cat to dog in notes.txt", "cat", "dog"),
        ("swap butter for olive oil in recipes/cake.md", "butter", "olive oil"),
        # What changes stands between the verb and "from ... to": offered every run, old and new alike.
        ("change the rent in budget.md from 900 to 950", "900", "950"),
        ("Change the amount in budget.md from 12.50 to 13.75", "12.50", "13.75"),
    ],
)
def test_a_replacement_the_question_writes_fills_what_goes_and_what_comes(
    question: str, old: str, new: str, reference_tools: dict[str, ToolSpec], tmp_path: Path
) -> None:
    """Offered every run of the question's words, the 135M model edited draft.txt with old_text "fix my
    letter" and new_text "draft.txt so it says". Both servers' edit tools: the built-in one's flat
    arguments, the reference filesystem server's list of edits."""
    flat = asyncio.run(build_server(tmp_path).list_tools())
    [edit_file] = [tool.input_schema for tool in flat if tool.name == "edit_file"]
    offered = enums(grounded_schema(edit_file, question, "files__edit_file"))
    assert (offered["old_text"], offered["new_text"]) == ([old], [new])
    listed = dict(reference_tools["filesystem__edit_file"].input_schema)
    edit = grounded_schema(listed, question, "filesystem__edit_file")["properties"]["edits"]["items"]
    assert enums(edit) == {"oldText": [old], "newText": [new]}


def test_from_and_to_in_what_a_question_adds_is_no_replacement() -> None:
    """A review found "Edit journal.md and add that I drove from Lyon to Paris" read as Lyon -> Paris."""
    assert written_replacement("Edit journal.md and add that I drove from Lyon to Paris") is None
    assert written_replacement("Update travel.md with my trip from Paris to Rome") is None


@pytest.mark.parametrize(
    ("question", "added"),
    [
        ("Add 'pay the electricity bill' to my todo list (todo.md)", "pay the electricity bill"),
        ("Now add a line saying the dentist is on Thursday to notes.txt", "the dentist is on Thursday"),
        # The file the host read the follow-up with (agent/references.py) is where, not what.
        ("Now add a line saying the dentist is on Thursday (notes.txt)", "the dentist is on Thursday"),
        ("append milk and eggs to shopping.txt", "milk and eggs"),
    ],
)
def test_an_addition_the_question_writes_is_a_line_added_not_a_replacement(
    question: str, added: str, tmp_path: Path
) -> None:
    """The built-in edit_file adds new_text as a line when old_text is left out. Offered every run, the
    135M model wrote the new line as both, and the call failed: old_text was not in the file."""
    flat = asyncio.run(build_server(tmp_path).list_tools())
    [edit_file] = [tool.input_schema for tool in flat if tool.name == "edit_file"]
    grounded = grounded_schema(edit_file, question, "files__edit_file")
    assert "old_text" not in grounded["properties"]
    assert enums(grounded)["new_text"] == [added]


def test_an_edit_that_writes_neither_a_replacement_nor_an_addition_must_say_what_it_replaces(
    tmp_path: Path,
) -> None:
    """Left out, old_text would add a line no one asked for."""
    flat = asyncio.run(build_server(tmp_path).list_tools())
    [edit_file] = [tool.input_schema for tool in flat if tool.name == "edit_file"]
    grounded = grounded_schema(edit_file, "Tidy up the wording of draft.txt", "files__edit_file")
    assert "old_text" in grounded["required"] and len(enums(grounded)["old_text"]) > 1


@pytest.mark.parametrize(
    "question",
    ["Add a line saying the dentist is on Thursday to todo.md", "What does 'git reset' change to my files?"],
)
def test_without_a_written_replacement_each_edit_argument_is_offered_the_questions_words(
    question: str, reference_tools: dict[str, ToolSpec]
) -> None:
    listed = dict(reference_tools["filesystem__edit_file"].input_schema)
    edit = grounded_schema(listed, question, "filesystem__edit_file")["properties"]["edits"]["items"]
    offered = enums(edit)
    assert len(offered["oldText"]) > 1 and offered["oldText"] == offered["newText"]


@pytest.mark.parametrize(
    ("question", "facts"),
    [
        ("Commit this to memory: my bike lock code is 4512.", ["my bike lock code is 4512"]),
        ("Please remember that my desktop PC has 32 GB of RAM.", ["my desktop PC has 32 GB of RAM"]),
        ("I'm allergic to peanuts, please keep that in mind from now on.", ["I'm allergic to peanuts"]),
        ("remember my locker is number 12", ["my locker is number 12"]),
        ("Also, she lives in Lyon.", ["she lives in Lyon"]),
        (
            "My sister Anna's birthday is on 12 May, don't let me forget it",
            ["My sister Anna's birthday is on 12 May"],
        ),
        ("Could you remember that Tom likes jazz?", ["Tom likes jazz"]),
        ("I'm vegetarian, remember that for later", ["I'm vegetarian"]),
        ("Actually, forget the bit about his age.", []),
        ("What do you know about my sister Anna?", []),
    ],
)
def test_the_facts_a_question_tells_are_read_whole_and_a_request_tells_none(
    question: str, facts: list[str]
) -> None:
    assert told_facts(question) == facts


def test_a_memory_keeps_the_fact_told_whole_and_names_it_from_its_words(
    reference_tools: dict[str, ToolSpec],
) -> None:
    # Offered runs of up to four words, the 135M model stored "code" as the fact, named "Commit".
    create = reference_tools["memory__create_entities"].input_schema
    entity = grounded_schema(create, "Commit this to memory: my bike lock code is 4512.")["properties"][
        "entities"
    ]["items"]["properties"]
    assert entity["observations"]["enum"] == [["my bike lock code is 4512"]]
    assert "bike lock code" in entity["name"]["enum"]
    assert not {"Commit", "memory", "Commit this to memory"} & set(entity["name"]["enum"])
    # A question that tells nothing leaves a memory's observations to the words of the question.
    asked = grounded_schema(create, "remember biscuit")["properties"]["entities"]["items"]["properties"]
    assert "enum" not in asked["observations"] and asked["observations"]["items"]["enum"] == ["biscuit"]


def test_an_entry_named_outside_the_fact_told_is_offered_as_the_entity(
    reference_tools: dict[str, ToolSpec],
) -> None:
    # Offered only the fact's words, the entity added to was "Hamburg", and the server refused it.
    add = reference_tools["memory__add_observations"].input_schema
    for question, name in (
        ("add to what you know about Viktor: he moved to Hamburg", "Viktor"),
        ("Add to Dr Ansah's entry that she teaches physics on Mondays.", "Dr Ansah"),
    ):
        item = grounded_schema(add, question)["properties"]["observations"]["items"]["properties"]
        assert name in item["entityName"]["enum"], question


def test_the_count_a_question_asks_for_is_passed_to_the_only_count_a_tool_takes(
    reference_tools: dict[str, ToolSpec],
) -> None:
    # git_log's max_count has no description: "the last 3 commits" gave the default ten.
    log = reference_tools["git__git_log"].input_schema
    asked = grounded_schema(log, "Show me the last 3 commits")
    assert "max_count" in asked["required"] and asked["properties"]["max_count"]["enum"] == [3]
    # "the last 2 days" is a time, not a count of commits.
    assert "max_count" not in grounded_schema(log, "What changed in the last 2 days?")["required"]


def test_a_text_written_out_after_saying_so_is_offered_whole_without_its_file(
    reference_tools: dict[str, ToolSpec],
) -> None:
    content = _content_offered(
        reference_tools, "Create a file called ideas.txt that says: paint the fence blue"
    )
    assert content[0] == "paint the fence blue"
    assert written_out("Make a note saying call mum back, name it todo.txt") == ["call mum back"]
    assert written_out("add a line saying meet in the park to notes.txt") == ["meet in the park"]
    assert written_out("what does the readme say?") == []
    # The file the host read a follow-up with is no part of the text; a number is no file; a question
    # asks about what is said, and writes nothing.
    assert written_out("Also add a line saying call the plumber (notes.txt)") == ["call the plumber"]
    assert written_out("a note saying the meeting moved to 4.30 on Friday") == [
        "the meeting moved to 4.30 on Friday"
    ]
    assert written_out("What is Bob saying about the budget?") == []
    # One reading for an addition: "meet in the park" keeps its park there too.
    assert written_addition("add a line saying meet in the park to notes.txt") == "meet in the park"
    # A file named by its date is a file, not a number.
    assert written_addition("append 'call mum' to 2024-05-01.md") == "call mum"
    assert written_out("a note saying call mum, name it 2024-05-01.md") == ["call mum"]


def test_the_words_of_a_date_go_to_the_date_argument_not_to_the_title() -> None:
    schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "What the event is"},
            "start": {"type": "string", "format": "date-time"},
        },
        "required": ["title", "start"],
    }
    grounded = grounded_schema(schema, "Add a dentist appointment tomorrow at 3pm")["properties"]
    assert "dentist appointment" in grounded["title"]["enum"]
    assert not [v for v in grounded["title"]["enum"] if "tomorrow" in v or "3pm" in v], grounded["title"]
    # Without an argument for the date, the words stay: they may be the title's.
    alone = {"type": "object", "properties": {"title": schema["properties"]["title"]}, "required": ["title"]}
    assert (
        "appointment tomorrow"
        in grounded_schema(alone, "Add a dentist appointment tomorrow")["properties"]["title"]["enum"]
    )


UNITS = {
    "type": "object",
    "properties": {
        "value": {"type": "number"},
        "from_unit": {
            "type": "string",
            "description": "The unit to convert from. Supports 'teaspoon', 'tablespoon', 'cup'.",
        },
        "to_unit": {
            "type": "string",
            "description": "The unit to convert to. Supports 'teaspoon', 'tablespoon', 'cup'.",
        },
    },
    "required": ["value", "from_unit", "to_unit"],
}


@pytest.mark.parametrize(
    ("question", "source", "target"),
    [
        # Offered both units in the order written, the call converted teaspoons (BFCL simple_python_366).
        ("How many teaspoons are in 2 tablespoons for measurement in my recipe?", "tablespoon", "teaspoon"),
        ("Convert 3 cups to tablespoons", "cup", "tablespoon"),
        ("what is a teaspoon from a cup, 2 of them I mean", "cup", "teaspoon"),
    ],
)
def test_the_unit_of_the_amount_or_after_from_is_what_a_conversion_converts(
    question: str, source: str, target: str
) -> None:
    values = enums(grounded_schema(UNITS, question, "unit_conversion.convert"))
    assert (values["from_unit"], values["to_unit"]) == ([source], [target])


def test_a_pair_from_and_to_is_left_whole_when_no_amount_or_from_says_which_is_converted() -> None:
    values = enums(grounded_schema(UNITS, "Is a cup more than a tablespoon?", "unit_conversion.convert"))
    assert set(values["from_unit"]) == set(values["to_unit"]) == {"cup", "tablespoon"}


def _timestamp(end: str) -> dict[str, Any]:
    return {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "default": None,
        "description": f"{end} timestamp for filtering commits. Accepts: ISO 8601 format (e.g., '2024-01-15T14:30:25')",
    }


LOG = {
    "type": "object",
    "properties": {"start_timestamp": _timestamp("Start"), "end_timestamp": _timestamp("End")},
}


def test_a_range_given_one_moment_is_offered_the_end_the_question_says_or_that_whole_day() -> None:
    """ "what changed since yesterday" offered both ends of the git server's log yesterday at midnight: the
    log of no time at all."""
    since = enums(grounded_schema(LOG, "what changed since yesterday", "git_log"))
    assert list(since) == ["start_timestamp"] and since["start_timestamp"][0][:10] == _day(-1)
    until = enums(grounded_schema(LOG, "commits until last Friday", "git_log"))
    assert list(until) == ["end_timestamp"]
    day = enums(grounded_schema(LOG, "what did I commit yesterday", "git_log"))
    assert day["start_timestamp"][0][:10] == _day(-1) and day["end_timestamp"][0][:10] == _day(0)
    assert day["end_timestamp"][0][10:] == day["start_timestamp"][0][10:]  # midnight, laid out alike
    # "up to" counts, "before lunch" is within the day: neither says an end.
    counted = enums(grounded_schema(LOG, "show up to 10 commits since Monday", "git_log"))
    assert list(counted) == ["start_timestamp"]
    lunch = enums(grounded_schema(LOG, "what did I commit yesterday before lunch", "git_log"))
    assert set(lunch) == {"start_timestamp", "end_timestamp"}


def _day(offset: int) -> str:
    return (datetime.date.today() + datetime.timedelta(days=offset)).isoformat()


COUNTED_LOG = {
    "type": "object",
    "properties": {
        "max_count": {"type": "integer", "default": 10, "description": "Maximum number of commits to show"},
        "start_timestamp": _timestamp("Start"),
    },
}


def test_a_number_inside_a_written_date_is_no_count_but_stays_a_date_part() -> None:
    """ "what changed since 12 May" offered the git log a max_count of 12, the date's day."""
    dated = enums(grounded_schema(COUNTED_LOG, "what changed since 12 May", "git_log"))
    assert list(dated) == ["start_timestamp"]
    both = enums(grounded_schema(COUNTED_LOG, "last 5 commits since 1 June, and from 3 days ago", "git_log"))
    assert both["max_count"] == [5]
    # An argument that takes a part of a date still reads it from the date.
    year = {"type": "object", "properties": {"year": {"type": "integer"}}}
    assert 1776 in enums(grounded_schema(year, "What happened on 4 July 1776?", "history"))["year"]


def test_an_argument_named_for_a_part_of_a_date_is_given_that_part_of_the_written_date() -> None:
    """ "What happened on 4 July 1776?" over year and day offered the year 4 and the day 1776: the
    numbers in the order the question writes them."""
    history = {
        "type": "object",
        "properties": {"year": {"type": "integer"}, "month": {"type": "integer"}, "day": {"type": "integer"}},
        "required": ["year", "day"],
    }
    assert enums(grounded_schema(history, "What happened on 4 July 1776?", "history")) == {
        "year": [1776],
        "month": [7],
        "day": [4],
    }
    # A date without its year gives no year; a lone year is no day.
    assert enums(grounded_schema(history, "what happened on 4 July", "history")) == {
        "year": None,
        "month": [7],
        "day": [4],
    }
    assert enums(grounded_schema(history, "events of 1969", "history"))["day"] is None
    # A date written in numbers writes its month too, when it writes all three parts.
    assert enums(grounded_schema(history, "What happened on 2022-12-12?", "history"))["month"] == [12]
    # A count of years is given no year of a date, and a year no count.
    counted = {
        "type": "object",
        "properties": {"years": {"type": "integer"}, "start_year": {"type": "integer"}},
    }
    spanned = "How many years from January 1, 2022 until 5 March 2030?"
    assert enums(grounded_schema(counted, spanned, "x")) == {"start_year": [2022, 2030]}  # years left out
    assert enums(grounded_schema(counted, "interest over 5 years from 2020", "x")) == {
        "years": [5],
        "start_year": [2020],
    }


# The git server's description of git_log's start and end, as its tools/list gives it.
GIT_LOG_TIMESTAMP = (
    "timestamp for filtering commits. Accepts: ISO 8601 format (e.g., '2024-01-15T14:30:25'), relative "
    "dates (e.g., '2 weeks ago', 'yesterday'), or absolute dates (e.g., '2024-01-15', 'Jan 15 2024')"
)


def test_a_date_without_its_year_is_the_last_one_where_the_argument_looks_back() -> None:
    """ "show me the commits from 3 March to 10 March", asked in December, filtered the git log from
    March of the next year: a date without a year is the coming one unless the question speaks of the
    past. The argument's own examples of relative dates ('2 weeks ago', 'yesterday') say it does."""
    log = {
        "type": "object",
        "properties": {
            end: {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "default": None,
                "description": f"{end} {GIT_LOG_TIMESTAMP}",
            }
            for end in ("Start", "End")
        },
    }
    offered = enums(grounded_schema(log, "show me the commits from 3 March to 10 March", "git_log"))
    dates = {datetime.date.fromisoformat(moment[:10]) for moment in offered["Start"] + offered["End"]}
    assert {(d.month, d.day) for d in dates} == {(3, 3), (3, 10)}
    assert all(d <= datetime.date.today() for d in dates)
    # An argument whose examples lie ahead, or both ways, keeps the coming date.
    booking = {
        "type": "object",
        "properties": {"day": {"type": "string", "format": "date", "description": "e.g. 'tomorrow'"}},
    }
    coming = datetime.date.fromisoformat(
        enums(grounded_schema(booking, "book a table for 3 March", "book"))["day"][0]
    )
    assert coming >= datetime.date.today()


def test_a_name_put_inside_a_folder_is_offered_as_the_path_under_it_first() -> None:
    """ "make a new folder named receipts inside notes" offered only receipts: the folder at the root."""
    assert placed_paths("make a new folder named receipts inside notes") == ["notes/receipts"]
    assert placed_paths("delete notes.txt in the recipes folder") == ["recipes/notes.txt"]
    assert placed_paths("create a folder called 2024 in my photos folder") == ["photos/2024"]
    assert placed_paths("save ideas.md in English") == []
    assert placed_paths("put report.md in the Documents folder") == ["Documents/report.md"]
    made = {
        "type": "object",
        "properties": {"path": {"type": "string", "description": PATH}},
        "required": ["path"],
    }
    # The folder the tool is named after is the one it serves: no files/archive inside it.
    served = grounded_schema(
        made, "create a folder called archive in the files folder", "files__make_directory"
    )
    assert enums(served) == {"path": ["archive"]}
