"""Transports for one server (stdio, Streamable HTTP, legacy SSE, WebSocket), watched for the end of the
connection."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, Literal

import anyio
import httpx2
from mcp.client import Transport
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCResponse

from edgehost.mcp._failures import describe_failure
from edgehost.mcp._stderr import StderrPipe
from edgehost.mcp._stdio import stdio_transport
from edgehost.mcp._thread_transport import ThreadTransport
from edgehost.mcp._websocket import websocket_client
from edgehost.mcp.client_features import HttpAuthFnT, InProcessFnT
from edgehost.mcp.config import ServerConfig, stdio_environment

__all__ = ["ConnectionWatch", "open_transport"]

# Same budget as the SDK's own HTTP client: connecting and writing are quick, a response stream may
# legitimately stay open for minutes (our per-call timeout is enforced separately).
_HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)
# A stdio server's bytes that are not UTF-8 become U+FFFD: a message with one stray byte still arrives,
# and a line of garbage is a junk line like any other (the SDK's "strict" ended the reading).
STDOUT_DECODING_ERRORS: Literal["strict", "ignore", "replace"] = "replace"

_ReadItem = SessionMessage | Exception


class ConnectionWatch:
    """What the supervisor learns from the transport: the connection ended (and why, when the transport
    knows: ``failure``); junk arrived on it."""

    def __init__(self, *, on_junk: Callable[[Exception], None], on_end: Callable[[], None]) -> None:
        self.ended = anyio.Event()
        self.failure: str | None = None
        self.on_junk = on_junk
        self._on_end = on_end

    def fail(self, exc: Exception) -> None:
        """The transport failed under a live connection; it is about to end."""
        self.failure = f"reading its output failed: {describe_failure(exc)}"

    def mark_ended(self) -> None:
        if not self.ended.is_set():
            self.ended.set()
            self._on_end()


class _WatchedReadStream:
    """A read stream that reports its end (EOF or close) and the junk lines the transport parsed."""

    def __init__(self, inner: Any, watch: ConnectionWatch) -> None:
        self._inner = inner
        self._watch = watch

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> _ReadItem:
        try:
            item: _ReadItem = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._watch.mark_ended()
            raise
        if isinstance(item, Exception):
            self._watch.on_junk(item)
        elif isinstance(item.message, JSONRPCResponse) and "resultType" not in item.message.result:
            # 2026-07-28: "a client MUST treat the absent field as 'complete'". mcp 2.3 instead rejects
            # such a result as invalid (conformance scenario sep-2322-client-request-state); an earlier
            # revision's session drops the field again, as it drops every later revision's field.
            item.message.result["resultType"] = "complete"
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> _ReadItem:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _WatchedReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


@asynccontextmanager
async def _stdio(server: ServerConfig, stderr: StderrPipe, watch: ConnectionWatch) -> AsyncIterator[Any]:
    if not server.command:
        raise ValueError(f"server {server.name!r} has no command")
    params = StdioServerParameters(
        command=server.command,
        args=list(server.args),
        env=stdio_environment(server),
        cwd=server.cwd,
        encoding_error_handler=STDOUT_DECODING_ERRORS,
    )
    errlog = stderr.open()
    try:
        async with stdio_transport(params, errlog, on_failure=watch.fail) as streams:
            stderr.close_writer()
            yield streams
    finally:
        stderr.close_writer()


@asynccontextmanager
async def _streamable_http(server: ServerConfig, auth: httpx2.Auth | None) -> AsyncIterator[Any]:
    assert server.url is not None
    async with (
        httpx2.AsyncClient(headers=server.headers or None, timeout=_HTTP_TIMEOUT, auth=auth) as http,
        streamable_http_client(server.url, http_client=http) as streams,
    ):
        yield streams


@asynccontextmanager
async def _sse(server: ServerConfig, auth: httpx2.Auth | None) -> AsyncIterator[Any]:
    assert server.url is not None
    async with sse_client(server.url, headers=server.headers or None, auth=auth) as streams:
        yield streams


@asynccontextmanager
async def _watched(inner: Any, watch: ConnectionWatch) -> AsyncIterator[Any]:
    async with inner as (read_stream, write_stream):
        try:
            yield _WatchedReadStream(read_stream, watch), write_stream
        finally:
            watch.mark_ended()


def open_transport(
    server: ServerConfig,
    stderr: StderrPipe,
    watch: ConnectionWatch,
    http_auth: HttpAuthFnT | None = None,
    in_process: InProcessFnT | None = None,
) -> Transport:
    """The SDK transport for ``server``; ``watch.ended`` is set when the connection ends. An http/sse
    connection authenticates with ``http_auth(server)`` (OAuth) when that gives one; a server that
    ``in_process(server)`` builds runs on a thread of this process instead of being started.

    Raises ValueError when the entry has neither a command (stdio) nor a URL (http/sse).
    """
    build = in_process(server) if in_process is not None else None
    if build is not None:
        inner: Any = ThreadTransport(build, name=server.name, log_line=stderr.ring.append)
    elif server.transport == "stdio":
        inner = _stdio(server, stderr, watch)
    elif not server.url:
        raise ValueError(f"server {server.name!r} has no url")
    elif server.transport == "sse":
        inner = _sse(server, http_auth(server) if http_auth else None)
    elif server.transport == "websocket":
        inner = websocket_client(server.url, server.headers)
    else:
        inner = _streamable_http(server, http_auth(server) if http_auth else None)
    transport: Transport = _watched(inner, watch)
    return transport
