"""Serving the web face on the running event loop, beside the Host (one process, one data folder)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn

from edgehost.web.addresses import lan_address
from edgehost.web.app import create_app
from edgehost.web.auth import Access, MachineNames, load_or_create_token
from edgehost.web.view_sandbox import ByPort, SandboxApp

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["WebServer", "access_for", "serving"]

log = logging.getLogger(__name__)
START_S = 30.0


@dataclass(frozen=True)
class WebServer:
    url: str  # where the page is, with the token in its link
    port: int
    token: str
    token_created: bool
    sandbox_port: int = 0  # the second origin where the views of MCP Apps are framed


def access_for(bind: str, port: int, token_file: Path) -> tuple[Access, bool]:
    """(the checks for a server listening on ``bind``:``port``, whether the token was made now). The
    token is read from ``token_file``, or made and written there. Raises OSError when it cannot be."""
    token, created = load_or_create_token(token_file)
    return Access(token, MachineNames(bind, port)), created


class _Server(uvicorn.Server):
    """uvicorn's server without its own Ctrl-C handling: the command (or the window) owns signals and
    stops it by leaving `serving`."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.asynccontextmanager
async def serving(host: Host, bind: str, port: int, token_file: Path) -> AsyncIterator[WebServer]:
    """Serve ``host`` (started) on ``bind``:``port`` (0: any free port) while the block runs.
    Raises OSError when the port cannot be had."""
    # Bound here, not by uvicorn: a port in use is then an OSError to report, not uvicorn's exit; and
    # the port is known before the app, whose Host check needs it.
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    try:
        listening = socket.create_server((bind, port), family=family)
    except OSError as exc:
        raise OSError(f"the web server could not listen on {bind}:{port}: {exc.strerror or exc}") from None
    bound = listening.getsockname()[1]
    try:
        # The views' sandbox: any free port of the same address, so another origin (view_sandbox.py).
        sandbox = socket.create_server((bind, 0), family=family)
    except OSError as exc:
        listening.close()
        raise OSError(
            f"the web server could not open a port for views on {bind}: {exc.strerror or exc}"
        ) from None
    sandbox_port = sandbox.getsockname()[1]
    try:
        access, created = access_for(bind, bound, token_file)
        config = uvicorn.Config(
            ByPort(
                create_app(host, access, sandbox_port=sandbox_port),
                SandboxApp(MachineNames(bind, sandbox_port), bound),
                sandbox_port,
            ),
            host=bind,
            port=bound,
            # uvicorn's own logging set-up (dictConfig) would close every handler of the process: the
            # log file's, and those of the built-in servers' threads, one of which may be half-made on
            # its thread at that moment (seen: AttributeError 'lock'). Its loggers go to ours instead.
            log_config=None,
            log_level="warning",
            lifespan="off",
            ws_max_size=1 << 20,
            ws_per_message_deflate=False,  # small JSON messages: compressing them costs more than it saves
        )
    except BaseException:
        listening.close()
        sandbox.close()
        raise
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[listening, sandbox]), name="edgehost-web")
    try:
        deadline = asyncio.get_running_loop().time() + START_S
        while not server.started:  # noqa: ASYNC110 - uvicorn has no event for it
            if task.done():
                with contextlib.suppress(SystemExit):  # uvicorn exits when it cannot bind
                    task.result()
                raise OSError(
                    f"the web server could not listen on {bind}:{port} (in use, or not an address here)"
                )
            if asyncio.get_running_loop().time() > deadline:
                raise OSError(f"the web server did not start on {bind}:{port} within {START_S:.0f} s")
            await asyncio.sleep(0.02)
        shown = lan_address() if bind in ("0.0.0.0", "::") else bind
        url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{bound}/?token={access.token}"
        yield WebServer(url, bound, access.token, created, sandbox_port)
    finally:
        server.should_exit = True
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(task, 5)
        listening.close()
        sandbox.close()
