"""Capture of a stdio server's stderr into a ring of its last lines.

The stdio transport hands ``errlog`` to the child as its stderr, so it must be a real file
descriptor: we give it the write end of a pipe and read the other end in a small thread. A thread (not
the event loop) because the host runs on asyncio and on qasync alike, and a pipe reader there needs no
loop support at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import threading
from collections import deque
from collections.abc import Callable
from typing import TextIO, cast

import anyio

from edgehost.redaction import redactor

__all__ = ["LineRing", "StderrPipe", "ThrottledCall"]

# A server that writes megabytes of one line must not fill our memory.
_MAX_LINE_CHARS = 2000
# How often the reader thread checks whether it was asked to stop.
_POLL_INTERVAL_S = 0.2


class ThrottledCall:
    """Call ``function`` on ``loop`` after something happened (on any thread), at most once every
    ``interval_s`` seconds, and always after the last time; nothing while ``loop`` is None."""

    def __init__(self, function: Callable[[], None], interval_s: float) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._function = function
        self._interval_s = interval_s
        self._pending = False
        self._last = 0.0

    def __call__(self) -> None:
        loop = self.loop
        if loop is None or self._pending:
            return
        self._pending = True
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is listening
            loop.call_soon_threadsafe(self._schedule, loop)

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.call_later(max(0.0, self._last + self._interval_s - loop.time()), self._call, loop)

    def _call(self, loop: asyncio.AbstractEventLoop) -> None:
        self._pending = False
        self._last = loop.time()
        self._function()


class LineRing:
    """The last ``size`` lines written by a server, with its secrets redacted.

    Appended to by the stderr reader thread and read by the event loop, hence the lock (copying a
    deque while another thread appends to it raises).
    """

    def __init__(
        self,
        size: int = 200,
        *,
        secrets: set[str] | None = None,
        on_append: Callable[[], None] | None = None,
    ) -> None:
        """``on_append`` is called after every line, on whichever thread appended it."""
        self._lines: deque[str] = deque(maxlen=size)
        self._redact = redactor(secrets or ())
        self._lock = threading.Lock()
        self._on_append = on_append

    def append(self, line: str) -> None:
        line = self._redact(line)
        if len(line) > _MAX_LINE_CHARS:
            line = line[:_MAX_LINE_CHARS] + f"... ({len(line) - _MAX_LINE_CHARS} more characters)"
        with self._lock:
            self._lines.append(line)
        if self._on_append is not None:
            self._on_append()

    def tail(self, count: int | None = None) -> tuple[str, ...]:
        with self._lock:
            lines = tuple(self._lines)
        return lines if count is None else lines[-count:]


class StderrPipe:
    """A pipe whose write end becomes a child's stderr; a thread copies its lines into ``ring``.

    Use: ``errlog = pipe.open()`` before spawning, ``pipe.close_writer()`` once the child has it,
    ``await pipe.drained(timeout)`` to let the last lines arrive after the child exits, ``pipe.stop()``.
    """

    def __init__(self, ring: LineRing) -> None:
        self.ring = ring
        self._writer: TextIO | None = None
        self._read_fd: int | None = None
        self._finished = threading.Event()
        self._stop = threading.Event()

    def open(self) -> TextIO:
        read_fd, write_fd = os.pipe()
        self._read_fd = read_fd
        self._writer = cast(TextIO, os.fdopen(write_fd, "w"))
        thread = threading.Thread(target=self._pump, args=(read_fd,), name="mcp-stderr", daemon=True)
        thread.start()
        return self._writer

    def close_writer(self) -> None:
        """Drop our copy of the write end, so end-of-file arrives when the child exits."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    async def drained(self, seconds: float) -> None:
        """Wait (at most ``seconds``) until the child's stderr reached end-of-file and was read."""
        if self._read_fd is None:  # never opened: not a stdio server
            return
        # Polled: the end is seen by a plain thread, which cannot set an event of whichever loop runs us.
        with anyio.move_on_after(seconds):
            while not self._finished.is_set():  # noqa: ASYNC110
                await anyio.sleep(0.01)

    def stop(self) -> None:
        self.close_writer()
        self._stop.set()

    def _pump(self, fd: int) -> None:
        pending = b""
        selector = selectors.DefaultSelector()  # epoll/kqueue: no FD_SETSIZE limit as select() has
        selector.register(fd, selectors.EVENT_READ)
        try:
            while not self._stop.is_set():
                if not selector.select(_POLL_INTERVAL_S):
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    self.ring.append(line.decode("utf-8", "replace").rstrip("\r"))
                if len(pending) > _MAX_LINE_CHARS * 4:
                    self.ring.append(pending.decode("utf-8", "replace"))
                    pending = b""
            if pending:
                self.ring.append(pending.decode("utf-8", "replace"))
        finally:
            selector.close()
            os.close(fd)
            self._finished.set()
