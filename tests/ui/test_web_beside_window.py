"""`edgehost --web`: the chat page served by the window's own Host — one process, one set of servers;
an approval of a question asked on the page says so in the window, and answered on the page it closes
in the window."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from tests.host.conftest import call
from tests.ui.conftest import STEP_S

from edgehost.cli.web_commands import parse_address
from edgehost.errors import UsageError
from edgehost.host.options import HostOptions
from edgehost.llm.scripted import ScriptedBackend
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.ui.app import Desktop
from edgehost.web.serve import WebServer, serving


def test_the_web_address_takes_an_optional_port() -> None:
    assert parse_address("0.0.0.0") == ("0.0.0.0", 8765)
    assert parse_address("192.168.1.40:9000") == ("192.168.1.40", 9000)
    assert parse_address("[::]:8000") == ("::", 8000)
    for bad in ("0.0.0.0:http", ":80", "[::]x", "host:70000"):
        with pytest.raises(UsageError, match="ADDRESS"):
            parse_address(bad)


async def _next(socket: Any, predicate: Any) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), STEP_S))
        if predicate(message):
            return message


def test_an_approval_asked_from_the_page_says_so_in_the_window_and_answered_there_closes_in_the_window(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        started: asyncio.Future[WebServer] = asyncio.get_running_loop().create_future()

        @contextlib.asynccontextmanager
        async def beside(host: Any) -> AsyncIterator[WebServer]:
            async with serving(host, "127.0.0.1", 0, data_dir / "web-token") as server:
                started.set_result(server)
                yield server

        reply = call("files__write_file", path="a.txt", content="from the page")
        desktop = Desktop(
            Paths.resolve(None, data_dir),
            Settings(close_to_tray=False),
            HostOptions(backend=ScriptedBackend([reply, "Written."])),
        )
        running = asyncio.ensure_future(desktop.run(beside=beside))
        try:
            server = await asyncio.wait_for(asyncio.shield(started), STEP_S)
            await desktop.host.wait_servers_ready(STEP_S)
            protocols = ["edgehost", f"edgehost.bearer.{server.token}"]
            url = f"ws://127.0.0.1:{server.port}/ws"
            async with websockets.connect(url, subprotocols=protocols) as socket:  # type: ignore[arg-type]
                await socket.send(json.dumps({"command": "resume", "after": 0}))
                await _next(socket, lambda m: m.get("hello"))
                await socket.send(json.dumps({"id": 1, "command": "submit", "text": "Write a.txt"}))
                asked = await _next(socket, lambda m: m.get("event") == "ApprovalRequested")
                request_id = asked["data"]["request"]["id"]
                window = desktop.window.approvals
                assert (
                    window.current() is not None and window.current().id == request_id
                )  # the window asks too, saying the question was not asked there
                assert asked["data"]["request"]["asked_from"] == "the web page (127.0.0.1)"
                assert window.server.text().endswith(
                    "files__write_file  ·  asked from the web page (127.0.0.1)"
                )
                await socket.send(
                    json.dumps({"id": 2, "command": "approve", "request_id": request_id, "allow": True})
                )
                await _next(socket, lambda m: m.get("event") == "TurnCompleted")
                assert window.current() is None  # answered on the page: gone from the window
            [execution] = desktop.host.history.executions()
            assert (execution.status, execution.decided_by) == ("ok", "web")
        finally:
            desktop.quit()
            await asyncio.wait_for(running, STEP_S * 2)

    run(scenario())
