"""What a server is doing, as the CLI, the window and the web page show it (mcp/supervisor.py keeps it)."""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

__all__ = ["ServerState", "ServerStatus", "retry_words"]


class ServerStatus(str, enum.Enum):
    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"
    STOPPED = "stopped"
    DISABLED = "disabled"


@dataclass(frozen=True)
class ServerState:
    """A snapshot of one server for display (CLI, GUI)."""

    name: str
    status: ServerStatus
    error: str | None
    transport: str
    protocol_version: str | None
    server_name: str | None
    server_version: str | None
    instructions: str | None
    capabilities: dict[str, Any]
    tools: int
    resources: int
    resource_templates: int
    prompts: int
    stderr_tail: tuple[str, ...]
    log_tail: tuple[str, ...]
    sign_in_required: bool = False  # the last connection stopped because a person must sign in
    # A failed server that its supervisor starts again by itself: when (seconds since the epoch), in the
    # past while that attempt runs; None when only a person (Restart, a config change) starts it again.
    retry_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status.value,
            "error": self.error,
            "transport": self.transport,
            "protocolVersion": self.protocol_version,
            "serverInfo": {"name": self.server_name, "version": self.server_version}
            if self.server_name
            else None,
            "instructions": self.instructions,
            "capabilities": self.capabilities,
            "tools": self.tools,
            "resources": self.resources,
            "resourceTemplates": self.resource_templates,
            "prompts": self.prompts,
            "stderrTail": list(self.stderr_tail),
            "signInRequired": self.sign_in_required,
            "retryAt": datetime.fromtimestamp(self.retry_at, timezone.utc).isoformat()
            if self.retry_at is not None
            else None,
        }


def retry_words(retry_at: float) -> str:
    """ "retrying at 14:03:12" (local time), or "retrying now" once that time has come."""
    if retry_at <= time.time():
        return "retrying now"
    return f"retrying at {time.strftime('%H:%M:%S', time.localtime(retry_at))}"
