"""The system prompt and tool results, rendered from the real reference servers' tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgehost.agent.detector import ToolCallParsed, detect_calls
from edgehost.agent.prompting import (
    RESULT_CLOSE,
    build_system_prompt,
    choose_dialect,
    estimate_tokens,
    format_tool_result,
    prompt_messages,
    prompts_dir,
    render_tool_entry,
    render_tools_section,
    tool_result_message,
)
from edgehost.agent.tools import summary
from edgehost.llm.base import Capabilities, ChatMessage

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def calls_in(text: str) -> list[ToolCallParsed]:
    return [e for e in detect_calls(text) if isinstance(e, ToolCallParsed)]


def test_a_tool_entry_is_one_line_with_typed_arguments_and_optional_ones_marked(reference_tools):
    entry = render_tool_entry(reference_tools["filesystem__list_directory_with_sizes"])
    assert entry.startswith('- filesystem__list_directory_with_sizes(path: string, sortBy?: "name"|"size"): ')
    assert "\n" not in entry
    assert render_tool_entry(reference_tools["memory__delete_entities"]).startswith(
        "- memory__delete_entities(entityNames: string[]): Delete multiple entities"
    )
    assert (
        render_tool_entry(reference_tools["memory__read_graph"])
        == "- memory__read_graph(): Read the entire knowledge graph"
    )


def test_a_long_description_is_cut_to_its_first_sentence(reference_tools):
    entry = render_tool_entry(reference_tools["fetch__fetch"])
    assert entry.endswith("extracts its contents as markdown.")
    assert "Although originally" not in entry


@pytest.mark.parametrize("dialect", ["bracket", "hermes", "xml-args", "qwen-xml", "tool-request", "mistral"])
def test_the_example_in_the_tools_section_is_a_call_the_detector_reads_back(reference_tools, dialect):
    tools = [reference_tools["time__get_current_time"], reference_tools["memory__read_graph"]]
    section = render_tools_section(tools, dialect)
    example = section.split("For example:\n", 1)[1].split("\nUse the tool names", 1)[0]
    [call] = calls_in(example)
    assert call.name == "time__get_current_time"
    assert set(call.arguments) == {"timezone"}
    assert "- memory__read_graph()" in section


def test_the_bracket_section_shows_the_exact_call_format(reference_tools):
    section = render_tools_section([reference_tools["everything__get-sum"]], "bracket")
    assert '[TOOL_CALL]{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}[END_TOOL_CALL]' in section
    assert (
        '[TOOL_CALL]{"name": "everything__get-sum", "arguments": {"a": 1, "b": 1}}[END_TOOL_CALL]' in section
    )


def test_no_tools_means_no_tools_section():
    prompt = build_system_prompt([], "bracket", {"memory": "Remember things."})
    assert "TOOL_CALL" not in prompt
    assert "Remember things" not in prompt
    assert prompt.startswith("You are EdgeHost")


def test_short_instructions_of_shown_servers_are_included_and_long_ones_left_out(reference_tools):
    instructions = {
        "memory": "Store facts about the user as entities.",
        "git": "x" * 400,
        "fetch": "Only https.",
    }
    prompt = build_system_prompt(
        [reference_tools["memory__read_graph"], reference_tools["git__git_status"]],
        "bracket",
        instructions,
        extra="Be terse.",
    )
    assert "- memory: Store facts about the user as entities." in prompt
    assert "x" * 50 not in prompt
    assert "Only https" not in prompt  # no fetch tool is shown
    assert prompt.rstrip().endswith("Be terse.")
    assert "\n\n\n" not in prompt


def test_all_reference_tools_fit_a_compact_section(reference_tools):
    section = render_tools_section(list(reference_tools.values()), "bracket")
    # 51 tools in about 35 tokens each: the schemas' JSON would be several times this.
    assert estimate_tokens(section) < 40 * len(reference_tools)
    assert estimate_tokens(section) < estimate_tokens(
        json.dumps([dict(t.input_schema) for t in reference_tools.values()])
    )


def test_the_native_dialect_is_used_only_when_the_template_knows_tools():
    assert (
        choose_dialect(
            Capabilities("llamacpp", 4096, supports_native_tools=True, native_tool_dialect="hermes")
        )
        == "hermes"
    )
    assert (
        choose_dialect(
            Capabilities("llamacpp", 4096, supports_native_tools=False, native_tool_dialect="hermes")
        )
        == "bracket"
    )
    assert choose_dialect(Capabilities("rkllm", 4096)) == "bracket"


def test_a_result_within_budget_is_unchanged():
    assert format_tool_result("t", "small result", 100, estimate_tokens) == "small result"


def test_a_long_result_is_cut_to_the_budget_with_a_note():
    text = "\n".join(f"line {i}: " + "data " * 10 for i in range(2000))
    cut = format_tool_result("filesystem__read_text_file", text, 200, estimate_tokens)
    assert estimate_tokens(cut) <= 200
    assert text.startswith(cut.split("\n[filesystem__read_text_file: result cut")[0])
    assert f"of {estimate_tokens(text)} tokens" in cut


def test_a_result_goes_back_in_the_tool_role_when_the_template_has_tools_and_as_a_marked_user_turn_otherwise():
    result = tool_result_message("time__get_current_time", "12:00", call_id="c3")
    assert (result.role, result.name, result.content, result.tool_call_id) == (
        "tool",
        "time__get_current_time",
        "12:00",
        "c3",
    )
    conversation = [ChatMessage("user", "What time is it?"), result]
    native = Capabilities("llamacpp", 4096, supports_native_tools=True)
    assert prompt_messages(conversation, native) == conversation
    plain = prompt_messages(conversation, Capabilities("llamacpp", 4096))
    assert plain[0] == conversation[0]
    assert plain[1] == ChatMessage(
        "user", f"[TOOL_RESULT name=time__get_current_time]\n12:00\n{RESULT_CLOSE}"
    )


def test_a_result_of_a_call_the_host_chose_asks_the_model_to_answer_the_question():
    result = tool_result_message("board__temperature", "soc: 41 °C", question="How hot is the board?")
    (framed,) = prompt_messages([result], Capabilities("llamacpp", 4096))
    assert framed.content.endswith(f"{RESULT_CLOSE}\nAnswer with this result: How hot is the board?")


def test_a_user_copy_of_a_template_replaces_the_shipped_one(tmp_path, reference_tools):
    assert (prompts_dir() / "system.md").is_file()
    (tmp_path / "system.md").write_text("Custom head.\n$tools\n", encoding="utf-8")
    prompt = build_system_prompt(
        [reference_tools["memory__read_graph"]], "bracket", {}, template_dir=tmp_path
    )
    assert prompt.startswith("Custom head.\n# Tools")


def test_a_listing_summary_is_the_first_paragraph_without_markup_cut_at_a_word() -> None:
    assert summary("Space of the file system holding ``path``.\n\nMore details.") == (
        "Space of the file system holding path."
    )
    assert summary("The NPU: present or not,\ndriver version, clock and load.") == (
        "The NPU: present or not, driver version, clock and load."
    )
    cut = summary("word " * 50, limit=30)
    assert cut.endswith("…") and len(cut) <= 30 and not cut[:-1].endswith(" ")
