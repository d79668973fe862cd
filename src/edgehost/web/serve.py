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

from edgehost.web.app import create_app
from edgehost.web.auth import Access, is_loopback, load_or_create_token

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["WebServer", "access_for", "serving"]

log = logging.getLogger(__name__)
START_S = 30.0


@dataclass(frozen=True)
class WebServer:
    url: str  # where the page is, with the token in its link when one is needed
    port: int
    token: str | None
    token_created: bool


def access_for(bind: str, token_file: Path) -> tuple[Access, bool]:
    """(the checks for a server listening on ``bind``, whether the token was made now). Loopback needs
    no token; anything else reads (or makes) ``token_file``."""
    if is_loopback(bind):
        return Access(None), False
    token, created = load_or_create_token(token_file)
    return Access(token), created


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
    access, created = access_for(bind, token_file)
    config = uvicorn.Config(
        create_app(host, access),
        host=bind,
        port=port,
        log_level="warning",
        lifespan="off",
        ws_max_size=1 << 20,
        ws_per_message_deflate=False,  # small JSON messages: compressing them costs more than it saves
    )
    # Bound here, not by uvicorn: a port in use is then an OSError to report, not uvicorn's exit.
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    try:
        listening = socket.create_server((bind, port), family=family)
    except OSError as exc:
        raise OSError(f"the web server could not listen on {bind}:{port}: {exc.strerror or exc}") from None
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[listening]), name="edgehost-web")
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
        bound = listening.getsockname()[1]
        shown = _lan_address() if bind in ("0.0.0.0", "::") else bind
        query = f"/?token={access.token}" if access.token else "/"
        url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{bound}{query}"
        yield WebServer(url, bound, access.token, created)
    finally:
        server.should_exit = True
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(task, 5)
        listening.close()


def _lan_address() -> str:
    """An address of this machine that others on the LAN can reach (127.0.0.1 when none is known).

    The address the kernel would send from towards another network (a UDP socket's connect sends
    nothing), else the first IPv4 address of an interface other than loopback. Not the host name's:
    board images map it to 127.0.1.1 in /etc/hosts.
    """
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: any address off this machine picks the route
        routed = str(probe.getsockname()[0])
        if not routed.startswith(("127.", "0.")):
            return routed
    for _index, name in socket.if_nameindex():
        address = _interface_address(name)
        if address and not address.startswith("127."):
            return address
    return "127.0.0.1"


def _interface_address(name: str) -> str | None:
    """The IPv4 address of network interface ``name`` (SIOCGIFADDR), None if it has none."""
    import fcntl
    import struct

    siocgifaddr = 0x8915
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("256s", name.encode()[:15])
        return socket.inet_ntoa(fcntl.ioctl(probe.fileno(), siocgifaddr, request)[20:24])
    return None
