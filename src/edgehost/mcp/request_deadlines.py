"""The deadline of one MCP request in flight, which progress extends and waiting on a person pauses.

``ServerSupervisor.request`` (mcp/supervisor.py) runs each request in a cancel scope of its own; these
move that scope's deadline: a progress notification (or a task's new state) pushes it back by the
request's timeout, and while a client-feature handler waits on the user it is off.
"""

from __future__ import annotations

import math

import anyio

from edgehost.mcp.client_features import ProgressFnT

__all__ = ["ActiveRequest", "Progress"]


class ActiveRequest:
    """The deadline of one request in flight: progress extends it; waiting on a person pauses it."""

    def __init__(self, scope: anyio.CancelScope, timeout: float) -> None:
        self.scope = scope
        self.timeout = timeout

    def extend(self) -> None:
        if self.scope.deadline != math.inf:
            self.scope.deadline = anyio.current_time() + self.timeout

    def pause(self) -> None:
        self.scope.deadline = math.inf

    def resume(self) -> None:
        self.scope.deadline = anyio.current_time() + self.timeout


class Progress:
    """The progress callback of one request: each notification extends its deadline, then is passed on."""

    def __init__(self, active: ActiveRequest, forward: ProgressFnT | None) -> None:
        self.active = active
        self._forward = forward

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.active.extend()
        if self._forward is not None:
            await self._forward(progress, total, message)
