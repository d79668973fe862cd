"""Several calls in one reply run at once (issue 13): against a real MCP server (the SDK's, in memory)
whose tools take a while and note when they start and end."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from tests.support import tool_specs

from edgehost.agent.approval import ApprovalDecision, ApprovalPolicy, ApprovalRequest
from edgehost.agent.config import AgentConfig
from edgehost.agent.loop import Conversation, TurnRunner
from edgehost.agent.tool_calls import ToolOutcome
from edgehost.agent.tools import ToolSpec
from edgehost.host import events as ev
from edgehost.llm.scripted import ScriptedBackend
from edgehost.slow_machine import scaled_wait

WAIT_S = scaled_wait(30)
STEP_S = 0.2  # how long each tool takes: long enough for calls to overlap when they run at once


def slow_server(log: list[tuple[str, str]]) -> MCPServer:
    server = MCPServer("slow")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def look(name: str) -> str:
        """Look at a thing."""
        log.append(("start", name))
        await anyio.sleep(STEP_S)
        log.append(("end", name))
        return f"{name} looks fine"

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    async def label(name: str) -> str:
        """Put a label on a thing."""
        log.append(("start", f"label {name}"))
        await anyio.sleep(STEP_S)
        log.append(("end", f"label {name}"))
        return f"{name} labelled"

    return server


def calls(*pairs: tuple[str, str]) -> str:
    """One reply holding several calls, as Mistral models write them (one [TOOL_CALLS] array): the
    marker dialects that close each call stop the reply at its first call (decision 5)."""
    return "[TOOL_CALLS]" + json.dumps(
        [{"name": f"slow__{tool}", "arguments": {"name": name}} for tool, name in pairs]
    )


class Session:
    def __init__(self, client: Client, tools: list[ToolSpec], log: list[tuple[str, str]]) -> None:
        self.client, self.tools, self.log = client, tools, log
        self.events: list[Any] = []

    async def turn(
        self, reply: str, *, parallel: int = 4, approver: Any = None, rules: Any = ()
    ) -> Conversation:
        client = self.client

        class Executor:
            async def call(self, tool: ToolSpec, arguments: dict[str, Any], progress: Any) -> ToolOutcome:
                result = await client.call_tool(tool.tool_name, arguments)
                return ToolOutcome(
                    "\n".join(getattr(b, "text", "") for b in result.content), is_error=result.is_error
                )

        async def allow(_request: ApprovalRequest) -> ApprovalDecision:
            return ApprovalDecision(allow=True, decided_by="user")

        runner = TurnRunner(
            ScriptedBackend([reply, "Done."], chunk_size=1000),
            Executor(),
            approver or allow,
            ApprovalPolicy.from_config(list(rules)),
            self.events.append,
            AgentConfig(max_parallel_calls=parallel),
        )
        conversation = Conversation(id=1)
        await asyncio.wait_for(runner.run(conversation, "check the things", self.tools), WAIT_S)
        return conversation


@contextlib.asynccontextmanager
async def opened() -> AsyncIterator[Session]:
    """A session on the slow server (a context of the test's own task: anyio's scopes must close
    where they opened)."""
    log: list[tuple[str, str]] = []
    async with Client(slow_server(log)) as client:
        listed = await client.list_tools()
        yield Session(client, tool_specs({"slow": listed.tools}, trusted={"slow"}), log)


def most_at_once(log: list[tuple[str, str]]) -> int:
    running = peak = 0
    for kind, _name in log:
        running += 1 if kind == "start" else -1
        peak = max(peak, running)
    return peak


async def test_read_only_calls_of_one_reply_run_at_once_and_come_back_in_the_models_order() -> None:
    async with opened() as session:
        conversation = await session.turn(calls(("look", "a"), ("look", "b"), ("look", "c")))
        assert most_at_once(session.log) == 3
        results = [m for m in conversation.messages if m.role == "tool"]
        assert [m.content for m in results] == ["a looks fine", "b looks fine", "c looks fine"]
        finished = [e for e in session.events if isinstance(e, ev.ToolExecutionFinished)]
        assert sorted(e.call_id for e in finished) == ["c1", "c2", "c3"]  # numbered in the model's order
        assert [m.tool_call_id for m in results] == ["c1", "c2", "c3"]
        [completed] = [e for e in session.events if isinstance(e, ev.TurnCompleted)]
        assert [r["arguments"]["name"] for r in completed.executions] == ["a", "b", "c"]


async def test_no_more_calls_run_at_once_than_the_limit() -> None:
    async with opened() as session:
        await session.turn(calls(("look", "a"), ("look", "b"), ("look", "c"), ("look", "d")), parallel=2)
        assert most_at_once(session.log) == 2
        session.log.clear()
        await session.turn(calls(("look", "a"), ("look", "b")), parallel=1)
        assert most_at_once(session.log) == 1


async def test_a_call_that_changes_things_keeps_its_place_among_the_calls_to_its_server() -> None:
    async with opened() as session:
        await session.turn(calls(("look", "a"), ("label", "a"), ("look", "b")))
        # The label waits for the look before it and the look after it waits for the label.
        assert session.log == [
            ("start", "a"),
            ("end", "a"),
            ("start", "label a"),
            ("end", "label a"),
            ("start", "b"),
            ("end", "b"),
        ]


async def test_a_repeated_call_waits_for_the_first_and_gets_its_result_without_running() -> None:
    async with opened() as session:
        conversation = await session.turn(calls(("look", "a"), ("look", "a")))
        assert session.log == [("start", "a"), ("end", "a")]
        results = [m.content for m in conversation.messages if m.role == "tool"]
        assert results[0] == "a looks fine" and results[1].endswith("a looks fine")


async def test_approvals_of_calls_running_at_once_are_asked_each_and_answered_in_any_order() -> None:
    async with opened() as session:
        pending: dict[str, asyncio.Future[ApprovalDecision]] = {}
        both_asked = asyncio.Event()

        async def approver(request: ApprovalRequest) -> ApprovalDecision:
            future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
            pending[request.arguments["name"]] = future
            if len(pending) == 2:
                both_asked.set()
            return await future

        async def answer_backwards() -> None:
            await both_asked.wait()
            pending["b"].set_result(ApprovalDecision(allow=False, reason="not b", decided_by="user"))
            await asyncio.sleep(0.05)
            pending["a"].set_result(ApprovalDecision(allow=True, decided_by="user"))

        answering = asyncio.create_task(answer_backwards())
        conversation = await session.turn(
            calls(("look", "a"), ("look", "b")),
            approver=approver,
            rules=[{"server": "slow", "tool": "look", "action": "ask"}],
        )
        await answering
        assert session.log == [("start", "a"), ("end", "a")]  # b was refused, a ran once allowed
        results = [m.content for m in conversation.messages if m.role == "tool"]
        assert results[0] == "a looks fine" and "denied" in results[1] and "not b" in results[1]
