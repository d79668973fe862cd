"""EdgeHost's own servers built in the host's process, each run on a thread of its own.

Their entries name a command (``edgehost serve NAME``) that other hosts (Claude Desktop, VS Code) start
as a stdio process, and that EdgeHost started too until issue 35: two Python interpreters with the SDK,
about 140 MB at idle on a board with 4 GB. Now the host builds the same server objects with the same
arguments (``HostOptions.servers_in_process``) and runs each on a thread with its own event loop
(mcp/_thread_transport.py says what that keeps from the window and what it does not). A server the user
configures, even ``edgehost serve files`` under a name of their own, starts as the process it names.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from edgehost.mcp.config import ServerConfig, builtin_fixed_args
from edgehost.paths import SYSFS_ROOT_ENV

if TYPE_CHECKING:  # the SDK's server side is imported when a server is built, not with the options
    from mcp.server.mcpserver import MCPServer

__all__ = ["builtin_in_process"]


def _board(args: Sequence[str], config: ServerConfig) -> MCPServer:
    from edgehost.servers.board import server_from_args

    # The process would read the fake board of its environment; here it is told the same tree.
    if (root := config.env.get(SYSFS_ROOT_ENV)) and "--root" not in args:
        args = [*args, "--root", root]
    return server_from_args(args)


def _files(args: Sequence[str], _config: ServerConfig) -> MCPServer:
    from edgehost.servers.files import server_from_args

    return server_from_args(args)


_BUILDERS: dict[str, Callable[[Sequence[str], ServerConfig], MCPServer]] = {"board": _board, "files": _files}


def builtin_in_process(config: ServerConfig) -> Callable[[], MCPServer] | None:
    """What builds the built-in server ``config`` would start as a process, with the same arguments
    (called on the server's thread: its imports and tool schemas are built there); None for any other
    server."""
    build = _BUILDERS.get(config.name) if config.builtin else None
    if build is None:
        return None
    return functools.partial(build, list(config.args[builtin_fixed_args(config) :]), config)
