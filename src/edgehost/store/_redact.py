"""Redaction of configured secrets from text before it is stored."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["REDACTED", "RedactFnT", "redact_json", "redactor"]

RedactFnT = Callable[[str], str]

REDACTED = "[REDACTED]"


def redactor(secrets: Iterable[str]) -> RedactFnT:
    """A function replacing every occurrence of each secret with ``[REDACTED]``.

    Give it ``ServersConfig.secret_values()``. Longer secrets are replaced first so that a secret
    containing another one is removed whole. Empty strings are ignored.
    """
    ordered = sorted({s for s in secrets if s}, key=len, reverse=True)
    if not ordered:
        return _identity
    pattern = re.compile("|".join(re.escape(s) for s in ordered))
    return lambda text: pattern.sub(REDACTED, text)


def redact_json(value: Any, redact: RedactFnT) -> Any:
    """``value`` with ``redact`` applied to every string in it, keys included."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(k)): redact_json(v, redact) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_json(v, redact) for v in value]
    return value


def _identity(text: str) -> str:
    return text
