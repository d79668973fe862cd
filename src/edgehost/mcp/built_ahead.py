"""The in-process servers' objects built before their supervisors start, while the window is idle.

Building a built-in server is Python work that uses the CPU: a pydantic model and a JSON schema per
tool, ~35 ms per server. On the server's thread it ran while the first answer streamed, and each time
the window's thread went back into Python (a paint, a resize, a size hint) it waited up to a switch
interval for the GIL the builder held: stalls of 30-45 ms where the servers as processes gave 10-16
(bench/ui_stall.py, "answer while servers start"). Built here, before the host can take a question,
the work runs while the window has nothing to draw; the server's thread then only serves.

What is built ahead is used once, by the first connection of a server whose entry is still the same;
a restart, or an entry changed meanwhile, builds afresh on the server's thread as before. A build that
fails here is left to the server's thread, which fails the same way and reports it as its start.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from edgehost.awaiting import WaitTimedOut, wait_done
from edgehost.mcp._thread_transport import BUILD_LOCK

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from edgehost.mcp.client_features import InProcessFnT
    from edgehost.mcp.config import ServerConfig

__all__ = ["BUILD_AHEAD_S", "BuiltAhead"]

log = logging.getLogger(__name__)

BUILD_AHEAD_S = 10.0  # a build that takes longer (a slow disk) is not waited for: its thread builds it


class BuiltAhead:
    """An ``in_process`` function (``InProcessFnT``) whose builders hand out the objects ``build``
    made ahead, once each, and build afresh after that."""

    def __init__(self, in_process: InProcessFnT) -> None:
        self._in_process = in_process
        self._ready: dict[str, tuple[ServerConfig, Any]] = {}

    async def build(self, configs: Sequence[ServerConfig], timeout: float = BUILD_AHEAD_S) -> None:  # noqa: ASYNC109 - bounded
        """Build the servers of ``configs`` that run in this process, on a thread at the window's
        priority (a thread below it would hold the GIL while descheduled: see child_processes.py),
        waiting at most ``timeout`` s; those built by then are kept for their first start."""
        builders = [(config, build) for config in configs if (build := self._in_process(config)) is not None]
        if not builders:
            return
        loop = asyncio.get_running_loop()
        built: asyncio.Future[dict[str, tuple[ServerConfig, Any]]] = loop.create_future()

        def deliver(result: dict[str, tuple[ServerConfig, Any]]) -> None:
            if not built.done():
                built.set_result(result)

        given_up = threading.Event()

        def run() -> None:
            result: dict[str, tuple[ServerConfig, Any]] = {}
            for config, build in builders:
                if given_up.is_set():  # each server's own thread builds it now: not twice at once
                    break
                try:
                    with BUILD_LOCK:
                        result[config.name] = (config, build())
                # BaseException: a built-in reads its arguments with argparse, whose SystemExit would end
                # this thread silently and leave the host waiting for the whole bound.
                except BaseException:  # noqa: BLE001 - its own thread builds it again and reports the error
                    log.debug("building %s ahead failed; its thread will try", config.name, exc_info=True)
            try:
                loop.call_soon_threadsafe(deliver, result)
            except RuntimeError:  # the loop closed meanwhile: nobody waits for them
                pass

        threading.Thread(target=run, name="mcp-build-ahead", daemon=True).start()
        try:
            ready = await wait_done(built, timeout)
            self._ready.update(ready)
        except WaitTimedOut:
            log.warning(
                "building the in-process servers took over %g s; each builds on its own thread", timeout
            )
        finally:  # done, past the bound or cancelled: a thread still building stops before the next one
            given_up.set()

    def __call__(self, config: ServerConfig) -> Callable[[], MCPServer] | None:
        build = self._in_process(config)
        if build is None:
            return None
        name = config.name

        def first_built_ahead() -> MCPServer:
            ahead = self._ready.pop(name, None)
            if ahead is not None and ahead[0] == config:
                return ahead[1]
            return build()

        return first_built_ahead
