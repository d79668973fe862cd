"""Who may use the web page: a bearer token when it listens beyond loopback, and the page's own origin.

The token is made on the first start that needs it and kept in a 0600 file (the data folder's
``web-token`` unless ``--token-file`` names another); the terminal shows it once, as a link. A request
carries it as ``Authorization: Bearer TOKEN`` and the WebSocket handshake as the subprotocol
``edgehost.bearer.TOKEN`` (a browser cannot add a header to a WebSocket). The page itself loads
without it: the link's ``?token=`` is read by the page's script, kept in the browser and taken out of
the address bar. Comparisons are constant-time.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["Access", "WS_PROTOCOL", "bearer_from_protocols", "is_loopback", "load_or_create_token"]

WS_PROTOCOL = "edgehost"  # the page's WebSocket subprotocol; the token rides beside it
_BEARER_PROTOCOL = "edgehost.bearer."


def is_loopback(host: str) -> bool:
    """Whether a listening address is reachable only from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


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


@dataclass(frozen=True)
class Access:
    """The checks every request passes. ``token`` None: no token needed (loopback)."""

    token: str | None

    def token_ok(self, headers: Mapping[str, str], websocket: bool) -> bool:
        if self.token is None:
            return True
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
