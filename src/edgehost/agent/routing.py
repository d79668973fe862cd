"""Host routing (decision 11): whether a turn needs a tool, and which tools are plausible."""

from __future__ import annotations

from dataclasses import dataclass

from edgehost.agent.tools import ToolSpec

__all__ = ["RouteDecision"]


@dataclass(frozen=True)
class RouteDecision:
    needs_tool: bool
    candidates: tuple[ToolSpec, ...]  # best first; empty when needs_tool is False
    best_score: float
    reason: str
