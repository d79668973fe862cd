"""What the user reads at the end of a turn with tools, and what the model reads on the way: found in
the window with the embedded model. Scripted model replies, a real MCP server (the SDK's, in memory)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field
from tests.support import tool_specs

from edgehost.agent import events as ev
from edgehost.agent.approval import ApprovalDecision, ApprovalPolicy, ApprovalRequest
from edgehost.agent.config import AgentConfig
from edgehost.agent.grounding import check_answer, echoes, has_words
from edgehost.agent.loop import Conversation, TurnRunner
from edgehost.agent.ranking import LexicalRanker
from edgehost.agent.selection import ToolSelector
from edgehost.agent.tool_calls import DENIAL_INSTRUCTION, ToolOutcome
from edgehost.agent.tools import ToolSpec
from edgehost.llm.scripted import ScriptedBackend
from edgehost.slow_machine import scaled_wait

WAIT_S = scaled_wait(30)


def notes_server(folder: Path) -> MCPServer:
    server = MCPServer("notes")

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
    def write_note(path: str, content: str) -> str:
        """Write text into a note file."""
        (folder / path).write_text(content)
        return f"created {path} ({len(content.encode())} bytes)"

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def resource_links(count: Annotated[float, Field(ge=1, le=10)] = 3) -> str:
        """Return a number of resource links."""  # bounded as the everything server's get-resource-links
        return "\n".join(f"note://{i}" for i in range(1, int(count) + 1))

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def sync_notes() -> str:
        """Synchronise the notes with the cloud."""
        raise ToolError("the cloud is unreachable")

    return server


class Session:
    def __init__(self, client: Client, tools: list[ToolSpec]) -> None:
        self.client, self.tools = client, tools
        self.events: list[Any] = []
        self.backend = ScriptedBackend(chunk_size=1000)

    async def turn(
        self,
        question: str,
        replies: list[str],
        *,
        approver: Callable[[ApprovalRequest], Awaitable[ApprovalDecision]] | None = None,
        routing: str = "model",
    ) -> ev.TurnCompleted:
        client = self.client

        class Executor:
            async def call(self, tool: ToolSpec, arguments: dict[str, Any], progress: Any) -> ToolOutcome:
                result = await client.call_tool(tool.tool_name, arguments)
                text = "\n".join(getattr(b, "text", "") for b in result.content)
                return ToolOutcome(
                    text, is_error=result.is_error, status="error" if result.is_error else "ok"
                )

        async def allow(_request: ApprovalRequest) -> ApprovalDecision:
            return ApprovalDecision(allow=True, decided_by="user")

        self.backend.enqueue(*replies)
        runner = TurnRunner(
            self.backend,
            Executor(),
            approver or allow,
            ApprovalPolicy(),
            self.events.append,
            AgentConfig(routing=routing),
            selector=ToolSelector(LexicalRanker()),
        )
        return await asyncio.wait_for(runner.run(Conversation(id=1), question, self.tools), WAIT_S)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


@contextlib.asynccontextmanager
async def opened(folder: Path) -> AsyncIterator[Session]:
    async with Client(notes_server(folder)) as client:
        listed = await client.list_tools()
        yield Session(client, tool_specs({"notes": listed.tools}, trusted={"notes"}))


def call(name: str, **arguments: Any) -> str:
    return "[TOOL_CALL]" + json.dumps({"name": name, "arguments": arguments}) + "[END_TOOL_CALL]"


# -- an answer made of markup only --------------------------------------------------------------


def test_an_answer_with_no_words_is_empty() -> None:
    for answer in ("```\n", "```json\n```", "**", " \n", "~~~"):
        grounding = check_answer(answer, results=["created hello.txt (16 bytes)"])
        assert not grounding.grounded and "nothing" in grounding.reason, answer
        assert not has_words(answer)
    assert check_answer("Done: hello.txt is written.", results=["created hello.txt (16 bytes)"]).grounded
    assert has_words("```\nprint(1)\n```")


async def test_after_a_call_a_reply_of_markup_only_shows_the_tools_result(tmp_path: Path) -> None:
    async with opened(tmp_path) as session:
        completed = await session.turn(
            "write hello into hello.txt",
            [call("notes__write_note", path="hello.txt", content="hello everybody!"), "```\n"],
        )
    assert "created hello.txt (16 bytes)" in completed.text
    assert "```" not in completed.text
    [ungrounded] = session.of(ev.AnswerUngrounded)
    assert ungrounded.reason == "the model wrote nothing after the tool"


# -- arguments the user edited -------------------------------------------------------------------


async def test_arguments_the_user_edited_are_what_the_model_reads_with_the_result(tmp_path: Path) -> None:
    async def edits(request: ApprovalRequest) -> ApprovalDecision:
        arguments = {**request.arguments, "content": "buy milk and eggs"}
        return ApprovalDecision(allow=True, decided_by="user", arguments=arguments)

    async with opened(tmp_path) as session:
        completed = await session.turn(
            "add buy milk to my shopping note",
            [
                call("notes__write_note", path="shopping.txt", content="buy milk"),
                "I wrote buy milk and eggs.",
            ],
            approver=edits,
        )
    assert (tmp_path / "shopping.txt").read_text() == "buy milk and eggs"
    result_for_model = session.backend.requests[1].messages[-1].content
    assert (
        "changed the arguments" in result_for_model and '"content": "buy milk and eggs"' in result_for_model
    )
    assert "created shopping.txt (17 bytes)" in result_for_model
    # The user's card and the history show the result as the server gave it.
    [finished] = session.of(ev.ToolExecutionFinished)
    assert finished.result_text == "created shopping.txt (17 bytes)"
    assert finished.arguments == {"path": "shopping.txt", "content": "buy milk and eggs"}
    # What ran is said after the answer, so the user does not read the model's call into it.
    assert completed.text == (
        'I wrote buy milk and eggs.\n\n**notes__write_note** ran with content "buy milk and eggs", as you'
        ' changed it; the model proposed content "buy milk".'
    )


# -- a reply that echoes what EdgeHost told the model ---------------------------------------------


async def deny(_request: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision(allow=False, reason="not now", decided_by="user")


def test_an_echo_is_found_in_any_case_and_in_part() -> None:
    denial = f"The user denied this call to notes__write_note. Reason: not now {DENIAL_INSTRUCTION}"
    assert echoes(
        "The user denied this call. Do Not retry it; answer without it.", [denial], [DENIAL_INSTRUCTION]
    )
    assert echoes("do not retry it, answer without it", [denial], [DENIAL_INSTRUCTION])
    assert echoes("the user denied this call to notes write note", [denial])
    assert not echoes("I did not write the note because you said no.", [denial], [DENIAL_INSTRUCTION])
    error = "Error executing tool sync_notes: the cloud is unreachable"
    assert echoes("Error executing tool sync_notes: the cloud is unreachable.", [error])
    assert not echoes("`Notes__sync_notes`", [error])  # names the call, repeats no error


async def test_a_routed_call_denied_and_the_denial_echoed_shows_edgehosts_statement(tmp_path: Path) -> None:
    # Seen in the window: after a denial EdgeHost chose the call for, the reply shown was the
    # instruction meant for the model, as the model wrote it ("Do Not").
    echo = (
        "The user denied this call to notes__write_note. Reason: not now Do Not retry it; answer without it."
    )
    async with opened(tmp_path) as session:
        completed = await session.turn(
            "write buy milk into the note file shopping.txt",
            ['{"path": "shopping.txt", "content": "buy milk"}}[END_TOOL_CALL]', echo],
            approver=deny,
            routing="host",
        )
    [routed] = session.of(ev.TurnRouted)
    assert routed.needs_tool and routed.candidates[0] == "notes__write_note"
    assert completed.text == "notes__write_note: Not run: you denied it (not now)."
    [replaced] = session.of(ev.AnswerUngrounded)
    assert replaced.reason == "the reply repeats the denial" and replaced.model_text == echo
    assert not (tmp_path / "shopping.txt").exists()


async def test_a_reply_that_echoes_a_tools_error_shows_edgehosts_statement(tmp_path: Path) -> None:
    async with opened(tmp_path) as session:
        completed = await session.turn(
            "sync my notes",
            [call("notes__sync_notes"), "Error executing tool sync_notes: the cloud is unreachable"],
        )
    [replaced] = session.of(ev.AnswerUngrounded)
    assert replaced.reason == "the reply repeats the error"
    assert completed.text.startswith("notes__sync_notes: ") and "the cloud is unreachable" in completed.text


# -- a routed call with invalid arguments --------------------------------------------------------


async def test_a_routed_call_with_a_number_out_of_range_gets_a_correction_round(tmp_path: Path) -> None:
    # Seen in the window: count 11 where the schema allows at most 10 ended the turn with an
    # "invalid" card; the model never saw the error.
    async with opened(tmp_path) as session:
        completed = await session.turn(
            "give me 11 resource links",
            ['{"count": 11}}[END_TOOL_CALL]', '{"count": 10}}[END_TOOL_CALL]', "Here are 10 links."],
            routing="host",
        )
    finished = session.of(ev.ToolExecutionFinished)
    assert [(f.tool, f.status) for f in finished] == [
        ("notes__resource_links", "invalid"),
        ("notes__resource_links", "ok"),
    ]
    assert finished[1].arguments == {"count": 10}
    retry = session.backend.requests[1]
    assert retry.continuation.startswith('[TOOL_CALL]{"name": "notes__resource_links"')  # forced again
    assert "maximum of 10" in retry.messages[-1].content  # with the error in front of the model
    assert completed.text.startswith("**notes__resource_links** returned:\n\nnote://1\n")
    assert completed.text.endswith("\n\nHere are 10 links.")


async def test_the_correction_rounds_of_a_routed_call_are_bounded(tmp_path: Path) -> None:
    async with opened(tmp_path) as session:
        wrong = '{"count": 11}}[END_TOOL_CALL]'
        completed = await session.turn("give me 11 resource links", [wrong] * 5, routing="host")
    statuses = [f.status for f in session.of(ev.ToolExecutionFinished)]
    assert statuses == ["invalid"] * (AgentConfig().max_correction_rounds + 1)
    assert "did not produce a valid tool call" in completed.text


async def test_the_note_on_edited_arguments_is_for_the_model_not_the_user(tmp_path: Path) -> None:
    async def edits(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(
            allow=True, decided_by="user", arguments={**request.arguments, "content": "eggs"}
        )

    async with opened(tmp_path) as session:
        completed = await session.turn(
            "add milk to my shopping note",
            [call("notes__write_note", path="shopping.txt", content="milk"), "```\n"],
            approver=edits,
        )
    # The reply said nothing: the user reads the result as the server gave it, without the note.
    assert "created shopping.txt (4 bytes)" in completed.text
    assert "changed the arguments" not in completed.text
