"""Client features EdgeHost declares to servers, as injectable handlers with headless defaults.

The GUI injects handlers that ask the user (an elicitation form, a sampling approval routed to our own
LLM); the CLI and tests use the headless defaults defined here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx2
import mcp_types as types
from mcp.shared.dispatcher import ProgressFnT
from pydantic import FileUrl

from edgehost.mcp.schema_values import elicitation_defaults

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from edgehost.mcp.config import ServerConfig

__all__ = [
    "ClientFeatures",
    "ElicitationHandlerFnT",
    "HttpAuthFnT",
    "InProcessFnT",
    "ProgressFnT",
    "SamplingHandlerFnT",
    "accept_elicitation_with_defaults",
    "decline_sampling",
    "roots_from_paths",
]

ElicitationHandlerFnT = Callable[[str, types.ElicitRequestParams], Awaitable[types.ElicitResult]]
"""(server name, request) -> the user's answer."""

SamplingHandlerFnT = Callable[
    [str, types.CreateMessageRequestParams], Awaitable[types.CreateMessageResult | types.ErrorData]
]
"""(server name, request) -> a generated message, or an error when the user or policy declines."""

HttpAuthFnT = Callable[["ServerConfig"], httpx2.Auth | None]
"""(server) -> the auth of a new HTTP connection to it (OAuth, mcp/auth/), or None."""
InProcessFnT = Callable[["ServerConfig"], "Callable[[], MCPServer] | None"]
"""(server's config) -> what builds the server to run in this process (called on the server's own
thread, so building it stalls nothing), or None to start it as configured."""


async def accept_elicitation_with_defaults(
    server: str, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """Headless answer: accept with the schema's defaults; decline when a required field has none.

    URL-mode elicitation (open a web page) cannot be answered without a person and is declined.
    """
    if not isinstance(params, types.ElicitRequestFormParams):
        return types.ElicitResult(action="decline")
    content = elicitation_defaults(params.requested_schema)
    if content is None:
        return types.ElicitResult(action="decline")
    return types.ElicitResult(action="accept", content=content)


async def decline_sampling(server: str, params: types.CreateMessageRequestParams) -> types.ErrorData:
    """Headless answer to a sampling request: declined (no person to approve it)."""
    return types.ErrorData(code=-1, message=f"EdgeHost declined the sampling request from {server!r}")


def roots_from_paths(paths: Sequence[str]) -> list[types.Root]:
    """Configured root folders as file:// URIs (``~`` expanded, made absolute)."""
    roots = []
    for raw in paths:
        path = Path(raw).expanduser().resolve()
        roots.append(types.Root(uri=FileUrl(path.as_uri()), name=path.name or str(path)))
    return roots


@dataclass(frozen=True)
class ClientFeatures:
    """The handlers the manager wires into every server's connection."""

    elicitation: ElicitationHandlerFnT = accept_elicitation_with_defaults
    sampling: SamplingHandlerFnT = decline_sampling
    http_auth: HttpAuthFnT | None = None
    # Whether a server waiting for a sign-in has been signed in elsewhere meanwhile (another process,
    # `edgehost auth login`): its supervisor asks every SIGN_IN_POLL_S and connects again. Blocking
    # (it reads the credential store): called in a thread.
    signed_in_elsewhere: Callable[[ServerConfig], bool] | None = None
    # A server run in this process, on a thread of its own (mcp/_thread_transport.py), instead of
    # starting ``config``'s command: None for those that start as configured (HostOptions.servers_in_process).
    in_process: InProcessFnT | None = None
