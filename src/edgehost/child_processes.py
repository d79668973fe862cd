"""Child processes (MCP stdio servers, the model worker) started off the event loop, below the GUI.

Starting a process costs the calling thread a vfork/exec and, under load, 20-30 ms: done on the event
loop that is a stalled frame. And a child that competes with the GUI as an equal takes half the CPU
from it on a 2-core board. So every child is started by one dedicated thread whose nice value is
``BACKGROUND_NICE_STEP`` above ours: on Linux the nice value belongs to the thread, and a child inherits
the nice value of the thread that forks it, so the child runs below the GUI from its first instruction
(no window in which it could start grandchildren at our priority), and whatever they start does too.

Each child gets a process group of its own (its kill scope: the whole tree is signalled at once), not a
session of its own: with autogroup scheduling (``/proc/sys/kernel/sched_autogroup_enabled``, on by
default) a new session is a new scheduling group that competes with ours as an equal whatever its nice
value, and lowering a group's weight (``/proc/<pid>/autogroup``) is limited to once per 100 ms for an
unprivileged user. Sharing our session keeps the children in our group, where nice counts; Ctrl-C in a
terminal still reaches only the host (the terminal signals its foreground process group).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

__all__ = [
    "BACKGROUND_NICE_STEP",
    "lower_this_thread",
    "python_module_command",
    "spawn_below",
    "spawn_in_background",
    "start_in_background",
]

# Nice 10 weighs 110 against the GUI's 1024: a busy child leaves the GUI ~90 % of a contended core,
# while an idle system still gives the child all it asks for.
BACKGROUND_NICE_STEP = 10
_MAX_NICE = 19

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def lower_this_thread() -> None:
    """The calling thread's nice value goes BACKGROUND_NICE_STEP up, for good (Linux; a no-op
    elsewhere). Run first in the spawning thread, so every child starts below the GUI.

    Not for a thread that runs Python in our process (a built-in server's, mcp/_thread_transport.py):
    it shares the GIL with the GUI thread, and below the GUI it would hold the GIL while the kernel ran
    the model worker and starting servers before it, the window waiting meanwhile. Under a busy
    process beside the app, the window's worst stall was 21.2 ms (median of 8 turns) with such
    threads at the GUI's priority against 25.5 ms below it (bench/ui_stall.py, stop 46)."""
    if not sys.platform.startswith("linux"):
        return  # elsewhere nice is per process: children are reniced after the start instead
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):
        current = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, min(_MAX_NICE, current + BACKGROUND_NICE_STEP))


def _spawner() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="edgehost-spawn", initializer=lower_this_thread
            )
        return _executor


def spawn_in_background(command: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(command, **popen_kwargs)`` in a process group of its own, below our priority.

    Blocking: call it from a thread (``start_in_background`` does). Raises what Popen raises
    (OSError when the program cannot be started, ValueError for bad arguments).
    """
    if sys.version_info >= (3, 11):
        popen_kwargs["process_group"] = 0
    else:  # pragma: no cover - Python 3.10 has no process_group (setpgrp is async-signal-safe)
        popen_kwargs["preexec_fn"] = os.setpgrp
    process = subprocess.Popen(list(command), **popen_kwargs)
    if not sys.platform.startswith("linux"):  # pragma: no cover
        with contextlib.suppress(OSError):
            current = os.getpriority(os.PRIO_PROCESS, process.pid)
            os.setpriority(os.PRIO_PROCESS, process.pid, min(_MAX_NICE, current + BACKGROUND_NICE_STEP))
    return process


def spawn_below(command: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[bytes]:
    """``spawn_in_background`` on the spawning thread, waited for here: for a caller that is itself a
    worker thread (never the event loop). Raises what Popen raises."""
    return _spawner().submit(spawn_in_background, command, **popen_kwargs).result()


def python_module_command(module: str, frozen_command: str, *args: str) -> list[str]:
    """The command that runs ``python -m module args``; in a frozen (PyInstaller) build, where
    ``sys.executable`` is edgehost itself, ``edgehost frozen_command args`` (routed in packaging/entry.py)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, frozen_command, *args]
    return [sys.executable, "-m", module, *args]


async def start_in_background(command: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[bytes]:
    """``spawn_in_background`` on the spawning thread, without blocking the event loop.

    Cancelled while the process starts, it waits for the fork/exec in flight (milliseconds), kills the
    process as soon as it exists, and then raises CancelledError: the caller's clean-up, which closes
    what it handed to the child (``pass_fds``, a ``stderr`` file), must not run while Popen still uses
    those descriptors. Closed mid-spawn, a number can be taken by Popen's own exec-status pipe and given
    to the child; the spawning thread then reads that pipe for as long as the child lives, and every
    later start queues behind it. Raises what Popen raises.
    """
    spawning = _spawner().submit(spawn_in_background, command, **popen_kwargs)
    future = asyncio.wrap_future(spawning)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        if not spawning.cancel():  # not still queued: it runs or ran, and owns the descriptors until done
            await _settled(future)
            _discard(future)
        raise


async def _settled(future: asyncio.Future[Any]) -> None:
    """Wait until ``future`` is done, through further cancellations (anyio repeats one until it lands)."""
    while not future.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait([future])


def _discard(future: asyncio.Future[subprocess.Popen[bytes]]) -> None:
    """A process started for a caller that was cancelled meanwhile: kill its group and reap it."""
    if future.cancelled() or future.exception() is not None:
        return
    process = future.result()
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    reaped: Future[Any] = _spawner().submit(_reap, process)
    del reaped


def _reap(process: subprocess.Popen[bytes]) -> None:
    process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()
