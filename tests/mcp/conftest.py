"""Fixtures of the MCP tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp_support import everything_on_a_port


@pytest.fixture
def everything_http() -> Iterator[str]:
    """server-everything over Streamable HTTP; yields its /mcp URL."""
    with everything_on_a_port("streamableHttp", b"listening on port", "/mcp") as (url, _process):
        yield url


@pytest.fixture
def everything_sse() -> Iterator[str]:
    """server-everything over the legacy HTTP+SSE transport; yields its /sse URL."""
    with everything_on_a_port("sse", b"running on port", "/sse") as (url, _process):
        yield url
