"""Errors of requests sent to MCP servers (tool calls, resource reads, prompts)."""

from __future__ import annotations

from collections.abc import Sequence

from edgehost.errors import EdgeHostError

__all__ = [
    "MissingPromptArguments",
    "ServerRequestFailed",
    "ServerUnavailable",
    "ToolCallError",
    "ToolDisabled",
    "ToolTimeout",
    "UnknownPrompt",
    "UnknownResource",
    "UnknownServer",
    "UnknownTool",
]


class ToolCallError(EdgeHostError):
    """A request to an MCP server did not produce a result. ``server`` names the server when known."""

    def __init__(self, message: str, *, server: str | None = None) -> None:
        super().__init__(message)
        self.server = server


class ServerUnavailable(ToolCallError):
    """The server is not connected: it failed to start, exited, dropped its connection or is disabled.

    The message names the server and ends with the last lines it wrote to stderr.
    """

    def __init__(self, message: str, *, server: str, stderr_tail: Sequence[str] = ()) -> None:
        self.stderr_tail = tuple(stderr_tail)
        if self.stderr_tail:
            message += (
                "\nlast stderr lines of "
                + server
                + ":\n"
                + "\n".join("  " + line for line in self.stderr_tail)
            )
        super().__init__(message, server=server)


class ToolTimeout(ToolCallError):
    """The request ran past its timeout and was cancelled (the server was told); the server keeps running."""

    def __init__(self, message: str, *, server: str, timeout: float) -> None:
        super().__init__(message, server=server)
        self.timeout = timeout


class ServerRequestFailed(ToolCallError):
    """The server answered with a JSON-RPC error, or with a result that does not follow the protocol.
    ``reason``: the error's message in the server's own words, when it answered with one."""

    def __init__(
        self, message: str, *, server: str, code: int | None = None, reason: str | None = None
    ) -> None:
        super().__init__(message, server=server)
        self.code = code
        self.reason = reason


class UnknownServer(ToolCallError):
    """No configured server has this name."""


class UnknownTool(ToolCallError):
    """No tool in the catalog has this (namespaced) name."""


class ToolDisabled(ToolCallError):
    """The tool exists but the user disabled it (or its server)."""


class UnknownResource(ToolCallError):
    """No connected server lists this resource URI or a template that matches it."""


class UnknownPrompt(ToolCallError):
    """No prompt in the catalog has this (namespaced) name."""


class MissingPromptArguments(ToolCallError):
    """A prompt was asked for without an argument it requires."""
