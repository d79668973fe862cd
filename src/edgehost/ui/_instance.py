"""One EdgeHost per user and data folder: the first instance listens on a local socket; a second
start sends it a message ("show" or "quick-ask") and exits."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from edgehost.paths import Paths

if TYPE_CHECKING:
    from PySide6.QtNetwork import QLocalSocket

__all__ = ["InstanceServer", "instance_name", "send_to_running"]

try:  # as the standard library's random.py does: hashlib loads OpenSSL, ~5 ms before the window shows
    from _sha1 import sha1
except ImportError:
    from hashlib import sha1

CONNECT_TIMEOUT_MS = 500  # a live instance answers at once; a stale socket file fails fast
MESSAGES = frozenset({"show", "quick-ask"})


def instance_name(paths: Paths) -> str:
    """The socket path of this user's instance for this data folder (in the runtime folder)."""
    digest = sha1(str(paths.data_dir.resolve()).encode()).hexdigest()[:12]
    folder = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return str(Path(folder) / f"edgehost-{os.getuid()}-{digest}")


def send_to_running(name: str, message: str) -> bool:
    """Deliver ``message`` to the running instance; False when there is none.

    A plain Unix socket (QLocalServer's wire format on Linux), so a second start needs no QtNetwork.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(CONNECT_TIMEOUT_MS / 1000)
        try:
            client.connect(name)
            client.sendall(message.encode() + b"\n")
        except OSError:  # no socket file, or a stale one left by a crash
            return False
    return True


class InstanceServer(QObject):
    """Listens for later starts; ``message_received`` carries "show" or "quick-ask"."""

    message_received = Signal(str)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        from PySide6.QtNetwork import QLocalServer

        super().__init__(parent)
        self.name = name
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)  # only this user may connect
        self.server.newConnection.connect(self._accept)

    def listen(self) -> bool:
        """Start listening, removing a socket file left by a crashed instance."""
        from PySide6.QtNetwork import QLocalServer

        if self.server.listen(self.name):
            return True
        QLocalServer.removeServer(self.name)
        return self.server.listen(self.name)

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            peer = self.server.nextPendingConnection()
            peer.readyRead.connect(lambda p=peer: self._read(p))
            peer.disconnected.connect(peer.deleteLater)

    def _read(self, peer: QLocalSocket) -> None:
        while peer.canReadLine():
            message = bytes(peer.readLine().data()).decode(errors="replace").strip()
            if message in MESSAGES:
                self.message_received.emit(message)
