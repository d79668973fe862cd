"""Fixtures of the MCP tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from mcp_support import EVERYTHING, READY_TIMEOUT_S, free_port, node_binary, wait_for_line
from tests.conftest import peer_path


@contextmanager
def _everything_on_a_port(mode: str, ready_marker: bytes, path: str) -> Iterator[str]:
    """server-everything in ``mode`` (streamableHttp / sse) on a free port; yields its endpoint URL."""
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
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        assert process.stderr is not None
        process.stderr.close()


@pytest.fixture
def everything_http() -> Iterator[str]:
    """server-everything over Streamable HTTP; yields its /mcp URL."""
    with _everything_on_a_port("streamableHttp", b"listening on port", "/mcp") as url:
        yield url


@pytest.fixture
def everything_sse() -> Iterator[str]:
    """server-everything over the legacy HTTP+SSE transport; yields its /sse URL."""
    with _everything_on_a_port("sse", b"running on port", "/sse") as url:
        yield url
