"""The roles of a chat message: one definition for the model layer (llm) and the history (store)."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["ROLES", "Role"]

Role = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[str, ...] = get_args(Role)
