"""What the store hands back: frozen rows, and the fixed vocabularies of their status fields."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from edgehost.errors import EdgeHostError
from edgehost.roles import Role

__all__ = [
    "RecordNotFoundError",
    "StoreError",
    "ConversationRecord",
    "Decision",
    "Execution",
    "ExecutionStatus",
    "FINAL_EXECUTION_STATUSES",
    "Message",
    "MessageStatus",
    "iso_utc",
]

MessageStatus = Literal["complete", "partial"]
Decision = Literal["allowed", "denied", "auto"]
# "running" until record_execution_finished; "interrupted" when the process that ran the call died
# before finishing it (found on the next open).
# "invalid": the model named an unknown tool or gave arguments that failed validation.
ExecutionStatus = Literal[
    "running", "ok", "error", "denied", "timeout", "cancelled", "invalid", "interrupted"
]
FINAL_EXECUTION_STATUSES: frozenset[str] = frozenset(
    {"ok", "error", "denied", "timeout", "cancelled", "invalid"}
)


def iso_utc(timestamp: float) -> str:
    """A Unix time as ISO 8601 in UTC with milliseconds: ``2026-11-22T10:25:59.123Z``."""
    moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass(frozen=True)
class ConversationRecord:
    id: int
    title: str
    created: float  # Unix time
    updated: float  # last message or rename
    archived: bool
    routing: str | None = None  # auto | host | model chosen for this conversation; None: the setting


@dataclass(frozen=True)
class Message:
    id: int
    conversation_id: int
    role: Role
    content: str
    name: str | None  # the tool's name on a "tool" message
    created: float
    status: MessageStatus  # "partial": generation was under way (or the process died) at the last checkpoint
    perf: dict[str, Any] | None
    model: str | None
    backend: str | None
    # Unix time the message was replaced by a regenerated answer (Store.supersede_messages); None: current
    superseded: float | None = None
    tool_call_id: str | None = None  # on a "tool" message: the call it answers (None: no call, a correction)


@dataclass(frozen=True)
class Execution:
    """One tool call, from the moment it was decided on (status "running") to its end."""

    id: int
    conversation_id: int | None
    message_id: int | None
    server: str
    tool: str  # namespaced: ``server__tool``
    arguments: Any  # the JSON value the call was made with (redacted)
    dialect: str | None
    decision: Decision | None
    decided_by: str | None  # "user", "policy", "rule", "timeout", "shutdown", ...
    started: float
    duration_ms: float | None  # None while running
    status: ExecutionStatus
    result_size: int | None  # UTF-8 bytes of the whole result, before it was cut
    result: str | None  # at most Store.result_cap bytes of it
    result_truncated: bool
    error: str | None
    # What the model proposed when the user edited the arguments before allowing the call; None when
    # the call ran as proposed.
    proposed_arguments: Any = None
    # Who chose to make the call: "model", "host" (routing, for a small model), "user" (a pinned tool,
    # `edgehost call`), "probe" or "view" (an MCP App's view); None for calls recorded before EdgeHost kept it.
    chosen_by: str | None = None
    # The result's structuredContent (JSON), when the server sent one: what a tool's view renders.
    structured_result: Any = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``started`` as ISO 8601 UTC), the shape of ``history --json`` and export."""
        return {
            "id": self.id,
            "started": iso_utc(self.started),
            "conversation_id": self.conversation_id,
            "message_id": self.message_id,
            "server": self.server,
            "tool": self.tool,
            "arguments": self.arguments,
            "proposed_arguments": self.proposed_arguments,
            "dialect": self.dialect,
            "chosen_by": self.chosen_by,
            "decision": self.decision,
            "decided_by": self.decided_by,
            "status": self.status,
            "duration_ms": self.duration_ms,
            "result_size": self.result_size,
            "result_truncated": self.result_truncated,
            "result": self.result,
            "error": self.error,
            "structured_result": self.structured_result,
        }


class StoreError(EdgeHostError):
    """The history database could not be opened, read or written (the message names the file)."""


class RecordNotFoundError(StoreError):
    """A conversation, message or execution id that the database does not hold (or not in that state)."""
