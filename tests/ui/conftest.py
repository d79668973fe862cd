"""UI fixtures: a qasync loop on pytest-qt's QApplication, and the whole desktop app on a scripted model
with the real built-in servers, in a fresh data folder."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import qasync
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QLayout, QWidget

from edgehost.host.options import HostOptions
from edgehost.llm.scripted import ScriptedBackend
from edgehost.mcp.config import ServersConfig
from edgehost.mcp.manager import ServerManager
from edgehost.paths import Paths
from edgehost.servers.in_process import builtin_in_process
from edgehost.settings import Settings
from edgehost.slow_machine import scaled_wait
from edgehost.ui._gc import GuiThreadCollector
from edgehost.ui.app import Desktop
from edgehost.ui.theme import apply_theme

T = TypeVar("T")
Run = Callable[[Awaitable[T]], T]

SERVERS_READY_S = scaled_wait(60.0)  # two Python servers start on a loaded 2-core CI machine
STEP_S = scaled_wait(30.0)  # any single UI step (a scripted turn, a dialog answer)
# A first routed turn: it waits for the ranking process to load both embedding models, which took over
# 30 s twice when a benchmark's model shared the 2 cores with the suite.
FIRST_ROUTED_TURN_S = scaled_wait(90.0)
TEST_S = scaled_wait(150.0)  # a whole test: servers start, a few turns, shutdown


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    apply_theme(qapp, "light")
    qapp.setQuitOnLastWindowClosed(False)  # as run_app does: quitting is the app's decision
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    collector = GuiThreadCollector()  # as run_app does: Qt objects are freed on this thread only
    yield loop
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
    asyncio.set_event_loop(None)
    collector.stop()
    collector.deleteLater()
    # Free what the test left for later now, not at a garbage collection during some other test: on
    # PySide6 6.8.0.2 under load, a timer event for a widget freed late crashed a later test (2 runs
    # of 4 of the floor-Qt suite, in QApplication::notify from QTimerInfoList::activateTimers).
    gc.collect()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()


@pytest.fixture
def run(qloop: asyncio.AbstractEventLoop) -> Run[Any]:
    """Run a coroutine on the Qt loop, bounded by TEST_S."""

    def runner(awaitable: Awaitable[T], timeout: float = TEST_S) -> T:
        return qloop.run_until_complete(asyncio.wait_for(awaitable, timeout))  # type: ignore[arg-type]

    return runner


async def finished(task: asyncio.Future[Any] | None, timeout: float = STEP_S) -> Any:
    """The result of a turn (or any) task, bounded; the task is not cancelled by the bound."""
    assert task is not None
    return await asyncio.wait_for(asyncio.shield(task), timeout)


async def wait_until(condition: Callable[[], Any], timeout: float = STEP_S) -> None:
    """Until ``condition()`` holds, the loop running meanwhile; fails after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


def manager(desktop: Desktop) -> ServerManager:
    assert desktop.host._manager() is not None, "the host has not started"
    return desktop.host._manager()


def scripted(desktop: Desktop) -> ScriptedBackend:
    backend = desktop.host.backend
    assert isinstance(backend, ScriptedBackend)
    return backend


def shown_widgets(layout: QLayout) -> list[QWidget]:
    items = (layout.itemAt(i) for i in range(layout.count()))
    return [w for w in (item.widget() for item in items if item is not None) if w is not None]


def assert_open(desktop: Desktop, request_id: str) -> None:
    """The host opens a request before it announces it, so an answer given at once is taken."""
    assert any(r.id == request_id for r in desktop.host.approvals.open_requests), request_id


def allow_every_approval(desktop: Desktop) -> None:
    """Answer each approval "allow once" through the window, as soon as it is asked."""

    def allow(request_id: str) -> None:
        assert_open(desktop, request_id)
        desktop.window.approvals.allow("once")

    desktop.bridge.approval_requested.connect(lambda event: allow(event.request.id))


@contextlib.asynccontextmanager
async def opened_desktop(
    data_dir: Path,
    replies: list[str] | None = None,
    *,
    settings: Settings | None = None,
    delay_s: float = 0.0,
    wait_servers: bool = True,
    servers: ServersConfig | None = None,
    hub_endpoint: str | None = None,
) -> AsyncIterator[Desktop]:
    """The whole app on a scripted model, started and closed inside one running loop (the servers'
    pipes are serviced only while the loop runs)."""
    backend = ScriptedBackend(replies or [], delay_s=delay_s)
    desktop = Desktop(
        Paths.resolve(None, data_dir),
        settings or Settings(close_to_tray=False),
        # The built-in servers in memory (the tests of the stdio transport keep their processes).
        HostOptions(
            backend=backend,
            servers=servers,
            hub_endpoint=hub_endpoint,
            servers_in_process=builtin_in_process,
        ),
    )
    try:
        await desktop.start()
        if wait_servers:
            await manager(desktop).wait_ready(SERVERS_READY_S)
            assert desktop.host.tools(), "the built-in servers listed no tools"
        yield desktop
    finally:
        await desktop.aclose()
