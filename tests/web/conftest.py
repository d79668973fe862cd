"""A Host on scripted replies and the real built-in servers, served by the real web server (uvicorn) on
a free port; and Debian's Chromium driven by Playwright for the page's own tests."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
import websockets
from tests.host.conftest import WAIT_S, Recorder
from tests.support import CHROMIUM_ARGS, stop_process

from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.llm.base import Backend
from edgehost.paths import Paths
from edgehost.servers.in_process import builtin_in_process
from edgehost.settings import Settings
from edgehost.slow_machine import scaled_wait
from edgehost.web.serve import WebServer, serving

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_START_S = scaled_wait(60.0)  # a first start on a loaded 2-core machine


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
        options.setdefault("servers_in_process", builtin_in_process)
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


@pytest.fixture(scope="session")
def chromium_endpoint(chromium: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Debian's Chromium, started once a session (once per xdist worker) with its DevTools endpoint:
    each test connects to it (a second, against three for a launch on a loaded machine) and opens its
    pages in contexts of its own, so no test sees another's storage."""
    profile = tmp_path_factory.mktemp("chromium-profile")
    process = subprocess.Popen(
        [chromium, *CHROMIUM_ARGS, "--remote-debugging-port=0", f"--user-data-dir={profile}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # Chromium writes the port it took (and the endpoint's path) into the profile once it listens.
    active = profile / "DevToolsActivePort"
    deadline = time.monotonic() + CHROMIUM_START_S
    while not (active.exists() and len(active.read_text().split()) == 2):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"chromium did not start (exit {process.poll()})")
        time.sleep(0.05)
    port, path = active.read_text().split()
    try:
        yield f"ws://127.0.0.1:{port}{path}"
    finally:
        stop_process(process)


@pytest.fixture
async def browser(chromium_endpoint: str) -> AsyncIterator[Any]:
    """The session's Chromium, driven by Playwright over the DevTools protocol; what a test opens in it
    is closed with it."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        connected = await playwright.chromium.connect_over_cdp(chromium_endpoint)
        try:
            yield connected
        finally:
            await connected.close()


@pytest.fixture
async def page(browser: Any) -> Any:
    """A new page of ``browser``; ``page.errors`` collects the script errors it meets."""
    opened = await browser.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.errors = errors
    return opened
