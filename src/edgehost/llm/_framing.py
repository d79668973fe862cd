"""Small framed JSON messages over a pipe: a 4-byte big-endian length, then UTF-8 JSON."""

from __future__ import annotations

import json
import os
import struct
import threading
from typing import Any, BinaryIO

__all__ = ["MessageWriter", "read_message"]

_HEADER = struct.Struct(">I")


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream (the other side exited).

    Raises ValueError on a malformed frame.
    """
    header = _read_exactly(stream, _HEADER.size)
    if header is None:
        return None
    (length,) = _HEADER.unpack(header)
    body = _read_exactly(stream, length)
    if body is None:
        return None
    message = json.loads(body)
    if not isinstance(message, dict):
        raise ValueError("a frame must hold a JSON object")
    return message


class MessageWriter:
    """Writes whole frames to a file descriptor; safe to share between threads."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        """Raises OSError (BrokenPipeError) when the other side is gone."""
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        data = memoryview(_HEADER.pack(len(body)) + body)
        with self._lock:
            while data:
                written = os.write(self._fd, data)
                data = data[written:]

    def close(self) -> None:
        """Close the descriptor, once: a second call must not close a file that reuses its number."""
        with self._lock:
            fd, self._fd = self._fd, -1
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    chunks = []
    remaining = size
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
