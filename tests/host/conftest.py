"""Fixtures for the Host's tests: a host on scripted model replies and the real built-in servers, and a
recorder of its events that can wait for one."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import peer_path

from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.llm.scripted import ScriptedBackend
from edgehost.paths import Paths
from edgehost.servers.in_process import builtin_in_process
from edgehost.settings import Settings
from edgehost.slow_machine import scaled_wait

WAIT_S = scaled_wait(30.0)
# The start-up work wait_warm waits for: the ranker's models loaded and every tool embedded, which
# under the whole suite on a loaded 2-core machine took longer than WAIT_S.
WARM_S = scaled_wait(90.0)


def call(name: str, **arguments: Any) -> str:
    return "[TOOL_CALL]" + json.dumps({"name": name, "arguments": arguments}) + "[END_TOOL_CALL]"


def serve_memory(store: Path, entities: list[dict[str, Any]], node: str, data_dir: Path) -> None:
    """The reference memory server, keeping ``entities`` in ``store``, as the host's only server."""
    store.write_text("".join(json.dumps(entity) + "\n" for entity in entities), encoding="utf-8")
    script = peer_path("@modelcontextprotocol", "server-memory", "dist", "index.js")
    memory = {"command": node, "args": [str(script)], "env": {"MEMORY_FILE_PATH": str(store)}}
    servers = Paths.resolve(None, data_dir).servers_file
    servers.parent.mkdir(parents=True, exist_ok=True)
    servers.write_text(json.dumps({"mcpServers": {"memory": memory}}), encoding="utf-8")


class Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []
        self._waiters: list[tuple[Callable[[Any], bool], asyncio.Future[Any]]] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)
        for predicate, future in list(self._waiters):
            if not future.done() and predicate(event):
                future.set_result(event)

    async def wait_for(self, predicate: Callable[[Any], bool]) -> Any:
        for event in self.events:
            if predicate(event):
                return event
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        return await asyncio.wait_for(future, WAIT_S)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


@pytest.fixture
async def make_host(data_dir: Path) -> AsyncIterator[Callable[..., Any]]:
    """make_host(backend, settings=None, **HostOptions) -> (started Host, Recorder). The built-in
    servers are connected in memory unless ``servers_in_process=None`` asks for their processes."""
    hosts: list[Host] = []

    async def make(
        backend: ScriptedBackend, settings: Settings | None = None, **options: Any
    ) -> tuple[Host, Recorder]:
        options.setdefault("servers_in_process", builtin_in_process)
        host = Host(
            Paths.resolve(None, data_dir), settings or Settings(), HostOptions(backend=backend, **options)
        )
        recorder = Recorder()
        host.subscribe(recorder)
        await host.start()
        states = await host.wait_servers_ready(WAIT_S)
        assert all(s.status.value == "ready" for s in states), [(s.name, s.error) for s in states]
        hosts.append(host)
        return host, recorder

    yield make
    for host in hosts:
        await host.aclose()
