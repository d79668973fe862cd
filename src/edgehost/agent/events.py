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


@dataclass(frozen=True)
class ToolExecutionStarted:
    conversation_id: int
    call_id: str
    server: str
    tool: str  # namespaced server__tool
    arguments: dict[str, Any]
    dialect: str = ""
    decision: str | None = None  # allowed (asked) | auto (policy or rule)
    decided_by: str | None = None


@dataclass(frozen=True)
class ToolExecutionProgressed:
    conversation_id: int
    call_id: str
    progress: float
    total: float | None
    message: str | None


@dataclass(frozen=True)
class ToolExecutionFinished:
    conversation_id: int
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


@dataclass(frozen=True)
class MessageAppended:
    """A message became part of the conversation the model sees (committed to history)."""

    conversation_id: int
    role: str
    content: str
    name: str | None = None
    perf: Perf | None = None


@dataclass(frozen=True)
class ApprovalRequested:
    request: Any  # edgehost.agent.approval.ApprovalRequest


@dataclass(frozen=True)
class ApprovalResolved:
    request_id: str
    allowed: bool
    decided_by: str


@dataclass(frozen=True)
class TurnCompleted:
    conversation_id: int
    text: str  # what the user saw of the final answer
    perf: Perf = field(default_factory=Perf)
    executions: tuple[dict[str, Any], ...] = ()
    cancelled: bool = False


TurnEvent = (
    TurnStarted
    | TextDelta
    | ToolCallDetected
    | ToolExecutionStarted
    | ToolExecutionProgressed
    | ToolExecutionFinished
    | MessageAppended
    | ApprovalRequested
    | ApprovalResolved
    | TurnCompleted
)
