"""Events of a turn, emitted by the agent's TurnRunner: frozen dataclasses named subject + past tense.

The host re-exports them with its own (model, servers, conversations) in edgehost.host.events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from edgehost.llm.base import Perf


@dataclass(frozen=True)
class TurnStarted:
    conversation_id: int
    user_text: str


@dataclass(frozen=True)
class TextDelta:
    conversation_id: int
    text: str


@dataclass(frozen=True)
class ToolCallDetected:
    conversation_id: int
    call_id: str
    name: str
    arguments: dict[str, Any]
    dialect: str
    chosen_by: str = "model"  # model | host (routing chose it, decision 11) | user (a pinned tool)


@dataclass(frozen=True)
class TurnRouted:
    """The host decided, for a model too small to (decision 11), whether the turn needs a tool."""

    conversation_id: int
    needs_tool: bool
    candidates: tuple[str, ...]  # namespaced, best first; the model's call is limited to these
    reason: str


@dataclass(frozen=True)
class ToolExecutionStarted:
    conversation_id: int | None  # None: a call outside a conversation (`edgehost call`)
    call_id: str
    server: str
    tool: str  # namespaced server__tool
    arguments: dict[str, Any]
    dialect: str = ""
    decision: str | None = None  # allowed (asked) | auto (policy or rule)
    decided_by: str | None = None
    chosen_by: str = "model"  # as on ToolCallDetected
    # The model's arguments when the user edited them before allowing the call (None: not edited).
    proposed_arguments: dict[str, Any] | None = None
    # The arguments EdgeHost filled in from what it knows of the server, not the question (the
    # repository of a git server started on one): agent/known_arguments.py.
    filled_by_host: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolExecutionProgressed:
    conversation_id: int | None  # None: a call outside a conversation (`edgehost call`)
    call_id: str
    progress: float
    total: float | None
    message: str | None
    # A call run as an MCP Task: the server's task id and its status (working, input_required, completed,
    # failed, cancelled); message is then the task's status message. None for a plain progress report.
    task_id: str | None = None
    task_status: str | None = None


@dataclass(frozen=True)
class ToolExecutionFinished:
    conversation_id: int | None  # None: a call outside a conversation (`edgehost call`)
    call_id: str
    tool: str  # namespaced server__tool (or what the model asked for when it is unknown)
    status: str  # ok | error | denied | timeout | cancelled | invalid
    result_text: str  # what the model is given (cut to its budget)
    duration_ms: float
    error: str | None = None
    repeated: bool = False  # answered from an identical earlier call in this turn
    server: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    dialect: str = ""
    decision: str | None = None  # allowed | denied | None when never asked (invalid call)
    decided_by: str | None = None  # user | policy | rule | timeout | cancel | shutdown
    result_size: int = 0  # characters of the whole result
    full_result: str = ""  # the whole result (the history keeps it up to its cap)
    chosen_by: str = "model"  # as on ToolCallDetected
    structured_result: Any = None  # the result's structuredContent (JSON), for the tool's view (MCP Apps)


@dataclass(frozen=True)
class MessageAppended:
    """A message became part of the conversation the model sees (committed to history)."""

    conversation_id: int
    role: str
    content: str
    name: str | None = None
    perf: Perf | None = None
    tool_call_id: str | None = None  # on a "tool" message: the call it answers


@dataclass(frozen=True)
class ApprovalRequested:
    request: Any  # edgehost.agent.approval.ApprovalRequest


@dataclass(frozen=True)
class ApprovalResolved:
    request_id: str
    allowed: bool
    decided_by: str


@dataclass(frozen=True)
class AnswerUngrounded:
    """The model's answer after a tool ignored its result (agent/grounding.py): the user is shown
    ``text`` (the result, rendered, with the model's reply marked) instead of the streamed reply.
    ``results_text`` is the rendered results alone, for a face that cannot take back what it streamed
    (the terminal)."""

    conversation_id: int
    reason: str
    text: str
    model_text: str
    results_text: str


@dataclass(frozen=True)
class AnswerWithResults:
    """The model's answer after calls EdgeHost chose (a model too small to choose, decision 11) was
    grounded in their results: the user is shown ``text``, the results rendered and the reply after
    them, instead of the streamed reply alone. A 135M model's sentence that passes the grounding rules
    may still be wrong in words ("the board has stayed up all week" after 3 hours of uptime): the facts
    come first."""

    conversation_id: int
    text: str


@dataclass(frozen=True)
class TurnCompleted:
    conversation_id: int
    text: str  # what the user saw of the final answer
    perf: Perf = field(default_factory=Perf)
    executions: tuple[dict[str, Any], ...] = ()
    cancelled: bool = False


TurnEvent = (
    TurnStarted
    | TurnRouted
    | TextDelta
    | ToolCallDetected
    | ToolExecutionStarted
    | ToolExecutionProgressed
    | ToolExecutionFinished
    | MessageAppended
    | ApprovalRequested
    | ApprovalResolved
    | AnswerUngrounded
    | AnswerWithResults
    | TurnCompleted
)
