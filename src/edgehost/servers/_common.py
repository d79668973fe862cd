"""What every built-in stdio server shares: running it until its client goes away."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

__all__ = ["run_stdio"]


def run_stdio(server: MCPServer) -> int:
    """Serve ``server`` over stdin/stdout until the client closes stdin; the exit code for ``main``.

    A client that goes away (Ctrl-C in a terminal, a closed pipe) is a normal end, not an error.
    """
    try:
        server.run("stdio")
    except (KeyboardInterrupt, BrokenPipeError):
        pass
    return 0
