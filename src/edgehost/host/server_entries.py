"""One server's entry in the servers file as the server form edits it: the entry as written (``${VAR}``,
never the secret), the entry a filled form describes, and the check of that entry by the real config
loader before anything is saved. Qt-free: the window's form (ui/server_form.py) only lays it out."""

from __future__ import annotations

import json
import shlex
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from edgehost.errors import ConfigError
from edgehost.mcp.config import ServerConfig, builtin_fixed_args, parse_servers_file, server_to_entry

__all__ = ["builtin_own_args", "entry_from_form", "validate_entry", "written_entry"]


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _pairs(text: str, separator: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for line in _lines(text):
        key, found, value = line.partition(separator)
        if not found:
            raise ConfigError(f"“{line}” should look like KEY{separator}VALUE")
        pairs[key.strip()] = value.strip()
    return pairs


# What the form edits; an entry's other keys (cwd, timeout, allowedTools, OAuth, other hosts' own) are
# kept as the file has them, apart from those of the other kind of transport when it changes.
_FORM_KEYS = {"type", "command", "args", "env", "url", "headers"}
_STDIO_ONLY = {"cwd"}
_REMOTE_ONLY = {"clientId", "clientSecret", "oauthGrant", "callbackPort", "clientMetadataUrl"}


def written_entry(server: ServerConfig, builtins: Mapping[str, ServerConfig]) -> dict[str, Any]:
    """The server's entry as the servers file has it: ``${VAR}`` where the user wrote one, never the
    secret it stands for."""
    entry = server_to_entry(server, builtins.get(server.name))
    return dict(entry) if isinstance(entry, dict) else {}


def entry_from_form(
    transport: str,
    command: str,
    args: str,
    env: str,
    url: str,
    headers: str,
    base: Mapping[str, Any] | None = None,
    *,
    builtin: bool = False,
) -> dict[str, Any]:
    """The Claude Desktop / VS Code entry the form describes, over ``base`` (the entry edited, as
    written_entry gives it) whose other settings stay. A ``builtin`` server's entry has no command (it
    is this installation's interpreter) and ``args`` holds only the options after its own.
    Raises ConfigError for a malformed line."""
    base = base or {}
    dropped = _FORM_KEYS | (_REMOTE_ONLY if transport == "stdio" else _STDIO_ONLY)
    kept = {key: value for key, value in base.items() if key not in dropped}
    if builtin:
        entry: dict[str, Any] = {"args": shlex.split(args)} if args.strip() else {}
        if env.strip():
            entry["env"] = _pairs(env, "=")
        return entry | kept
    if transport == "stdio":
        entry = {"type": "stdio"} if "type" in base else {}  # VS Code writes it
        entry |= {"command": command.strip(), "args": shlex.split(args)}
        if env.strip():
            entry["env"] = _pairs(env, "=")
        return entry | kept
    entry = {"type": transport, "url": url.strip()}
    if headers.strip():
        entry["headers"] = _pairs(headers, ":")
    return entry | kept


def validate_entry(name: str, entry: dict[str, Any], builtins: dict[str, ServerConfig]) -> ServerConfig:
    """Run one entry through the real config loader. Raises ConfigError with the loader's message."""
    with tempfile.TemporaryDirectory(prefix="edgehost-form-") as folder:
        path = Path(folder) / "servers.json"
        path.write_text(json.dumps({"mcpServers": {name: entry}}), encoding="utf-8")
        parsed = parse_servers_file(path, expand_variables=False, builtins=builtins)
    server = parsed.servers[0]
    if server.error is not None:
        raise ConfigError(server.error.replace(str(path), "form"))
    missing = None if "${" in (server.command or "") else server.missing_program()
    if missing is not None:
        raise ConfigError(f"{missing}: install it or give its full path")
    return server


def builtin_own_args(server: ServerConfig, builtins: Mapping[str, ServerConfig]) -> list[str]:
    """The arguments of a built-in server that are EdgeHost's own (``-m edgehost serve NAME``), not
    options the user gave it."""
    return server.args[: builtin_fixed_args(builtins.get(server.name, server))]
