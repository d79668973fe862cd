"""Tool calls run as MCP Tasks (protocol 2025-11-25): call, poll, fetch the result, cancel.

A tool whose ``execution.taskSupport`` is "optional" or "required", on a server that declares
``tasks.requests.tools.call``, is called with a ``task`` field: the server answers at once with a
task, EdgeHost polls ``tasks/get`` at the server's ``pollInterval`` and reports each status, then
takes the result with ``tasks/result``. A task that asks for input (``input_required``) gets it
through ``tasks/result``, which carries the server's queued requests (an elicitation) to our
handlers and returns once the task has ended. When the wait is given up (the user stops the turn,
or the call's timeout passes) the task is cancelled on the server with ``tasks/cancel``.

Tasks do not outlive the host: the servers' task stores live in the server processes EdgeHost
started (or in sessions it opened), so closing the window cancels the calls in flight, and a
call whose process died is marked "interrupted" by the history when it next opens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from pydantic import TypeAdapter

__all__ = ["TASK_TTL_MS", "TaskCancelled", "TaskState", "call_as_task", "runs_as_task"]

# How long the server should keep a task and its result after creating it (it may keep less).
TASK_TTL_MS = 10 * 60 * 1000
# Bounds on the server's pollInterval: not faster than 10 polls a second, not slower than one in 5 s.
MIN_POLL_S = 0.1
MAX_POLL_S = 5.0
DEFAULT_POLL_S = 1.0
# tasks/cancel is sent when the wait is given up; it may not hold up the stop for longer than this.
CANCEL_BUDGET_S = 5.0

_TERMINAL = frozenset({"completed", "failed", "cancelled"})

_FirstAnswer: TypeAdapter[types.CreateTaskResult | types.CallToolResult] = TypeAdapter(
    types.CreateTaskResult | types.CallToolResult
)


class TaskCancelled(Exception):
    """The task ended as "cancelled" without us asking (the server or someone else cancelled it)."""


@dataclass(frozen=True)
class TaskState:
    """One status of a task, as the server reported it."""

    task_id: str
    status: str  # working | input_required | completed | failed | cancelled
    message: str | None = None

    @classmethod
    def of(cls, task: types.Task) -> TaskState:
        return cls(task.task_id, task.status, task.status_message)


def runs_as_task(tool: types.Tool | None, capabilities: types.ServerCapabilities) -> bool:
    """Whether a call of ``tool`` is made as a task: the tool allows it and the server can."""
    if tool is None or tool.execution is None or tool.execution.task_support not in ("optional", "required"):
        return False
    tasks = capabilities.tasks
    return tasks is not None and tasks.requests is not None and tasks.requests.tools is not None


async def call_as_task(
    session: ClientSession,
    tool: str,
    arguments: dict[str, Any] | None,
    on_state: Callable[[TaskState], None],
) -> types.CallToolResult:
    """Call ``tool`` as a task and wait for its result, reporting each new state to ``on_state``.

    A server that answers the call directly (it chose not to make a task) is answered as a plain call.
    Cancelling the caller cancels the task on the server. Raises TaskCancelled when the task ends
    cancelled by another party, and what ``send_request`` raises (MCPError, ValidationError).
    """
    first = await _task_augmented_call(session, tool, arguments)
    if isinstance(first, types.CallToolResult):
        return await _validated(session, tool, first)
    task = first.task
    state = TaskState.of(task)
    on_state(state)
    try:
        while state.status not in _TERMINAL and state.status != "input_required":
            await anyio.sleep(_poll_seconds(task.poll_interval))
            task = await session.send_request(
                types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=state.task_id)),
                types.GetTaskResult,
            )
            if TaskState.of(task) != state:
                state = TaskState.of(task)
                on_state(state)
        if state.status == "cancelled":
            raise TaskCancelled(f"the server cancelled task {state.task_id}" + _said(state))
        # For a finished task this is its result; for one that waits on input, tasks/result brings the
        # server's questions to our handlers and answers once the task has ended.
        result = await session.send_request(
            types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=state.task_id)),
            types.CallToolResult,
        )
    except BaseException:
        if state.status not in _TERMINAL:
            await _cancel(session, state.task_id)
        raise
    final = "failed" if result.is_error or state.status == "failed" else "completed"
    if state.status != final:  # it went on to the end inside tasks/result
        on_state(TaskState(state.task_id, final, None))
    return await _validated(session, tool, result)


async def _task_augmented_call(
    session: ClientSession, tool: str, arguments: dict[str, Any] | None
) -> types.CreateTaskResult | types.CallToolResult:
    """``tools/call`` with a ``task`` field; the answer is a task or (the server's choice) the result.

    ClientSession.send_request checks a tools/call answer against CallToolResult alone, so mcp 2.3
    rejects the CreateTaskResult the protocol allows here (python-sdk PR #3161 lifts that). Until
    it lands, the request goes through the session's own stamping and dispatcher, as send_request
    does, and the answer is checked against both shapes here.
    """
    request = types.CallToolRequest(
        params=types.CallToolRequestParams(
            name=tool, arguments=arguments, task=types.TaskMetadata(ttl=TASK_TTL_MS)
        )
    )
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    options: dict[str, Any] = {}
    session._stamp(data, options)  # type: ignore[arg-type]  # noqa: SLF001 - see the docstring
    raw = await session._dispatcher.send_raw_request(data["method"], data.get("params"), options)  # type: ignore[arg-type]  # noqa: SLF001
    return _FirstAnswer.validate_python(raw, by_name=False)


async def _validated(session: ClientSession, tool: str, result: types.CallToolResult) -> types.CallToolResult:
    if not result.is_error:
        await session.validate_tool_result(tool, result)
    return result


async def _cancel(session: ClientSession, task_id: str) -> None:
    """Ask the server to cancel ``task_id``; runs even while the caller is being cancelled."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_BUDGET_S):
        try:
            await session.send_request(
                types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id)),
                types.CancelTaskResult,
            )
        except Exception:  # noqa: BLE001 - the task may have ended meanwhile, or the server gone
            pass


def _poll_seconds(poll_interval_ms: int | None) -> float:
    if poll_interval_ms is None:
        return DEFAULT_POLL_S
    return min(max(poll_interval_ms / 1000, MIN_POLL_S), MAX_POLL_S)


def _said(state: TaskState) -> str:
    return f": {state.message}" if state.message else ""
