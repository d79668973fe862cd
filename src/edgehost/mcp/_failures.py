"""One-line reasons for what went wrong with a server's connection, looking inside exception groups."""

from __future__ import annotations

import sys

import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, METHOD_NOT_FOUND

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

__all__ = ["caused_by", "describe_failure", "remote_start_failure"]


def caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` is a ``kind``, or one is inside it (exception groups, causes)."""
    if isinstance(exc, kind):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return any(caused_by(inner, kind) for inner in exc.exceptions)
    return exc.__cause__ is not None and caused_by(exc.__cause__, kind)


def describe_failure(exc: BaseException) -> str:
    """A one-line reason, looking inside exception groups for the first real cause."""
    exc = _innermost(exc)
    if isinstance(exc, MCPError):
        if exc.code == CONNECTION_CLOSED:
            return "it closed the connection (did the program exit?)"
        return exc.error.message
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError | ValueError) or type(exc).__module__.startswith("edgehost."):
        return text  # says what happened in words already (EdgeHost's own errors say what to do)
    return f"{type(exc).__name__}: {text}"


def remote_start_failure(exc: BaseException, url: str, reason: str) -> str:
    """``reason`` (describe_failure's) for a remote server that did not start, with the address tried
    where that is the likely mistake: nothing answered there, or the path is not an MCP endpoint."""
    if caused_by(exc, httpx2.TransportError) or caused_by(exc, OSError):
        return f"could not connect to {url} ({reason})"
    cause = _innermost(exc)
    if isinstance(cause, MCPError) and cause.code == METHOD_NOT_FOUND:  # the SDK's spelling of HTTP 404
        return f"{url} answered 404 Not Found: is the address right (its path too, often /mcp or /sse)?"
    return reason


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
