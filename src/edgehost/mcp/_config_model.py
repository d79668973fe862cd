"""Server configuration: the data model (re-exported by edgehost.mcp.config)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = ["DEFAULT_CALL_TIMEOUT_S", "ServerConfig", "ServersConfig", "Transport"]

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
    # Keys of the entry this host does not use (another host's settings), written back on save.
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # {json key: (value as written, value as loaded)}: saving writes "${TOKEN}" back instead of the
    # secret it expanded to, as long as the value was not changed since loading.
    as_written: dict[str, tuple[Any, Any]] = field(default_factory=dict, repr=False, compare=False)
    # The entry exactly as written when it failed to load (``error`` set): saved back unchanged.
    unparsed: Any = field(default=None, repr=False, compare=False)

    def secret_values(self) -> set[str]:
        """Values that must never reach a log or the history (env values and header values)."""
        return {v for v in [*self.env.values(), *self.headers.values()] if v and len(v) >= 4}


@dataclass
class ServersConfig:
    servers: list[ServerConfig] = field(default_factory=list)
    approval: list[dict[str, Any]] = field(default_factory=list)  # raw user approval rules
    path: Path | None = None
    # The built-in servers as they are by default: saving writes only how a built-in differs.
    builtin_defaults: dict[str, ServerConfig] = field(default_factory=dict, repr=False)
    # Other top-level keys of the file (e.g. VS Code "inputs"), written back on save.
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    def get(self, name: str) -> ServerConfig | None:
        return next((s for s in self.servers if s.name == name), None)

    def secret_values(self) -> set[str]:
        values: set[str] = set()
        for server in self.servers:
            values |= server.secret_values()
        return values
