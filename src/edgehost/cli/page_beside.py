"""The chat page served beside the window by the window's own Host (one process, one data folder):
from the start with ``edgehost --web ADDRESS``, else on 127.0.0.1 the first time the window needs a
link to it ("Open the view" of an MCP App's tool card: the window has no browser engine of its own).

Nothing of the web face is imported until the page is served: the window must not wait for it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

__all__ = ["PageBeside"]


class PageBeside:
    """``serve(host)`` is the context the window runs in; ``link(fragment)`` the page's address."""

    def __init__(self, token_file: Path, address: tuple[str, int] | None = None) -> None:
        self.token_file = token_file
        self.address = address
        self.server: Any = None  # web.serve.WebServer, once served
        self._bind = ""
        self._host: Any = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._starting: Any = None  # an asyncio.Lock, made on the first link (asyncio waits for the window)

    @contextlib.asynccontextmanager
    async def serve(self, host: Any) -> AsyncIterator[PageBeside]:
        """Serve the page while the block runs (now with an address, else when first linked)."""
        async with contextlib.AsyncExitStack() as stack:
            self._host, self._stack = host, stack
            try:
                if self.address is not None:
                    await self._start(*self.address)
                    print(f"EdgeHost is also serving the chat page at {self.server.url}", flush=True)
                yield self
            finally:
                self._stack = None

    async def link(self, fragment: str = "") -> str:
        """The page's address on this machine, with the token and ``#fragment``. Starts serving on
        127.0.0.1 (any free port) when no page is served yet. Raises OSError when it cannot be."""
        import asyncio

        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self.server is None:
                if self._stack is None:
                    raise OSError("the chat page is not served while EdgeHost starts or stops")
                await self._start("127.0.0.1", 0)
        from edgehost.web.addresses import is_loopback

        listening = self._bind.strip("[]")
        shown = "127.0.0.1" if listening in ("0.0.0.0", "::") or is_loopback(listening) else listening
        host = f"[{shown}]" if ":" in shown else shown
        url = f"http://{host}:{self.server.port}/?token={self.server.token}"
        return f"{url}#{fragment}" if fragment else url

    async def _start(self, bind: str, port: int) -> None:
        from edgehost.web.serve import serving

        assert self._stack is not None
        self.server = await self._stack.enter_async_context(serving(self._host, bind, port, self.token_file))
        self._bind = bind
