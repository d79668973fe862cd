"""A Host on scripted replies and the real built-in servers, served by the real web server (uvicorn) on
a free port; and Debian's Chromium driven by Playwright for the page's own tests."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
import websockets
from tests.host.conftest import WAIT_S, Recorder
from tests.support import CHROMIUM_ARGS

from edgehost.host.host import Host, HostOptions
from edgehost.llm.base import Backend
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.web.serve import WebServer, serving

CHROMIUM = "/usr/bin/chromium"


@dataclass
class Served:
    host: Host
    server: WebServer
    events: Recorder

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    @property
    def authorized(self) -> dict[str, str]:
        """The headers of a request that carries the token."""
        return {"Authorization": f"Bearer {self.server.token}"}

    def client(self) -> httpx2.AsyncClient:
        """An HTTP client of the served page, carrying the token as the page does."""
        return httpx2.AsyncClient(base_url=self.base, headers=self.authorized)

    def connect(self, **options: Any) -> Any:
        """The page's WebSocket, with the token in its subprotocols as the page sends it."""
        protocols = ["edgehost", f"edgehost.bearer.{self.server.token}"]
        return websockets.connect(self.base.replace("http", "ws") + "/ws", subprotocols=protocols, **options)


@pytest.fixture
async def serve(data_dir: Path) -> AsyncIterator[Callable[..., Any]]:
    """serve(backend, bind="127.0.0.1", settings=None) -> Served: a started Host behind the web server."""
    stack = contextlib.AsyncExitStack()

    async def start(
        backend: Backend | None, *, bind: str = "127.0.0.1", settings: Settings | None = None, **options: Any
    ) -> Served:
        host = Host(
            Paths.resolve(None, data_dir), settings or Settings(), HostOptions(backend=backend, **options)
        )
        events = Recorder()
        host.subscribe(events)
        stack.push_async_callback(host.aclose)
        await host.start()
        states = await host.wait_servers_ready(WAIT_S)
        assert all(s.status.value == "ready" for s in states), [(s.name, s.error) for s in states]
        server = await stack.enter_async_context(serving(host, bind, 0, data_dir / "web-token"))
        return Served(host, server, events)

    async with stack:
        yield start


@pytest.fixture(scope="session")
def chromium() -> str:
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.skip("chromium is not installed: make test installs Debian's chromium")
    return CHROMIUM


@pytest.fixture
async def browser(chromium: str) -> AsyncIterator[Any]:
    """Debian's Chromium, launched by Playwright."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
async def page(browser: Any) -> Any:
    """A new page of ``browser``; ``page.errors`` collects the script errors it meets."""
    opened = await browser.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.errors = errors
    return opened
