"""The tool calls of one reply: checked, approved, executed and recorded, several at once.

TurnRunner hands each round's calls here (agent/loop.py); what comes back, in the order the model
wrote the calls, is what the model reads next and what the turn records.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from time import perf_counter
from typing import Any, Protocol

from edgehost.agent import events as ev
from edgehost.agent.approval import PEOPLE, ApprovalDecision, ApprovalPolicy, Approver, tool_risk
from edgehost.agent.arguments import coerce_arguments, validate_arguments
from edgehost.agent.config import AgentConfig
from edgehost.agent.detector import ToolCallParsed
from edgehost.agent.prompting import format_tool_result
from edgehost.agent.tools import ToolSpec
from edgehost.llm.base import estimate_tokens

__all__ = [
    "DENIAL_INSTRUCTION",
    "CallOutcome",
    "ProgressFn",
    "ToolCalls",
    "ToolExecutor",
    "ToolOutcome",
    "denial_note",
    "edited_note",
]


class ProgressFn(Protocol):
    """How a call reports progress: the server's progress notifications, or (with ``task_id`` and
    ``task_status``) the states of a call run as an MCP Task."""

    def __call__(
        self,
        done: float,
        total: float | None,
        message: str | None,
        *,
        task_id: str | None = None,
        task_status: str | None = None,
    ) -> Awaitable[None] | None: ...


DENIAL_INSTRUCTION = "Do not retry it; answer without it."  # for the model, never shown to the user
# (name, text for the model, ok, the execution's record)
CallOutcome = tuple[str, str, bool, dict[str, Any]]


@dataclass(frozen=True)
class ToolOutcome:
    text: str  # the result rendered as text, whole (the loop cuts it to the model's budget)
    is_error: bool = False
    status: str = "ok"  # ok | error | timeout
    structured: Any = None  # the result's structuredContent, when the server sent one (for a view)


class ToolExecutor(Protocol):
    async def call(self, tool: ToolSpec, arguments: dict[str, Any], progress: ProgressFn) -> ToolOutcome: ...


class ToolCalls:
    """Runs the calls of a turn's replies for one TurnRunner (its executor, approver and policy)."""

    def __init__(
        self,
        executor: ToolExecutor,
        approver: Approver,
        policy: ApprovalPolicy,
        emit: Callable[[Any], None],
        config: AgentConfig,
        call_numbers: Iterator[int] | None = None,
    ) -> None:
        self.executor = executor
        self.approver = approver
        self.policy = policy
        self.emit = emit
        self.config = config
        self._call_ids = call_numbers if call_numbers is not None else itertools.count(1)

    async def run(
        self,
        conv_id: int,
        calls: Sequence[ToolCallParsed],
        by_name: dict[str, ToolSpec],
        earlier: dict[tuple[str, str], ToolOutcome],
        max_context: int,
        chosen_by: str,
    ) -> list[CallOutcome]:
        """The calls of one reply, their outcomes in the order the model wrote them.

        The model wrote them all before seeing any result, so none needs another's result: they run
        at once, at most ``max_parallel_calls`` together, each asking for approval on its own (the
        faces queue the prompts). Only side effects order them: a call follows the earlier calls to
        the same server when either of the two may change something (not read-only), and a repeat of
        an earlier identical call follows it (and gets its result again without running).
        """
        ids = [f"c{next(self._call_ids)}" for _ in calls]  # in the model's order, whatever runs first
        limit = max(self.config.max_parallel_calls, 1)
        if len(calls) <= 1 or limit == 1:
            return [
                await self._handle(conv_id, call, by_name, earlier, max_context, chosen_by, call_id)
                for call, call_id in zip(calls, ids, strict=True)
            ]
        gate = asyncio.Semaphore(limit)

        async def run_one(index: int, after: list[asyncio.Task[Any]]) -> CallOutcome:
            if after:
                await asyncio.wait(after)
            async with gate:
                return await self._handle(
                    conv_id, calls[index], by_name, earlier, max_context, chosen_by, ids[index]
                )

        tasks: list[asyncio.Task[CallOutcome]] = []
        for index, call in enumerate(calls):
            after = [tasks[j] for j in range(index) if _must_follow(calls[j], call, by_name)]
            tasks.append(asyncio.create_task(run_one(index, after), name=f"edgehost-call-{ids[index]}"))
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def _handle(
        self,
        conv_id: int,
        call: ToolCallParsed,
        by_name: dict[str, ToolSpec],
        earlier: dict[tuple[str, str], ToolOutcome],
        max_context: int,
        chosen_by: str = "model",
        call_id: str | None = None,
    ) -> CallOutcome:
        """Check, approve and execute one call. Returns (name, text for the model, ok, record)."""
        call_id = call_id or f"c{next(self._call_ids)}"
        self.emit(
            ev.ToolCallDetected(conv_id, call_id, call.name, dict(call.arguments), call.dialect, chosen_by)
        )
        tool = by_name.get(call.name) or _match_unqualified(call.name, by_name)
        current = _Call(conv_id, call_id, call, chosen_by, tool)
        if tool is None:
            return self._refuse(
                current, f"there is no tool named {call.name!r}. {_valid_tools(by_name)}", "unknown tool"
            )
        current.record["tool"] = tool.name
        arguments = self._checked_arguments(current, tool, by_name)
        if not isinstance(arguments, dict):
            return arguments  # refused: the model reads why and may correct the call
        key = (tool.name, json.dumps(arguments, sort_keys=True, default=str))
        if key in earlier:
            previous = earlier[key]
            return self._finish(
                current,
                previous.status,
                f"(Same call as before in this turn; its result again:)\n{previous.text}",
                not previous.is_error,
                repeated=True,
                full_result=previous.text,
                structured_result=previous.structured,
            )
        decision = await self._approve(current, tool, arguments)
        if not decision.allow:
            return self._deny(current, tool, decision)
        outcome, duration_ms = await self._execute(current, tool, arguments, decision)
        earlier[key] = outcome
        return self._record_result(current, tool, outcome, duration_ms, max_context)

    def _checked_arguments(
        self, current: _Call, tool: ToolSpec, by_name: dict[str, ToolSpec]
    ) -> dict[str, Any] | CallOutcome:
        """The call's arguments coerced by its tool's inputSchema; or, when its tool is switched off or
        the arguments are invalid, the outcome that refuses it."""
        if not tool.enabled:
            off = (
                "disabled by the user"
                if tool.server_enabled
                else f"of the server {tool.server!r}, switched off"
            )
            return self._refuse(
                current, f"the tool {tool.name!r} is {off}. {_valid_tools(by_name)}", "disabled tool"
            )
        arguments = coerce_arguments(dict(current.parsed.arguments), tool.input_schema)
        problems = validate_arguments(arguments, tool.input_schema)
        if not problems:
            return arguments
        fields = ", ".join(sorted((tool.input_schema.get("properties") or {}).keys())) or "none"
        return self._refuse(
            current,
            f"invalid arguments for {tool.name}: {'; '.join(problems)}. Its fields: {fields}.",
            "invalid arguments",
        )

    def _refuse(self, current: _Call, why: str, error: str) -> CallOutcome:
        """The outcome of a call that cannot run as the model wrote it; the model reads why."""
        return self._finish(current, "invalid", f"Error: {why}", False, error=error)

    async def _approve(self, current: _Call, tool: ToolSpec, arguments: dict[str, Any]) -> ApprovalDecision:
        """The policy's decision on the call, or the approver's where the policy asks (decision 8: no
        answer in time is a denial); the record says what was decided and by whom."""
        verdict = self.policy.evaluate(tool, arguments, current.conv_id)
        decision: ApprovalDecision
        if verdict.action == "allow":
            decision = ApprovalDecision(allow=True, scope="once", decided_by=verdict.decided_by)
        elif verdict.action == "deny":
            decision = ApprovalDecision(allow=False, reason=verdict.reason, decided_by=verdict.decided_by)
        else:
            assert verdict.request is not None  # an "ask" verdict always carries its request
            request = replace(verdict.request, id=f"{current.conv_id}:{current.call_id}")
            try:
                decision = await self.approver(request)
            except asyncio.TimeoutError:
                decision = ApprovalDecision(allow=False, reason="no answer in time", decided_by="timeout")
            self.emit(ev.ApprovalResolved(request.id, decision.allow, decision.decided_by))
            self.policy.remember(request, decision)
        asked = verdict.action == "ask"
        current.record.update(
            decision=("allowed" if asked else "auto") if decision.allow else "denied",
            decided_by=decision.decided_by,
        )
        return decision

    def _deny(self, current: _Call, tool: ToolSpec, decision: ApprovalDecision) -> CallOutcome:
        """The outcome of a denied call: the model is told not to retry it."""
        reason = f" Reason: {decision.reason}" if decision.reason else ""
        current.record["reason"] = decision.reason or ""
        return self._finish(
            current,
            "denied",
            f"The user denied this call to {tool.name}.{reason} {DENIAL_INSTRUCTION}",
            True,
            error=decision.reason or "denied",
        )

    async def _execute(
        self, current: _Call, tool: ToolSpec, arguments: dict[str, Any], decision: ApprovalDecision
    ) -> tuple[ToolOutcome, float]:
        """Run the call, with the arguments as the user edited them in the approval if they did;
        returns its outcome and how long it took (ms). A cancelled call is recorded as such."""
        record = current.record
        proposed = None
        filled = current.parsed.filled_by_host
        if decision.arguments is not None and dict(decision.arguments) != arguments:
            proposed = arguments
            arguments = dict(decision.arguments)
            record["arguments"] = arguments
            record["proposed_arguments"] = proposed
            # What the user changed is theirs, no longer EdgeHost's.
            filled = tuple(name for name in filled if arguments.get(name) == proposed.get(name))
            if filled:
                record["filled_by_host"] = list(filled)
            else:
                record.pop("filled_by_host", None)
        self.emit(
            ev.ToolExecutionStarted(
                current.conv_id,
                current.call_id,
                tool.server,
                tool.name,
                arguments,
                current.parsed.dialect,
                record["decision"],
                record["decided_by"],
                current.chosen_by,
                proposed,
                filled,
            )
        )
        started = perf_counter()
        try:
            outcome = await self.executor.call(tool, arguments, self._progress_of(current))
        except asyncio.CancelledError:
            # The user stopped the turn: the call ends here (the executor told the server), and the
            # history records it as cancelled instead of leaving it running.
            self._finish(
                current,
                "cancelled",
                "",
                False,
                error="stopped by the user",
                duration_ms=(perf_counter() - started) * 1000,
            )
            raise
        return outcome, (perf_counter() - started) * 1000

    def _progress_of(self, current: _Call) -> ProgressFn:
        """How the call's progress is reported: as ToolExecutionProgressed events."""

        def progress(
            done: float,
            total: float | None,
            message: str | None,
            *,
            task_id: str | None = None,
            task_status: str | None = None,
        ) -> None:
            self.emit(
                ev.ToolExecutionProgressed(
                    current.conv_id, current.call_id, done, total, message, task_id, task_status
                )
            )

        return progress

    def _record_result(
        self, current: _Call, tool: ToolSpec, outcome: ToolOutcome, duration_ms: float, max_context: int
    ) -> CallOutcome:
        """The outcome of a call that ran: its result cut to the model's budget, the whole kept."""
        budget = int(max_context * self.config.tool_result_budget_fraction)
        text = format_tool_result(tool.name, outcome.text, budget, estimate_tokens)
        status = outcome.status if outcome.is_error else "ok"
        current.record["result_chars"] = len(outcome.text)
        return self._finish(
            current,
            status,
            text,
            not outcome.is_error,
            error=outcome.text[:2000] if outcome.is_error else None,
            duration_ms=duration_ms,
            full_result=outcome.text,
            structured_result=outcome.structured,
        )

    def _finish(
        self,
        current: _Call,
        status: str,
        text: str,
        ok: bool,
        *,
        error: str | None = None,
        duration_ms: float = 0.0,
        repeated: bool = False,
        full_result: str = "",
        structured_result: Any = None,
    ) -> CallOutcome:
        """Record how the call ended and announce it with ToolExecutionFinished."""
        record = current.record
        record.update(status=status, duration_ms=round(duration_ms, 2))
        self.emit(
            ev.ToolExecutionFinished(
                current.conv_id,
                current.call_id,
                record["tool"],
                status,
                text,
                duration_ms,
                error,
                repeated,
                server=current.tool.server if current.tool is not None else "",
                arguments=dict(record["arguments"]),
                chosen_by=current.chosen_by,
                dialect=current.parsed.dialect,
                decision=record.get("decision"),
                decided_by=record.get("decided_by"),
                result_size=record.get("result_chars", 0),
                full_result=full_result,
                structured_result=structured_result,
            )
        )
        return record["tool"], text, ok, record


@dataclass
class _Call:
    """One call on its way through ToolCalls' steps, with what the history records of it."""

    conv_id: int
    call_id: str
    parsed: ToolCallParsed  # as the model wrote it
    chosen_by: str  # model | host | user
    tool: ToolSpec | None  # None: the model named no tool of the turn
    record: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.record = {
            "call_id": self.call_id,
            "tool": self.parsed.name,
            "arguments": self.parsed.arguments,
            "dialect": self.parsed.dialect,
            "chosen_by": self.chosen_by,
        }
        if self.parsed.filled_by_host:
            self.record["filled_by_host"] = list(self.parsed.filled_by_host)


EDITED_NOTE = "The user changed the arguments before this call ran; it ran with"


def edited_note(arguments: dict[str, Any]) -> str:
    """What a result begins with, for the model, when the user edited the call's arguments in the
    approval: the arguments that ran. The model's call in the conversation still says what it proposed:
    told nothing, it answered that it wrote "buy milk" when the user had made it "buy milk and eggs"."""
    return f"({EDITED_NOTE} {json.dumps(arguments, ensure_ascii=False, default=str)}.)"


def edited_statement(record: Mapping[str, Any]) -> str:
    """What the user reads after the answer of a turn whose call they edited in the approval: what ran,
    and what the model had proposed, so that an answer such as "Deleted." is not read as the model's
    call ("**files__delete_file** ran with path "other.txt", as you changed it; the model proposed
    "readme.txt".)."""
    ran, proposed = record.get("arguments") or {}, record.get("proposed_arguments") or {}
    changed = [key for key in dict.fromkeys([*ran, *proposed]) if ran.get(key) != proposed.get(key)]

    def value(arguments: Mapping[str, Any], key: str) -> str:
        return json.dumps(arguments[key], ensure_ascii=False, default=str) if key in arguments else "nothing"

    ran_text = ", ".join(f"{key} {value(ran, key)}" for key in changed)
    proposed_text = ", ".join(f"{key} {value(proposed, key)}" for key in changed)
    return f"**{record.get('tool')}** ran with {ran_text}, as you changed it; the model proposed {proposed_text}."


def refusal_text(record: dict[str, Any]) -> str:
    """Why a denied call did not run, for the user: "you denied it (wrong path)" when they did (in the
    window, the terminal or on the page), else the policy's reason ("files__write_file needs approval:
    run with --yes ...")."""
    reason = str(record.get("reason") or "").strip()
    if record.get("decided_by") in PEOPLE or not reason:
        return f"you denied it{denial_note(reason)}"
    return reason


def denial_note(reason: str | None) -> str:
    """' (wrong path)' for a denial's reason; empty without one."""
    return f" ({reason.strip()})" if reason and reason.strip() else ""


def _valid_tools(by_name: dict[str, ToolSpec]) -> str:
    """The sentence that lists the switched-on tools, for a call the model must correct."""
    return f"Valid tools: {', '.join(sorted(name for name, t in by_name.items() if t.enabled))}."


def _match_unqualified(name: str, by_name: dict[str, ToolSpec]) -> ToolSpec | None:
    """Small models often drop the server prefix: accept `read_file` for `files__read_file` when unique."""
    matches = [t for full, t in by_name.items() if full.split("__", 1)[-1] == name]
    return matches[0] if len(matches) == 1 else None


def _must_follow(first: ToolCallParsed, second: ToolCallParsed, by_name: dict[str, ToolSpec]) -> bool:
    """Whether ``second`` waits for ``first`` (both of one reply; see ToolCalls.run)."""
    if first.name == second.name and dict(first.arguments) == dict(second.arguments):
        return True
    a = by_name.get(first.name) or _match_unqualified(first.name, by_name)
    b = by_name.get(second.name) or _match_unqualified(second.name, by_name)
    if a is None or b is None or a.server != b.server:
        return False
    return tool_risk(a)[0] != "safe" or tool_risk(b)[0] != "safe"
