"""Loading the servers file over the built-in servers, saving it back, and the environment a stdio
server gets (all re-exported by edgehost.mcp.config)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from edgehost.errors import ConfigError
from edgehost.mcp.config._entry import EntryContext, builtin_fixed_args, server_from_entry
from edgehost.mcp.config._expand import InputSpec
from edgehost.mcp.config._model import ServerConfig, ServersConfig
from edgehost.mcp.config._text import KeyPath, ParsedFile, parse_servers_text, read_servers_file
from edgehost.mcp.config._writer import (
    INPUTS_KEY,
    SERVERS_KEY,
    current_text,
    plain_json,
    servers_file_text,
)
from edgehost.paths import SYSFS_ROOT_ENV, Paths, write_atomically
from edgehost.programs import search_path

__all__ = [
    "BUILTIN_SERVER_NAMES",
    "BUILT_INS_ONLY",
    "SAFE_ENV_VARS",
    "builtin_servers",
    "edgehost_command",
    "load_servers_config",
    "parse_servers_file",
    "save_servers_config",
    "server_to_entry",
    "servers_config_to_json",
    "stdio_environment",
]

BUILTIN_SERVER_NAMES = ("board", "files")

# What a stdio server inherits from our environment; everything else it gets from its own "env".
SAFE_ENV_VARS = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "XDG_RUNTIME_DIR",
    # Windows needs these to start most programs at all.
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "PATHEXT",
    "TEMP",
    # The machine's way to the network: a server that fetches its package on first start (npx, uvx,
    # docker) fails without the proxy or the CA bundle of a network that intercepts TLS.
    *(
        name
        for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
        for name in (proxy, proxy.lower())
    ),
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    # Package mirrors a board's owner set for the same reason.
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_EXTRA_INDEX_URL",
    "PIP_INDEX_URL",
    "NPM_CONFIG_REGISTRY",
    "npm_config_registry",
)

_SERVER_TABLES = ("mcpServers", "mcp_servers", "servers")


# --- built-in servers ---------------------------------------------------------------------------


def edgehost_command(*args: str) -> tuple[str, list[str]]:
    """Command and args that run this EdgeHost with ``args``: ``python -m edgehost ...``, or the
    bundle's own executable when frozen by PyInstaller."""
    if getattr(sys, "frozen", False):
        return sys.executable, list(args)
    return sys.executable, ["-m", "edgehost", *args]


def builtin_servers(paths: Paths) -> list[ServerConfig]:
    """EdgeHost's own servers as they are by default: ``board`` (told the config folder, where the
    user's own board profiles are) and ``files`` (rooted in paths.files_root)."""
    servers = []
    options_by_name = {
        "board": ["--config-dir", str(paths.config_dir)],
        "files": ["--root", str(paths.files_root)],
    }
    for name, options in options_by_name.items():
        command, args = edgehost_command("serve", name, *options)
        servers.append(ServerConfig(name=name, command=command, args=args, trusted=True, builtin=True))
    # A stdio server gets only the safe variables of our environment: the board server is told which
    # tree stands in for / so that it reads the board that detection found.
    if fake_root := os.environ.get(SYSFS_ROOT_ENV):
        servers[0].env = {SYSFS_ROOT_ENV: fake_root}
    return servers


# --- loading ------------------------------------------------------------------------------------


# What the app (and every command that runs servers) does when the servers file cannot be read.
BUILT_INS_ONLY = "only the built-in servers run until it is fixed"


def load_servers_config(
    paths: Paths, *, environ: Mapping[str, str] | None = None, fall_back: bool = False
) -> ServersConfig:
    """The servers to run: the built-in ones, overridden or adjusted by ``paths.servers_file`` (if it exists).

    ``environ`` (default os.environ) provides ``${VAR}`` values. Raises ConfigError (file, line,
    column) when the file cannot be read or parsed or its structure is wrong; with ``fall_back`` the
    built-in servers are returned instead, with the error in ``file_error`` (what the app does: one
    missing comma must not take the model, the built-in servers and the history with it). A bad server
    entry does not raise: that server has ``error`` set (file, line, field) and the others load normally.
    """
    builtins = builtin_servers(paths)
    defaults = {server.name: server for server in builtins}
    path = paths.servers_file
    try:
        if not path.exists():
            if paths.explicit_config is None:  # none written yet: the built-in servers alone
                return ServersConfig(servers=builtins, path=path, builtin_defaults=defaults)
            raise ConfigError(f"{path}: no such file (given with --config)")
        config = parse_servers_file(path, environ=environ, builtins=defaults)
    except ConfigError as exc:
        if not fall_back:
            raise
        return ServersConfig(servers=builtins, path=path, builtin_defaults=defaults, file_error=str(exc))
    overridden = {server.name: server for server in config.servers if server.name in defaults}
    others = [server for server in config.servers if server.name not in defaults]
    config.servers = [overridden.get(server.name, server) for server in builtins] + others
    config.builtin_defaults = defaults
    return config


def parse_servers_file(
    path: Path,
    *,
    environ: Mapping[str, str] | None = None,
    expand_variables: bool = True,
    builtins: Mapping[str, ServerConfig] | None = None,
) -> ServersConfig:
    """The servers defined in one file (no built-ins added).

    With ``expand_variables=False`` values stay as written (``${TOKEN}``), which is what importing
    another host's file wants. Raises ConfigError as load_servers_config does.
    """
    parsed = read_servers_file(path)
    tables, inputs_at = _server_tables(parsed)
    inputs = _inputs(parsed, inputs_at)
    ctx = EntryContext(
        parsed=parsed,
        environ=os.environ if environ is None else environ,
        inputs=inputs,
        expand_variables=expand_variables,
    )
    servers: list[ServerConfig] = []
    seen: dict[str, ServerConfig] = {}
    for name, raw, key_path in _entries(parsed, tables):
        if name is None:
            where = f"{'.'.join(str(k) for k in key_path[:-1])}[{key_path[-1]}]"
            problem = ConfigError(
                f'server entry {where} needs a "name"',
                path=parsed.path,
                line=parsed.line_of(key_path),
                field="name",
            )
            servers.append(ServerConfig(name=where, error=str(problem), source=parsed.path, unparsed=raw))
            continue
        server = server_from_entry(name, raw, key_path, ctx, (builtins or {}).get(name))
        if key_path in parsed.repeated and server.error is None:
            lines = " and ".join(str(n) for n in parsed.repeated[key_path])
            server.error = str(
                ConfigError(
                    f"server {name!r} is written twice in this object (lines {lines}); only the last one would count",
                    path=parsed.path,
                    line=parsed.line_of(key_path),
                )
            )
            server.unparsed = raw  # saved back as written (the one JSON keeps), as any entry that failed
        if name in seen and server.error is None:
            line = parsed.line_of(key_path)
            first = seen[name].source or parsed.path
            server.error = str(
                ConfigError(
                    f"server {name!r} is defined twice (first at {first})", path=parsed.path, line=line
                )
            )
        seen.setdefault(name, server)
        servers.append(server)
    approval = _approval(parsed)
    extra = {k: v for k, v in parsed.data.items() if k not in (*_SERVER_TABLES, "mcp", "approval")}
    nested_inputs = _lookup(parsed.data, inputs_at) if len(inputs_at) > 1 else None
    if isinstance(nested_inputs, list):
        extra[INPUTS_KEY] = nested_inputs  # settings.json's mcp.inputs: written back there (the writer)
    return ServersConfig(servers=servers, approval=approval, path=path, extra=extra, inputs=inputs)


def _server_tables(parsed: ParsedFile) -> tuple[list[KeyPath], KeyPath]:
    """Key paths of the tables that hold servers, and of the VS Code "inputs" list."""
    data = parsed.data
    prefix: KeyPath = ()
    nested = data.get("mcp")
    if isinstance(nested, dict) and not any(key in data for key in _SERVER_TABLES):
        data, prefix = nested, ("mcp",)  # VS Code settings.json
    return [(*prefix, key) for key in _SERVER_TABLES if key in data], (*prefix, "inputs")


def _lookup(data: Any, key_path: KeyPath) -> Any:
    for key in key_path:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _entries(parsed: ParsedFile, tables: list[KeyPath]) -> Iterator[tuple[str | None, Any, KeyPath]]:
    """(name, entry, key path) of every server entry; name is None for a list entry without one."""
    for table_path in tables:
        table = _lookup(parsed.data, table_path)
        field = ".".join(str(k) for k in table_path)
        if isinstance(table, dict):
            for name, raw in table.items():
                yield str(name), raw, (*table_path, name)
        elif isinstance(table, list):
            for index, raw in enumerate(table):
                name = raw.get("name") if isinstance(raw, dict) else None
                yield name if isinstance(name, str) and name.strip() else None, raw, (*table_path, index)
        else:
            raise ConfigError(
                f"{field!r} must be an object of servers (or a list of tables with a name), "
                f"not {type(table).__name__}",
                path=parsed.path,
                line=parsed.line_of(table_path),
                field=field,
            )


def _inputs(parsed: ParsedFile, key_path: KeyPath) -> dict[str, InputSpec]:
    raw = _lookup(parsed.data, key_path)
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise ConfigError(
            "must be a list of inputs", path=parsed.path, line=parsed.line_of(key_path), field="inputs"
        )
    inputs: dict[str, InputSpec] = {}
    for item in raw:
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            inputs[item["id"]] = InputSpec(
                id=item["id"],
                description=str(item.get("description") or ""),
                password=bool(item.get("password")),
                default=str(item["default"]) if item.get("default") is not None else None,
                options=tuple(
                    str(o.get("value") if isinstance(o, dict) else o)
                    for o in item.get("options") or ()
                    if item.get("type") == "pickString"
                ),
            )
    return inputs


def _approval(parsed: ParsedFile) -> list[dict[str, Any]]:
    raw = parsed.data.get("approval")
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(rule, dict) for rule in raw):
        raise ConfigError(
            "must be a list of rules (objects/tables)",
            path=parsed.path,
            line=parsed.line_of(("approval",)),
            field="approval",
        )
    return list(raw)


# --- the environment of a stdio server ----------------------------------------------------------


def stdio_environment(server: ServerConfig, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a stdio server: SAFE_ENV_VARS from ``environ`` (default os.environ)
    plus the server's own ``env``. Nothing else of ours (other servers' secrets, API keys) reaches it."""
    source = os.environ if environ is None else environ
    base = {key: source[key] for key in SAFE_ENV_VARS if key in source and not source[key].startswith("()")}
    base["PATH"] = search_path(base.get("PATH", os.defpath))  # EdgeHost's own uvx found too
    return {**base, **server.env}


# --- saving -------------------------------------------------------------------------------------


def server_to_entry(server: ServerConfig, default: ServerConfig | None = None) -> dict[str, Any] | None:
    """The Claude Desktop ``mcpServers`` entry of a server; ``None`` for a built-in left as it is.

    A built-in (``default`` given and ``server.builtin``) is written as the few keys that differ from
    its default, never its command: that is the path of this installation's interpreter. Values loaded
    from ``${VAR}`` are written as ``${VAR}`` unless they were changed.
    """
    if server.error is not None:
        return server.unparsed  # kept as written, so fixing the file by hand loses nothing
    if server.builtin and default is not None:
        return _builtin_adjustments(server, default)
    entry: dict[str, Any] = {}
    if server.transport == "stdio":
        entry["command"] = server.command
        if server.args:
            entry["args"] = list(server.args)
        if server.env:
            entry["env"] = dict(server.env)
        if server.cwd:
            entry["cwd"] = server.cwd
    else:
        entry["type"] = server.transport
        entry["url"] = server.url
        if server.headers:
            entry["headers"] = dict(server.headers)
        entry.update(_oauth_settings(server))
    entry.update(_common_settings(server, ServerConfig(name=server.name)))
    for key, (written, loaded) in server.as_written.items():
        if key in entry and entry[key] == loaded:
            entry[key] = written
    return {**server.extra, **entry}


def _oauth_settings(server: ServerConfig) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if server.client_id:
        entry["clientId"] = server.client_id
    if server.client_secret:
        entry["clientSecret"] = server.client_secret  # written back as its ${VAR} (as_written)
    if server.oauth_grant != "auto":
        entry["oauthGrant"] = server.oauth_grant
    if server.callback_port:
        entry["callbackPort"] = server.callback_port
    if server.client_metadata_url:
        entry["clientMetadataUrl"] = server.client_metadata_url
    return entry


def _common_settings(server: ServerConfig, default: ServerConfig) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if server.enabled != default.enabled:
        entry["enabled"] = server.enabled
    if server.timeout != default.timeout:
        entry["timeout"] = server.timeout
    if server.allowed_tools != default.allowed_tools:
        entry["allowedTools"] = server.allowed_tools
    if server.excluded_tools != default.excluded_tools:
        entry["excludedTools"] = list(server.excluded_tools)
    if server.roots != default.roots:
        entry["roots"] = list(server.roots)
    if server.trusted != default.trusted:
        entry["trusted"] = server.trusted
    if server.max_concurrent_calls != default.max_concurrent_calls:
        entry["maxConcurrentCalls"] = server.max_concurrent_calls
    return entry


def _builtin_adjustments(server: ServerConfig, default: ServerConfig) -> dict[str, Any] | None:
    entry = _common_settings(server, default)
    fixed = builtin_fixed_args(default)
    if server.args[fixed:] != default.args[fixed:]:
        entry["args"] = server.args[fixed:]
    if server.env != default.env:
        entry["env"] = dict(server.env)
    if server.cwd != default.cwd and server.cwd:
        entry["cwd"] = server.cwd
    for key, (written, loaded) in server.as_written.items():
        if key in entry and entry[key] == loaded:
            entry[key] = written
    return {**server.extra, **entry} if entry or server.extra else None


def servers_config_to_json(config: ServersConfig) -> dict[str, Any]:
    """The whole file in the Claude Desktop shape (built-ins only where adjusted)."""
    servers: dict[str, Any] = {}
    for server in config.servers:
        entry = server_to_entry(server, config.builtin_defaults.get(server.name))
        if entry is not None:
            servers[server.name] = entry
    document: dict[str, Any] = {**config.extra, SERVERS_KEY: servers}
    if config.approval:
        document["approval"] = config.approval
    return document


def save_servers_config(config: ServersConfig, path: Path) -> None:
    """Write ``config`` to ``path`` as JSON, atomically (temp file + rename), keeping the file's mode.

    A new file is written in the Claude Desktop shape. An existing one is edited in place, so what the
    user wrote stays: comments, the order of keys and entries, trailing commas, the formatting of what
    did not change, the servers object it uses (``servers`` in VS Code's shape). An entry that changed
    is rewritten, a new one goes at the end of the servers object, a removed one goes with its comments.

    Raises ConfigError for a ``.toml`` path (EdgeHost writes JSON only), when the file exists but cannot
    be read or parsed (a broken file is never replaced), or when it cannot be written.
    """
    if path.suffix.lower() == ".toml":
        raise ConfigError(
            "EdgeHost writes servers configs as JSON only; convert this file to servers.json first",
            path=str(path),
        )
    document = servers_config_to_json(config)
    try:
        current = current_text(path)
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    try:
        if current is None or not current.strip():
            text = plain_json(document)
        else:
            text = _edited_text(current, config, path, document)
        if text != current:
            write_atomically(path, text)
    except OSError as exc:
        raise ConfigError(f"cannot write: {exc.strerror or exc}", path=str(path)) from None


def _edited_text(current: str, config: ServersConfig, path: Path, document: dict[str, Any]) -> str:
    """The file's text ``current`` changed to hold ``document``. Raises ConfigError when it does not parse."""
    parsed = parse_servers_text(current, str(path))
    on_disk = parse_servers_file(path, expand_variables=False, builtins=config.builtin_defaults)
    on_disk.builtin_defaults = config.builtin_defaults
    tables, _ = _server_tables(parsed)
    return servers_file_text(current, parsed, tables, servers_config_to_json(on_disk), document, path=path)
