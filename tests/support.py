"""Helpers shared by test folders (fixtures live in conftest.py files)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

# Starting a Python server process on a loaded 2-core machine can take several seconds.
CONNECT_TIMEOUT_S = 60


@asynccontextmanager
async def python_server_client(*args: str) -> AsyncIterator[Client]:
    """The SDK's own Client connected over stdio to `python <args>` (one of our built-in servers)."""
    params = StdioServerParameters(command=sys.executable, args=list(args))
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(params) as client:
            yield client
