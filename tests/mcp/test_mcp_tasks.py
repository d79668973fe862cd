"""Tool calls run as MCP Tasks against server-everything's simulate-research-query (a task-only tool:
four one-second stages, an elicitation when the topic is ambiguous)."""

from __future__ import annotations

import sys

import anyio
import mcp_types as types
import pytest
from mcp_support import everything_on_a_port, everything_stdio, running
from tests.conftest import REPO

from edgehost.mcp.client_features import ClientFeatures
from edgehost.mcp.config import ServerConfig
from edgehost.mcp.errors import ToolTimeout
from edgehost.mcp.manager import ServerManager
from edgehost.mcp.tasks import TaskState, runs_as_task

pytestmark = pytest.mark.peers

RESEARCH = "everything__simulate-research-query"
STAGES = ["Gathering sources...", "Analyzing content...", "Synthesizing findings...", "Generating report..."]
asked: list[str] = []


async def clarify(server: str, params: types.ElicitRequestParams) -> types.ElicitResult:
    asked.append(params.message)
    return types.ElicitResult(action="accept", content={"interpretation": "snake"})


FEATURES = ClientFeatures(elicitation=clarify)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def _server_side_status(manager: ServerManager, task_id: str) -> str:
    """What the server itself says of the task now (tasks/get on the same session)."""
    client = manager._supervisor("everything")._client
    assert client is not None
    task = await client.session.send_request(
        types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id)), types.GetTaskResult
    )
    return task.status


async def test_a_task_tool_is_polled_through_its_stages_and_its_result_fetched() -> None:
    async with running(everything_stdio(), features=FEATURES) as manager:
        supervisor = manager._supervisor("everything")
        listed = next(t for t in supervisor.listing.tools if t.name == "simulate-research-query")
        assert listed.execution is not None and listed.execution.task_support == "required"
        assert runs_as_task(listed, supervisor._client.server_capabilities)  # type: ignore[union-attr]

        states: list[TaskState] = []
        result = await manager.call_tool(RESEARCH, {"topic": "rust"}, on_task=states.append)

        assert not result.is_error
        assert _text(result).startswith("# Research Report: rust")
        assert len({s.task_id for s in states}) == 1
        messages = [s.message for s in states if s.status == "working"]
        # Polled at the server's pollInterval (1 s, as long as a stage): each state is reported once, in
        # order; a busy machine may poll past a stage.
        assert messages[0] == "Gathering sources..." and len(messages) >= 2
        assert messages == sorted(messages, key=STAGES.index) and len(set(messages)) == len(messages)
        assert states[-1].status == "completed"


async def test_a_task_that_needs_input_asks_through_tasks_result_and_uses_the_answer() -> None:
    asked.clear()
    async with running(everything_stdio(), features=FEATURES) as manager:
        states: list[TaskState] = []
        result = await manager.call_tool(
            RESEARCH, {"topic": "python", "ambiguous": True}, on_task=states.append
        )

    # The question comes through tasks/result, asked at once; the input_required state lasts a few
    # milliseconds on this server, so a poll rarely sees it.
    assert len(asked) == 1 and "python" in asked[0]
    assert "# Research Report: python (snake)" in _text(result)
    assert states[-1].status == "completed"


async def test_a_task_past_its_timeout_is_cancelled_on_the_server() -> None:
    async with running(everything_stdio(), features=FEATURES) as manager:
        states: list[TaskState] = []
        with pytest.raises(ToolTimeout):
            # The first poll comes after 1 s; with nothing new before then the 0.5 s deadline passes.
            await manager.call_tool(RESEARCH, {"topic": "go"}, on_task=states.append, timeout=0.5)
        assert states and states[0].status == "working"
        assert await _server_side_status(manager, states[0].task_id) == "cancelled"


async def test_giving_up_the_wait_cancels_the_task_and_the_server_keeps_serving() -> None:
    async with running(everything_stdio(), features=FEATURES) as manager:
        states: list[TaskState] = []
        started = anyio.Event()

        def on_task(state: TaskState) -> None:
            states.append(state)
            started.set()

        async with anyio.create_task_group() as group:
            group.start_soon(lambda: manager.call_tool(RESEARCH, {"topic": "zig"}, on_task=on_task))
            await started.wait()
            group.cancel_scope.cancel()  # what stopping the turn does to the call

        assert await _server_side_status(manager, states[0].task_id) == "cancelled"
        echoed = await manager.call_tool("everything__echo", {"message": "still here"})
        assert "still here" in _text(echoed)


async def test_a_task_tool_over_streamable_http() -> None:
    with everything_on_a_port("streamableHttp", b"listening on port", "/mcp") as (url, _process):
        config = ServerConfig(name="everything", transport="http", url=url)
        async with running(config, features=FEATURES) as manager:
            states: list[TaskState] = []
            result = await manager.call_tool(RESEARCH, {"topic": "kotlin"}, on_task=states.append)
    assert "# Research Report: kotlin" in _text(result)
    assert states[0].status == "working" and states[-1].status == "completed"


TASK_SERVER = REPO / "tests" / "fixtures" / "servers" / "task_server.py"


def task_server(*flags: str) -> ServerConfig:
    return ServerConfig(name="brewer", command=sys.executable, args=[str(TASK_SERVER), *flags])


async def test_a_server_that_answers_tasks_result_early_with_an_error_is_asked_again_after_the_end() -> None:
    async with running(task_server("--early-result-error"), features=FEATURES) as manager:
        states: list[TaskState] = []
        result = await manager.call_tool("brewer__brew", {"what": "tea"}, on_task=states.append)
    assert _text(result) == "brewed"
    assert [s.status for s in states] == ["working", "completed"]


async def test_a_server_without_tasks_get_still_gives_the_result() -> None:
    async with running(task_server("--no-tasks-get"), features=FEATURES) as manager:
        states: list[TaskState] = []
        result = await manager.call_tool("brewer__brew", {"what": "tea"}, on_task=states.append)
    assert _text(result) == "brewed"
    # Only the first state (from the call itself), then the end the result implies.
    assert [s.status for s in states] == ["working", "completed"]
