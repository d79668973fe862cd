"""Misspelt words read as the words they stand for before tools are ranked (agent/typed_words.py)."""

from __future__ import annotations

from edgehost.agent._query_cues import verbs_asked
from edgehost.agent.ranking import BlendedRanker, EmbeddingRanker, LexicalRanker
from edgehost.agent.tools import ToolSpec
from edgehost.agent.typed_words import as_meant


def _tools(reference_tools: dict[str, ToolSpec], *servers: str) -> list[ToolSpec]:
    return [t for t in reference_tools.values() if t.server in servers]


def test_a_misspelt_word_is_read_as_the_common_word_one_edit_away(reference_tools):
    files = _tools(reference_tools, "filesystem")
    assert as_meant("is there anythign about basil in my recipies", files) == (
        "is there anything about basil in my recipes"
    )
    assert as_meant("serch my notes for the plumbers numbr", files) == (
        "search my notes for the plumbers number"
    )


def test_a_slip_of_the_hand_wins_over_a_commoner_word_one_edit_away(reference_tools):
    files = _tools(reference_tools, "filesystem")
    # "one" is commoner than "open", "showing" than "shopping"; two letters swapped and a double
    # letter typed once are the slips people make.
    assert as_meant("opne my shoping list", files) == "open my shopping list"
    assert as_meant("show the lsit", files) == "show the list"
    # "comits" is one letter from "comics", "comets" and "commits": the double letter typed once.
    assert as_meant("show me the comits", _tools(reference_tools, "time")) == "show me the commits"


def test_of_several_words_one_edit_away_the_offered_tools_word_is_meant(reference_tools):
    # "delte" could be "delta" or "delete", "entty" "entry" or "entity": the memory server's tools
    # delete entities; the clock's tools say neither, and the words stay as typed.
    memory, time = _tools(reference_tools, "memory"), _tools(reference_tools, "time")
    assert as_meant("delte the entty for my old bike", memory) == "delete the entity for my old bike"
    assert as_meant("delte the entty for my old bike", time) == "delte the entty for my old bike"


def test_names_paths_contractions_and_words_people_write_are_left_as_typed(reference_tools):
    files = _tools(reference_tools, "filesystem")
    for typed in (
        "add 'buy stamps' to my todo list",  # informal, but common: "todo" is not "too"
        "what was the wifi password",
        "wats in notse/todo.txt",  # a path, and "wats" is what's, not "was" nor "watts"
        "Kasia doesn't run the club anymore",  # a name, a contraction
        "how does git rebase work",  # "rebase" could be "rebate" or "debase": no clear lead
    ):
        assert as_meant(typed, files) == typed, typed
    # A word the tools themselves use is never corrected, however rare in English.
    git = _tools(reference_tools, "git")
    assert as_meant("status of the garden repo", git) == "status of the garden repo"


def test_the_ranker_reads_a_misspelt_question_as_the_one_it_stands_for(reference_tools, ranking_index):
    tools = _tools(reference_tools, "filesystem", "memory", "git")
    for ranker in (BlendedRanker(EmbeddingRanker(ranking_index)), LexicalRanker()):
        for typed, meant in (
            ("list the fiels in my notes foler", "list the files in my notes foler"),
            ("whats in my recipie foler", "whats in my recipe foler"),
        ):
            assert ranker.scores(typed, tools) == ranker.scores(meant, tools), (ranker.name, typed)
    blended = BlendedRanker(EmbeddingRanker(ranking_index))
    scores = blended.scores("list the fiels in my notes foler", tools)
    best = max(range(len(tools)), key=scores.__getitem__)
    assert tools[best].name == "filesystem__list_directory"


def test_a_word_with_an_ending_is_that_word_done_and_a_sentence_may_open_with_a_slip(reference_tools):
    git = _tools(reference_tools, "git")
    # "unstage" is one of git's words; "unstaged" is it done, not a slip for it.
    assert as_meant("show me the unstaged diff", git) == "show me the unstaged diff"
    assert as_meant("Chekout the develop brnach", git) == "Checkout the develop branch"
    # A name opening the question is no slip for a word a hundred times as common.
    assert as_meant("Kasia runs the club", git) == "Kasia runs the club"


def test_the_question_cues_read_a_verb_typed_with_two_letters_swapped():
    assert "read" in verbs_asked("opne the soup recipe")
    assert "move" in verbs_asked("mvoe todo-old.md into the archive folder")
    assert "delete" not in verbs_asked("show me the unstaged diff")


def test_a_word_that_says_nothing_of_a_tool_is_never_meant_even_when_a_tool_uses_it():
    # The tool's description has "was", one letter from "wats"; "wats" is still what's.
    told = ToolSpec(name="log__last", server="log", description="Tells what the last entry was.")
    assert as_meant("wats the last entry", [told]) == "wats the last entry"
