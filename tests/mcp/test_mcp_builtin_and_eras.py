"""Our own built-in servers over stdio, both protocol eras, and the legacy SSE transport."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_support import (
    everything_stdio,
    hostile,
    running,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from edgehost.mcp.config import ServerConfig, load_servers_config
from edgehost.mcp.server_state import ServerStatus
from edgehost.paths import Paths


async def test_the_built_in_servers_run_over_stdio(data_dir: Path) -> None:
    config = load_servers_config(Paths.resolve(data_dir=data_dir))
    async with running(*config.servers) as manager:
        states = {s.name: s for s in manager.statuses()}
        assert states["files"].status is ServerStatus.READY, states["files"].error
        assert states["board"].status is ServerStatus.READY, states["board"].error
        write = manager.catalog.tool("files__write_file")
        assert write is not None and write.annotations.get("destructiveHint") is True
        await manager.call_tool("files__write_file", {"path": "notes/hello.txt", "content": "bonjour"})
        read = await manager.call_tool("files__read_file", {"path": "notes/hello.txt"})
        assert "bonjour" in read.content[0].text  # type: ignore[union-attr]
        assert (data_dir / "files" / "notes" / "hello.txt").read_text() == "bonjour"
        assert any(t.server == "board" for t in manager.catalog.tools)


@pytest.mark.peers
async def test_both_protocol_eras_are_spoken() -> None:
    async with running(hostile("modern"), everything_stdio()) as manager:
        modern = manager.status("modern").protocol_version
        handshake = manager.status("everything").protocol_version
    assert modern in MODERN_PROTOCOL_VERSIONS  # our SDK 2.x server answers server/discover
    assert handshake in HANDSHAKE_PROTOCOL_VERSIONS  # the TypeScript server needs the initialize handshake


@pytest.mark.peers
async def test_server_everything_over_legacy_sse(everything_sse: str) -> None:
    config = ServerConfig(name="everything", transport="sse", url=everything_sse)
    async with running(config) as manager:
        assert manager.status("everything").status is ServerStatus.READY, manager.status("everything").error
        result = await manager.call_tool("everything__echo", {"message": "over sse"})
    assert "over sse" in result.content[0].text  # type: ignore[union-attr]
