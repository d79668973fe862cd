"""What the server commands share: a Host with only the servers a command needs and no model, waiting
for them, and the user's names for servers checked against the servers file."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Collection, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING

from edgehost.cli.context import CliContext
from edgehost.errors import UsageError
from edgehost.mcp.catalog import SEPARATOR, sanitize
from edgehost.mcp.client_features import ClientFeatures
from edgehost.mcp.config import BUILT_INS_ONLY, ServerConfig, ServersConfig
from edgehost.mcp.errors import ServerUnavailable
from edgehost.mcp.server_state import ServerState, ServerStatus
from edgehost.mcp.supervisor import STARTUP_TIMEOUT_S

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = [
    "CONNECT_WAIT_S",
    "STDERR_LINES_SHOWN",
    "connected",
    "host_for",
    "not_configured",
    "require_ready",
    "server_names",
    "server_of",
    "state_of",
]

# A command that needs one server waits as long as the supervisor's own start bound, plus a little.
CONNECT_WAIT_S = STARTUP_TIMEOUT_S + 5
STDERR_LINES_SHOWN = 10


@contextmanager
def quiet_sdk_logs() -> Iterator[None]:
    # The SDK logs every junk stdout line of a server with a traceback; the CLI reports servers its own way.
    sdk_logger = logging.getLogger("mcp")
    level = sdk_logger.level
    sdk_logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        sdk_logger.setLevel(level)


def server_names(config: ServersConfig, only: str | None) -> list[str] | None:
    if only is None:
        return None
    if config.get(only) is None:
        known = ", ".join(s.name for s in config.servers) or "none"
        raise not_configured(config, f"no server named {only!r} is configured (configured: {known})")
    return [only]


def not_configured(config: ServersConfig, problem: str) -> UsageError:
    """``problem`` (a server the user named is not in ``config``), with why when the servers file could
    not be read: it may well be there, and only the built-in servers were loaded."""
    if config.file_error:
        problem += f". The servers file could not be read, so {BUILT_INS_ONLY}: {config.file_error}"
    return UsageError(problem)


def server_of(config: ServersConfig, namespaced: str) -> ServerConfig:
    """The configured server a namespaced name belongs to (longest matching prefix)."""
    matches = [s for s in config.servers if namespaced.startswith(sanitize(s.name) + SEPARATOR)]
    if not matches:
        known = ", ".join(s.name for s in config.servers) or "none"
        raise not_configured(
            config, f"{namespaced!r} does not start with a configured server name and '__' (servers: {known})"
        )
    return max(matches, key=lambda s: len(s.name))


@asynccontextmanager
async def connected(
    ctx: CliContext, config: ServersConfig, only: Collection[str] | None, wait: float = CONNECT_WAIT_S
) -> AsyncIterator[Host]:
    """A Host with the servers ``only`` (all when None), each settled (ready or failed) or still
    starting after ``wait`` seconds; closed on exit."""
    async with host_for(ctx, config, only) as host:
        await host.wait_servers_ready(wait)
        yield host


def state_of(host: Host, name: str) -> ServerState:
    return next(s for s in host.server_states() if s.name == name)


@asynccontextmanager
async def host_for(
    ctx: CliContext,
    config: ServersConfig,
    only: Collection[str] | None,
    features: ClientFeatures | None = None,
) -> AsyncIterator[Host]:
    """A Host with just the servers ``only`` (all when None) and no model."""
    from edgehost.host.host import Host
    from edgehost.host.options import HostOptions

    host = Host(
        ctx.paths,
        ctx.settings,
        HostOptions(
            features=features,
            servers=config,
            only_servers=list(only) if only is not None else None,
            with_model=False,
            auto_restart=False,  # one command, one look: a server that dies is shown failed
        ),
        ctx.profile_override,
    )
    with quiet_sdk_logs():
        try:
            await host.start()
            yield host
        finally:
            await host.aclose()


def require_ready(state: ServerState) -> None:
    if state.status is not ServerStatus.READY:
        # The supervisor's error already names the server and says what happened.
        raise ServerUnavailable(
            state.error or f"server {state.name!r} is {state.status.value}",
            server=state.name,
            stderr_tail=state.stderr_tail[-STDERR_LINES_SHOWN:],
        )
