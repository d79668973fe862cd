"""Server configuration: the data model, loading, saving, and the environment a stdio server gets.

Accepted files (JSON may have comments and trailing commas, as VS Code writes them):

- Claude Desktop / Cursor / Claude Code: ``{"mcpServers": {name: {command, args, env, cwd} | {url, type, headers}}}``
- VS Code: ``{"servers": {name: {type, ...}}, "inputs": [...]}`` (also nested in ``"mcp"`` as in settings.json)
- TOML: ``[[servers]]`` tables with ``name`` (or ``[mcp_servers.NAME]`` / ``[servers.NAME]`` tables)

Per server, besides the connection: ``enabled`` (or ``disabled``), ``timeout`` (seconds per call),
``allowedTools`` / ``excludedTools``, ``roots``, ``trusted``, ``maxConcurrentCalls``; for OAuth on an
http/sse server ``clientId``, ``clientSecret``, ``oauthGrant``, ``callbackPort``,
``clientMetadataUrl`` (camelCase or snake_case). Strings may
use ``${VAR}``, ``${VAR:-default}``, ``${env:VAR}`` and ``${input:id}`` (from EDGEHOST_INPUT_<ID>).

Changing the file as the user wrote it (edit, import, merge) is ``edgehost.mcp.config.edits``.
"""

from __future__ import annotations

from edgehost.mcp.config._entry import builtin_fixed_args
from edgehost.mcp.config._expand import InputSpec, input_env_name
from edgehost.mcp.config._load_save import (
    BUILT_INS_ONLY,
    BUILTIN_SERVER_NAMES,
    SAFE_ENV_VARS,
    builtin_servers,
    edgehost_command,
    load_servers_config,
    parse_servers_file,
    save_servers_config,
    server_to_entry,
    servers_config_to_json,
    stdio_environment,
)
from edgehost.mcp.config._model import (
    DEFAULT_CALL_TIMEOUT_S,
    MIN_SECRET_CHARS,
    SERVER_NAME_RULE,
    ServerConfig,
    ServersConfig,
    Transport,
    looks_like_secret_name,
    server_name_like,
    server_name_problem,
)
from edgehost.redaction import redact

__all__ = [
    "BUILTIN_SERVER_NAMES",
    "BUILT_INS_ONLY",
    "DEFAULT_CALL_TIMEOUT_S",
    "MIN_SECRET_CHARS",
    "SAFE_ENV_VARS",
    "SERVER_NAME_RULE",
    "InputSpec",
    "ServerConfig",
    "ServersConfig",
    "Transport",
    "builtin_fixed_args",
    "builtin_servers",
    "edgehost_command",
    "input_env_name",
    "load_servers_config",
    "looks_like_secret_name",
    "parse_servers_file",
    "redact",
    "save_servers_config",
    "server_to_entry",
    "server_name_like",
    "server_name_problem",
    "servers_config_to_json",
    "stdio_environment",
]
