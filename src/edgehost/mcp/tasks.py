"""Tool calls run as MCP Tasks (protocol 2025-11-25): call, watch, take the result, cancel.

A tool whose ``execution.taskSupport`` is "optional" or "required", on a server that declares
``tasks.requests.tools.call``, is called with a ``task`` field: the server answers at once with a
task. EdgeHost then asks for its result with ``tasks/result`` straight away (the server holds that
answer until the task has ended, and sends the task's own questions, an elicitation, through it)
and meanwhile polls ``tasks/get`` at the server's ``pollInterval`` to report each status. When the
wait is given up (the user stops the turn, or the call's timeout passes) the task is cancelled on
the server with ``tasks/cancel``.

Tasks do not outlive the host: the servers' task stores live in the server processes EdgeHost
started (or in sessions it opened), so closing the window cancels the calls in flight, and a
call whose process died is marked "interrupted" by the history when it next opens.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter, ValidationError

log = logging.getLogger(__name__)

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
    watch = _Watch(session, first.task, on_state)
    try:
        result = await watch.result()
    except BaseException:
        if watch.state.status not in _TERMINAL:
            await _cancel(session, watch.state.task_id)
        raise
    final = "failed" if result.is_error or watch.state.status == "failed" else "completed"
    if watch.state.status != final:  # the result came before a poll saw the end
        watch.report(TaskState(watch.state.task_id, final, watch.state.message))
    return await _validated(session, tool, result)


class _Watch:
    """One task: its result asked for at once, its states polled meanwhile for the user to see.

    ``tasks/result`` blocks until the task has ended (and carries the server's questions while it
    waits on input), so the result arrives as soon as the task ends, not at the next poll. A server
    that answers it early with an error instead is asked again once a poll has seen the end.
    """

    def __init__(
        self, session: ClientSession, task: types.Task, on_state: Callable[[TaskState], None]
    ) -> None:
        self._session = session
        self._poll_s = _poll_seconds(task.poll_interval)
        self._on_state = on_state
        self._ended = anyio.Event()
        self.state = TaskState.of(task)
        self.report(self.state)

    def report(self, state: TaskState) -> None:
        self.state = state
        if state.status in _TERMINAL:
            self._ended.set()
        self._on_state(state)

    async def result(self) -> types.CallToolResult:
        async with anyio.create_task_group() as group:
            group.start_soon(self._poll)
            outcome = await self._outcome()
            group.cancel_scope.cancel()
        # Raised here, outside the task group, which would wrap it in an ExceptionGroup.
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def _outcome(self) -> types.CallToolResult | Exception:
        try:
            try:
                return await self._payload()
            except MCPError:
                await self._ended.wait()  # answered before the end: ask again after it
                if self.state.status == "cancelled":
                    return TaskCancelled(
                        f"the server cancelled task {self.state.task_id}" + _said(self.state)
                    )
                return await self._payload()
        except Exception as exc:  # noqa: BLE001 - handed to result(), which raises it
            return exc

    async def _payload(self) -> types.CallToolResult:
        return await self._session.send_request(
            types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=self.state.task_id)),
            types.CallToolResult,
        )

    async def _poll(self) -> None:
        """Report each new state until the task ends; a failed poll ends the reports, not the wait."""
        while self.state.status not in _TERMINAL:
            await anyio.sleep(self._poll_s)
            try:
                task = await self._session.send_request(
                    types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=self.state.task_id)),
                    types.GetTaskResult,
                )
            except (MCPError, ValidationError) as exc:
                log.info("polling task %s stopped: %s", self.state.task_id, exc)
                self._ended.set()
                return
            if TaskState.of(task) != self.state:
                self.report(TaskState.of(task))


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
