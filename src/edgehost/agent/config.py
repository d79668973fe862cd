"""The limits of a turn (rounds, calls, budgets, routing) a TurnRunner is built with.

A module of its own so that agent/tool_calls.py and the host can name it without importing agent/loop.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from edgehost.settings import (
    DEFAULT_MAX_CALLS_PER_TURN,
    DEFAULT_MAX_CORRECTION_ROUNDS,
    DEFAULT_MAX_PARALLEL_CALLS,
    DEFAULT_TOOL_BUDGET_FRACTION,
)

__all__ = ["AgentConfig"]


@dataclass
class AgentConfig:
    max_correction_rounds: int = DEFAULT_MAX_CORRECTION_ROUNDS
    max_calls_per_turn: int = DEFAULT_MAX_CALLS_PER_TURN
    max_tokens_per_round: int = 512
    temperature: float | None = None  # None: the backend's default
    tool_budget_fraction: float = DEFAULT_TOOL_BUDGET_FRACTION  # of the context, for the tools in the prompt
    tool_result_budget_fraction: float = 0.25  # of the context, for one tool result
    # Calls of one reply run at once, at most this many (1: one after another); see ToolCalls.run.
    max_parallel_calls: int = DEFAULT_MAX_PARALLEL_CALLS
    extra_instructions: str = ""
    routing: str = "auto"  # auto | host | model (decision 11); a conversation may override it

    @classmethod
    def from_settings(cls, settings: Any) -> AgentConfig:
        """The limits the user can change in the settings (edgehost.settings.Settings)."""
        return cls(
            max_correction_rounds=settings.max_correction_rounds,
            max_calls_per_turn=settings.max_calls_per_turn,
            tool_budget_fraction=settings.tool_budget_fraction,
            routing=settings.routing,
        )
