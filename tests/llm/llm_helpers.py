"""Helpers shared by the llm tests."""

from __future__ import annotations

import socket
from typing import Any

from edgehost.llm.base import GenerationFinished, GenerationRequest, NativeToolCall, TokenText


async def collect(backend: Any, request: GenerationRequest) -> tuple[list[str], GenerationFinished]:
    """The text pieces and the final event of one generation (native tool calls are not expected)."""
    pieces: list[str] = []
    finished: GenerationFinished | None = None
    async for event in backend.generate(request):
        if isinstance(event, TokenText):
            pieces.append(event.text)
        elif isinstance(event, GenerationFinished):
            finished = event
        else:
            assert not isinstance(event, NativeToolCall), event
    assert finished is not None, "a stream must end with GenerationFinished"
    return pieces, finished


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
