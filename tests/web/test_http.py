"""The web server over real HTTP and WebSocket: /health, /tools, the token and the Origin checks, and a
turn driven through the socket."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import logging
import socket
import stat
import sys
import tempfile
from asyncio.subprocess import PIPE
from pathlib import Path
from typing import Any

import httpx2
import pytest
import websockets
from tests.host.conftest import WAIT_S, call

from edgehost.host import events as ev
from edgehost.llm.scripted import ScriptedBackend


async def test_health_says_the_model_and_how_many_servers_are_ready(serve: Any) -> None:
    served = await serve(ScriptedBackend([]))
    async with served.client() as client:
        health = (await client.get("/health")).json()
    assert health == {
        "status": "ok",
        "model": {"status": "ready", "backend": "scripted", "name": health["model"]["name"]},
        "servers": {"ready": 2, "total": 2},
    }


async def test_tools_lists_what_edgehost_tools_json_lists(serve: Any, data_dir: Any) -> None:
    served = await serve(ScriptedBackend([]))
    async with served.client() as client:
        listed = (await client.get("/tools")).json()
    cli = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "edgehost", "--data-dir", str(data_dir), "tools", "--json", stdout=PIPE
    )
    stdout, _ = await asyncio.wait_for(cli.communicate(), 120)
    assert cli.returncode == 0
    from_cli = json.loads(stdout)
    assert [t["name"] for t in listed] == [t["name"] for t in from_cli]
    assert listed == from_cli  # one shape (host/tool_view.py), whichever face lists them


@pytest.mark.parametrize("bind", ["127.0.0.1", "0.0.0.0"])
async def test_every_request_but_the_page_needs_the_token_on_loopback_and_beyond(
    serve: Any, data_dir: Any, bind: str
) -> None:
    # On loopback too: the questions, approvals, settings, servers and models the socket drives, and the
    # history the reads show, are not for any program or page that reaches the port.
    served = await serve(ScriptedBackend([]), bind=bind)
    token = served.server.token
    assert token and served.server.token_created and served.server.url.endswith(f"/?token={token}")
    token_file = data_dir / "web-token"
    assert token_file.read_text().strip() == token
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    async with httpx2.AsyncClient(base_url=served.base) as client:
        for path in (
            "/health",
            "/tools",
            "/api/settings",
            "/api/servers",
            "/api/conversations",
            "/api/executions",
            "/api/executions/export",
        ):
            refused = await client.get(path)
            assert refused.status_code == 401, path
            assert refused.headers["www-authenticate"].startswith("Bearer")
            wrong = await client.get(path, headers={"Authorization": "Bearer not-the-token"})
            assert wrong.status_code == 401, path
            assert (await client.get(path, headers={"Authorization": f"Bearer {token}"})).status_code == 200
        # The page itself holds no data: it loads without the token (a bookmark works) and asks for it.
        page = await client.get("/")
        assert page.status_code == 200 and 'id="locked"' in page.text
        assert token not in page.text
        # A token in the query is taken by nothing: the page's script reads it from its link.
        assert (await client.get(f"/health?token={token}")).status_code == 401

    ws = served.base.replace("http", "ws") + "/ws"
    with pytest.raises(websockets.InvalidStatus) as refused_socket:
        async with websockets.connect(ws, subprotocols=["edgehost"]):
            pass
    assert refused_socket.value.response.status_code == 403  # the handshake is refused
    protocols = ["edgehost", f"edgehost.bearer.{token}"]
    async with websockets.connect(ws, subprotocols=protocols) as socket:  # type: ignore[arg-type]
        assert socket.subprotocol == "edgehost"
        await socket.send(json.dumps({"command": "resume", "after": 0}))
        hello = json.loads(await socket.recv())
        assert hello["hello"] and hello["reset"]


async def test_the_token_is_kept_across_restarts(serve: Any, data_dir: Any) -> None:
    from edgehost.web.auth import load_or_create_token

    first, created = load_or_create_token(data_dir / "web-token")
    again, created_again = load_or_create_token(data_dir / "web-token")
    assert created and not created_again and first == again


async def test_a_request_from_another_origin_is_refused(serve: Any) -> None:
    served = await serve(ScriptedBackend([]))
    async with served.client() as client:
        other = await client.get("/health", headers={"Origin": "http://evil.example"})
        assert other.status_code == 403
        same = await client.get("/health", headers={"Origin": served.base})
        assert same.status_code == 200
    with pytest.raises(websockets.InvalidStatus):
        async with served.connect(origin="http://evil.example"):
            pass


@pytest.mark.parametrize("bind", ["127.0.0.1", "0.0.0.0"])
async def test_a_web_site_whose_name_points_at_this_machine_is_refused_token_or_not(
    serve: Any, bind: str
) -> None:
    # DNS rebinding: evil.example resolves to 127.0.0.1, so the browser sends its own name as Host and a
    # matching Origin. Nothing is answered to it: not the page, not a read, not the socket.
    served = await serve(ScriptedBackend([]), bind=bind)
    port = served.server.port
    rebound = {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
    async with served.client() as client:
        for path in ("/", "/health", "/api/settings", "/api/conversations"):
            refused = await client.get(path, headers=rebound)
            assert refused.status_code == 421, path
            assert "this machine" in refused.text
        # Without an Origin (a form post, an image) as with one; a port other than the served one too.
        assert (
            await client.get("/api/settings", headers={"Host": f"evil.example:{port}"})
        ).status_code == 421
        assert (await client.get("/health", headers={"Host": f"127.0.0.1:{port + 1}"})).status_code == 421
    # The browser's socket: connected to 127.0.0.1, its handshake naming evil.example.
    with (
        socket.create_connection(("127.0.0.1", port)) as connected,
        pytest.raises(websockets.InvalidStatus) as refused_socket,
    ):
        protocols = ["edgehost", f"edgehost.bearer.{served.server.token}"]
        async with websockets.connect(
            f"ws://evil.example:{port}/ws",
            sock=connected,
            origin=rebound["Origin"],  # type: ignore[arg-type]
            subprotocols=protocols,  # type: ignore[arg-type]
        ):
            pass
    assert refused_socket.value.response.status_code == 403
    assert not served.events.of(ev.TurnStarted)


async def test_the_machines_own_names_reach_the_page_on_loopback(serve: Any) -> None:
    served = await serve(ScriptedBackend([]))
    port = served.server.port
    async with served.client() as client:
        for name in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
            assert (await client.get("/health", headers={"Host": name})).status_code == 200, name
        # Beyond loopback's names, this machine's own name is no way in when only loopback listens.
        named = await client.get("/health", headers={"Host": f"{socket.gethostname()}:{port}"})
        assert named.status_code == 421


async def test_on_every_address_the_machines_name_and_addresses_reach_the_page(serve: Any) -> None:
    from edgehost.web.addresses import machine_addresses

    served = await serve(ScriptedBackend([]), bind="0.0.0.0")
    port = served.server.port
    names = [f"{socket.gethostname()}:{port}", f"{socket.gethostname().split('.')[0]}.local:{port}"]
    names += [f"[{a}]:{port}" if ":" in a else f"{a}:{port}" for a in machine_addresses()]
    async with served.client() as client:
        for name in names:
            assert (await client.get("/health", headers={"Host": name})).status_code == 200, name
        assert (await client.get("/health", headers={"Host": f"192.0.2.77:{port}"})).status_code == 421


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("127.0.0.1:8765", ("127.0.0.1", 8765)),
        ("[::1]:8765", ("::1", 8765)),
        ("[0:0::1]:8765", ("::1", 8765)),
        ("Board.Local", ("board.local", None)),
        ("evil.example:8765", ("evil.example", 8765)),
        ("", None),
        (":8765", None),
        ("[::1", None),
        ("::1:8765", None),
        ("board:http", None),
        ("board:8765:1", None),
        ("[nonsense]:8765", None),
    ],
)
def test_a_host_header_is_read_as_name_and_port_or_not_at_all(
    header: str, expected: tuple[str, int | None] | None
) -> None:
    from edgehost.web.auth import split_host

    assert split_host(header) == expected


def test_a_host_without_a_port_names_this_machine_only_on_port_80() -> None:
    from edgehost.web.auth import MachineNames

    assert MachineNames("127.0.0.1", 80).allows("localhost")
    assert not MachineNames("127.0.0.1", 8765).allows("localhost")
    assert MachineNames("192.0.2.10", 8765).allows("192.0.2.10:8765")
    assert not MachineNames("192.0.2.10", 8765).allows("192.0.2.11:8765")


async def test_a_socket_past_the_limit_is_refused_and_one_that_closes_makes_room(serve: Any) -> None:
    from edgehost.web.app import MAX_SOCKETS

    served = await serve(ScriptedBackend([]))
    async with contextlib.AsyncExitStack() as stack:
        opened = [await stack.enter_async_context(served.connect()) for _ in range(MAX_SOCKETS)]
        with pytest.raises(websockets.InvalidStatus) as refused:
            async with served.connect():
                pass
        assert refused.value.response.status_code == 403
        await opened[0].close()
        async with served.connect() as again:
            await again.send(json.dumps({"command": "resume", "after": 0}))
            assert json.loads(await asyncio.wait_for(again.recv(), WAIT_S))["hello"]


async def test_a_binary_frame_closes_the_socket_with_1003_and_logs_no_traceback(
    serve: Any, caplog: pytest.LogCaptureFixture
) -> None:
    served = await serve(ScriptedBackend([]))
    async with served.connect() as page:
        await page.send(b"\x00\x01 not json")
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(page.recv(), WAIT_S)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1003
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []
    async with served.connect() as page:  # the server goes on serving
        await page.send(json.dumps({"command": "resume", "after": 0}))
        assert json.loads(await asyncio.wait_for(page.recv(), WAIT_S))["hello"]


async def _next(socket: Any, predicate: Any) -> dict[str, Any]:
    while True:
        message = json.loads(await socket.recv())
        if predicate(message):
            return message


async def test_a_turn_submitted_on_the_socket_streams_its_events_and_a_denial_is_the_webs(serve: Any) -> None:
    reply = call("files__write_file", path="notes.txt", content="hello")
    served = await serve(ScriptedBackend([reply, "I did not write it."]))
    async with served.connect() as socket:
        await socket.send(json.dumps({"command": "resume", "after": 0}))
        hello = json.loads(await socket.recv())
        await socket.send(json.dumps({"id": 1, "command": "submit", "text": "Write hello to notes.txt"}))
        answer = await _next(socket, lambda m: m.get("reply") == 1)
        assert answer["ok"] and isinstance(answer["conversation_id"], int)
        asked = await _next(socket, lambda m: m.get("event") == "ApprovalRequested")
        assert asked["seq"] > hello["seq"]
        request = asked["data"]["request"]
        assert (request["tool"], request["risk"]) == ("files__write_file", "destructive")
        await socket.send(json.dumps({"id": 2, "command": "submit", "text": "again"}))
        busy = await _next(socket, lambda m: m.get("reply") == 2)
        assert not busy["ok"] and "a turn is running" in busy["error"]
        await socket.send(
            json.dumps(
                {"id": 3, "command": "approve", "request_id": request["id"], "allow": False, "reason": "no"}
            )
        )
        assert (await _next(socket, lambda m: m.get("reply") == 3))["ok"]
        done = await _next(socket, lambda m: m.get("event") == "TurnCompleted")
        assert done["data"]["conversation_id"] == answer["conversation_id"]
        await socket.send(
            json.dumps({"id": 4, "command": "approve", "request_id": request["id"], "allow": True})
        )
        late = await _next(socket, lambda m: m.get("reply") == 4)
        assert not late["ok"] and "no longer pending" in late["error"]
    [finished] = served.events.of(ev.ToolExecutionFinished)
    assert (finished.status, finished.decided_by) == ("denied", "web")
    [execution] = served.host.history.executions()
    assert (execution.status, execution.decided_by) == ("denied", "web")
    assert not (served.host.paths.data_dir / "notes.txt").exists()


async def test_a_question_asked_with_an_attachment_reaches_an_open_page_with_its_chip_not_its_text(
    serve: Any,
) -> None:
    # Asked in the window: the turn's start had only the typed question, so the page showed no chip
    # until the conversation was reopened.
    from edgehost.host.attachments import attachment_text

    served = await serve(ScriptedBackend(["Milk, and the plumber."]))
    async with served.connect() as socket:
        await socket.send(json.dumps({"command": "resume", "after": 0}))
        json.loads(await socket.recv())  # hello
        note = attachment_text("note://today", "Buy milk.\n\nCall the plumber about the leak.")
        asked = asyncio.ensure_future(served.host.submit("What is on my list?", attachments=[note]))
        started = await asyncio.wait_for(_next(socket, lambda m: m.get("event") == "TurnStarted"), WAIT_S)
        question = await asyncio.wait_for(
            _next(socket, lambda m: m.get("event") in ("MessageAppended", "TextDelta")), WAIT_S
        )
        assert await asyncio.wait_for(asked, WAIT_S) is not None
    assert (started["data"]["question"], started["data"]["attachments"]) == ("What is on my list?", [])
    # The question's message, before any of the answer, carries what the chip shows.
    assert question["event"] == "MessageAppended"
    assert question["data"]["question"] == "What is on my list?"
    assert question["data"]["attachments"] == [
        {"uri": "note://today", "name": "today", "size": "43 B", "label": "today · 43 B"}
    ]


async def test_a_question_answered_again_reaches_the_page_as_typed_with_its_attachment(serve: Any) -> None:
    # Answering again starts the turn with the stored question, attached texts and all.
    from edgehost.host.attachments import attachment_text

    served = await serve(ScriptedBackend(["Milk.", "Milk, still."]))
    note = attachment_text("note://today", "Buy milk.\n\nCall the plumber about the leak.")
    first = await served.host.submit("What is on my list?", attachments=[note])
    assert first is not None
    async with served.connect() as socket:
        await socket.send(json.dumps({"command": "resume", "after": 0}))
        json.loads(await socket.recv())  # hello
        assert await asyncio.wait_for(served.host.regenerate(first.conversation_id), WAIT_S) is not None
        started = await asyncio.wait_for(_next(socket, lambda m: m.get("event") == "TurnStarted"), WAIT_S)
    assert started["data"]["question"] == "What is on my list?"
    assert [a["label"] for a in started["data"]["attachments"]] == ["today · 43 B"]


async def test_the_history_exports_the_calls_its_filters_show_as_csv_or_json(serve: Any) -> None:
    served = await serve(ScriptedBackend([]))
    for tool in ("board__uptime", "board__memory_usage", "files__list_directory"):
        await served.host.call_tool(tool, {})
    left_before = _exports_left()
    async with served.client() as client:
        # As typed in the panel: a word is found anywhere in the tool's name, as in the window.
        shown = (await client.get("/api/executions", params={"tool": "board"})).json()
        assert sorted(run["tool"] for run in shown) == ["board__memory_usage", "board__uptime"]
        exported = await client.get("/api/executions/export", params={"tool": "board", "format": "csv"})
        assert exported.status_code == 200
        assert exported.headers["content-type"].startswith("text/csv")
        assert 'filename="edgehost-executions.csv"' in exported.headers["content-disposition"]
        rows = list(csv.DictReader(io.StringIO(exported.text)))
        assert [(r["tool"], r["status"]) for r in rows] == [
            ("board__uptime", "ok"),
            ("board__memory_usage", "ok"),
        ]
        everything = (await client.get("/api/executions/export")).json()  # JSON unless asked otherwise
        assert [run["tool"] for run in everything] == [
            "board__uptime",
            "board__memory_usage",
            "files__list_directory",
        ]
        assert everything[0] == next(run for run in shown if run["tool"] == "board__uptime")
        refused = await client.get("/api/executions/export", params={"format": "xlsx"})
        assert (refused.status_code, refused.json()) == (400, {"error": "format is one of json, csv"})
    assert _exports_left() == left_before  # nothing left behind


def _exports_left() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("edgehost-export-*"))
