"""The events the tool-call detector emits (frozen dataclasses, re-exported by agent.detector)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

__all__ = [
    "DetectorEvent",
    "ProseDelta",
    "ToolCallIncomplete",
    "ToolCallMalformed",
    "ToolCallParsed",
    "ToolCallStarted",
]


@dataclass(frozen=True, slots=True)
class ProseDelta:
    """Text for the user: prose, streamed as it comes; never marker or call text."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """An opening marker followed by the start of a call body was seen.

    ``resume_at`` is the number of characters of the fed text that precede the call body (everything
    up to and including the opening marker): to continue the call under a grammar, keep that much
    of the generated text and generate on from there. ``index`` is the call's 0-based number in the reply.
    """

    dialect: str
    index: int
    resume_at: int


@dataclass(frozen=True, slots=True)
class ToolCallParsed:
    """A complete call. ``arguments`` are as written (repaired), not yet coerced to the tool's schema."""

    name: str
    arguments: dict[str, Any] = field(hash=False)
    raw: str
    dialect: str
    index: int
    # Arguments EdgeHost filled in, not the user: from what it knows of the server, or from its reading
    # of the question (agent/known_arguments.py filled_by_host).
    filled_by_host: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolCallIncomplete:
    """A call cut off by the end of generation: reported, not lost."""

    raw: str
    dialect: str
    reason: str


@dataclass(frozen=True, slots=True)
class ToolCallMalformed:
    """A closed call whose body cannot be read (e.g. JSON beyond repair); ``error`` says why."""

    raw: str
    dialect: str
    error: str


DetectorEvent = Union[ProseDelta, ToolCallStarted, ToolCallParsed, ToolCallIncomplete, ToolCallMalformed]
