"""Replacing secret values in text before it is shown, logged or stored.

The one implementation used by the history (``edgehost.store``), a server's stderr and log tails and
its error messages (``edgehost.mcp``). Which values are secrets is the configuration's business
(``ServerConfig.secret_values``); this module only replaces them and imports nothing of EdgeHost.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["REDACTED", "RedactFnT", "redact", "redact_json", "redactor"]

RedactFnT = Callable[[str], str]

REDACTED = "[REDACTED]"


def redactor(secrets: Iterable[str]) -> RedactFnT:
    """A function replacing every occurrence of each secret with ``[REDACTED]``.

    Give it ``ServersConfig.secret_values()``. Longer secrets are replaced first, so a secret that
    contains another one is removed whole. Empty strings are ignored. Raises nothing.
    """
    ordered = sorted({s for s in secrets if s}, key=len, reverse=True)
    if not ordered:
        return _identity
    pattern = re.compile("|".join(re.escape(s) for s in ordered))
    return lambda text: pattern.sub(REDACTED, text)


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced, for a one-off text; build a ``redactor`` for many."""
    return redactor(secrets)(text)


def redact_json(value: Any, redact: RedactFnT) -> Any:
    """``value`` with ``redact`` applied to every string in it, keys included. Raises nothing."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(k)): redact_json(v, redact) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_json(v, redact) for v in value]
    return value


def _identity(text: str) -> str:
    return text
