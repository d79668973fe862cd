"""One-line reasons for what went wrong with a server's connection, found inside the exception groups
the SDK's transports raise ("unhandled errors in a TaskGroup (1 sub-exception)" says nothing)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, METHOD_NOT_FOUND

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

__all__ = ["caused_by", "causes", "connection_failure", "describe_failure", "first_cause"]


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what is inside it: the members of exception groups, then causes and contexts."""
    seen: set[int] = set()
    pending = [exc]
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(linked for linked in (current.__cause__, current.__context__) if linked is not None)


def first_cause(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first ``kind`` in ``exc`` or inside it (causes), or None."""
    return next((inner for inner in causes(exc) if isinstance(inner, kind)), None)


def caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` is a ``kind``, or one is inside it (exception groups, causes)."""
    return first_cause(exc, kind) is not None


def describe_failure(exc: BaseException) -> str:
    """A one-line reason, looking inside exception groups for the first real cause."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        if exc.code == CONNECTION_CLOSED:
            return "it closed the connection (did the program exit?)"
        return exc.error.message
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError | ValueError) or type(exc).__module__.startswith("edgehost."):
        return text  # says what happened in words already (EdgeHost's own errors say what to do)
    return f"{type(exc).__name__}: {text}"


def connection_failure(exc: BaseException, url: str) -> str | None:
    """Why nothing usable answered at a remote server's ``url`` (its start, or a sign-in's connection),
    with the address tried and what to check; None when the failure is not about reaching it."""
    if caused_by(exc, httpx2.TimeoutException):
        return f"{url} did not answer in time: is it running, and is the address right?"
    found = first_cause(exc, httpx2.HTTPStatusError)
    if isinstance(found, httpx2.HTTPStatusError):
        response = found.response
        return f"{url} answered {response.status_code} {response.reason_phrase}: is the address right?"
    found = first_cause(exc, MCPError)
    if isinstance(found, MCPError) and found.code == METHOD_NOT_FOUND and found.error.message == "Not Found":
        # The Streamable HTTP client's spelling of an HTTP 404 to its first request.
        return f"{url} answered 404 Not Found: is the address right (its path too, often /mcp or /sse)?"
    found = first_cause(exc, httpx2.TransportError) or first_cause(exc, OSError)
    if found is not None:
        return f"could not connect to {url} ({describe_failure(found)}): is it running, and is the address right?"
    return None
