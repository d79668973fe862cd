"""A question sent with content (an attached resource, an MCP prompt's text) is answered from that
content, not sent to a tool, unless it clearly asks for a tool's action (agent/routing.py). The real
ranker (all-MiniLM-L6-v2) over the reference servers' tools; the questions are others than the ones the
rule was chosen on."""

from __future__ import annotations

import asyncio
from typing import Any

from edgehost.agent import events as ev
from edgehost.agent.approval import ApprovalDecision, ApprovalPolicy, ApprovalRequest
from edgehost.agent.config import AgentConfig
from edgehost.agent.loop import Conversation, TurnRunner
from edgehost.agent.ranking import LexicalRanker
from edgehost.agent.routing import split_material
from edgehost.agent.selection import ToolSelector
from edgehost.agent.tool_calls import ToolOutcome
from edgehost.agent.tools import ToolSpec
from edgehost.llm.scripted import ScriptedBackend
from edgehost.slow_machine import scaled_wait

WAIT_S = scaled_wait(60)
# The text the everything server's resource-prompt renders to, as the window puts it in the composer.
PROMPT_TEXT = (
    "This prompt includes the Text resource with id: 1. Please analyze the following resource:\n\n"
    "Resource 1: This is a plaintext resource"
)
DOCUMENT = (
    "[resource note://minutes]\nMinutes of the garden club, 3 May. Anna will order the seeds by Friday;"
    " Tom repairs the fence. Next meeting: 7 June at the library."
)


ABOUT_THE_CONTENT = [
    "What is this document about?",  # both seen in the window, routed to everything__get-annotated-message
    "Summarize the attached document in one sentence.",
    "Can you sum up the attached notes?",
    "What are the action items in this email?",
    "Who is the author of this resource?",
    "Does it mention a price?",
    "What is the main argument?",
    "Any typos?",
]


async def test_a_question_about_attached_content_calls_no_tool(selector, reference_tools) -> None:
    tools = list(reference_tools.values())
    for question in ABOUT_THE_CONTENT:
        decision = await selector.route(question, tools, attached=True)
        assert not decision.needs_tool and decision.candidates == (), (question, decision.reason)
    # Alone, the question of the window calls a tool: it is the attachment that makes the difference.
    alone = await selector.route("What is this document about?", tools)
    assert alone.needs_tool


async def test_with_attached_content_a_question_that_asks_for_a_tool_still_gets_it(
    selector, reference_tools
) -> None:
    tools = list(reference_tools.values())
    expected = {
        "save this document to notes.txt": "filesystem__write_file",
        "What time is it in Tokyo?": "time__get_current_time",
        "fetch https://example.com/page and compare it with this": "fetch__fetch",
    }
    for question, tool in expected.items():
        decision = await selector.route(question, tools, attached=True)
        assert decision.needs_tool and decision.candidates[0].name == tool, (question, decision.reason)


def test_a_prompts_text_is_split_into_its_ask_and_the_material() -> None:
    ask, material = split_material(PROMPT_TEXT)
    assert ask == "This prompt includes the Text resource with id: 1. Please analyze the following resource:"
    assert material == "Resource 1: This is a plaintext resource"
    assert split_material("What time is it in Tokyo?") == ("What time is it in Tokyo?", "")
    assert split_material("Note: I use metric units") == ("Note: I use metric units", "")  # nothing after


class RecordingExecutor:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def call(self, tool: ToolSpec, arguments: dict[str, Any], progress: Any) -> ToolOutcome:
        self.calls.append(tool.name)
        return ToolOutcome("a result")


async def allow(_request: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision(allow=True, decided_by="user")


async def run_turn(
    selector: ToolSelector, tools: list[ToolSpec], text: str, attachments: tuple[str, ...] = ()
) -> tuple[Any, ScriptedBackend, RecordingExecutor, list[Any]]:
    backend = ScriptedBackend(["The minutes say who orders the seeds and fixes the fence."], chunk_size=1000)
    executor = RecordingExecutor()
    events: list[Any] = []
    runner = TurnRunner(
        backend,
        executor,
        allow,
        ApprovalPolicy(),
        events.append,
        AgentConfig(routing="host"),
        selector=selector,
    )
    completed = await asyncio.wait_for(
        runner.run(Conversation(id=1), text, tools, attachments=attachments), WAIT_S
    )
    return completed, backend, executor, events


async def test_a_turn_about_an_attached_resource_is_answered_by_the_model_without_a_tool(
    selector, reference_tools
) -> None:
    tools = list(reference_tools.values())
    completed, backend, executor, events = await run_turn(
        selector, tools, "What is this document about?", (DOCUMENT,)
    )
    [routed] = [e for e in events if isinstance(e, ev.TurnRouted)]
    assert not routed.needs_tool and "content sent with it" in routed.reason
    assert executor.calls == [] and completed.executions == ()
    assert backend.requests[0].continuation == ""  # no call started for the model
    assert backend.requests[0].messages[-1].content.startswith("[resource note://minutes]")
    assert completed.text == "The minutes say who orders the seeds and fixes the fence."


async def test_a_prompts_self_contained_text_is_answered_without_a_tool(selector, reference_tools) -> None:
    tools = list(reference_tools.values())
    completed, _backend, executor, events = await run_turn(selector, tools, PROMPT_TEXT)
    [routed] = [e for e in events if isinstance(e, ev.TurnRouted)]
    assert not routed.needs_tool, routed.reason
    assert executor.calls == []


async def test_without_embeddings_a_question_pointing_at_the_attachment_calls_no_tool(
    reference_tools,
) -> None:
    selector = ToolSelector(LexicalRanker())
    tools = list(reference_tools.values())
    about = await selector.route("Summarize this resource and list its links", tools, attached=True)
    assert not about.needs_tool
    assert (await selector.route("Summarize this resource and list its links", tools)).needs_tool
    save = await selector.route("write this text to notes.txt", tools, attached=True)
    assert save.needs_tool and save.candidates[0].name == "filesystem__write_file"
