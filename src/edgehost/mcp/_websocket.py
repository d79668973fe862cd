"""MCP over a WebSocket: the SDK no longer ships this transport, so here it is on the SDK's transport
interface (a read stream of SessionMessage | Exception and a write stream of SessionMessage), over the
`websockets` library: subprotocol ``mcp``, one JSON-RPC message per text frame, pings every 20 s (a
peer that stops answering them is a dropped connection), the entry's headers on the handshake.

A dropped connection ends the read stream, which the supervisor sees as the end of the connection
(calls in flight fail at once, the server is restarted with the usual backoff). A binary frame or a
text frame that is not JSON-RPC is reported on the read stream as junk and skipped; a frame over
MAX_FRAME_BYTES closes the connection (1009) and is reported before the end.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

__all__ = ["MAX_FRAME_BYTES", "PING_S", "SUBPROTOCOL", "websocket_client"]

log = logging.getLogger(__name__)

SUBPROTOCOL = Subprotocol("mcp")
MAX_FRAME_BYTES = 16 * 1024 * 1024  # a tool result of several MB is fine; a runaway server is not
PING_S = 20.0
OPEN_S = 30.0
_TOO_BIG = 1009


class FrameRefused(ValueError):
    """A frame the server should not have sent (binary, not JSON-RPC, too big)."""


@asynccontextmanager
async def websocket_client(
    url: str, headers: Mapping[str, str] | None = None, *, max_frame_bytes: int = MAX_FRAME_BYTES
) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams of an MCP connection to ``url`` (ws:// or wss://).

    Raises OSError / websockets' InvalidHandshake / TimeoutError when the connection cannot be opened.
    """
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    async with connect(
        url,
        subprotocols=[SUBPROTOCOL],
        additional_headers=dict(headers or {}),
        max_size=max_frame_bytes,
        ping_interval=PING_S,
        ping_timeout=PING_S,
        open_timeout=OPEN_S,
        compression=None,  # JSON-RPC messages are small; a large result is worth no CPU on a board
    ) as socket:

        async def read() -> None:
            async with read_writer:
                try:
                    async for frame in socket:
                        item = _message(frame)
                        await read_writer.send(item)
                except ConnectionClosed as closed:
                    if (
                        closed.rcvd is not None
                        and closed.rcvd.code == _TOO_BIG
                        or (closed.sent is not None and closed.sent.code == _TOO_BIG)
                    ):
                        await read_writer.send(
                            FrameRefused(
                                f"the server sent a frame over {max_frame_bytes} bytes; connection closed"
                            )
                        )
                except anyio.ClosedResourceError:
                    pass

        async def write() -> None:
            async with write_reader:
                async for session_message in write_reader:
                    payload = session_message.message.model_dump(
                        by_alias=True, mode="json", exclude_unset=True
                    )
                    try:
                        await socket.send(json.dumps(payload, ensure_ascii=False))
                    except ConnectionClosed:
                        return  # the reader sees the end too and ends the read stream

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(write)
            try:
                yield read_stream, write_stream
            finally:
                tasks.cancel_scope.cancel()


def _message(frame: str | bytes) -> SessionMessage | Exception:
    if isinstance(frame, bytes):
        return FrameRefused(f"a binary frame ({len(frame)} bytes) where MCP sends text; skipped")
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(frame, by_name=False))
    except ValueError as exc:  # pydantic's ValidationError is one
        return FrameRefused(f"a frame that is not a JSON-RPC message ({exc.__class__.__name__}); skipped")
