"""One server entry of a servers file -> ServerConfig, with messages that name the file, line and field.

The types of an entry's keys are checked by a pydantic model (ServerEntry); what depends on several
keys (a command or a url, the transport, a built-in adjusted) and ``${VAR}`` expansion is done here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar
from urllib.parse import urlsplit

from pydantic import AliasChoices, BaseModel, BeforeValidator, ConfigDict, Field, StrictStr, ValidationError

from edgehost.errors import ConfigError
from edgehost.mcp.config._expand import (
    ExpansionError,
    InputSpec,
    expand,
    with_workspace_folder,
    workspace_folder,
)
from edgehost.mcp.config._model import ServerConfig, server_name_problem
from edgehost.mcp.config._text import KeyPath, ParsedFile
from edgehost.validation_messages import describe_error, first_error, near_miss

__all__ = ["EntryContext", "ServerEntry", "TRANSPORT_NAMES", "builtin_fixed_args", "server_from_entry"]

_T = TypeVar("_T")

# Every spelling of a transport seen in Claude Desktop / Claude Code / VS Code / Cursor configs.
TRANSPORT_NAMES = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
    "sse": "sse",
    "websocket": "websocket",
    "ws": "websocket",
}

# Keys we understand; camelCase as in Claude Desktop / VS Code, snake_case as in TOML, and the other
# hosts' names for the same settings (Windsurf's serverUrl and disabledTools, Cline's transportType,
# Gemini CLI's includeTools / excludeTools / trust).
_KEYS = {
    "name": ("name",),
    "command": ("command",),
    "args": ("args",),
    "env": ("env",),
    "cwd": ("cwd",),
    "url": ("url", "serverUrl"),
    "headers": ("headers",),
    "transport": ("type", "transport", "transportType"),
    "enabled": ("enabled",),
    "disabled": ("disabled",),
    "timeout": ("timeout",),
    "allowedTools": ("allowedTools", "allowed_tools", "includeTools"),
    "excludedTools": ("excludedTools", "excluded_tools", "excludeTools", "disabledTools"),
    "roots": ("roots",),
    "trusted": ("trusted", "trust"),
    "maxConcurrentCalls": ("maxConcurrentCalls", "max_concurrent_calls"),
    "clientId": ("clientId", "client_id"),
    "clientSecret": ("clientSecret", "client_secret"),
    "oauthGrant": ("oauthGrant", "oauth_grant"),
    "callbackPort": ("callbackPort", "callback_port"),
    "clientMetadataUrl": ("clientMetadataUrl", "client_metadata_url"),
}
OAUTH_GRANTS = ("auto", "authorization_code", "client_credentials")
_SHOWN_NAME_CHARS = 60  # of a name too long to be a server's, in its error message
_KNOWN = {alias for aliases in _KEYS.values() for alias in aliases}
# Other hosts' settings EdgeHost has no use for: kept and written back, without a warning.
_OTHER_HOSTS = {
    "oauth",  # Claude Code's pre-registered client (its clientId and callbackPort are read)
    "envFile",  # VS Code, Cursor
    "dev",  # VS Code: watch and debug a server under development
    "gallery",  # VS Code
    "version",  # VS Code
    "autoApprove",  # Cline, Roo Code
    "alwaysAllow",  # Cline, Roo Code
    "networkTimeout",  # Cline
    "description",
    "icon",
}
# What people write for a key EdgeHost knows by another name (near_miss finds the misspellings).
_MEANT = {
    "arguments": "args",
    "argv": "args",
    "environment": "env",
    "environ": "env",
    "enviroment": "env",
    "disable": "disabled",
    "enable": "enabled",
    "workingDirectory": "cwd",
    "working_directory": "cwd",
    "cmd": "command",
    "endpoint": "url",
}


def _number_as_text(value: Any) -> Any:
    """``["--port", 8080]`` is meant as text: numbers become strings (true/false do not)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


_Text = Annotated[StrictStr, BeforeValidator(_number_as_text)]


def _keys(canonical: str) -> Any:
    return AliasChoices(*_KEYS[canonical])


class ServerEntry(BaseModel):
    """The keys of one server entry EdgeHost reads, by their canonical (JSON) name, with their types.

    Keys of other hosts (Claude Desktop's, VS Code's, Cursor's own settings) are allowed and kept:
    users paste whole configs. ``null`` is the same as leaving a key out.
    """

    model_config = ConfigDict(strict=True, extra="allow")

    name: Any = None  # the server's name in a TOML [[servers]] list; read by the caller
    command: str | None = None
    args: list[_Text] | None = Field(default=None, description="a list of strings")
    env: dict[str, _Text] | None = Field(default=None, description="an object of strings")
    cwd: str | None = None
    url: str | None = Field(default=None, validation_alias=_keys("url"))
    headers: dict[str, _Text] | None = Field(default=None, description="an object of strings")
    transport: str | None = Field(default=None, validation_alias=_keys("transport"))
    enabled: bool | None = None
    disabled: bool | None = None
    timeout: float | None = Field(default=None, gt=0, description="a positive number of seconds")
    allowedTools: list[_Text] | None = Field(  # the key as Claude Desktop writes it
        default=None, validation_alias=_keys("allowedTools"), description="a list of strings"
    )
    excludedTools: list[_Text] | None = Field(
        default=None, validation_alias=_keys("excludedTools"), description="a list of strings"
    )
    roots: list[_Text] | None = Field(default=None, description="a list of strings")
    trusted: bool | None = Field(default=None, validation_alias=_keys("trusted"))
    maxConcurrentCalls: int | None = Field(
        default=None, ge=1, validation_alias=_keys("maxConcurrentCalls"), description="a whole number from 1"
    )
    clientId: str | None = Field(default=None, validation_alias=_keys("clientId"))
    clientSecret: str | None = Field(default=None, validation_alias=_keys("clientSecret"))
    oauthGrant: str | None = Field(default=None, validation_alias=_keys("oauthGrant"))
    callbackPort: int | None = Field(
        default=None, ge=1, le=65535, validation_alias=_keys("callbackPort"), description="a port number"
    )
    clientMetadataUrl: str | None = Field(default=None, validation_alias=_keys("clientMetadataUrl"))


@dataclass
class EntryContext:
    """What every entry of one file is read with."""

    parsed: ParsedFile
    environ: Mapping[str, str]
    inputs: Mapping[str, InputSpec]
    expand_variables: bool = True

    @property
    def base_dir(self) -> Path:
        return Path(self.parsed.path).parent


def server_from_entry(
    name: str, raw: Any, key_path: KeyPath, ctx: EntryContext, builtin: ServerConfig | None = None
) -> ServerConfig:
    """Build the ServerConfig of one entry; a problem sets its ``error`` instead of raising.

    ``builtin`` is the built-in ServerConfig of the same name, if any: an entry without ``command``
    and ``url`` then adjusts that built-in (enabled, timeout, tool filters, extra args …).
    """
    line = ctx.parsed.line_of(key_path)
    source = f"{ctx.parsed.path}:{line}" if line is not None else ctx.parsed.path
    if (problem := server_name_problem(name)) is not None:
        position = ctx.parsed.position_of(key_path)
        shown = repr(name) if len(name) <= _SHOWN_NAME_CHARS else repr(name[:_SHOWN_NAME_CHARS]) + "..."
        error = ConfigError(
            f"server {shown}: {problem}",
            path=ctx.parsed.path,
            line=position.line if position else None,
            column=position.column if position else None,
        )
        return ServerConfig(name=name, error=str(error), source=source, unparsed=raw)
    reader = _EntryReader(name, raw, key_path, ctx)
    warnings = reader.unknown_keys()
    try:
        if not isinstance(raw, dict):
            raise reader.fail(f"must be an object/table, not {type(raw).__name__}")
        server = reader.read(builtin)
    except ConfigError as exc:
        return ServerConfig(
            name=name,
            error=str(exc),
            source=source,
            unparsed=raw,
            warnings=warnings,
            missing_input=reader.missing_input,
        )
    server.source = source
    server.warnings = warnings
    return server


class _EntryReader:
    def __init__(self, name: str, raw: Any, key_path: KeyPath, ctx: EntryContext) -> None:
        self.name = name
        self.raw: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
        folder = workspace_folder(ctx.parsed.path)
        if folder is not None:  # where the file is read, not where it may be copied (config import)
            self.raw = with_workspace_folder(self.raw, folder)
        oauth = self.raw.get("oauth")
        if isinstance(oauth, dict):  # Claude Code keeps a pre-registered client under "oauth"
            for key in ("clientId", "callbackPort"):
                if key in oauth and self._key(key) is None:
                    self.raw[key] = oauth[key]
        self.key_path = key_path
        self.ctx = ctx
        self.as_written: dict[str, tuple[Any, Any]] = {}
        self.missing_input: str | None = None
        self.entry = ServerEntry()

    def fail(self, message: str, key: str | None = None, *sub: str | int) -> ConfigError:
        field_path = (*self.key_path, key, *sub) if key else self.key_path
        position = self.ctx.parsed.position_of(field_path)
        field = key + "".join(f"[{s!r}]" for s in sub) if key else None
        return ConfigError(
            f"server {self.name!r}: {message}",
            path=self.ctx.parsed.path,
            line=position.line if position else None,
            column=position.column if position else None,
            field=field,
        )

    def check_types(self) -> None:
        """Validate the entry's keys against ServerEntry. Raises ConfigError for the first bad one."""
        try:
            self.entry = ServerEntry.model_validate(self.raw)
        except ValidationError as exc:
            error = first_error(exc, self.ctx.parsed.locations, self.key_path)
            key, *sub = error["loc"]
            message = describe_error(error, ServerEntry, toml=self.ctx.parsed.toml)
            raise self.fail(message, str(key), *sub) from None

    def _checkable(self, value: str) -> bool:
        """Whether ``value`` is what the server will get: expanded, or with nothing to expand (an import
        keeps ``${VAR}`` as written, and checks the rest as loading will)."""
        return self.ctx.expand_variables or "${" not in value

    def unknown_keys(self) -> list[str]:
        """A warning for each key of the entry that no host uses ("arguments" for "args"): it is kept
        in the file but does nothing, and the server starts without it."""
        warnings = []
        for key, value in self.raw.items():
            if key in _KNOWN or key in _OTHER_HOSTS:
                continue
            meant = _MEANT.get(key) or near_miss(key, sorted(_KNOWN))
            if isinstance(value, dict) and ("command" in value or "url" in value) and self.ctx.parsed.toml:
                hint = (
                    f"; it looks like a server of its own: in TOML, [servers.{key}] after [[servers]] belongs"
                    ' to the server above it. Write every server as [[servers]] with name = "...", or every'
                    " one as [servers.NAME]"
                )
            else:
                hint = f" (did you mean {meant!r}?)" if meant else ""
            warnings.append(str(self.fail(f"unknown key {key!r}{hint}; EdgeHost ignores it", key)))
        return warnings

    def _key(self, canonical: str) -> str | None:
        return next((k for k in _KEYS[canonical] if k in self.raw), None)

    def _expand(self, value: str, key: str, *sub: str | int) -> str:
        if not self.ctx.expand_variables:
            return value
        try:
            return expand(value, self.ctx.environ, self.ctx.inputs)
        except ExpansionError as exc:
            self.missing_input = exc.input_id
            raise self.fail(str(exc), key, *sub) from None

    def _remember(self, canonical: str, key: str, value: Any) -> Any:
        self.as_written[canonical] = (self.raw[key], value)
        return value

    def _loaded_as(self, canonical: str, value: _T) -> _T:
        """Note that a remembered field was further adjusted (``~``, relative path) after expansion."""
        if canonical in self.as_written:
            self.as_written[canonical] = (self.as_written[canonical][0], value)
        return value

    def _given(self, canonical: str) -> tuple[str, Any] | None:
        """The key ``canonical`` is written as and its checked value; None when it is not given."""
        key = self._key(canonical)
        value = getattr(self.entry, canonical)
        return None if key is None or value is None else (key, value)

    def string(self, canonical: str) -> str | None:
        given = self._given(canonical)
        if given is None:
            return None
        key, value = given
        return self._remember(canonical, key, self._expand(value, key))

    def string_list(self, canonical: str) -> list[str] | None:
        given = self._given(canonical)
        if given is None:
            return None
        key, value = given
        return self._remember(canonical, key, [self._expand(item, key, i) for i, item in enumerate(value)])

    def string_map(self, canonical: str) -> dict[str, str] | None:
        given = self._given(canonical)
        if given is None:
            return None
        key, value = given
        return self._remember(
            canonical, key, {name: self._expand(item, key, name) for name, item in value.items()}
        )

    def value(self, canonical: str) -> Any:
        """A value that needs no expansion (true/false, seconds); None when not given."""
        given = self._given(canonical)
        return None if given is None else self._remember(canonical, given[0], given[1])

    def path(self, value: str) -> str:
        """A path as the user means it: ``~`` expanded, relative to the config file's folder."""
        expanded = Path(value).expanduser()
        if not expanded.is_absolute() and self.ctx.expand_variables:
            expanded = self.ctx.base_dir / expanded
        return str(expanded) if self.ctx.expand_variables else value

    def check_address(self, url: str) -> None:
        """Raise ConfigError (at the url's line) when ``url`` cannot be connected to as written: a bracket
        left open (``http://[::1``), a port that is no number or above 65535, no host, a control character.
        The transport would otherwise fail only when it connects, with no line to fix."""
        if not self._checkable(url):
            return
        key = self._key("url") or "url"
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
        except ValueError as exc:
            raise self.fail(f"url {url!r} is not a valid address: {exc}", key) from None
        if not parts.hostname:
            raise self.fail(f"url {url!r} has no host name or address", key)
        if any(ord(c) < 32 or ord(c) == 127 for c in url):
            raise self.fail(f"url {url!r} has a control character", key)

    def _read_oauth(self, server: ServerConfig) -> None:
        server.client_id = self.string("clientId")
        server.client_secret = self.string("clientSecret")
        grant = self.string("oauthGrant")
        if grant is not None:
            if grant not in OAUTH_GRANTS:
                raise self.fail(
                    f"oauthGrant is one of {', '.join(OAUTH_GRANTS)}, not {grant!r}", self._key("oauthGrant")
                )
            server.oauth_grant = grant
        if server.client_secret and not server.client_id:
            raise self.fail('"clientSecret" needs "clientId"', self._key("clientSecret"))
        if server.oauth_grant == "client_credentials" and not (server.client_id and server.client_secret):
            raise self.fail(
                'the client_credentials grant needs "clientId" and "clientSecret"', self._key("oauthGrant")
            )
        server.callback_port = self.value("callbackPort")
        metadata_url = self.string("clientMetadataUrl")
        if metadata_url is not None and not metadata_url.startswith("https://"):
            raise self.fail(
                "clientMetadataUrl is the https:// address of this client's metadata document",
                self._key("clientMetadataUrl"),
            )
        server.client_metadata_url = metadata_url

    def read(self, builtin: ServerConfig | None) -> ServerConfig:
        self.check_types()
        transport_key = self._key("transport")
        server = self._server(builtin, self._declared_transport(transport_key), transport_key)
        self._read_transport_fields(server)
        self._read_common(server, transport_key)
        return server

    def _declared_transport(self, transport_key: str | None) -> str | None:
        """The transport the entry names ("type" or "transport"), normalised; None when it names none."""
        declared = self.string("transport")
        if declared is None:
            return None
        transport = TRANSPORT_NAMES.get(declared.strip().lower())
        if transport is None:
            known = ", ".join(sorted(TRANSPORT_NAMES))
            raise self.fail(f"unknown transport {declared!r} (known: {known})", transport_key)
        return transport

    def _server(
        self, builtin: ServerConfig | None, transport: str | None, transport_key: str | None
    ) -> ServerConfig:
        """The server's transport and where it is: a built-in's command, a command, or a url."""
        command = self.string("command")
        url = self.string("url")
        if builtin is not None and command is None and url is None:
            server = ServerConfig(
                name=self.name,
                command=builtin.command,
                args=list(builtin.args),
                env=dict(builtin.env),
                trusted=builtin.trusted,
                builtin=True,
            )
            extra_args = self.string_list("args")
            if extra_args is not None:
                server.args = [*builtin.args[: builtin_fixed_args(builtin)], *extra_args]
        elif transport is None and command and url:
            raise self.fail(
                'has both "command" and "url": give "type" ("stdio", "http", "sse" or "websocket")', "url"
            )
        elif transport == "stdio" or (transport is None and command is not None):
            if not command:
                raise self.fail('a stdio server needs "command"', "command")
            server = ServerConfig(name=self.name, transport="stdio", command=command)
            server.args = self.string_list("args") or []
        elif transport == "websocket" or (
            transport is None and url is not None and url.startswith(("ws://", "wss://"))
        ):
            if not url:
                raise self.fail('a websocket server needs "url"', transport_key or "url")
            if self._checkable(url) and not url.startswith(("ws://", "wss://")):
                raise self.fail(f"a websocket url starts with ws:// or wss://, not {url!r}", "url")
            self.check_address(url)
            server = ServerConfig(name=self.name, transport="websocket", url=url)
        elif transport in ("http", "sse") or (transport is None and url is not None):
            if not url:
                raise self.fail(f'a {transport or "http"} server needs "url"', transport_key or "url")
            if self._checkable(url) and not url.startswith(("http://", "https://")):
                raise self.fail(f"url must start with http:// or https://, not {url!r}", "url")
            self.check_address(url)
            server = ServerConfig(name=self.name, transport="sse" if transport == "sse" else "http", url=url)
        else:
            raise self.fail('needs "command" (a stdio server) or "url" (an http/sse server)', "command")
        return server

    def _read_transport_fields(self, server: ServerConfig) -> None:
        """A stdio server's env, cwd and command's home; a remote server's headers and OAuth."""
        if server.transport == "stdio":
            env = self.string_map("env")
            if env is not None:
                server.env = {**server.env, **env}
            cwd = self.string("cwd")
            server.cwd = self._loaded_as("cwd", self.path(cwd) if cwd else None)
            if self.ctx.expand_variables and server.command and server.command.startswith("~"):
                server.command = self._loaded_as("command", os.path.expanduser(server.command))
        else:
            server.headers = self.string_map("headers") or {}
            self._read_oauth(server)

    def _read_common(self, server: ServerConfig, transport_key: str | None) -> None:
        """What every entry may say (enabled, timeout, tool lists, roots, trust), and what it says that
        EdgeHost does not know, kept to be written back."""
        enabled = self.value("enabled")
        disabled = self.value("disabled")
        if enabled is not None:
            server.enabled = enabled
        elif disabled is not None:
            server.enabled = not disabled
        timeout = self.value("timeout")
        if timeout is not None:
            server.timeout = timeout
        server.allowed_tools = self.string_list("allowedTools")
        server.excluded_tools = self.string_list("excludedTools") or []
        roots = self.string_list("roots")
        server.roots = self._loaded_as("roots", [self.path(root) for root in roots or []])
        trusted = self.value("trusted")
        if trusted is not None:
            server.trusted = trusted
        max_calls = self.value("maxConcurrentCalls")
        if max_calls is not None:
            server.max_concurrent_calls = max_calls
        server.extra = {k: v for k, v in self.raw.items() if k not in _KNOWN}
        if server.transport == "stdio" and transport_key is not None:
            # Written back as it was (VS Code writes "type": "stdio"); a stdio entry needs no type.
            server.extra = {transport_key: self.raw[transport_key], **server.extra}
        server.as_written = self.as_written
        server.secret_inputs = frozenset(i for i, spec in self.ctx.inputs.items() if spec.password)


def builtin_fixed_args(builtin: ServerConfig) -> int:
    """How many of a built-in's args are its own (``-m edgehost serve NAME``); the rest are options."""
    args = builtin.args
    return args.index(builtin.name) + 1 if builtin.name in args else len(args)
