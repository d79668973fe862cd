"""Tool calls the model did not propose: `edgehost call` and `edgehost probe` (decided by the user on
the command line, or by probe's risk limit) and a server's own view (MCP Apps, host/app_views.py), whose
calls the approver decides as a model's are. All are refused by the user's deny rules and recorded in
the history like every call the model makes (decision 8: no path around approval and the history)."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import Any

import mcp_types as types

from edgehost.agent.approval import (
    APPROVER_CLEANUP_S,
    ApprovalDecision,
    ApprovalPolicy,
    ApprovalRequest,
    Approver,
)
from edgehost.agent.events import ApprovalResolved
from edgehost.agent.tools import ToolSpec
from edgehost.host import events as ev
from edgehost.host.executor import WHOLE_RESULT_CHARS
from edgehost.mcp.catalog import unknown_tool_text
from edgehost.mcp.errors import ToolCallError, ToolTimeout, UnknownTool
from edgehost.mcp.manager import ServerManager
from edgehost.mcp.results import result_text
from edgehost.mcp.tasks import TaskState

__all__ = ["ToolRefused", "call_outside_conversation"]

_call_ids = itertools.count(1)


class ToolRefused(ToolCallError):
    """The user's rule refuses this tool; nothing was sent to the server."""


async def call_outside_conversation(
    manager: ServerManager,
    policy: ApprovalPolicy,
    tools: Sequence[ToolSpec],
    emit: Callable[[Any], None],
    name: str,
    arguments: dict[str, Any],
    *,
    timeout: float | None = None,  # noqa: ASYNC109 - the server's call timeout, passed on
    decided_by: str = "user",
    approver: Approver | None = None,
    conversation_id: int | None = None,
    asked_from: str = "",
    finish_once_started: bool = False,
) -> types.CallToolResult:
    """Call ``name`` with ``arguments``; ``decided_by`` says who chose to (the user, "probe", "view").

    Without ``approver`` the caller has decided (a person on the command line). With one, a call the
    policy asks about waits for the approver's answer, as a model's call does; ``asked_from`` tells the
    user who asks; with ``finish_once_started`` a call that has begun runs to its end even when the
    caller is cancelled (only the wait for approval is withdrawn). Raises UnknownTool, ToolRefused (a
    user's deny rule, or the approver's denial) and the manager's ToolCallErrors; a tool error comes
    back as a result with ``isError`` set. Every outcome is recorded, in ``conversation_id`` when
    given."""
    tool = next((t for t in tools if t.name == name), None)
    if tool is None:
        raise UnknownTool(unknown_tool_text(name, [t.name for t in tools]))
    call_id = f"direct-{next(_call_ids)}"
    verdict = policy.evaluate(tool, arguments, conversation_id)
    common: dict[str, Any] = {
        "conversation_id": conversation_id,
        "call_id": call_id,
        "tool": tool.name,
        "server": tool.server,
        "arguments": dict(arguments),
        "chosen_by": decided_by,
    }
    if verdict.action == "deny" and verdict.decided_by == "rule":
        _refused(emit, common, verdict.reason, "rule")
    proposed = None
    who: str
    if verdict.action == "ask" and approver is not None and verdict.request is not None:
        request = dataclasses.replace(verdict.request, asked_from=asked_from)
        answer = await _asked(approver, request, policy, emit, common)
        if not answer.allow:
            _refused(emit, common, answer.reason or "the user denied the call", answer.decided_by)
        policy.remember(request, answer)
        if answer.arguments is not None and dict(answer.arguments) != dict(arguments):
            proposed, arguments = dict(arguments), dict(answer.arguments)
            common["arguments"] = arguments
        decision, who = "allowed", answer.decided_by
    elif verdict.action == "allow":
        decision, who = "auto", verdict.decided_by
    else:
        decision, who = "allowed", decided_by
    emit(ev.ToolExecutionStarted(**common, decision=decision, decided_by=who, proposed_arguments=proposed))
    call = _call_recorded(
        manager, emit, {**common, "decision": decision, "decided_by": who}, arguments, timeout
    )
    if not finish_once_started:
        return await call
    # Whoever asked may go away (a view closed) while it runs: it runs to its end and is recorded.
    running = asyncio.ensure_future(call)
    running.add_done_callback(lambda task: task.cancelled() or task.exception())  # retrieved, always
    return await asyncio.shield(running)


async def _asked(
    approver: Approver,
    request: ApprovalRequest,
    policy: ApprovalPolicy,
    emit: Callable[[Any], None],
    common: dict[str, Any],
) -> ApprovalDecision:
    """The approver's answer to ``request``, announced (ApprovalResolved). When the caller is cancelled
    first (whoever asked went away), the request is withdrawn and the call recorded as cancelled; an
    answer given just before still counts for the grants it makes."""
    asking = asyncio.ensure_future(approver(request))
    try:
        answer = await asyncio.shield(asking)
    except asyncio.CancelledError:
        if asking.done() and not asking.cancelled() and asking.exception() is None:
            answer = asking.result()
            policy.remember(request, answer)
            decision, who = ("allowed" if answer.allow else "denied"), answer.decided_by
        else:
            asking.cancel()
            # Its request leaves the open ones before the faces are told it is gone.
            await asyncio.wait({asking}, timeout=APPROVER_CLEANUP_S)
            answer = ApprovalDecision(allow=False, reason="withdrawn", decided_by="cancel")
            decision, who = "denied", "cancel"
        emit(ApprovalResolved(request.id, answer.allow, answer.decided_by))
        emit(
            ev.ToolExecutionFinished(
                **common,
                status="cancelled",
                result_text="",
                duration_ms=0.0,
                error="withdrawn: whoever asked for it went away before it ran",
                decision=decision,
                decided_by=who,
            )
        )
        raise
    emit(ApprovalResolved(request.id, answer.allow, answer.decided_by))
    return answer


def _refused(emit: Callable[[Any], None], common: dict[str, Any], reason: str | None, by: str) -> None:
    """Record a call that did not run, and raise ToolRefused."""
    emit(
        ev.ToolExecutionFinished(
            **common,
            status="denied",
            result_text="",
            duration_ms=0.0,
            error=reason,
            decision="denied",
            decided_by=by,
        )
    )
    raise ToolRefused(f"{common['tool']} was not called: {reason}", server=common["server"])


async def _call_recorded(
    manager: ServerManager,
    emit: Callable[[Any], None],
    recorded: dict[str, Any],
    arguments: dict[str, Any],
    timeout: float | None,  # noqa: ASYNC109 - the server's call timeout, passed on
) -> types.CallToolResult:
    """Make the call that ToolExecutionStarted announced, its progress and its end emitted with the
    ``recorded`` fields."""
    call_id = recorded["call_id"]
    started = perf_counter()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        emit(ev.ToolExecutionProgressed(None, call_id, progress, total, message))

    def on_task(state: TaskState) -> None:
        emit(ev.ToolExecutionProgressed(None, call_id, 0.0, None, state.message, state.task_id, state.status))

    try:
        result = await manager.call_tool(
            recorded["tool"], arguments, timeout=timeout, progress=on_progress, on_task=on_task
        )
    except asyncio.CancelledError:  # whoever asked went away (a view closed): the call is stopped
        emit(
            ev.ToolExecutionFinished(
                **recorded,
                status="cancelled",
                result_text="",
                duration_ms=(perf_counter() - started) * 1000,
                error="stopped: whoever asked for it went away",
            )
        )
        raise
    except ToolCallError as exc:
        status = "timeout" if isinstance(exc, ToolTimeout) else "error"
        emit(
            ev.ToolExecutionFinished(
                **recorded,
                status=status,
                result_text="",
                duration_ms=(perf_counter() - started) * 1000,
                error=str(exc),
            )
        )
        raise
    text = result_text(result, WHOLE_RESULT_CHARS)
    emit(
        ev.ToolExecutionFinished(
            **recorded,
            status="error" if result.is_error else "ok",
            result_text=text,
            duration_ms=(perf_counter() - started) * 1000,
            error=text[:2000] if result.is_error else None,
            result_size=len(text),
            full_result=text,
            structured_result=result.structured_content,
        )
    )
    return result
