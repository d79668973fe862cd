"""The stdio transport: the SDK's ``stdio_client`` semantics, the server started off the event loop.

The SDK starts the server with ``anyio.open_process`` on the event loop (a vfork/exec that stalled the
GUI 20-30 ms under load) in a session of its own (a scheduling group of its own, competing with the GUI
as an equal). Here the server is started by ``child_processes`` (a spawning thread, below our
priority, its own process group) and its pipes are read and written without blocking through anyio's
``wait_readable``/``wait_writable``, which work on asyncio's loop and on qasync's alike.

Kept from ``stdio_client``: the environment (safe variables plus the server's own), one message per
line with the same parsing (junk lines arrive as exceptions), zero-buffer streams, and the shutdown of
the MCP spec (close stdin, wait, SIGTERM the process group, SIGKILL it) shielded from cancellation with
every wait bounded. Unlike it, a reader that fails ends the connection at once and says why
(``on_failure``), instead of leaving every request to its timeout.
"""

from __future__ import annotations

import codecs
import logging
import os
import subprocess
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any, TextIO

import anyio
import anyio.lowlevel
from mcp.client._transport import TransportStreams
from mcp.client.stdio import (
    FORCE_KILL_TIMEOUT,
    PROCESS_TERMINATION_TIMEOUT,
    StdioServerParameters,
    _parse_line,
    get_default_environment,
)
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

from edgehost.child_processes import start_in_background

__all__ = ["ReaderFailureFnT", "stdio_transport"]

logger = logging.getLogger(__name__)

# Time for the writer to flush accepted messages before stdin closes (as the SDK).
_WRITER_FLUSH_TIMEOUT = 0.5
# Time to see a killed server gone; only an unkillable process runs this out (as the SDK).
_KILL_REAP_TIMEOUT = 2.0
# How often to look whether the server exited while waiting for it (as the SDK).
_EXIT_POLL_INTERVAL = 0.01
_READ_SIZE = 65536

ReaderFailureFnT = Callable[[Exception], None]
"""Called with what stopped the reading of the server's stdout mid-session, before the read stream ends."""


class _Pipe:
    """Our non-blocking end of one of the server's pipes; ``close`` wakes a task waiting on it."""

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self.fd = fd
        self.closed = False

    async def read(self) -> bytes:
        """The next bytes, b"" at end of file. Raises anyio.ClosedResourceError once closed."""
        await anyio.lowlevel.checkpoint()  # one read per pass of the loop, as the SDK's process streams
        while True:
            if self.closed:
                raise anyio.ClosedResourceError
            try:
                return os.read(self.fd, _READ_SIZE)
            except BlockingIOError:
                await anyio.wait_readable(self.fd)

    async def write_all(self, data: bytes) -> None:
        """Raises OSError (BrokenPipeError when the server closed its stdin), anyio.ClosedResourceError."""
        view = memoryview(data)
        while view:
            if self.closed:
                raise anyio.ClosedResourceError
            try:
                view = view[os.write(self.fd, view) :]
            except BlockingIOError:
                await anyio.wait_writable(self.fd)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            anyio.notify_closing(self.fd)
            os.close(self.fd)


class _ProcessView:
    """What the SDK's process-tree termination reads of a process: its pid and returncode."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self.pid = process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.poll()  # reaps the leader, so its group can disappear


@asynccontextmanager
async def stdio_transport(
    server: StdioServerParameters, errlog: TextIO, on_failure: ReaderFailureFnT | None = None
) -> AsyncIterator[TransportStreams]:
    """Start ``server`` and exchange newline-delimited JSON-RPC with it over its stdin/stdout.

    ``errlog`` (a real file) becomes the server's stderr. Should reading its stdout fail (text that
    ``server.encoding_error_handler`` refuses, a broken pipe), ``on_failure`` is told why and the read
    stream ends, so the session fails its requests at once. Raises OSError if the server cannot be
    started, ValueError if its parameters are invalid (embedded NUL bytes).
    """
    process = await start_in_background(
        [server.command, *server.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errlog,
        cwd=server.cwd,
        env=get_default_environment() | (server.env or {}),
        bufsize=0,
    )
    # The server runs; no awaits until the task group is entered, or a cancellation delivered in the
    # gap would leak it.
    connection = _Connection(server, process, on_failure)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(connection.stdout_reader)
            tg.start_soon(connection.stdin_writer)
            try:
                yield connection.read_stream, connection.write_stream
            finally:
                connection.shutting_down = True
                with anyio.CancelScope(shield=True):
                    await connection.shutdown()
                tg.cancel_scope.cancel()
    finally:
        connection.stdin.close()
        connection.stdout.close()


class _Connection:
    """One server process's pipes and the memory streams the session reads and writes."""

    def __init__(
        self,
        server: StdioServerParameters,
        process: subprocess.Popen[bytes],
        on_failure: ReaderFailureFnT | None,
    ) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.server = server
        self.process = process
        self.on_failure = on_failure
        self.stdin = _Pipe(os.dup(process.stdin.fileno()))
        self.stdout = _Pipe(os.dup(process.stdout.fileno()))
        process.stdin.close()
        process.stdout.close()
        self.read_stream_writer, self.read_stream = anyio.create_memory_object_stream[
            SessionMessage | Exception
        ](0)
        self.write_stream, self.write_stream_reader = anyio.create_memory_object_stream[SessionMessage](0)
        self.shutting_down = False
        self.writer_done = anyio.Event()

    async def forward_messages(self) -> None:
        """Send each line of stdout to the session, until end of file or until the session is gone."""
        server = self.server
        decoder = codecs.getincrementaldecoder(server.encoding)(errors=server.encoding_error_handler)
        buffer = ""
        while chunk := await self.stdout.read():
            lines = (buffer + decoder.decode(chunk)).split("\n")
            buffer = lines.pop()
            for line in lines:
                try:
                    await self.read_stream_writer.send(_parse_line(line))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return  # the session is gone; only the drain remains

    async def stdout_reader(self) -> None:
        try:
            # The read stream ends before the drain: the drain lasts as long as the server lives.
            async with self.read_stream_writer:
                try:
                    await self.forward_messages()
                except anyio.ClosedResourceError:
                    pass  # our own shutdown closed stdout under the read
                except Exception as exc:
                    if not self.shutting_down:
                        logger.warning(
                            "Reading from the MCP server's stdout failed mid-session", exc_info=True
                        )
                        if self.on_failure is not None:
                            self.on_failure(exc)
        finally:
            await _drain(self.stdout)

    async def stdin_writer(self) -> None:
        server = self.server
        try:
            async with self.write_stream_reader:
                async for session_message in self.write_stream_reader:
                    json = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await self.stdin.write_all(
                        (json + "\n").encode(server.encoding, errors=server.encoding_error_handler)
                    )
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server may still be alive: end the read side so the session sees the connection
            # end instead of a request hanging forever.
            await self.read_stream_writer.aclose()
        finally:
            self.writer_done.set()

    async def shutdown(self) -> None:
        self.read_stream.close()  # unblocks the reader into its drain, so a server stuck writing can exit
        self.write_stream.close()
        with anyio.move_on_after(_WRITER_FLUSH_TIMEOUT):
            await self.writer_done.wait()
        await _stop_server(self.process, self.stdin)
        self.stdout.close()  # a survivor of the kill may hold stdout open: poison the reader anyway
        for stream in (
            self.read_stream,
            self.write_stream,
            self.read_stream_writer,
            self.write_stream_reader,
        ):
            await stream.aclose()
        await anyio.lowlevel.checkpoint()


async def _drain(stdout: _Pipe) -> None:
    """Discard the server's remaining output (shielded) until end of file or until it is closed."""
    with anyio.CancelScope(shield=True), suppress(anyio.ClosedResourceError, OSError):
        while await stdout.read():
            pass


async def _stop_server(process: subprocess.Popen[bytes], stdin: _Pipe) -> None:
    """Close stdin, wait out the grace period, then terminate the whole process group."""
    stdin.close()
    if await _exited(process, PROCESS_TERMINATION_TIMEOUT):
        return
    view: Any = _ProcessView(process)  # duck-typed: the SDK reads only pid and returncode
    await terminate_posix_process_tree(view, FORCE_KILL_TIMEOUT)
    if not await _exited(process, _KILL_REAP_TIMEOUT):
        logger.warning(
            "MCP server process %d is still alive after the kill escalation; abandoning it", process.pid
        )


async def _exited(process: subprocess.Popen[bytes], seconds: float) -> bool:
    """Whether the process exited (and was reaped) within ``seconds``."""
    with anyio.move_on_after(seconds):
        # Polled, as the SDK does: nothing announces a child's exit without a loop's child watcher.
        while process.poll() is None:  # noqa: ASYNC110
            await anyio.sleep(_EXIT_POLL_INTERVAL)
        return True
    return False
