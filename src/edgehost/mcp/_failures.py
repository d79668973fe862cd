"""One-line reasons for what went wrong with a server's connection, looking inside exception groups."""

from __future__ import annotations

import sys

from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

__all__ = ["caused_by", "describe_failure"]


def caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` is a ``kind``, or one is inside it (exception groups, causes)."""
    if isinstance(exc, kind):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return any(caused_by(inner, kind) for inner in exc.exceptions)
    return exc.__cause__ is not None and caused_by(exc.__cause__, kind)


def describe_failure(exc: BaseException) -> str:
    """A one-line reason, looking inside exception groups for the first real cause."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        if exc.code == CONNECTION_CLOSED:
            return "it closed the connection (did the program exit?)"
        return exc.error.message
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, OSError | ValueError) else text
