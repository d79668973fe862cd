"""MCP over a WebSocket: the SDK's own server behind a WebSocket endpoint of ours (subprotocol mcp, one
JSON-RPC message per text frame), reached through the supervisor like any server — including one
that drops the connection mid-call and one that sends a binary or an oversized frame."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from tests.mcp.mcp_support import running, wait_for
from websockets.asyncio.server import ServerConnection, serve

from edgehost.mcp.config import ServerConfig, parse_servers_file
from edgehost.mcp.errors import ServerUnavailable
from edgehost.mcp.manager import ServerStatusChanged
from edgehost.mcp.server_state import ServerStatus


class WebSocketMcpServer:
    """The SDK's MCPServer served over WebSockets, one session per connection."""

    def __init__(self) -> None:
        self.handshakes: list[Any] = []  # the request headers of each connection
        self.connection: ServerConnection | None = None
        self.mcp = MCPServer("ws-peer")
        mcp = self.mcp

        @mcp.tool()
        def echo(text: str) -> str:
            """Return the text."""
            return text

        @mcp.tool()
        async def drop() -> str:
            """Close the connection in the middle of this call."""
            assert self.connection is not None
            await self.connection.close()
            await anyio.sleep(60)
            return "never"

        @mcp.tool()
        async def binary() -> str:
            """Send a binary frame, then answer."""
            assert self.connection is not None
            await self.connection.send(b"\x00\x01 not json-rpc")
            return "answered after the binary frame"

        @mcp.tool()
        def huge() -> str:
            """Answer with more than the client takes in one frame."""
            return "x" * (17 * 1024 * 1024)

    async def handle(self, connection: ServerConnection) -> None:
        self.handshakes.append(connection.request.headers if connection.request else {})
        self.connection = connection
        read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

        async def frames_in() -> None:
            async with read_writer:
                with contextlib.suppress(Exception):
                    async for frame in connection:
                        message = types.jsonrpc_message_adapter.validate_json(frame, by_name=False)
                        await read_writer.send(SessionMessage(message))

        async def frames_out() -> None:
            async with write_reader:
                async for item in write_reader:
                    payload = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                    with contextlib.suppress(Exception):
                        await connection.send(json.dumps(payload))

        lowlevel = self.mcp._lowlevel_server
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(frames_in)
            tasks.start_soon(frames_out)
            with contextlib.suppress(Exception):
                await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def peer() -> AsyncIterator[tuple[WebSocketMcpServer, str]]:
    server = WebSocketMcpServer()
    async with serve(server.handle, "127.0.0.1", 0, subprotocols=["mcp"], max_size=None) as listening:  # type: ignore[list-item]
        port = next(iter(listening.sockets)).getsockname()[1]
        yield server, f"ws://127.0.0.1:{port}/mcp"


def _status_log(manager: Any) -> list[ServerStatus]:
    """The statuses the manager's servers go through from now on."""
    statuses: list[ServerStatus] = []
    manager.add_listener(lambda e: statuses.append(e.status) if isinstance(e, ServerStatusChanged) else None)
    return statuses


def _text(result: types.CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def test_a_websocket_server_is_read_from_every_config_shape(tmp_path: Any) -> None:
    claude = tmp_path / "claude.json"
    claude.write_text(json.dumps({"mcpServers": {"a": {"url": "ws://board:9000/mcp"}}}))
    vscode = tmp_path / "vscode.json"
    vscode.write_text(
        json.dumps(
            {
                "servers": {
                    "b": {"type": "websocket", "url": "wss://x/mcp", "headers": {"Authorization": "Bearer t"}}
                }
            }
        )
    )
    toml = tmp_path / "servers.toml"
    toml.write_text('[[servers]]\nname = "c"\ntransport = "websocket"\nurl = "ws://localhost:1/"\n')
    [a] = parse_servers_file(claude).servers
    [b] = parse_servers_file(vscode).servers
    [c] = parse_servers_file(toml).servers
    assert [(s.name, s.transport) for s in (a, b, c)] == [
        ("a", "websocket"),
        ("b", "websocket"),
        ("c", "websocket"),
    ]
    assert b.headers == {"Authorization": "Bearer t"}
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"servers": {"d": {"type": "websocket", "url": "http://x/mcp"}}}))
    [d] = parse_servers_file(wrong).servers
    assert d.error is not None and "ws://" in d.error


async def test_tools_are_listed_and_called_over_a_websocket_with_the_entrys_headers() -> None:
    async with peer() as (server, url):
        config = ServerConfig(
            name="ws", transport="websocket", url=url, headers={"Authorization": "Bearer t0k"}
        )
        async with running(config, auto_restart=False) as manager:
            [state] = manager.statuses()
            assert state.status is ServerStatus.READY, state.error
            assert {t.original_name for t in manager.catalog.tools} == {"echo", "drop", "binary", "huge"}
            assert _text(await manager.call_tool("ws__echo", {"text": "über 🚀"})) == "über 🚀"
            calls = await asyncio.gather(*(manager.call_tool("ws__echo", {"text": str(i)}) for i in range(5)))
            assert [_text(r) for r in calls] == ["0", "1", "2", "3", "4"]
        assert server.handshakes[0].get("authorization") == "Bearer t0k"
        assert server.handshakes[0].get("sec-websocket-protocol") == "mcp"


async def test_a_connection_dropped_mid_call_fails_the_call_at_once_and_the_server_comes_back() -> None:
    async with (
        peer() as (_server, url),
        running(ServerConfig(name="ws", transport="websocket", url=url)) as manager,
    ):
        statuses = _status_log(manager)
        with anyio.fail_after(5), pytest.raises(ServerUnavailable):
            await manager.call_tool("ws__drop", {})
        # Reconnected with the supervisor's backoff, like a stdio server that died.
        await wait_for(
            manager, lambda: statuses[-1:] == [ServerStatus.READY] and ServerStatus.FAILED in statuses
        )
        assert _text(await manager.call_tool("ws__echo", {"text": "back"})) == "back"


async def test_a_binary_frame_is_skipped_and_an_oversized_one_ends_the_connection_not_the_host() -> None:
    async with (
        peer() as (_server, url),
        running(ServerConfig(name="ws", transport="websocket", url=url)) as manager,
    ):
        statuses = _status_log(manager)
        assert _text(await manager.call_tool("ws__binary", {})) == "answered after the binary frame"
        assert statuses == []  # a skipped frame is not a broken connection
        with anyio.fail_after(10), pytest.raises(ServerUnavailable):
            await manager.call_tool("ws__huge", {})
        await wait_for(
            manager, lambda: statuses[-1:] == [ServerStatus.READY] and ServerStatus.FAILED in statuses
        )
        assert _text(await manager.call_tool("ws__echo", {"text": "still here"})) == "still here"
