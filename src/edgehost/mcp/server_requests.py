"""The requests a server's supervisor sends for any task (tool calls, resource reads and updates,
prompts): each on the connection the supervisor keeps, with a deadline that progress extends and that
stops while a person answers the server; failures said as the server's (mcp/errors.py).

``ServerSupervisor`` (mcp/supervisor.py) inherits it; the connection's lifetime stays there.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import mcp_types as types
from mcp.client import Client
from mcp.client.subscriptions import SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from edgehost.mcp._failures import describe_failure
from edgehost.mcp._stderr import LineRing
from edgehost.mcp._transport import ConnectionWatch
from edgehost.mcp.auth import SignInRequired
from edgehost.mcp.catalog import ServerListing
from edgehost.mcp.client_features import ProgressFnT
from edgehost.mcp.config import ServerConfig
from edgehost.mcp.errors import ServerRequestFailed, ServerUnavailable, ToolTimeout
from edgehost.mcp.request_deadlines import ActiveRequest, Progress
from edgehost.mcp.resource_updates import UpdateListeners, listened_updates, send_subscription
from edgehost.mcp.server_state import ServerStatus
from edgehost.mcp.tasks import TaskCancelled, TaskState, call_as_task, runs_as_task

__all__ = ["ServerRequests"]

STDERR_TAIL_IN_ERRORS = 10
# A request whose connection closed under it waits this long to learn why (a sign-in needed).
CONNECTION_END_WAIT_S = 2.0
# Leaving a resource's updates: how long the unsubscribe may take before the watcher goes anyway.
UNSUBSCRIBE_WAIT_S = 2.0

_T = TypeVar("_T")


class ServerRequests:
    """The request side of ServerSupervisor, which sets these attributes."""

    name: str
    config: ServerConfig
    status: ServerStatus
    error: str | None
    listing: ServerListing
    stderr: LineRing
    _client: Client | None
    _watch: ConnectionWatch | None
    _requests: set[ActiveRequest]
    _person_waits: int
    _call_slots: asyncio.Semaphore | None
    _status_changed: anyio.Event
    _sign_in_required: bool
    _update_listeners: UpdateListeners

    if TYPE_CHECKING:

        async def _pipe_drained(self) -> None: ...

    async def _ready_client(self, seconds: float) -> Client:
        """The connected client; waits (at most ``seconds``) while the server is starting.

        Raises ServerUnavailable when the server is not ready.
        """
        if self._client is not None and self.status is ServerStatus.READY and not self._ending():
            return self._client
        with anyio.move_on_after(seconds):
            while self.status is ServerStatus.STARTING or self._ending():
                await self._status_changed.wait()
        client = self._client
        if client is None or self.status is not ServerStatus.READY:
            # The error already names the server and says what happened to it.
            raise self._unavailable(self.error or f"server {self.name!r} is {self.status.value}")
        return client

    async def _ended_for_sign_in(self) -> bool:
        """Whether the connection a request was on ended because the server wants a sign-in (its
        tokens were revoked or expired for good); waits a moment for the supervisor to learn why."""
        with anyio.move_on_after(CONNECTION_END_WAIT_S):
            while self.status is ServerStatus.READY:
                await self._status_changed.wait()
        return self._sign_in_required

    def _ending(self) -> bool:
        """The connection ended but the supervisor has not yet taken note (it is about to)."""
        return self.status is ServerStatus.READY and self._watch is not None and self._watch.ended.is_set()

    def _unavailable(self, message: str) -> ServerUnavailable:
        return ServerUnavailable(
            message, server=self.name, stderr_tail=self.stderr.tail(STDERR_TAIL_IN_ERRORS)
        )

    async def request(
        self,
        what: str,
        send: Callable[[Client, Progress], Awaitable[_T]],
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - progress extends it; see request()
        progress: ProgressFnT | None = None,
    ) -> _T:
        """Send one request (``what`` names it in errors) with a deadline that progress extends.

        The deadline is ours, not a caller's ``fail_after``: progress notifications push it back and
        it stops while a client-feature handler waits on the user.

        Raises ServerUnavailable (not connected, or dropped meanwhile), ToolTimeout (the request was
        cancelled; the server keeps running), ServerRequestFailed (JSON-RPC error or invalid result).
        """
        limit = timeout if timeout is not None else self.config.timeout
        client = await self._ready_client(limit)

        with anyio.CancelScope() as scope:
            active = ActiveRequest(scope, limit)

            on_progress = Progress(active, progress)

            if self._person_waits:
                active.pause()
            else:
                active.resume()
            self._requests.add(active)
            try:
                return await send(client, on_progress)
            except MCPError as exc:
                if exc.code == CONNECTION_CLOSED:
                    await self._pipe_drained()
                    if await self._ended_for_sign_in():
                        raise self._unavailable(
                            f"server {self.name!r} stopped {what}: {SignInRequired(self.name)}"
                        ) from None
                    raise self._unavailable(
                        f"server {self.name!r} dropped its connection during {what}"
                    ) from None
                raise ServerRequestFailed(
                    f"server {self.name!r} answered {what} with error {exc.code}: {exc.error.message}",
                    server=self.name,
                    code=exc.code,
                    reason=exc.error.message,
                ) from None
            except ValidationError as exc:
                raise ServerRequestFailed(
                    f"server {self.name!r} sent an invalid result for {what}: {exc.errors()[:1]}",
                    server=self.name,
                ) from None
            except RuntimeError as exc:  # the client was closed under us
                raise self._unavailable(f"server {self.name!r} is not connected ({exc})") from None
            finally:
                self._requests.discard(active)
        raise ToolTimeout(
            f"{what} on server {self.name!r} timed out after {limit:g} s and was cancelled",
            server=self.name,
            timeout=limit,
        )

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any] | None,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - progress extends it; see request()
        progress: ProgressFnT | None = None,
        on_task: Callable[[TaskState], None] | None = None,
    ) -> types.CallToolResult:
        """Call a tool by its original name (waiting for a slot under maxConcurrentCalls). Raises as
        ``request`` does.

        A tool that runs as an MCP Task (mcp/tasks.py) reports its states to ``on_task``; a new state
        extends the deadline as progress does, and giving up the wait cancels the task."""
        if self._call_slots is not None:
            async with self._call_slots:
                return await self._call_tool(tool, arguments, timeout, progress, on_task)
        return await self._call_tool(tool, arguments, timeout, progress, on_task)

    async def _call_tool(
        self,
        tool: str,
        arguments: dict[str, Any] | None,
        timeout: float | None,  # noqa: ASYNC109 - see request()
        progress: ProgressFnT | None,
        on_task: Callable[[TaskState], None] | None,
    ) -> types.CallToolResult:
        async def send(client: Client, on_progress: Progress) -> types.CallToolResult:
            # Decided on the connection the call goes out on (the listing and capabilities are its own),
            # so a call made while the server starts is a task as much as one made later.
            listed = next((t for t in self.listing.tools if t.name == tool), None)
            if not runs_as_task(listed, client.server_capabilities):
                return await client.call_tool(tool, arguments, progress_callback=on_progress)

            def on_state(state: TaskState) -> None:
                on_progress.active.extend()  # a new state is progress: it pushes the deadline back
                if on_task is not None:
                    on_task(state)

            try:
                return await call_as_task(client.session, tool, arguments, on_state)
            except TaskCancelled as exc:
                raise ServerRequestFailed(f"server {self.name!r}: {exc}", server=self.name) from None

        return await self.request(f"the call to {tool!r}", send, timeout=timeout, progress=progress)

    async def read_resource(
        self,
        uri: str,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - see request()
    ) -> types.ReadResourceResult:
        return await self.request(
            f"reading {uri!r}", lambda client, _: client.read_resource(uri), timeout=timeout
        )

    @contextlib.asynccontextmanager
    async def watch_resource(self, uri: str) -> AsyncIterator[AsyncIterator[str]]:
        """Updates of ``uri`` while the block runs: the iterator yields the URI once per update the
        server announces, and ends when the connection does (ServerUnavailable is raised then on a
        2026-07-28 connection). Raises ServerUnavailable, or ServerRequestFailed when the server does
        not send updates of its resources or refuses this one."""
        client = await self._ready_client(self.config.timeout)

        def refused(why: str = "") -> ServerRequestFailed:
            return ServerRequestFailed(
                f"server {self.name!r} does not send updates of {uri!r}{why}", server=self.name
            )

        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            listening = False
            try:
                async with listened_updates(client, uri) as updates:
                    if updates is None:
                        raise refused()
                    listening = True
                    yield updates
            except (SubscriptionLost, MCPError) as exc:
                if not listening:  # the server refused the stream (it may not offer one at all)
                    raise refused(f" ({describe_failure(exc)})") from None
                raise self._unavailable(
                    f"server {self.name!r} stopped sending updates of {uri!r}: {describe_failure(exc)}"
                ) from None
            return
        resources = client.server_capabilities.resources
        if resources is None or not resources.subscribe:
            raise refused()
        updates = self._update_listeners.add(uri)
        try:
            await self.request(
                f"subscribing to {uri!r}", lambda c, _: send_subscription(c, uri, subscribe=True)
            )
            yield updates
        finally:
            if self._update_listeners.remove(uri, updates) and self._client is client:
                # The server forgets it with the connection anyway: a failure here is left alone.
                with (
                    anyio.CancelScope(shield=True),
                    anyio.move_on_after(UNSUBSCRIBE_WAIT_S),
                    contextlib.suppress(Exception),
                ):
                    await send_subscription(client, uri, subscribe=False)

    async def get_prompt(
        self,
        prompt: str,
        arguments: dict[str, str] | None,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - progress extends it; see request()
    ) -> types.GetPromptResult:
        return await self.request(
            f"getting prompt {prompt!r}",
            lambda client, _: client.get_prompt(prompt, arguments),
            timeout=timeout,
        )
