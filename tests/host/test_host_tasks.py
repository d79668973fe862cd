"""A turn whose tool runs as an MCP Task (server-everything's simulate-research-query): the states
reach the tool card's events, the result reaches the model, and stopping the turn cancels the task."""

from __future__ import annotations

import asyncio

import mcp_types as types
import pytest
from tests.host.conftest import WAIT_S, call

from edgehost.agent.approval import ApprovalDecision
from edgehost.host import events as ev
from edgehost.llm.scripted import ScriptedBackend

pytestmark = pytest.mark.peers

RESEARCH = "everything__simulate-research-query"


async def _allow_the_call(host, recorder) -> None:  # type: ignore[no-untyped-def]
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    assert request.tool == RESEARCH
    host.resolve_approval(request.id, ApprovalDecision(allow=True))


async def test_a_task_call_in_a_turn_shows_its_states_and_feeds_its_result_to_the_model(
    make_host, everything_servers
):
    backend = ScriptedBackend([call(RESEARCH, topic="lichens"), "The report is ready."])
    host, recorder = await make_host(backend, servers=everything_servers)
    turn = host.start_turn("research lichens")
    await _allow_the_call(host, recorder)
    await asyncio.wait_for(turn, WAIT_S)

    states = [e for e in recorder.of(ev.ToolExecutionProgressed) if e.task_status is not None]
    assert states[0].task_status == "working" and states[0].message == "Gathering sources..."
    assert states[-1].task_status == "completed"
    assert len({e.task_id for e in states}) == 1 and len({e.call_id for e in states}) == 1
    finished = recorder.of(ev.ToolExecutionFinished)[-1]
    assert finished.status == "ok" and "# Research Report: lichens" in finished.full_result
    # The model's second round read the report.
    assert "Research Report: lichens" in backend.requests[-1].messages[-1].content
    host._history.wait()
    (execution,) = host.history.executions()
    assert execution.status == "ok" and execution.tool == RESEARCH


async def test_stopping_the_turn_cancels_the_task_and_keeps_the_conversation(make_host, everything_servers):
    backend = ScriptedBackend([call(RESEARCH, topic="mosses"), "never read"])
    host, recorder = await make_host(backend, servers=everything_servers)
    turn = host.start_turn("research mosses")
    await _allow_the_call(host, recorder)
    working = await recorder.wait_for(lambda e: isinstance(e, ev.ToolExecutionProgressed) and e.task_status)
    await host.cancel()
    await asyncio.wait_for(turn, WAIT_S)

    finished = recorder.of(ev.ToolExecutionFinished)[-1]
    assert finished.status == "cancelled"
    client = host._manager()._supervisor("everything")._client
    task = await client.session.send_request(
        types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=working.task_id)), types.GetTaskResult
    )
    assert task.status == "cancelled"
    conversation = recorder.of(ev.TurnCompleted)[-1].conversation_id
    host._history.wait()  # history is written behind the turn
    messages = host.history.messages(conversation)
    assert messages[0].content == "research mosses"
    (execution,) = host.history.executions()
    assert execution.status == "cancelled" and execution.tool == RESEARCH
