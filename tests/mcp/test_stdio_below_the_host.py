"""Stdio servers run below the host's priority, in a process group of their own inside the host's
session (so that autogroup scheduling weighs them against the GUI by their nice value), and the
transport keeps the SDK's stdio semantics (the supervisor tests run through it too)."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_support import HOSTILE, hostile, running

from edgehost import child_processes
from edgehost.child_processes import BACKGROUND_NICE_STEP, start_in_background
from edgehost.mcp.config import ServerConfig
from edgehost.slow_machine import scaled_wait

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="nice is per thread on Linux")
WAIT_S = scaled_wait(10.0)


def _stat(pid: int) -> tuple[int, int, int, int]:
    """(parent pid, process group, session, nice) of ``pid`` from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[1]), int(fields[2]), int(fields[3]), int(fields[16])


def _children(pid: int, marker: str) -> list[int]:
    """Live processes whose parent is ``pid`` and whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if _stat(int(entry.name))[0] != pid:
                continue
            if marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                found.append(int(entry.name))
        except (OSError, ValueError):
            continue  # exited meanwhile
    return found


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def _below_us() -> int:
    return min(19, os.getpriority(os.PRIO_PROCESS, 0) + BACKGROUND_NICE_STEP)


async def test_a_stdio_server_runs_below_the_host_in_its_own_group_of_the_hosts_session() -> None:
    loop_thread_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    async with running(hostile("low")) as manager:
        (server,) = _children(os.getpid(), str(HOSTILE))
        _parent, group, session, nice = _stat(server)
        assert nice == _below_us() > loop_thread_nice
        assert group == server  # its own kill scope
        assert session == os.getsid(0)  # not a session (and autogroup) of its own
        assert _text(await manager.call_tool("low__echo", {"text": "hi"})) == "hi"
    # Starting it did not lower the thread that runs the event loop.
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == loop_thread_nice


async def test_what_a_server_starts_runs_below_the_host_too() -> None:
    shell = ServerConfig(name="wrapped", command="/bin/sh", args=["-c", f'"{sys.executable}" "{HOSTILE}"'])
    async with running(shell) as manager:
        (wrapper,) = _children(os.getpid(), "/bin/sh")
        (server,) = _children(wrapper, str(HOSTILE))
        assert _stat(server)[3] == _stat(wrapper)[3] == _below_us()
        assert _stat(server)[1] == wrapper  # in the group that is killed as a whole
        assert _text(await manager.call_tool("wrapped__echo", {"text": "hi"})) == "hi"


async def test_a_process_whose_start_was_cancelled_is_killed() -> None:
    marker = "edgehost-cancelled-start-test"
    command = [sys.executable, "-c", "import time; time.sleep(60)", marker]
    task = asyncio.ensure_future(start_in_background(command))
    await asyncio.sleep(0)  # the start is under way on the spawning thread
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with anyio.fail_after(WAIT_S):
        while _children(os.getpid(), marker):  # noqa: ASYNC110 - nothing announces another's exit
            await anyio.sleep(0.05)


async def test_a_start_cancelled_mid_spawn_returns_only_once_the_spawn_is_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The caller closes what it handed to the child (pass_fds, stderr) as the cancellation reaches it:
    that must not happen while Popen, on the spawning thread, still uses those descriptors."""
    marker = "edgehost-cancelled-mid-spawn-test"
    spawning, spawned = threading.Event(), threading.Event()
    spawn = child_processes.spawn_in_background

    def slow_spawn(command: list[str], **kwargs: Any) -> Any:
        spawning.set()
        time.sleep(0.3)  # a fork/exec on a loaded board
        try:
            return spawn(command, **kwargs)
        finally:
            spawned.set()

    monkeypatch.setattr(child_processes, "spawn_in_background", slow_spawn)
    read_fd, write_fd = os.pipe()
    try:
        command = [sys.executable, "-c", "import time; time.sleep(60)", marker]
        task = asyncio.ensure_future(start_in_background(command, pass_fds=(read_fd,)))
        assert await asyncio.to_thread(spawning.wait, WAIT_S)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert spawned.is_set()  # the spawn was over before the cancellation came back
    finally:
        os.close(read_fd)
        os.close(write_fd)
    with anyio.fail_after(WAIT_S):
        while _children(os.getpid(), marker):  # noqa: ASYNC110 - killed once it existed
            await anyio.sleep(0.05)


async def test_a_program_that_does_not_exist_fails_the_start_with_oserror() -> None:
    with pytest.raises(OSError):
        await start_in_background(["/nonexistent/edgehost-test-program"])
