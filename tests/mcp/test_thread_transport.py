"""A server object run on a thread of its own (mcp/_thread_transport.py): what it keeps from the host's
event loop, which in the app is the window's."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
import threading
import time
from collections.abc import Callable

import pytest
from mcp.server.mcpserver import MCPServer
from mcp_support import running, wait_for

from edgehost.mcp._thread_transport import ThreadTransport
from edgehost.mcp.client_features import ClientFeatures
from edgehost.mcp.config import ServerConfig
from edgehost.mcp.errors import ToolTimeout
from edgehost.mcp.server_state import ServerStatus


def _text(result) -> str:  # type: ignore[no-untyped-def]
    return result.content[0].text


class _Blocking:
    """A server whose ``block`` tool holds its thread: an async handler that makes a blocking call (a
    read from a FIFO, a slow disk) stops its event loop. (The SDK runs sync handlers on worker threads.)"""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()
        self.threads: list[str] = []
        self.builds = 0

    def build(self, config: ServerConfig) -> Callable[[], MCPServer] | None:
        return self._server if config.name == "t" else None

    def _server(self) -> MCPServer:
        self.builds += 1
        self.threads.append(f"built on {threading.current_thread().name}")
        server = MCPServer("t")

        @server.tool()
        async def where() -> str:
            """Name the thread this runs on."""
            self.threads.append(threading.current_thread().name)
            return threading.current_thread().name

        @server.tool()
        async def nice() -> str:
            """The nice value of the thread this runs on."""
            return str(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

        @server.tool()
        async def block() -> str:
            """Hold the server's thread until released."""
            self.entered.set()
            self.release.wait(60)
            return "released"

        @server.tool()
        async def fail() -> str:
            """Raise."""
            raise RuntimeError("the handler broke")

        return server


def _entry(**kwargs: object) -> ServerConfig:
    # A command that would fail at once: the server object is built in this process instead.
    return ServerConfig(name="t", command=sys.executable, args=["-c", "raise SystemExit(3)"], **kwargs)  # type: ignore[arg-type]


async def test_a_built_server_answers_from_a_thread_of_its_own() -> None:
    servers = _Blocking()
    async with running(_entry(), features=ClientFeatures(in_process=servers.build)) as manager:
        assert manager.status("t").status is ServerStatus.READY, manager.status("t").error
        name = _text(await manager.call_tool("t__where", {}))
    assert name == "mcp-server t" and name != threading.current_thread().name


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a nice value per thread is Linux's")
async def test_the_servers_thread_runs_at_the_host_threads_priority_as_they_share_the_gil() -> None:
    # Below the host's thread, it would hold the GIL while the kernel ran other processes before it,
    # and the host's thread would wait for it (mcp/_thread_transport.py).
    servers = _Blocking()
    ours = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    if ours >= 19:
        pytest.skip("this process runs at the lowest priority: a lowered thread could not show it")
    async with running(_entry(), features=ClientFeatures(in_process=servers.build)) as manager:
        theirs = int(_text(await manager.call_tool("t__nice", {})))
    assert theirs == ours
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == ours  # ours is left as it was


async def test_a_handler_that_blocks_holds_its_thread_not_the_host_loop_and_times_out() -> None:
    servers = _Blocking()
    async with running(_entry(timeout=1.0), features=ClientFeatures(in_process=servers.build)) as manager:
        call = asyncio.create_task(manager.call_tool("t__block", {}))
        await asyncio.to_thread(servers.entered.wait, 10)
        # The host's loop keeps turning while the server's thread is held: 20 ticks of 10 ms.
        started = time.monotonic()
        for _ in range(20):
            await asyncio.sleep(0.01)
        assert time.monotonic() - started < 0.9  # well before the call's own 1 s timeout
        with pytest.raises(ToolTimeout):
            await call
        servers.release.set()
        # Once its thread is free again the server answers the next call.
        assert _text(await manager.call_tool("t__where", {})) == "mcp-server t"


async def test_a_handler_that_raises_is_the_tools_error_and_the_server_stays() -> None:
    servers = _Blocking()
    async with running(_entry(), features=ClientFeatures(in_process=servers.build)) as manager:
        result = await manager.call_tool("t__fail", {})
        assert result.is_error and _text(result) == "Error executing tool fail"  # the SDK hides the exception
        assert manager.status("t").status is ServerStatus.READY
        assert _text(await manager.call_tool("t__where", {})) == "mcp-server t"


async def test_a_server_held_at_closing_is_left_to_its_thread_and_the_host_closes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    servers = _Blocking()
    caplog.set_level(logging.WARNING, logger="edgehost.mcp._thread_transport")
    started = time.monotonic()
    try:
        async with running(
            _entry(timeout=30.0), features=ClientFeatures(in_process=servers.build)
        ) as manager:
            call = asyncio.create_task(manager.call_tool("t__block", {}))
            await asyncio.to_thread(servers.entered.wait, 10)
        call.cancel()
        closed_in = time.monotonic() - started
    finally:
        servers.release.set()
    assert closed_in < 20  # two grace periods of 2 s and the manager's own, not the call's 30 s
    assert "built-in server t does not end" in caplog.text


async def test_the_first_start_uses_the_server_built_ahead_and_a_restart_builds_afresh_on_its_thread() -> (
    None
):
    servers = _Blocking()
    async with running(_entry(), features=ClientFeatures(in_process=servers.build)) as manager:
        await manager.call_tool("t__where", {})
        manager.restart("t")
        await wait_for(
            manager, lambda: manager.status("t").status is ServerStatus.READY and servers.builds == 2
        )
        await manager.call_tool("t__where", {})
    assert servers.builds == 2
    assert servers.threads == [
        "built on mcp-build-ahead",  # before the supervisors started (mcp/built_ahead.py)
        "mcp-server t",
        "built on mcp-server t",
        "mcp-server t",
    ]


async def test_what_the_server_logs_on_its_thread_reaches_its_log_tab() -> None:
    servers = _Blocking()
    async with running(_entry(), features=ClientFeatures(in_process=servers.build)) as manager:
        await manager.call_tool("t__fail", {})  # the SDK logs the exception at ERROR
        await wait_for(
            manager, lambda: any("Tool 'fail' raised" in line for line in manager.stderr_tail("t"))
        )


async def test_a_server_that_cannot_be_built_is_failed_with_why() -> None:
    def broken(config: ServerConfig) -> Callable[[], MCPServer] | None:
        def build() -> MCPServer:
            raise ValueError("--root: no such folder /nowhere")

        return build

    async with running(_entry(), features=ClientFeatures(in_process=broken), auto_restart=False) as manager:
        state = manager.status("t")
    assert state.status is ServerStatus.FAILED
    assert "ValueError: --root: no such folder /nowhere" in (state.error or "")


async def test_a_start_the_host_gives_up_on_ends_the_servers_thread_and_leaves_no_stream_open() -> None:
    # The host gave up waiting (its start timed out, or it closed) while the server was being built: the
    # server, once built, had no one to serve and its thread waited forever; the stream out of it
    # was left open, and a later garbage collection warned of it in whatever test ran then.
    building, release = threading.Event(), threading.Event()

    def slow() -> MCPServer:
        building.set()
        release.wait(30)
        return MCPServer("slow")

    transport = ThreadTransport(slow, name="slow")
    start = asyncio.create_task(transport.__aenter__())
    await asyncio.to_thread(building.wait, 10)
    start.cancel()
    with pytest.raises(asyncio.CancelledError):
        await start
    release.set()
    for _ in range(500):  # the thread ends within a few loop turns; bounded at 5 s
        if not any(t.name == "mcp-server slow" for t in threading.enumerate()):
            break
        await asyncio.sleep(0.01)
    assert not any(t.name == "mcp-server slow" for t in threading.enumerate())
    del start, transport
    gc.collect()  # an unclosed stream would warn here (the suite turns that warning into a failure)
