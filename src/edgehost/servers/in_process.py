"""EdgeHost's own servers built in the host's process, for the SDK's in-memory transport.

The app runs each built-in server as a process of its own (``edgehost serve NAME``), so that a crash of
one cannot take the window. The tests of the host, the window and the page connect to the same servers
in memory instead (``HostOptions.servers_in_process``), as the python-sdk's own tests do: the same
tools, resources and code, without two Python processes started per test. The tests *of* the stdio
transport keep real processes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mcp.server.mcpserver import MCPServer

from edgehost.mcp.config import ServerConfig, builtin_fixed_args
from edgehost.paths import SYSFS_ROOT_ENV

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


def builtin_in_process(config: ServerConfig) -> MCPServer | None:
    """The built-in server ``config`` would start as a process, built here with the same arguments;
    None for any other server."""
    build = _BUILDERS.get(config.name) if config.builtin else None
    if build is None:
        return None
    return build(list(config.args[builtin_fixed_args(config) :]), config)
