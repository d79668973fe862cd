"""Helpers for the MCP tests: our hostile test server, server-everything over stdio and HTTP.

Imported by the tests as ``mcp_support`` (pytest puts this folder on sys.path).
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import pytest
from tests.conftest import REPO, peer_path

from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.mcp.manager import ManagerEvent, ServerManager
from edgehost.settings import Settings
from edgehost.slow_machine import scaled_wait

HOSTILE = REPO / "tests" / "fixtures" / "servers" / "hostile.py"
EVERYTHING = ("@modelcontextprotocol", "server-everything", "dist", "index.js")
# Generous bounds: the machine is shared by many jobs; nothing here waits this long when all is well.
READY_TIMEOUT_S = scaled_wait(60.0)


def hostile(name: str, *args: str, **options: object) -> ServerConfig:
    """A ServerConfig running tests/fixtures/servers/hostile.py with ``args``."""
    return ServerConfig(name=name, command=sys.executable, args=[str(HOSTILE), *args], **options)  # type: ignore[arg-type]


def everything_stdio(name: str = "everything", **options: object) -> ServerConfig:
    script = peer_path(*EVERYTHING)
    return ServerConfig(name=name, command=node_binary(), args=[str(script), "stdio"], **options)  # type: ignore[arg-type]


def node_binary() -> str:
    import shutil

    found = shutil.which("node")
    if not found:
        pytest.skip("node is not installed")
    return found


@asynccontextmanager
async def running(
    *servers: ServerConfig, settings: Settings | None = None, **kwargs: object
) -> AsyncIterator[ServerManager]:
    """A started ServerManager over ``servers``, closed afterwards."""
    manager = ServerManager(ServersConfig(servers=list(servers)), settings or Settings(), **kwargs)  # type: ignore[arg-type]
    async with manager:
        await manager.wait_ready(READY_TIMEOUT_S)
        yield manager


async def wait_for(
    manager: ServerManager, condition: Callable[[], bool], seconds: float = READY_TIMEOUT_S
) -> None:
    """Wait (bounded) until ``condition()`` holds, re-checking on every manager event."""
    changed = anyio.Event()

    def on_event(_: ManagerEvent) -> None:
        changed.set()

    remove = manager.add_listener(on_event)
    try:
        with anyio.fail_after(seconds):
            while not condition():
                await changed.wait()
                changed = anyio.Event()
    finally:
        remove()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_line(process: subprocess.Popen[bytes], marker: bytes, seconds: float) -> None:
    assert process.stderr is not None
    deadline = time.monotonic() + seconds
    seen = b""
    while marker not in seen:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or process.poll() is not None:
            raise RuntimeError(f"server did not print {marker!r}: {seen.decode(errors='replace')}")
        ready, _, _ = select.select([process.stderr], [], [], remaining)
        if ready:
            seen += os.read(process.stderr.fileno(), 4096)


@contextmanager
def everything_on_a_port(
    mode: str, ready_marker: bytes, path: str
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """server-everything in ``mode`` (streamableHttp / sse) on a free port; yields (endpoint URL, process)."""
    script = peer_path(*EVERYTHING)
    port = free_port()
    process = subprocess.Popen(
        [node_binary(), str(script), mode],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_line(process, ready_marker, READY_TIMEOUT_S)
        yield f"http://127.0.0.1:{port}{path}", process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        assert process.stderr is not None
        process.stderr.close()


def write_config(folder: Path, servers: dict[str, dict[str, object]]) -> Path:
    import json

    path = folder / "servers.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path
