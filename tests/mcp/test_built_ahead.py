"""In-process servers built before their supervisors start (mcp/built_ahead.py): each object is used
once, by the first start of the same entry; anything else builds afresh."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable

from mcp.server.mcpserver import MCPServer
from mcp_support import running

from edgehost.mcp.built_ahead import BuiltAhead
from edgehost.mcp.client_features import ClientFeatures
from edgehost.mcp.config import ServerConfig
from edgehost.mcp.server_state import ServerStatus
from edgehost.settings import Settings


class _Counting:
    def __init__(self, delay_s: float = 0.0) -> None:
        self.built: list[tuple[str, str]] = []  # (server, thread)
        self.delay_s = delay_s

    def in_process(self, config: ServerConfig) -> Callable[[], MCPServer] | None:
        if config.name.startswith("elsewhere"):
            return None

        def build() -> MCPServer:
            time.sleep(self.delay_s)
            self.built.append((config.name, threading.current_thread().name))
            return MCPServer(config.name)

        return build


def _entry(name: str, *args: str) -> ServerConfig:
    return ServerConfig(name=name, command=sys.executable, args=["-c", "raise SystemExit(3)", *args])


async def test_each_server_built_ahead_is_handed_out_once_then_built_afresh() -> None:
    counting = _Counting()
    ahead = BuiltAhead(counting.in_process)
    await ahead.build([_entry("a"), _entry("b"), _entry("elsewhere")])
    assert counting.built == [("a", "mcp-build-ahead"), ("b", "mcp-build-ahead")]
    build_a = ahead(_entry("a"))
    assert build_a is not None and ahead(_entry("elsewhere")) is None
    first, second = build_a(), build_a()
    assert first is not second
    assert counting.built[-1] == ("a", threading.current_thread().name)  # the second one, built here


async def test_an_entry_changed_after_the_build_is_built_afresh() -> None:
    counting = _Counting()
    ahead = BuiltAhead(counting.in_process)
    await ahead.build([_entry("a")])
    build = ahead(_entry("a", "--root", "/elsewhere"))
    assert build is not None
    build()
    assert len(counting.built) == 2


async def test_a_build_slower_than_the_bound_is_not_waited_for() -> None:
    counting = _Counting(delay_s=1.0)
    ahead = BuiltAhead(counting.in_process)
    started = time.monotonic()
    await ahead.build([_entry("a")], timeout=0.05)
    assert time.monotonic() - started < 0.9
    build = ahead(_entry("a"))
    assert build is not None
    build()  # nothing was ready: built here
    assert ("a", threading.current_thread().name) in counting.built


async def test_the_manager_builds_only_the_servers_it_will_start() -> None:
    counting = _Counting()
    settings = Settings()
    settings.set_server_enabled("off", False)
    async with running(
        _entry("on"),
        _entry("off"),
        settings=settings,
        features=ClientFeatures(in_process=counting.in_process),
    ) as manager:
        assert manager.status("on").status is ServerStatus.READY
        assert manager.status("off").status is ServerStatus.DISABLED
    assert counting.built == [("on", "mcp-build-ahead")]


async def test_a_builder_that_exits_as_argparse_does_is_left_to_its_thread_at_once() -> None:
    """A built-in entry with a mistyped option: argparse raises SystemExit, which ended the building
    thread silently and held the host's start for the whole bound."""

    def exits(config: ServerConfig) -> Callable[[], MCPServer] | None:
        def build() -> MCPServer:
            raise SystemExit(2)

        return build

    ahead = BuiltAhead(exits)
    started = time.monotonic()
    await ahead.build([_entry("a")], timeout=30.0)
    assert time.monotonic() - started < 5.0


async def test_after_the_bound_the_builds_not_begun_are_left_to_their_threads() -> None:
    counting = _Counting(delay_s=0.3)
    ahead = BuiltAhead(counting.in_process)
    await ahead.build([_entry("a"), _entry("b"), _entry("c")], timeout=0.05)
    await asyncio.sleep(1.0)  # the thread ends the build it is in, then stops
    assert [name for name, _thread in counting.built] == ["a"]
