"""Server configuration: the data model (loaders are added below it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Transport = Literal["stdio", "http", "sse"]

DEFAULT_CALL_TIMEOUT_S = 60.0  # per call; a server's progress notifications extend it


@dataclass
class ServerConfig:
    name: str
    transport: Transport = "stdio"
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    enabled: bool = True
    timeout: float = DEFAULT_CALL_TIMEOUT_S
    allowed_tools: list[str] | None = None  # None = all
    excluded_tools: list[str] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)
    trusted: bool = False
    builtin: bool = False  # one of EdgeHost's own servers
    # Set when this entry failed validation: the server is shown failed with this message and the
    # others start as usual.
    error: str | None = None
    source: str | None = None  # "file:line" of the entry, for messages

    def secret_values(self) -> set[str]:
        """Values that must never reach a log or the history (env values and header values)."""
        return {v for v in [*self.env.values(), *self.headers.values()] if v and len(v) >= 4}


@dataclass
class ServersConfig:
    servers: list[ServerConfig] = field(default_factory=list)
    approval: list[dict[str, Any]] = field(default_factory=list)  # raw user approval rules
    path: Path | None = None

    def get(self, name: str) -> ServerConfig | None:
        return next((s for s in self.servers if s.name == name), None)

    def secret_values(self) -> set[str]:
        values: set[str] = set()
        for server in self.servers:
            values |= server.secret_values()
        return values
