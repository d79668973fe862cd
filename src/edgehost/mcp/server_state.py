"""What a server is doing, as the CLI, the window and the web page show it (mcp/supervisor.py keeps it)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

__all__ = ["ServerState", "ServerStatus"]


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
        }
