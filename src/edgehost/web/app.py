"""The web face: an ASGI app over one Host, serving the page, a few JSON reads and the event WebSocket.

Like the window and the CLI, it turns what the user does into Host commands and renders Host events;
it holds no agent, MCP or storage logic. Every request passes `Access` (Host, Origin, token) first.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import tempfile
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from edgehost.host.history_view import EXPORT_FORMATS, AnswerText, Question, ToolRun, tool_filter
from edgehost.host.tool_view import tool_json
from edgehost.web.auth import WS_PROTOCOL, Access
from edgehost.web.hub import EventHub, Subscriber
from edgehost.web.models_face import MODEL_COMMANDS, models_listing, run_model_command
from edgehost.web.page import page_html
from edgehost.web.registry_face import REGISTRY_COMMANDS, RegistryFace
from edgehost.web.settings_face import save_settings, settings_listing
from edgehost.web.views_face import VIEW_COMMANDS, run_view_command, view_listing
from edgehost.web.wire import (
    Command,
    CommandError,
    approval_decision,
    attachments_json,
    parse_command,
    to_json,
)

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["create_app"]

log = logging.getLogger(__name__)

EXPORT_MEDIA_TYPES = {"json": "application/json", "csv": "text/csv; charset=utf-8"}
# Open sockets at once: a page is one each, so this is many tabs and phones; beyond it a client that
# opens sockets in a loop is refused instead of holding the host's memory and event queues.
MAX_SOCKETS = 32

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class _Guard:
    """ASGI middleware: Host, Origin, then the token, on every HTTP request and WebSocket handshake."""

    def __init__(self, app: Any, access: Access) -> None:
        self.app = app
        self.access = access
        self._refused_hosts: set[str] = set()

    def _log_refused_host(self, name: str) -> None:
        """Logged once a name: a page that tries in a loop does not fill the log."""
        if name not in self._refused_hosts and len(self._refused_hosts) < 100:
            self._refused_hosts.add(name)
            log.warning(
                "refused requests for %r: not a name of this machine (a web site pointed at it?)", name
            )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        websocket = scope["type"] == "websocket"
        # The page itself holds no data and is the same for everyone: it loads without the token (a
        # bookmark of the board's address works), takes the token from its link (?token=) once, keeps
        # it in the browser and sends it with every request; without one it says where to find it.
        page = not websocket and scope["path"] == "/"
        if not self.access.host_ok(headers):
            # Before anything else: a name that is not this machine's is a web site pointed at it.
            self._log_refused_host(headers.get("host", ""))
            await self._refuse(scope, receive, send, 421, "this server answers only to this machine's names")
        elif not self.access.origin_ok(headers):
            await self._refuse(scope, receive, send, 403, "this page may only be used from its own origin")
        elif not page and not self.access.token_ok(headers, websocket):
            await self._refuse(scope, receive, send, 401, "a valid token is needed (Authorization: Bearer)")
        else:
            await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, why: str) -> None:
        if scope["type"] == "websocket":
            # Refusing the handshake answers with an HTTP 403 (the ASGI websocket.close before accept).
            await receive()
            await send({"type": "websocket.close", "code": 1008, "reason": why})
            return
        response = PlainTextResponse(why, status_code=status)
        if status == 401:
            response.headers["WWW-Authenticate"] = 'Bearer realm="edgehost"'
        await response(scope, receive, send)


def create_app(host: Host, access: Access, hub: EventHub | None = None, sandbox_port: int = 0) -> Any:
    """The ASGI app for ``host`` (started by the caller). ``hub`` numbers the host's events; one is
    made and subscribed when none is given. ``sandbox_port``: where views are framed (web/view_sandbox.py)."""
    if hub is None:
        hub = EventHub()
        host.subscribe(hub)
    faces = _Face(host, hub, sandbox_port)
    routes = [
        Route("/", faces.page),
        Route("/health", faces.health),
        Route("/tools", faces.tools),
        Route("/api/servers", faces.servers),
        Route("/api/models", faces.models),
        Route("/api/registry", faces.registry_search),
        Route("/api/settings", faces.settings),
        Route("/api/conversations", faces.conversations),
        Route("/api/conversations/{conversation_id:int}", faces.conversation),
        Route("/api/executions", faces.executions),
        Route("/api/executions/export", faces.export),
        Route("/api/executions/{execution_id:int}", faces.execution),
        Route("/api/views", faces.view),
        WebSocketRoute("/ws", faces.websocket),
    ]
    return _Guard(Starlette(routes=routes), access)


class _Face:
    def __init__(self, host: Host, hub: EventHub, sandbox_port: int) -> None:
        self.host = host
        self.hub = hub
        self.sandbox_port = sandbox_port
        self._turn: asyncio.Task[Any] | None = None
        self._sockets = 0
        self.registry = RegistryFace(host)
        self._background: set[asyncio.Task[None]] = set()  # long commands, run beside the socket's reading

    # ------------------------------------------------------------------------------- reads
    async def page(self, _request: Request) -> Response:
        return HTMLResponse(
            page_html(), headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
        )

    async def health(self, _request: Request) -> Response:
        states = self.host.server_states() if self.host.started else []
        model = self.host.model_status
        return JSONResponse(
            {
                "status": "ok" if self.host.started else "starting",
                "model": {"status": model.status, "backend": model.backend, "name": model.model},
                "servers": {
                    "ready": sum(1 for s in states if s.status.value == "ready"),
                    "total": len(states),
                },
            }
        )

    async def tools(self, _request: Request) -> Response:
        return JSONResponse([tool_json(t) for t in self.host.tools()])

    async def servers(self, _request: Request) -> Response:
        states = self.host.server_states() if self.host.started else []
        return JSONResponse(
            [{"name": s.name, "status": s.status.value, "error": s.error, "tools": s.tools} for s in states]
        )

    async def models(self, request: Request) -> Response:
        return JSONResponse(await models_listing(self.host, show_all=request.query_params.get("all") == "1"))

    async def registry_search(self, request: Request) -> Response:
        return JSONResponse(await self.registry.search(request.query_params.get("q", "")))

    async def settings(self, _request: Request) -> Response:
        return JSONResponse(await settings_listing(self.host))

    async def conversations(self, request: Request) -> Response:
        found = self.host.history.conversations(request.query_params.get("q", ""), limit=200)
        return JSONResponse([{"id": c.id, "title": c.title, "updated": c.updated} for c in found])

    async def conversation(self, request: Request) -> Response:
        view = self.host.history.conversation(request.path_params["conversation_id"])
        if view is None:
            return JSONResponse({"error": "no such conversation"}, status_code=404)
        entries: list[dict[str, Any]] = []
        for entry in view.entries:
            if isinstance(entry, Question):
                attached = attachments_json(entry.attachments)
                entries.append({"kind": "question", "text": entry.text, "attachments": attached})
            elif isinstance(entry, AnswerText):
                entries.append({"kind": "answer", "text": entry.text})
            elif isinstance(entry, ToolRun):
                entries.append({"kind": "tool", "execution": to_json(entry.execution)})
        record = view.conversation
        return JSONResponse({"id": record.id, "title": record.title, "entries": entries})

    async def executions(self, request: Request) -> Response:
        filters = _execution_filters(request)
        if isinstance(filters, Response):
            return filters
        found = self.host.history.executions(**filters, limit=500)
        return JSONResponse([e.to_dict() for e in found])

    async def execution(self, request: Request) -> Response:
        found = self.host.history.execution(request.path_params["execution_id"])
        if found is None:
            return JSONResponse({"error": "no such execution"}, status_code=404)
        return JSONResponse(found.to_dict())

    async def view(self, request: Request) -> Response:
        return await view_listing(self.host, request, self.sandbox_port)

    async def export(self, request: Request) -> Response:
        """The executions the history panel shows (its filters), all of them, as a JSON or CSV file."""
        filters = _execution_filters(request)
        if isinstance(filters, Response):
            return filters
        fmt = request.query_params.get("format", "json")
        if fmt not in EXPORT_FORMATS:
            return JSONResponse({"error": f"format is one of {', '.join(EXPORT_FORMATS)}"}, status_code=400)
        # Written to a file in a thread (the store reads on its own connection), then sent from it: an
        # export never holds the whole history in memory.
        path = await asyncio.to_thread(_export_to_file, self.host, fmt, filters)
        return FileResponse(
            path,
            media_type=EXPORT_MEDIA_TYPES[fmt],
            filename=f"edgehost-executions.{fmt}",
            background=BackgroundTask(path.unlink, missing_ok=True),
        )

    # --------------------------------------------------------------------------- the socket
    async def websocket(self, socket: WebSocket) -> None:
        if self._sockets >= MAX_SOCKETS:
            log.warning("refused a WebSocket from %s: %d are open", _client(socket), self._sockets)
            await socket.close(code=1013, reason="too many connections")  # before accept: an HTTP 403
            return
        self._sockets += 1
        try:
            await self._serve_socket(socket)
        finally:
            self._sockets -= 1

    async def _serve_socket(self, socket: WebSocket) -> None:
        offered = [p.strip() for p in socket.headers.get("sec-websocket-protocol", "").split(",")]
        await socket.accept(subprotocol=WS_PROTOCOL if WS_PROTOCOL in offered else None)
        subscriber: Subscriber | None = None
        unsubscribe: Callable[[], None] = lambda: None  # noqa: E731
        sender: asyncio.Task[None] | None = None
        # The calls of the views this page shows, by the view's id: withdrawn when the view closes (or the
        # page goes). Per socket: another page, or this one reconnected, is not touched.
        view_calls: dict[str, set[asyncio.Task[None]]] = {}
        try:
            while True:
                message = await socket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:  # a binary frame: the page speaks JSON text only
                    await socket.close(code=1003, reason="commands are JSON text frames")
                    break
                try:
                    command = parse_command(text)
                except CommandError as exc:
                    await socket.send_text(json.dumps({"reply": None, "ok": False, "error": str(exc)}))
                    continue
                if command.name == "resume":
                    if subscriber is not None:
                        await self._reply(socket, command, False, error="already resumed")
                        continue
                    # Subscribe and take the replay with no await between: nothing missed, nothing twice.
                    subscriber, unsubscribe = self.hub.subscribe()
                    replay = self.hub.since(command.fields["after"], command.fields.get("epoch"))
                    await socket.send_text(json.dumps(self._hello(replay is None)))
                    for event in replay or ():
                        await socket.send_text(json.dumps(event))
                    sender = asyncio.create_task(self._send_events(socket, subscriber))
                    continue
                if command.name in REGISTRY_COMMANDS or command.name in VIEW_COMMANDS:
                    # Minutes on a board (Node's download, a package's first fetch), or a view's call
                    # waiting for its approval: the page's Stop and approvals must not wait behind it.
                    task = asyncio.create_task(self._run_quietly(socket, command))
                    self._background.add(task)
                    task.add_done_callback(self._background.discard)
                    view = command.fields.get("view")
                    if command.name == "view_call" and isinstance(view, str) and view:
                        _track(view_calls, view, task)
                    continue
                if command.name == "view_closed":
                    _withdraw(view_calls, command.fields["view"])
                    await self._reply(socket, command, True)
                    continue
                await self._run(socket, command)
        except WebSocketDisconnect:
            pass
        finally:
            unsubscribe()
            for view in list(view_calls):
                _withdraw(view_calls, view)
            if sender is not None:
                sender.cancel()
                with contextlib.suppress(BaseException):
                    await sender

    async def _run_quietly(self, socket: WebSocket, command: Command) -> None:
        """``_run`` in the background; a page gone by its end gets no reply."""
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await self._run(socket, command)

    def _hello(self, reset: bool) -> dict[str, Any]:
        return {
            "hello": True,
            "epoch": self.hub.epoch,
            "seq": self.hub.seq,
            "reset": reset,  # the page reloads what it shows instead of replaying
            "turn": self.host.running_turn,
            # The page counts down to the automatic denial, as the window does.
            "approval_timeout_s": self.host.settings.approval_timeout_s,
            "approvals": [
                {**to_json(r), "waited_s": round(self.host.approvals.waited_s(r.id), 1)}
                for r in self.host.approvals.open_requests
            ],
        }

    @staticmethod
    async def _send_events(socket: WebSocket, subscriber: Subscriber) -> None:
        while True:
            message = await subscriber.queue.get()
            if message is None:  # it fell behind: close; the page reconnects and resumes
                await socket.close(code=1013, reason="too far behind")
                return
            await socket.send_text(json.dumps(message))

    async def _run(self, socket: WebSocket, command: Command) -> None:
        fields = command.fields
        try:
            if command.name == "submit":
                if self._turn is not None and not self._turn.done() or self.host.running_turn is not None:
                    raise CommandError("a turn is running; stop it first")
                conversation = fields.get("conversation_id")
                if conversation is None:
                    conversation = self.host.new_conversation(fields["text"])
                self._turn = self.host.start_turn(
                    fields["text"], conversation, asked_from=f"the web page ({_client(socket)})"
                )
                await self._reply(socket, command, True, conversation_id=conversation)
            elif command.name == "draft":
                self.host.anticipate(fields["text"])
                await self._reply(socket, command, True)
            elif command.name == "cancel":
                await self.host.cancel()
                await self._reply(socket, command, True)
            elif command.name == "approve":
                if not self.host.resolve_approval(fields["request_id"], approval_decision(fields)):
                    raise CommandError("that approval is no longer pending")
                await self._reply(socket, command, True)
            elif command.name == "enable_server":
                self.host.set_server_enabled(fields["name"], fields["enabled"])
                await self._reply(socket, command, True)
            elif command.name == "enable_tool":
                self.host.set_tool_enabled(fields["name"], fields["enabled"])
                await self._reply(socket, command, True)
            elif command.name == "save_settings":
                await self._reply(socket, command, True, **await save_settings(self.host, fields["values"]))
            elif command.name in REGISTRY_COMMANDS:
                await self._reply(socket, command, True, **await self.registry.run(command.name, fields))
            elif command.name in VIEW_COMMANDS:
                await self._reply(
                    socket, command, True, **await run_view_command(self.host, command.name, fields)
                )
            elif command.name in MODEL_COMMANDS:
                await self._reply(
                    socket, command, True, **await run_model_command(self.host, command.name, fields)
                )
        except (CommandError, KeyError, ValueError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            await self._reply(socket, command, False, error=f"{message}")

    @staticmethod
    async def _reply(socket: WebSocket, command: Command, ok: bool, **extra: Any) -> None:
        await socket.send_text(json.dumps({"reply": command.id, "ok": ok, **extra}))


def _track(view_calls: dict[str, set[asyncio.Task[None]]], view: str, task: asyncio.Task[None]) -> None:
    calls = view_calls.setdefault(view, set())
    calls.add(task)

    def forget(_task: asyncio.Task[None]) -> None:
        calls.discard(task)
        if not calls and view_calls.get(view) is calls:
            del view_calls[view]

    task.add_done_callback(forget)


def _withdraw(view_calls: dict[str, set[asyncio.Task[None]]], view: str) -> None:
    """A view went away: its calls still waiting for an approval are withdrawn (the approval closes and
    nothing runs for a view no one sees); one already running ends as it would (host/direct_calls.py)."""
    for task in list(view_calls.get(view, ())):
        task.cancel()


def _client(socket: WebSocket) -> str:
    return socket.client.host if socket.client else "an unknown address"


def _execution_filters(request: Request) -> dict[str, Any] | Response:
    """The history panel's filters (conversation, tool, status) as HistoryView takes them, or the
    answer to a bad one."""
    params = request.query_params
    try:
        conversation = int(params["conversation"]) if params.get("conversation") else None
    except ValueError:
        return JSONResponse({"error": "conversation is a number"}, status_code=400)
    return {
        "conversation_id": conversation,
        "tool_glob": tool_filter(params.get("tool")),
        "status": params.get("status") or None,
    }


def _export_to_file(host: Host, fmt: str, filters: dict[str, Any]) -> Path:
    """The matching executions written to a new temporary file (the caller removes it)."""
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", newline="", suffix=f".{fmt}", prefix="edgehost-export-", delete=False
    ) as handle:
        path = Path(handle.name)
        try:
            host.history.export(fmt, handle, **filters)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
    return path
