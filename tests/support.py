"""Helpers shared by test folders (fixtures live in conftest.py files)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, get_default_environment

from edgehost.agent.tools import ToolSpec
from edgehost.host.executor import specs_of
from edgehost.mcp.catalog import ServerListing, build_catalog
from edgehost.mcp.config import ServerConfig
from edgehost.slow_machine import scaled_wait
from mcp import types

# As the machine's notes say Chromium must start here: no sandbox as root, no background connections
# (this machine's network is closed, and refused connections slow every start).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Starting a Python server process on a loaded 2-core machine can take several seconds.
CONNECT_TIMEOUT_S = round(scaled_wait(60))


@asynccontextmanager
async def python_server_client(*args: str) -> AsyncIterator[Client]:
    """The SDK's own Client connected over stdio to `python <args>` (one of our built-in servers)."""
    # PYTHONPATH passed on: a bench run against another checkout (PYTHONPATH=/tmp/old/src) must list
    # that checkout's servers, not the installed ones (the SDK's default environment leaves it out).
    path = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    params = StdioServerParameters(
        command=sys.executable, args=list(args), env={**get_default_environment(), **path}
    )
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(params) as client:
            yield client


def tool_specs(
    listings: Mapping[str, Sequence[types.Tool | Mapping[str, Any]]],
    *,
    trusted: Collection[str] = (),
    folders: Mapping[str, str] | None = None,
) -> list[ToolSpec]:
    """The tools of servers that list ``listings`` ({server: tools, as SDK objects or wire JSON}) as the
    host gives them to the agent: named by the real catalog, in the servers' order. ``folders``: the
    one folder a server serves, as the host finds it in the server's arguments."""
    listed = {
        server: ServerListing(
            tools=[t if isinstance(t, types.Tool) else types.Tool.model_validate(t) for t in tools]
        )
        for server, tools in listings.items()
    }
    catalog = build_catalog(listed, [ServerConfig(name) for name in listings], lambda _name: True)
    return list(specs_of(catalog, trusted, folders))


def stop_process(process: subprocess.Popen[Any], wait_s: float = 10.0) -> None:
    """Stop a process the test started: terminated, and killed if it is still there after ``wait_s``."""
    process.terminate()
    try:
        process.wait(wait_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# What a board image lacks: it has the usual programs and Python, but no Node.js and no Docker; uv comes
# with EdgeHost (edgehost.programs), not with the image.
NOT_ON_A_BOARD = frozenset({"node", "nodejs", "npm", "npx", "corepack", "docker", "podman", "uv", "uvx"})


def board_image_path(folder: Path) -> str:
    """A PATH of one folder, ``folder``, holding links to every program of this machine's PATH except
    those NOT_ON_A_BOARD: the PATH of a board image, on this machine."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ["PATH"].split(os.pathsep):
        if not Path(directory).is_dir():
            continue
        for program in Path(directory).iterdir():
            link = folder / program.name
            if program.name not in NOT_ON_A_BOARD and not link.exists() and not link.is_symlink():
                link.symlink_to(program)
    return str(folder)
