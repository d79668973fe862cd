"""Fixtures of the MCP tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest
from mcp_support import EVERYTHING, READY_TIMEOUT_S, free_port, node_binary, wait_for_line
from tests.conftest import peer_path


@pytest.fixture
def everything_http() -> Iterator[str]:
    """server-everything over Streamable HTTP on a free port; yields its /mcp URL."""
    script = peer_path(*EVERYTHING)
    port = free_port()
    process = subprocess.Popen(
        [node_binary(), str(script), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_line(process, b"listening on port", READY_TIMEOUT_S)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        assert process.stderr is not None
        process.stderr.close()
