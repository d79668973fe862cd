"""One long-lived task per MCP server owns its connection (ARCHITECTURE decision 2).

anyio requires a connection to be opened and closed in the same task (python-sdk issues 79, 577, 922),
so ``ServerSupervisor.run`` is the only place a ``Client`` is entered and left. Enable, disable,
restart and shutdown are signals to it. Requests are sent to its session from any task
(mcp/server_requests.py, which it inherits); the lifetime stays with the supervisor.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import mcp_types as types
from mcp.client import Client, ClientRequestContext
from mcp.client.extension import advertise
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from edgehost import __version__
from edgehost.mcp._failures import caused_by, connection_failure, describe_failure
from edgehost.mcp._stderr import LineRing, StderrPipe, ThrottledCall
from edgehost.mcp._transport import ConnectionWatch, open_transport
from edgehost.mcp.auth import SignInRequired
from edgehost.mcp.catalog import APP_MIME_TYPE, UI_EXTENSION, ServerListing, fetch_listing
from edgehost.mcp.client_features import ClientFeatures, roots_from_paths
from edgehost.mcp.config import ServerConfig, redact
from edgehost.mcp.request_deadlines import ActiveRequest
from edgehost.mcp.resource_updates import UpdateListeners
from edgehost.mcp.server_requests import ServerRequests
from edgehost.mcp.server_state import ServerState, ServerStatus, retry_words

__all__ = ["ServerSupervisor"]

logger = logging.getLogger(__name__)

# A server started through npx/uvx may first download its package; a minute covers that on a board.
STARTUP_TIMEOUT_S = 60.0
# Backoff between restarts of a server that keeps dying or never starts: 1 s doubling to 30 s. A
# connection that stayed ready longer than the longest wait starts the sequence again.
BACKOFF_INITIAL_S = 1.0
BACKOFF_MAX_S = 30.0
# A server's new stderr / log lines are announced at most this often (ServerOutputChanged).
OUTPUT_EVENT_INTERVAL_S = 1.0
# Bound on waiting for a dead server's last stderr lines, so its error message can show them.
STDERR_DRAIN_S = 0.5
# A server waiting for a sign-in looks this often for one made elsewhere (ClientFeatures.signed_in_elsewhere).
SIGN_IN_POLL_S = 2.0

_T = TypeVar("_T")


ChangeFnT = Callable[["ServerSupervisor", str], None]
"""Called with (supervisor, what) where what is "status" or "listing"."""


class ServerSupervisor(ServerRequests):
    """Owns the connection to one server: connects, serves, restarts with backoff, disconnects.

    Run ``run()`` in its own task; use ``set_enabled``, ``restart`` and ``shutdown`` to steer it.
    """

    def __init__(
        self,
        config: ServerConfig,
        *,
        features: ClientFeatures,
        enabled: bool = True,
        on_change: ChangeFnT | None = None,
        stderr_lines: int = 200,
        auto_restart: bool = True,
        startup_timeout: float = STARTUP_TIMEOUT_S,
    ) -> None:
        """``startup_timeout``: seconds a start (process, handshake, listings) may take before it counts
        as failed."""
        self.config = config
        # maxConcurrentCalls: calls beyond it wait for a slot before they are sent.
        limit = config.max_concurrent_calls
        self._call_slots: asyncio.Semaphore | None = asyncio.Semaphore(limit) if limit else None
        self.name = config.name
        self._features = features
        self._enabled = enabled
        self._on_change = on_change
        self._auto_restart = auto_restart
        self._startup_timeout = startup_timeout
        self.status = ServerStatus.STARTING
        self.error: str | None = None
        self._reason: str | None = None  # why the server last failed, without the retry time
        self.retry_at: float | None = None  # see ServerState.retry_at
        self._ready_at: float | None = None  # when the current connection became ready (anyio clock)
        self._unimplemented: set[str] = set()  # list methods the server declares but lacks, said once
        if config.error:
            self.status, self.error, self._reason = ServerStatus.FAILED, config.error, config.error
        elif not enabled:
            self.status = ServerStatus.DISABLED
        self.listing = ServerListing()
        self._secrets = config.secret_values()
        # New stderr or log lines are announced as "output" at most once a second (a server flooding its
        # stderr must not flood the window), and always after the last line.
        self._output = ThrottledCall(lambda: self._emit("output"), OUTPUT_EVENT_INTERVAL_S)
        self.stderr = LineRing(stderr_lines, secrets=self._secrets, on_append=self._output)
        self.log = LineRing(stderr_lines, secrets=self._secrets, on_append=self._output)
        self.junk_lines = 0
        self._client: Client | None = None
        self._pipe: StderrPipe | None = None
        self._watch: ConnectionWatch | None = None
        self._wake = anyio.Event()
        self._status_changed = anyio.Event()
        self._shutdown = False
        self._restart_requested = False
        self._refresh_requested = False
        self._requests: set[ActiveRequest] = set()
        self._update_listeners = UpdateListeners()  # resources watched on a 2025 connection
        self._person_waits = 0
        self._startup_scope: anyio.CancelScope | None = None
        self._sign_in_required = False  # the last connection stopped because a person must sign in
        self.settled = anyio.Event()  # first ready / failed / disabled outcome after start
        if self.status is not ServerStatus.STARTING:
            self.settled.set()
        self.finished = anyio.Event()

    # -- steering (any task) ----------------------------------------------------------------

    @property
    def enabled(self) -> bool:
        return self._enabled

    def set_enabled(self, enabled: bool) -> None:
        self._enabled = enabled
        self._signal()

    def restart(self) -> None:
        self._restart_requested = True
        self._signal()

    def shutdown(self) -> None:
        self._shutdown = True
        self._signal()

    def _signal(self) -> None:
        if self._startup_scope is not None and self._stop_requested():
            self._startup_scope.cancel()
        self._wake.set()

    # -- state --------------------------------------------------------------------------------

    def state(self) -> ServerState:
        client = self._client
        session = client.session if client is not None and self.status is ServerStatus.READY else None
        info = session.server_info if session is not None else None
        capabilities = session.server_capabilities if session is not None else None
        return ServerState(
            name=self.name,
            status=self.status,
            error=self.error,
            transport=self.config.transport,
            protocol_version=session.protocol_version if session is not None else None,
            server_name=info.name if info is not None else None,
            server_version=info.version if info is not None else None,
            instructions=session.instructions if session is not None else None,
            capabilities=capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)
            if capabilities
            else {},
            tools=len(self.listing.tools),
            resources=len(self.listing.resources),
            resource_templates=len(self.listing.resource_templates),
            prompts=len(self.listing.prompts),
            stderr_tail=self.stderr.tail(),
            log_tail=self.log.tail(),
            sign_in_required=self._sign_in_required and self.status is not ServerStatus.READY,
            retry_at=self.retry_at,
        )

    def _fail(self, reason: str, retry_in: float | None = None) -> None:
        """Show the server failed for ``reason`` (in its Log too); ``retry_in``: seconds until this
        supervisor starts it again, None when it waits for a person."""
        self._reason = reason
        retry_at = time.time() + retry_in if retry_in is not None else None
        self._set_status(
            ServerStatus.FAILED, f"{reason} ({retry_words(retry_at)})" if retry_at else reason, retry_at
        )
        # INFO: edgehost.log keeps them; a command's terminal already says it in its own words.
        logger.info("server %r failed: %s", self.name, self.error)
        self.log.append(f"{time.strftime('%H:%M:%S')} {self.error}")

    def _set_status(
        self, status: ServerStatus, error: str | None = None, retry_at: float | None = None
    ) -> None:
        changed = status is not self.status
        self.status = status
        self.error = redact(error, self._secrets) if error else error
        self.retry_at = retry_at
        if changed and status is ServerStatus.READY:
            logger.info("server %r is ready", self.name)
        if status is not ServerStatus.READY:
            self.listing = ServerListing()
            self._update_listeners.end_all()
        if status in (ServerStatus.READY, ServerStatus.FAILED, ServerStatus.DISABLED):
            self.settled.set()
        self._status_changed.set()
        self._status_changed = anyio.Event()
        self._emit("status")

    def _emit(self, what: str) -> None:
        if self._on_change is not None:
            try:
                self._on_change(self, what)
            except Exception:
                logger.exception("change listener of server %r raised", self.name)

    # -- the supervisor task -------------------------------------------------------------------

    async def run(self) -> None:
        """The long-lived task: connect while enabled, restart with backoff, until ``shutdown()``."""
        self._output.loop = asyncio.get_running_loop()
        failures = 0  # failed starts or connections in a row, each retried after a longer wait
        try:
            while not self._shutdown:
                if self.config.error:
                    await self._wait_for_signal()
                    continue
                if not self._enabled:
                    failures = 0
                    if self.status is not ServerStatus.DISABLED:
                        self._set_status(ServerStatus.DISABLED)
                    await self._wait_for_signal()
                    continue
                if self._restart_requested:
                    failures = 0
                self._restart_requested = False
                missing = self.config.missing_program()
                if missing is not None:
                    # Retrying cannot help until the program is installed or the config changes.
                    self._fail(f"{missing}; not retried until Restart or a config change")
                    await self._wait_for_signal()
                    continue
                error = await self._connect_and_serve(retrying=failures > 0)
                if error is None or self._shutdown:
                    failures = 0
                    continue
                if not self._auto_restart or self._sign_in_required:
                    # Retrying cannot sign in: a person must (Sign in / `edgehost auth login`, which restarts).
                    self._fail(error)
                    if self._sign_in_required:
                        await self._wait_for_sign_in()
                    else:
                        await self._wait_for_signal()
                    continue
                stayed_up = (
                    self._ready_at is not None and anyio.current_time() - self._ready_at > BACKOFF_MAX_S
                )
                failures = 1 if stayed_up else failures + 1
                delay = min(BACKOFF_MAX_S, BACKOFF_INITIAL_S * 2 ** (failures - 1))
                self._fail(error, retry_in=delay)
                await self._wait_for_signal(delay)
        finally:
            self._client = None
            self._set_status(
                ServerStatus.STOPPED, self._reason if self.status is ServerStatus.FAILED else None
            )
            self.finished.set()

    async def _wait_for_sign_in(self) -> None:
        """Wait for a signal (Sign in here restarts the server), or for a sign-in made elsewhere: a
        terminal's `edgehost auth login` beside the app, noticed in the credential store."""
        signed_in_elsewhere = self._features.signed_in_elsewhere
        while True:
            await self._wait_for_signal(SIGN_IN_POLL_S if signed_in_elsewhere is not None else math.inf)
            if self._stop_requested() or signed_in_elsewhere is None:
                return
            try:
                if await anyio.to_thread.run_sync(signed_in_elsewhere, self.config):
                    return
            except Exception as exc:  # noqa: BLE001 - a store that cannot be read: keep waiting for a signal
                logger.info("server %r: cannot look for a sign-in made elsewhere: %s", self.name, exc)
                signed_in_elsewhere = None

    async def _wait_for_signal(self, seconds: float = math.inf) -> None:
        self._wake = anyio.Event()
        with anyio.move_on_after(seconds):
            await self._wake.wait()

    def _stop_requested(self) -> bool:
        return self._shutdown or not self._enabled or self._restart_requested

    async def _connect_and_serve(self, *, retrying: bool = False) -> str | None:
        """One connection from start to end. Returns why it ended abnormally, or None when asked to stop.

        ``retrying``: the server failed and this is the supervisor's own next attempt, so the server is
        shown failed (the reason, "retrying now") rather than starting until it is ready again.
        """
        if retrying and self._reason is not None:
            self._set_status(ServerStatus.FAILED, f"{self._reason} (retrying now)", time.time())
        else:
            self._set_status(ServerStatus.STARTING)
        self._ready_at = None
        self._sign_in_required = False
        pipe = StderrPipe(self.stderr)
        watch = ConnectionWatch(on_junk=self._on_junk, on_end=self._signal)
        self._pipe = pipe
        self._watch = watch
        self._wake = anyio.Event()
        phase = "failed to start"
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + self._startup_timeout) as startup:
                self._startup_scope = startup
                transport = open_transport(
                    self.config, pipe, watch, self._features.http_auth, self._features.in_process
                )
                async with self._new_client(transport) as client:
                    listing = await fetch_listing(client, self._on_unimplemented)
                    startup.deadline = math.inf
                    self._startup_scope = None
                    phase = "lost its connection"
                    self._client = client
                    self.listing = listing
                    self._ready_at = anyio.current_time()
                    self._set_status(ServerStatus.READY)
                    try:
                        return await self._serve(client, watch)
                    finally:
                        self._client = None
            if startup.cancelled_caught and not self._stop_requested():
                return f"server {self.name!r} did not complete its start within {self._startup_timeout:g} s"
            return None
        except Exception as exc:
            await pipe.drained(STDERR_DRAIN_S)
            self._sign_in_required = caused_by(exc, SignInRequired)
            reason = describe_failure(exc)
            if phase == "failed to start" and self.config.url:
                reason = connection_failure(exc, self.config.url) or reason
            return f"server {self.name!r} {phase}: {reason}"
        finally:
            self._startup_scope = None
            pipe.stop()

    async def _serve(self, client: Client, watch: ConnectionWatch) -> str | None:
        async with anyio.create_task_group() as tg:
            if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                tg.start_soon(self._listen_for_changes, client)
            try:
                outcome = await self._serve_until_stop(client, watch)
            finally:
                tg.cancel_scope.cancel()
        return outcome

    async def _listen_for_changes(self, client: Client) -> None:
        """2026-07-28 servers announce list changes on a subscriptions/listen stream, not notifications."""
        try:
            async with client.listen(
                tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
            ) as subscription:
                # Events are not replayed: whatever changed before the acknowledgement is fetched now.
                self._refresh_requested = True
                self._wake.set()
                async for _event in subscription:
                    self._refresh_requested = True
                    self._wake.set()
        except Exception as exc:
            self.log.append(f"no list-change events from this server: {describe_failure(exc)}")

    async def _serve_until_stop(self, client: Client, watch: ConnectionWatch) -> str | None:
        while True:
            if self._stop_requested():
                return None
            if watch.ended.is_set():
                await self._pipe_drained()
                if watch.failure is not None:
                    return f"server {self.name!r} lost its connection: {watch.failure}"
                return f"server {self.name!r} closed its connection (exited?)"
            if self._refresh_requested:
                self._refresh_requested = False
                await self._refresh(client)
                continue
            self._wake = anyio.Event()
            if watch.ended.is_set():  # ended while we swapped events
                continue
            await self._wake.wait()

    async def _pipe_drained(self) -> None:
        if self._pipe is not None:
            await self._pipe.drained(STDERR_DRAIN_S)

    def _new_client(self, transport: Any) -> Client:
        return Client(
            transport,
            mode="auto",
            cache=None,
            client_info=types.Implementation(name="edgehost", version=__version__),
            sampling_callback=self._on_sampling,
            elicitation_callback=self._on_elicitation,
            list_roots_callback=self._on_list_roots,
            logging_callback=self._on_log,
            message_handler=self._on_message,
            log_level="info",
            # MCP Apps: the web page renders a tool's view (web/static/views.js), the window opens it there.
            extensions=[advertise(UI_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]})],
        )

    async def _refresh(self, client: Client) -> None:
        try:
            with anyio.fail_after(self.config.timeout):
                listing = await fetch_listing(client, self._on_unimplemented)
        except (MCPError, ValidationError, TimeoutError) as exc:
            self.log.append(f"refreshing the listing after list_changed failed: {describe_failure(exc)}")
            return
        self.listing = listing
        self._emit("listing")

    # -- client features ------------------------------------------------------------------------

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self._update_listeners.updated(str(message.params.uri))
            return
        if isinstance(
            message,
            types.ToolListChangedNotification
            | types.ResourceListChangedNotification
            | types.PromptListChangedNotification,
        ):
            self._refresh_requested = True
            self._wake.set()

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        source = f" {params.logger}" if params.logger else ""
        data = params.data if isinstance(params.data, str) else repr(params.data)
        self.log.append(f"[{params.level}]{source}: {data}")

    def _on_unimplemented(self, method: str) -> None:
        if method not in self._unimplemented:
            self._unimplemented.add(method)
            said = f"the server does not implement {method}, which its capabilities promise: taken as empty"
            logger.info("server %r: %s", self.name, said)
            self.log.append(said)

    def _on_junk(self, exc: Exception) -> None:
        self.junk_lines += 1
        self.log.append(f"ignored a line that is not JSON-RPC: {str(exc)[:200]}")

    async def _on_list_roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=roots_from_paths(self.config.roots))

    async def _on_elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        return await self._waiting_on_a_person(lambda: self._features.elicitation(self.name, params))

    async def _on_sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        return await self._waiting_on_a_person(lambda: self._features.sampling(self.name, params))

    async def _waiting_on_a_person(self, answer: Callable[[], Awaitable[_T]]) -> _T | types.ErrorData:
        """Run a handler that may ask the user; request deadlines of this server stop meanwhile."""
        self._person_waits += 1
        for request in self._requests:
            request.pause()
        try:
            return await answer()
        except Exception as exc:
            logger.exception("client feature handler for server %r raised", self.name)
            return types.ErrorData(code=types.INTERNAL_ERROR, message=f"EdgeHost could not answer: {exc}")
        finally:
            self._person_waits -= 1
            if not self._person_waits:
                for request in self._requests:
                    request.resume()
