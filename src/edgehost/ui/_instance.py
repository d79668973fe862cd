"""One EdgeHost per user and data folder: the first instance listens on a local socket; a second
start sends it a message ("show" or "quick-ask") and exits."""

from __future__ import annotations

import hashlib
import os

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from edgehost.paths import Paths

__all__ = ["InstanceServer", "instance_name", "send_to_running"]

CONNECT_TIMEOUT_MS = 500  # a live instance answers at once; a stale socket file fails fast
MESSAGES = frozenset({"show", "quick-ask"})


def instance_name(paths: Paths) -> str:
    """The socket name of this user's instance for this data folder."""
    digest = hashlib.sha1(str(paths.data_dir.resolve()).encode()).hexdigest()[:12]
    user = os.environ.get("USER") or str(os.getuid())
    return f"edgehost-{user}-{digest}"


def send_to_running(name: str, message: str) -> bool:
    """Deliver ``message`` to the running instance; False when there is none."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(CONNECT_TIMEOUT_MS):
        return False
    socket.write(message.encode() + b"\n")
    socket.flush()
    socket.waitForBytesWritten(CONNECT_TIMEOUT_MS)
    socket.disconnectFromServer()
    return True


class InstanceServer(QObject):
    """Listens for later starts; ``message_received`` carries "show" or "quick-ask"."""

    message_received = Signal(str)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._accept)

    def listen(self) -> bool:
        """Start listening, removing a socket file left by a crashed instance."""
        if self.server.listen(self.name):
            return True
        QLocalServer.removeServer(self.name)
        return self.server.listen(self.name)

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)

    def _read(self, socket: QLocalSocket) -> None:
        while socket.canReadLine():
            message = bytes(socket.readLine().data()).decode(errors="replace").strip()
            if message in MESSAGES:
                self.message_received.emit(message)
