"""``ServerManager``: the one object the host uses for MCP — every server's supervisor and the catalog."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass, replace
from typing import Any

import anyio
import anyio.abc
import mcp_types as types

from edgehost.mcp.built_ahead import BuiltAhead
from edgehost.mcp.catalog import Catalog, build_catalog
from edgehost.mcp.client_features import ClientFeatures, ProgressFnT
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.mcp.errors import (
    MissingPromptArguments,
    ToolDisabled,
    UnknownPrompt,
    UnknownResource,
    UnknownServer,
    UnknownTool,
)
from edgehost.mcp.server_state import ServerState, ServerStatus
from edgehost.mcp.supervisor import STARTUP_TIMEOUT_S, ServerSupervisor
from edgehost.mcp.tasks import TaskState
from edgehost.settings import Settings

__all__ = ["CatalogChanged", "ManagerEvent", "ServerManager", "ServerOutputChanged", "ServerStatusChanged"]

logger = logging.getLogger(__name__)

# Each supervisor closes its connection itself on shutdown (the SDK gives a stdio server 2 s to exit
# and 2 s more after SIGTERM); past this bound the remaining tasks are cancelled.
SHUTDOWN_TIMEOUT_S = 8.0


@dataclass(frozen=True)
class ServerStatusChanged:
    name: str
    status: ServerStatus
    error: str | None


@dataclass(frozen=True)
class ServerOutputChanged:
    """New stderr or log lines of a server (announced at most once a second)."""

    name: str


@dataclass(frozen=True)
class CatalogChanged:
    catalog: Catalog


ManagerEvent = ServerStatusChanged | ServerOutputChanged | CatalogChanged
ListenerFnT = Callable[[ManagerEvent], None]


class ServerManager:
    """Starts every configured server concurrently, keeps the catalog, routes requests.

    Use ``async with ServerManager(...) as manager:`` or ``await manager.start()`` ... ``await
    manager.aclose()`` (the supervisors then live in a background task, so start and close may
    happen in different tasks), or run ``manager.run`` in your own task group.

    ``only`` restricts the servers started (the CLI connects only those it needs); with
    ``auto_restart=False`` a server that fails stays failed (one-shot commands report it);
    ``startup_timeout`` bounds each server's start (ServerSupervisor). Enable
    flags persist in ``settings``; ``on_settings_changed`` is called after each change so the caller
    saves.
    """

    def __init__(
        self,
        config: ServersConfig,
        settings: Settings,
        *,
        features: ClientFeatures | None = None,
        on_settings_changed: Callable[[Settings], None] | None = None,
        only: Collection[str] | None = None,
        auto_restart: bool = True,
        startup_timeout: float = STARTUP_TIMEOUT_S,
    ) -> None:
        self.config = config
        self.settings = settings
        self._on_settings_changed = on_settings_changed
        self._listeners: list[ListenerFnT] = []
        self._features = features or ClientFeatures()
        self._built_ahead: BuiltAhead | None = None
        if self._features.in_process is not None:
            self._built_ahead = BuiltAhead(self._features.in_process)
            self._features = replace(self._features, in_process=self._built_ahead)
        self._auto_restart = auto_restart
        self._startup_timeout = startup_timeout
        servers = [s for s in config.servers if only is None or s.name in only]
        self._supervisors: dict[str, ServerSupervisor] = {s.name: self._new_supervisor(s) for s in servers}
        self._catalog = Catalog()
        self._closing = anyio.Event()
        self._runner: asyncio.Task[None] | None = None
        self._group: anyio.abc.TaskGroup | None = None  # where the supervisors run, once running

    # -- lifetime ----------------------------------------------------------------------------

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Run every supervisor until ``aclose()``; ``task_status.started()`` once they are launched."""
        async with anyio.create_task_group() as tg:
            self._group = tg
            for supervisor in self._supervisors.values():
                tg.start_soon(supervisor.run, name=f"mcp-supervisor-{supervisor.name}")
            task_status.started()
            await self._closing.wait()
            self._group = None
            for supervisor in self._supervisors.values():
                supervisor.shutdown()
            with anyio.move_on_after(SHUTDOWN_TIMEOUT_S, shield=True):
                for supervisor in self._supervisors.values():
                    await supervisor.finished.wait()
            tg.cancel_scope.cancel()

    async def start(self) -> None:
        """Launch the supervisors in a background task of the running asyncio loop."""
        if self._runner is not None:
            return
        started = anyio.Event()

        async def runner() -> None:
            # In the runner, not before it: a start that is awaited, and an aclose meanwhile, see a runner.
            if self._built_ahead is not None:  # before any question can stream (mcp/built_ahead.py)
                await self._built_ahead.build([s.config for s in self._supervisors.values() if s.enabled])
            async with anyio.create_task_group() as tg:
                await tg.start(self.run)
                started.set()

        self._runner = asyncio.get_running_loop().create_task(runner(), name="mcp-server-manager")
        await started.wait()

    async def aclose(self) -> None:
        """Stop every server (each supervisor closes its own connection) and wait for them."""
        self._closing.set()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner

    async def __aenter__(self) -> ServerManager:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    async def wait_ready(self, timeout: float) -> list[ServerState]:  # noqa: ASYNC109 - bounded wait, never raises
        """Wait until every server has settled once (ready, failed or disabled), at most ``timeout`` s."""
        with anyio.move_on_after(timeout):
            for supervisor in self._supervisors.values():
                await supervisor.settled.wait()
        return self.statuses()

    # -- events --------------------------------------------------------------------------------

    def add_listener(self, listener: ListenerFnT) -> Callable[[], None]:
        """Call ``listener`` with every ServerStatusChanged / CatalogChanged; returns the remover."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, event: ManagerEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                logger.exception("ServerManager listener raised")

    def _on_supervisor_change(self, supervisor: ServerSupervisor, what: str) -> None:
        if what == "output":
            self._emit(ServerOutputChanged(supervisor.name))
            return
        if what == "status":
            self._emit(ServerStatusChanged(supervisor.name, supervisor.status, supervisor.error))
        self._rebuild_catalog()

    def _rebuild_catalog(self) -> None:
        listings = {s.name: s.listing for s in self._supervisors.values() if s.status is ServerStatus.READY}
        catalog = build_catalog(listings, self.config.servers, self.settings.is_tool_enabled)
        if catalog != self._catalog:
            self._catalog = catalog
            self._emit(CatalogChanged(catalog))

    # -- state -----------------------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        """The current catalog snapshot (connected servers only)."""
        return self._catalog

    def statuses(self) -> list[ServerState]:
        return [s.state() for s in self._supervisors.values()]

    def status(self, name: str) -> ServerState:
        return self._supervisor(name).state()

    def _supervisor(self, name: str) -> ServerSupervisor:
        supervisor = self._supervisors.get(name)
        if supervisor is None:
            raise UnknownServer(f"no server named {name!r} is configured", server=name)
        return supervisor

    # -- commands ----------------------------------------------------------------------------------

    def set_server_enabled(self, name: str, enabled: bool) -> None:
        """Enable or disable a server now and persist the flag in the settings. Raises UnknownServer.

        A server whose config entry says ``enabled: false`` starts now when enabled here, but the
        config file still wins at the next launch.
        """
        supervisor = self._supervisor(name)
        self.settings.set_server_enabled(name, enabled)
        self._settings_changed()
        supervisor.set_enabled(enabled)

    async def add_server(self, server: ServerConfig) -> None:
        """Start a server added to the config while the manager runs; one of the same name is stopped
        and replaced. Raises RuntimeError when the manager is not running."""
        if self._group is None:
            raise RuntimeError("the server manager is not running")
        if server.name in self._supervisors:
            await self.remove_server(server.name)
        supervisor = self._new_supervisor(server)
        self._supervisors[server.name] = supervisor
        self.config.servers = [*(s for s in self.config.servers if s.name != server.name), server]
        self._group.start_soon(supervisor.run, name=f"mcp-supervisor-{server.name}")

    def _new_supervisor(self, server: ServerConfig) -> ServerSupervisor:
        return ServerSupervisor(
            server,
            features=self._features,
            enabled=server.enabled and self.settings.is_server_enabled(server.name),
            on_change=self._on_supervisor_change,
            auto_restart=self._auto_restart,
            startup_timeout=self._startup_timeout,
        )

    async def remove_server(self, name: str) -> None:
        """Stop a server removed from the config and forget it (its tools leave the catalog). Raises
        UnknownServer."""
        supervisor = self._supervisor(name)
        supervisor.shutdown()
        with anyio.move_on_after(SHUTDOWN_TIMEOUT_S, shield=True):
            await supervisor.finished.wait()
        del self._supervisors[name]
        self.config.servers = [s for s in self.config.servers if s.name != name]
        self._emit(ServerStatusChanged(name, ServerStatus.STOPPED, None))
        self._rebuild_catalog()

    def restart(self, name: str) -> None:
        """Reconnect a server (its supervisor closes and reopens the connection). Raises UnknownServer."""
        self._supervisor(name).restart()

    def set_tool_enabled(self, name: str, enabled: bool) -> None:
        """Enable or disable a tool by namespaced name and persist the flag."""
        self.settings.set_tool_enabled(name, enabled)
        self._settings_changed()
        self._rebuild_catalog()

    def _settings_changed(self) -> None:
        if self._on_settings_changed is not None:
            self._on_settings_changed(self.settings)

    # -- requests ------------------------------------------------------------------------------------

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        progress: ProgressFnT | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - progress extends it; see ServerSupervisor.request
        on_task: Callable[[TaskState], None] | None = None,
    ) -> types.CallToolResult:
        """Call a tool by namespaced name. A tool error comes back as a result with ``isError`` set.
        A tool that runs as an MCP Task reports its states to ``on_task`` (mcp/tasks.py).

        Raises UnknownTool, ToolDisabled, ServerUnavailable, ToolTimeout, ServerRequestFailed (all
        ToolCallError).
        """
        entry = self._catalog.tool(name)
        if entry is None:
            raise UnknownTool(f"no tool named {name!r} (is its server connected?)")
        if not entry.enabled:
            raise ToolDisabled(
                f"tool {name!r} is switched off: switch it on in the Tools panel, with /enable {name} in"
                " `edgehost chat`, or take it out of disabled_tools in settings.json",
                server=entry.server,
            )
        supervisor = self._supervisor(entry.server)
        return await supervisor.call_tool(
            entry.original_name, arguments, timeout=timeout, progress=progress, on_task=on_task
        )

    async def read_resource(self, uri: str, *, server: str | None = None) -> types.ReadResourceResult:
        """Read a resource from the server that lists it (or ``server``).

        Raises UnknownResource when no connected server lists it, else as ``call_tool``.
        """
        return await self._resource_owner(uri, server).read_resource(uri)

    def watch_resource(
        self, uri: str, *, server: str | None = None
    ) -> contextlib.AbstractAsyncContextManager[AsyncIterator[str]]:
        """The updates of a resource while the block runs (ServerSupervisor.watch_resource), from the
        server that lists it (or ``server``). Raises as ``read_resource``."""
        return self._resource_owner(uri, server).watch_resource(uri)

    def _resource_owner(self, uri: str, server: str | None) -> ServerSupervisor:
        """``server``'s supervisor, or that of the one server that lists ``uri`` (or the only one with
        resources, for a URI of a template). Raises UnknownResource, UnknownServer."""
        owner = server or self._catalog.server_for_uri(uri)
        if owner is None:
            capable = [
                s.name
                for s in self._supervisors.values()
                if s.status is ServerStatus.READY and (s.listing.resources or s.listing.resource_templates)
            ]
            if len(capable) != 1:
                raise UnknownResource(f"no connected server lists the resource {uri!r}")
            owner = capable[0]
        return self._supervisor(owner)

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> types.GetPromptResult:
        """Get a prompt by namespaced name. Raises UnknownPrompt, MissingPromptArguments (a required argument
        not given), else as ``call_tool``."""
        entry = self._catalog.prompt(name)
        if entry is None:
            raise UnknownPrompt(f"no prompt named {name!r} (is its server connected?)")
        given = arguments or {}
        missing = [a for a in entry.arguments if a.get("required") and not given.get(str(a.get("name")))]
        if missing:  # said in words, not as the server's -32602 "expected string, received undefined"
            needed = ", ".join(
                str(a.get("name")) + (f" ({a['description']})" if a.get("description") else "")
                for a in missing
            )
            example = " ".join(f"{a.get('name')}=..." for a in missing)
            raise MissingPromptArguments(
                f"the prompt {name} needs {needed} (give {example})", server=entry.server
            )
        return await self._supervisor(entry.server).get_prompt(entry.original_name, arguments)

    def stderr_tail(self, name: str, lines: int | None = None) -> tuple[str, ...]:
        return self._supervisor(name).stderr.tail(lines)

    def log_tail(self, name: str, lines: int | None = None) -> tuple[str, ...]:
        return self._supervisor(name).log.tail(lines)
