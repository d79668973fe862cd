"""Who may use the web page: a request that names this machine, from the page's own origin, with the token.

Three checks, in this order, on every HTTP request and WebSocket handshake:

1. **Host.** The ``Host`` header must name this machine: ``localhost``, a loopback address, the address
   listened on, this machine's name or one of its addresses (when listening on all of them), with the
   port. A web site whose name an attacker points at 127.0.0.1 (DNS rebinding) sends its own name here
   and is refused before anything else, loopback included (the MCP spec asks the same of local HTTP
   servers).
2. **Origin.** A browser's request from another site is refused: its ``Origin`` must be the served one.
3. **Token.** Everything but the page itself needs the token, on loopback too: reading the history and
   acting (questions, approvals, settings, servers, models) alike.

The token is made on the first start and kept in a 0600 file (the data folder's ``web-token`` unless
``--token-file`` names another); the terminal and the window print it once, as a link. A request carries
it as ``Authorization: Bearer TOKEN`` and the WebSocket handshake as the subprotocol
``edgehost.bearer.TOKEN`` (a browser cannot add a header to a WebSocket). The page itself loads without
it: the link's ``?token=`` is read by the page's script, kept in the browser and taken out of the
address bar. Comparisons are constant-time.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from edgehost.web.addresses import is_loopback, machine_addresses

__all__ = [
    "Access",
    "MachineNames",
    "WS_PROTOCOL",
    "bearer_from_protocols",
    "load_or_create_token",
    "split_host",
]

WS_PROTOCOL = "edgehost"  # the page's WebSocket subprotocol; the token rides beside it
_BEARER_PROTOCOL = "edgehost.bearer."
_WILDCARDS = ("0.0.0.0", "::", "")
_ADDRESSES_FRESH_S = 5.0  # an address the machine gains (DHCP, a new interface) is seen this soon


def load_or_create_token(path: Path) -> tuple[str, bool]:
    """(the token in ``path``, whether it was made now). A new one is written 0600; an existing file
    that others can read is tightened to 0600. Raises OSError when the file cannot be read or written."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if token:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        return token, False
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(token + "\n")
    path.chmod(0o600)
    return token, True


def bearer_from_protocols(header: str) -> str | None:
    """The token in a Sec-WebSocket-Protocol header (``edgehost, edgehost.bearer.TOKEN``), if any."""
    for protocol in header.split(","):
        protocol = protocol.strip()
        if protocol.startswith(_BEARER_PROTOCOL):
            return protocol[len(_BEARER_PROTOCOL) :]
    return None


def split_host(header: str) -> tuple[str, int | None] | None:
    """A ``Host`` header as (name or address, port or None): lower-case, an IPv6 address without its
    brackets and in its compressed form. None when it is not a host and port."""
    header = header.strip().lower()
    if header.startswith("["):
        name, bracket, rest = header[1:].partition("]")
        if not bracket:
            return None
        try:
            name = str(ipaddress.IPv6Address(name))
        except ValueError:
            return None
    else:
        name, colon, port_text = header.partition(":")
        rest = colon + port_text  # ":8765", or "" without a port
    if not name:
        return None
    if not rest:
        return name, None
    port = rest.removeprefix(":")
    if port == rest or not port.isdigit() or len(port) > 5:
        return None
    return name, int(port)


@dataclass
class MachineNames:
    """The names and addresses by which a server listening on ``bind``:``port`` may be addressed.

    Always ``localhost`` and the loopback addresses; the address listened on; and beyond loopback this
    machine's host name (with ``.local``, as mDNS gives it) and, when listening on every address, each
    address of each interface (read again when an unknown one is asked for, at most every 5 s).
    """

    bind: str
    port: int
    _addresses: set[str] = field(default_factory=set)
    _read_at: float = float("-inf")

    def allows(self, host_header: str) -> bool:
        parsed = split_host(host_header)
        if parsed is None:
            return False
        name, port = parsed
        if (port if port is not None else 80) != self.port:
            return False
        if name == "localhost" or _is_loopback_address(name):
            return True
        bind = self.bind.strip("[]").lower()
        if bind not in _WILDCARDS and _same_address(name, bind):
            return True
        if is_loopback(bind):
            return False
        if name in _host_names():
            return True
        return bind in _WILDCARDS and self._is_machine_address(name)

    def _is_machine_address(self, name: str) -> bool:
        if any(_same_address(name, known) for known in self._addresses):
            return True
        now = time.monotonic()
        if now - self._read_at < _ADDRESSES_FRESH_S:
            return False
        self._addresses, self._read_at = machine_addresses(), now
        return any(_same_address(name, known) for known in self._addresses)


@dataclass(frozen=True)
class Access:
    """The checks every request passes (see the module's docstring)."""

    token: str
    names: MachineNames

    def host_ok(self, headers: Mapping[str, str]) -> bool:
        return self.names.allows(headers.get("host", ""))

    def token_ok(self, headers: Mapping[str, str], websocket: bool) -> bool:
        offered: list[str] = []
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer":
            offered.append(value.strip())
        if websocket:
            offered.append(bearer_from_protocols(headers.get("sec-websocket-protocol", "")) or "")
        return any(secrets.compare_digest(o.encode(), self.token.encode()) for o in offered if o)

    @staticmethod
    def origin_ok(headers: Mapping[str, str]) -> bool:
        """A browser's request from another site is refused: its Origin must be the served one
        (scheme-less ``Host`` match). A request without Origin (curl, the CLI) is not a browser's."""
        origin = headers.get("origin")
        if origin is None:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.netloc == headers.get("host", "")


def _is_loopback_address(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _same_address(name: str, address: str) -> bool:
    if name == address:
        return True
    try:
        return ipaddress.ip_address(name) == ipaddress.ip_address(address)
    except ValueError:
        return False


def _host_names() -> set[str]:
    """This machine's host name as a browser on the LAN would type it (``orangepi5``, ``orangepi5.local``)."""
    name = socket.gethostname().lower()
    short = name.split(".")[0]
    return {name, short, f"{short}.local"} if short else set()
