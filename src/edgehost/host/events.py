"""Typed events the Host emits: frozen dataclasses named subject + past tense.

The turn events come from the agent (edgehost.agent.events); the rest are the host's own. The GUI
has one adapter from these to Qt signals; the CLI prints them; tests assert on them.
"""

from __future__ import annotations

from dataclasses import dataclass

from edgehost.agent.events import (
    AnswerUngrounded,
    AnswerWithResults,
    ApprovalRequested,
    ApprovalResolved,
    MessageAppended,
    TextDelta,
    ToolCallDetected,
    ToolExecutionFinished,
    ToolExecutionProgressed,
    ToolExecutionStarted,
    TurnCompleted,
    TurnEvent,
    TurnRouted,
    TurnStarted,
)

__all__ = [
    "AnswerUngrounded",
    "AnswerWithResults",
    "ApprovalRequested",
    "ApprovalResolved",
    "CatalogChanged",
    "ConversationsChanged",
    "HostEvent",
    "MessageAppended",
    "ModelDownloadFinished",
    "ModelDownloadProgressed",
    "ModelStatusChanged",
    "ServerOutputChanged",
    "ServerStatusChanged",
    "TextDelta",
    "ToolCallDetected",
    "ToolExecutionFinished",
    "ToolExecutionProgressed",
    "ToolExecutionStarted",
    "TurnCompleted",
    "TurnEvent",
    "TurnFailed",
    "TurnRouted",
    "TurnStarted",
]


@dataclass(frozen=True)
class TurnFailed:
    conversation_id: int
    error: str


@dataclass(frozen=True)
class ModelStatusChanged:
    status: str  # loading | ready | failed | crashed
    backend: str
    model: str
    detail: str = ""
    context_length: int = 0


@dataclass(frozen=True)
class ModelDownloadProgressed:
    name: str  # the catalog entry, or REPO:FILE of the hub as the download was asked for
    stage: str  # downloading | verifying
    done_bytes: int
    total_bytes: int
    bytes_per_s: float | None
    seconds_left: float | None


@dataclass(frozen=True)
class ModelDownloadFinished:
    name: str
    path: str | None  # the model file, when it is there
    error: str | None = None  # why not, for the user
    cancelled: bool = False  # stopped by the user; a pull of it resumes


@dataclass(frozen=True)
class ServerStatusChanged:
    name: str
    status: str  # starting | ready | failed | stopped | disabled
    error: str | None = None
    tools: int = 0


@dataclass(frozen=True)
class ServerOutputChanged:
    """New stderr or log lines of a server, for its details (at most once a second per server)."""

    name: str


@dataclass(frozen=True)
class CatalogChanged:
    pass


@dataclass(frozen=True)
class ConversationsChanged:
    pass


HostEvent = (
    TurnEvent
    | TurnFailed
    | ModelStatusChanged
    | ModelDownloadProgressed
    | ModelDownloadFinished
    | ServerStatusChanged
    | ServerOutputChanged
    | CatalogChanged
    | ConversationsChanged
)
