"""A server object run on a thread of its own, with its own event loop, connected to the host's loop.

EdgeHost's built-in servers are ours and pure Python: as processes they cost a Python interpreter and
the SDK each (about 70 MB apiece at idle, issue 35). Here they share the host's process but not its
event loop, so the window is kept from what a process kept it from, and loses only what it has to:

- an exception in a handler is the tool's error, as anywhere (the SDK's server turns it into one);
- a server that fails or returns ends its connection: the supervisor sees the end and restarts it;
- a handler that blocks (a read from a FIFO, a slow disk, a loop) blocks its own thread, not the
  window: the host's call times out as it would with a process, and a thread that does not end when
  its connection closes is abandoned (a daemon thread: it ends with the app) and logged;
- what is not kept: a crash of the interpreter itself (a C extension's segfault, ``os._exit``) takes
  the app with it. The built-in servers call nothing that does; a server the user configures runs
  as a process, as configured.

What the server logs on its thread goes to its Log tab (the ring a process's stderr would fill) as
well as to the app's log. Messages cross between the two loops as objects (no JSON): each is sent onto
the other side's memory stream by a call made on that side's loop (``_on``), one at a time, so
back-pressure holds both ways.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage

__all__ = ["BUILD_LOCK", "SHUTDOWN_GRACE_S", "ServerBuilder", "ThreadTransport"]

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_S = 2.0  # for the server to end after its input closed, as the SDK's InMemoryTransport
_BUFFER = 32  # messages in flight each way before the sender waits

_Item = SessionMessage | Exception
# One server is built at a time: two threads building at once (a pydantic model per tool) took the GIL
# from the window's thread in turns for ~30 ms; one alone hands it back every switch interval.
BUILD_LOCK = threading.Lock()


def _lowlevel(server: Server[Any] | MCPServer) -> Server[Any]:
    # As the SDK's InMemoryTransport does: MCPServer keeps the server that runs it as _lowlevel_server.
    return server._lowlevel_server if isinstance(server, MCPServer) else server  # noqa: SLF001


ServerBuilder = Callable[[], "Server[Any] | MCPServer"]


async def _on(
    loop: asyncio.AbstractEventLoop, send: Callable[[Any], Coroutine[Any, Any, None]], item: Any
) -> None:
    """``await send(item)`` on the other thread's ``loop``, waited for here. The coroutine is made
    there, so a loop that closes before it runs leaves none behind un-awaited."""
    done: concurrent.futures.Future[None] = concurrent.futures.Future()

    def start() -> None:
        if not done.set_running_or_notify_cancel():  # the waiter gave up meanwhile
            return
        task: asyncio.Task[None] = loop.create_task(send(item))

        def copy(finished: asyncio.Task[None]) -> None:
            if finished.cancelled():
                done.set_exception(anyio.BrokenResourceError())
            elif (error := finished.exception()) is not None:
                done.set_exception(error)
            else:
                done.set_result(None)

        task.add_done_callback(copy)

    try:
        loop.call_soon_threadsafe(start)
    except RuntimeError:  # that loop is closed: the other side is gone
        raise anyio.BrokenResourceError from None
    await asyncio.wrap_future(done)


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Any, *args: Any) -> None:
    with suppress(RuntimeError):  # that loop is closed: nothing is left there to tell
        loop.call_soon_threadsafe(callback, *args)


class _ThreadLog(logging.Handler):
    """The records logged on one thread, as lines, to ``write`` (the server's Log tab)."""

    def __init__(self, thread: threading.Thread, write: Callable[[str], None]) -> None:
        super().__init__()
        self._thread = thread
        self._write = write
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self._thread.ident:
            self._write(self.format(record))


class _ServerThread:
    """The server's side: its thread, its loop, and the streams it reads and writes there."""

    def __init__(
        self,
        build: ServerBuilder,
        name: str,
        host_loop: asyncio.AbstractEventLoop,
        log_line: Callable[[str], None] | None,
    ) -> None:
        self._build = build
        self._log_line = log_line
        self._host_loop = host_loop
        self.to_host: MemoryObjectSendStream[_Item]
        self.from_server: MemoryObjectReceiveStream[_Item]
        self.to_host, self.from_server = anyio.create_memory_object_stream[_Item](_BUFFER)
        # Set on the host's loop: (the server's loop, the stream into the server) once it runs.
        self.started: asyncio.Future[tuple[asyncio.AbstractEventLoop, MemoryObjectSendStream[_Item]]]
        self.started = host_loop.create_future()
        self.ended: asyncio.Future[None] = host_loop.create_future()
        self._main: asyncio.Task[None] | None = None
        self._error = "no error"
        self._loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, name=f"mcp-server {name}", daemon=True)

    def _run(self) -> None:
        # At the GUI thread's priority, not below it as a server's process is: the two share the GIL,
        # and a thread below the GUI that holds it while the kernel runs other processes (the model
        # worker, servers starting) keeps the window waiting for the GIL (see child_processes.py).
        handler = _ThreadLog(self.thread, self._log_line) if self._log_line is not None else None
        if handler is not None:
            logging.getLogger().addHandler(handler)
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # noqa: BLE001 - the server's own failure ends its connection, nothing more
            log.exception("built-in server thread %s failed", self.thread.name)
            self._error = f"{type(exc).__name__}: {exc}"
        finally:
            if handler is not None:
                logging.getLogger().removeHandler(handler)
            try:
                self._host_loop.call_soon_threadsafe(self._finish)
            except RuntimeError:  # the host's loop is closed (a thread abandoned at closing ends later)
                self.to_host.close()

    def _finish(self) -> None:  # on the host's loop
        self.to_host.close()
        if not self.started.done():
            self.started.set_exception(RuntimeError(f"the server ended before it started ({self._error})"))
        if not self.ended.done():
            self.ended.set_result(None)

    def _announce(self, value: tuple[asyncio.AbstractEventLoop, MemoryObjectSendStream[_Item]]) -> None:
        if self.started.done():  # the host gave up waiting: no one will write to this server, end it
            self.cancel()
            return
        self.started.set_result(value)

    async def _serve(self) -> None:
        with BUILD_LOCK:  # here, not on the host's loop: its imports and tool schemas hold this thread only
            server = _lowlevel(self._build())
        self._loop = asyncio.get_running_loop()
        self._main = asyncio.current_task()
        into_server, server_read = anyio.create_memory_object_stream[SessionMessage | Exception](_BUFFER)
        server_write, out_of_server = anyio.create_memory_object_stream[SessionMessage](_BUFFER)
        _call_soon(self._host_loop, self._announce, (self._loop, into_server))
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._forward_to_host, out_of_server)
            try:
                await server.run(
                    server_read,
                    server_write,
                    server.create_initialization_options(),
                    raise_exceptions=False,
                )
            finally:
                await server_write.aclose()
                into_server.close()

    async def _forward_to_host(self, out_of_server: MemoryObjectReceiveStream[SessionMessage]) -> None:
        with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            async with out_of_server:
                async for message in out_of_server:
                    await _on(self._host_loop, self.to_host.send, message)

    def close_host_side(self) -> None:
        """The host is done with this server: both ends of the stream out of it are closed here, on the
        host's loop where it is written. A server thread that ends after the host's loop has stopped
        schedules ``_finish`` on a loop that never runs it again, and the stream was left open."""
        self.from_server.close()
        self.to_host.close()  # the server's last messages, if any, are dropped (_forward_to_host)

    def cancel(self) -> None:
        """Cancel the server's main task from the host's thread (when it did not end on its own)."""
        if self._loop is not None and self._main is not None:
            _call_soon(self._loop, self._main.cancel)


class ThreadTransport:
    """The SDK transport to a server built and run on a thread of its own (see the module's docstring)."""

    def __init__(
        self, build: ServerBuilder, *, name: str = "server", log_line: Callable[[str], None] | None = None
    ) -> None:
        """``build()`` makes the server, on its thread; ``log_line`` is given each line the server logs
        on its thread (from that thread)."""
        self._build = build
        self._name = name
        self._log_line = log_line

    @asynccontextmanager
    async def connect(
        self,
    ) -> AsyncIterator[tuple[MemoryObjectReceiveStream[_Item], MemoryObjectSendStream[SessionMessage]]]:
        side = _ServerThread(self._build, self._name, asyncio.get_running_loop(), self._log_line)
        client_write, from_client = anyio.create_memory_object_stream[SessionMessage](_BUFFER)
        side.thread.start()
        try:
            server_loop, into_server = await side.started
        except BaseException:  # it could not be built, or the host gave up waiting
            side.close_host_side()
            for stream in (client_write, from_client):
                stream.close()
            raise
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._forward_to_server, from_client, server_loop, into_server)
            try:
                yield side.from_server, client_write
            finally:
                await client_write.aclose()  # the server reads the end of its input and returns
                with anyio.move_on_after(SHUTDOWN_GRACE_S):
                    await asyncio.shield(side.ended)
                if not side.ended.done():
                    side.cancel()
                    with anyio.move_on_after(SHUTDOWN_GRACE_S):
                        await asyncio.shield(side.ended)
                if not side.ended.done():
                    log.warning(
                        "built-in server %s does not end (its thread is busy); left to end with the app",
                        self._name,
                    )
                side.close_host_side()
                tasks.cancel_scope.cancel()

    @staticmethod
    async def _forward_to_server(
        from_client: MemoryObjectReceiveStream[SessionMessage],
        server_loop: asyncio.AbstractEventLoop,
        into_server: MemoryObjectSendStream[SessionMessage | Exception],
    ) -> None:
        try:
            with suppress(
                anyio.BrokenResourceError, anyio.ClosedResourceError, concurrent.futures.CancelledError
            ):
                async with from_client:
                    async for message in from_client:
                        await _on(server_loop, into_server.send, message)
        finally:
            _call_soon(server_loop, into_server.close)

    async def __aenter__(self) -> Any:
        self._cm = self.connect()
        return await self._cm.__aenter__()

    async def __aexit__(self, *exc_info: Any) -> None:
        await self._cm.__aexit__(*exc_info)
