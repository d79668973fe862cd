"""Server configuration: the data model (re-exported by edgehost.mcp.config)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from edgehost.mcp.config._expand import _REFERENCE, InputSpec
from edgehost.programs import find_program

__all__ = [
    "DEFAULT_CALL_TIMEOUT_S",
    "MAX_SERVER_NAME_CHARS",
    "MIN_SECRET_CHARS",
    "SERVER_NAME_RULE",
    "ServerConfig",
    "ServersConfig",
    "Transport",
    "looks_like_secret_name",
    "server_name_like",
    "server_name_problem",
]

Transport = Literal["stdio", "http", "sse", "websocket"]

DEFAULT_CALL_TIMEOUT_S = 60.0  # per call; a server's progress notifications extend it

# Shorter values ("true", "info", "8080") occur everywhere: replacing them would corrupt every text.
MIN_SECRET_CHARS = 8

# Variable names that hold credentials: GITHUB_TOKEN, OPENAI_API_KEY, DB_PASSWORD, SESSION_ID ...
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|AUTH|CRED|PRIVATE|SESSION|COOKIE", re.IGNORECASE)


def looks_like_secret_name(name: str) -> bool:
    """Whether a variable called ``name`` holds a credential by its name (case-insensitive)."""
    return _SECRET_NAME.search(name) is not None


# A server's tools are named SERVER__TOOL (the catalog's SEPARATOR), within the 64 characters a tool
# name may have: a name of at most 48 leaves the tool's own name 14 of them.
MAX_SERVER_NAME_CHARS = 48
SERVER_NAME_RULE = (
    f"a server name is 1 to {MAX_SERVER_NAME_CHARS} characters: letters a-z and A-Z, digits, '-' and '_',"
    " without '__' and not ending in '_' (its tools are named NAME__TOOL)"
)
_SERVER_NAME_CHARS = re.compile(r"[A-Za-z0-9_-]")


def server_name_like(text: str) -> str:
    """A server name made from ``text`` (a package's or a bundle's name): lower case, each run of other
    characters one '-'; "server" when nothing is left."""
    cleaned = "".join(c if c.isalnum() and c.isascii() else "-" for c in text.lower()).strip("-")
    while "--" in cleaned:
        cleaned = cleaned.replace("--", "-")
    return cleaned[:MAX_SERVER_NAME_CHARS].strip("-") or "server"


def server_name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a server's name, followed by SERVER_NAME_RULE; None when it is fine.

    A name is what its tools are namespaced with (``a__tool``), so it must be one the namespaced name
    can be split back at: with ``__`` inside or ``_`` at its end, server ``a__b``'s tool ``c`` and server
    ``a``'s tool ``b__c`` would both be ``a__b__c``. Raises nothing.
    """
    if not name:
        problem = "the name is empty"
    elif len(name) > MAX_SERVER_NAME_CHARS:
        problem = f"the name is {len(name)} characters long"
    elif others := sorted(set(_SERVER_NAME_CHARS.sub("", name))):
        problem = "the name has " + ", ".join(repr(c) for c in others)
    elif "__" in name:
        problem = "the name has '__', which separates a server's name from its tools' names"
    elif name.endswith("_"):
        problem = "the name ends in '_', which would run into the '__' before its tools' names"
    else:
        return None
    return f"{problem}; {SERVER_NAME_RULE}"


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
    # Calls to this server running at once (None: no limit; JSON-RPC multiplexes them); for servers
    # known not to cope with concurrent requests.
    max_concurrent_calls: int | None = None
    # OAuth (http/sse servers): a client registered beforehand with the authorization server, instead of
    # dynamic registration; which grant to use; the loopback port its redirect URI was registered with.
    client_id: str | None = None
    client_secret: str | None = None
    oauth_grant: str = "auto"  # auto | authorization_code | client_credentials
    callback_port: int | None = None
    # A client ID metadata document this client is known by (an https URL the user's organisation
    # hosts), offered to authorization servers that accept one instead of registering.
    client_metadata_url: str | None = None
    builtin: bool = False  # one of EdgeHost's own servers
    # Set when this entry failed validation: the server is shown failed with this message and the
    # others start as usual.
    error: str | None = None
    # The VS Code input (``${input:ID}``) this entry failed for want of a value: the window asks for it.
    missing_input: str | None = None
    # Keys of the entry no host uses ("arguments" for "args"), each as file:line:column: the problem.
    warnings: list[str] = field(default_factory=list, compare=False)
    source: str | None = None  # "file:line" of the entry, for messages
    # Keys of the entry this host does not use (another host's settings), written back on save.
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # {json key: (value as written, value as loaded)}: saving writes "${TOKEN}" back instead of the
    # secret it expanded to, as long as the value was not changed since loading.
    as_written: dict[str, tuple[Any, Any]] = field(default_factory=dict, repr=False, compare=False)
    # The ids of the file's VS Code inputs declared as passwords: what ``${input:ID}`` of one of them
    # expands to is a secret, whatever its id looks like (a registry entry's or a bundle's secrets).
    secret_inputs: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    # The entry exactly as written when it failed to load (``error`` set): saved back unchanged.
    unparsed: Any = field(default=None, repr=False, compare=False)

    def missing_program(self) -> str | None:
        """Why this stdio server's program cannot be started (not found on its PATH, or not
        executable), or None when it can or the server is remote. Raises nothing."""
        if self.transport != "stdio" or not self.command:
            return None
        command = os.path.expanduser(self.command)
        if os.sep in command:
            where = command if os.path.isabs(command) or not self.cwd else os.path.join(self.cwd, command)
            if os.path.isfile(where) and os.access(where, os.X_OK):
                return None
            return f"the program {self.command} does not exist or cannot be run"
        search = self.env.get("PATH")
        if find_program(command, search) is not None:
            return None
        program, *words = command.split()
        if words and find_program(program, search) is not None:
            args = json.dumps([*words, *self.args])
            return (
                f"the program {self.command!r} was not found on the PATH: the words after the program go"
                f' in "args" ("command": {json.dumps(program)}, "args": {args})'
            )
        return f"the program {self.command!r} was not found on the PATH (is it installed?)"

    def secret_values(self) -> set[str]:
        """Values that must never reach a log, a stderr tail or the history.

        A secret is, when it has at least MIN_SECRET_CHARS characters:

        - the OAuth ``clientSecret``;
        - every HTTP header value (``Authorization``, ``X-API-Key``, cookies ...), and the credentials
          after the scheme of ``Bearer <token>`` / ``Basic <token>`` on their own;
        - an env value whose name looks secret (contains KEY, TOKEN, SECRET, PASS, AUTH, CRED, PRIVATE,
          SESSION or COOKIE in any case: GITHUB_TOKEN, OPENAI_API_KEY, DB_PASSWORD);
        - whatever a ``${VAR}`` reference whose name looks so expanded to, in any setting
          (``"args": ["--token", "${GH_TOKEN}"]``, ``"env": {"GH": "${GITHUB_TOKEN}"}``).

        Ordinary values (``DEBUG=true``, ``DATA=/home/user/data``, ``LOG_LEVEL=info``) are not secrets.
        Raises nothing.
        """
        candidates = [*self.headers.values(), *map(_credentials, self.headers.values())]
        if self.client_secret:
            candidates.append(self.client_secret)
        candidates += [value for name, value in self.env.items() if looks_like_secret_name(name)]
        for written, loaded in self.as_written.values():
            candidates += _referenced_secrets(written, loaded, self.secret_inputs)
        return {value for value in candidates if len(value) >= MIN_SECRET_CHARS}


@dataclass
class ServersConfig:
    servers: list[ServerConfig] = field(default_factory=list)
    approval: list[dict[str, Any]] = field(default_factory=list)  # raw user approval rules
    path: Path | None = None
    # The built-in servers as they are by default: saving writes only how a built-in differs.
    builtin_defaults: dict[str, ServerConfig] = field(default_factory=dict, repr=False)
    # VS Code's "inputs" declarations, by id (read wherever the file keeps them: top level, or "mcp").
    inputs: dict[str, InputSpec] = field(default_factory=dict, repr=False)
    # Other top-level keys of the file (e.g. VS Code "inputs"), written back on save.
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    # Why the servers file could not be read at all (file:line:column: problem), when the built-in
    # servers run without it (load_servers_config(..., fall_back=True)); None when it was read.
    file_error: str | None = None

    def get(self, name: str) -> ServerConfig | None:
        return next((s for s in self.servers if s.name == name), None)

    @property
    def warnings(self) -> list[str]:
        """Every entry's warnings (keys no host uses), in file order."""
        return [warning for server in self.servers for warning in server.warnings]

    def secret_values(self) -> set[str]:
        """The secrets of every server (see ``ServerConfig.secret_values``). Raises nothing."""
        values: set[str] = set()
        for server in self.servers:
            values |= server.secret_values()
        return values


def _credentials(header_value: str) -> str:
    """``xyz`` of ``Bearer xyz``: a server may echo the token without its scheme."""
    scheme, _, credentials = header_value.partition(" ")
    return credentials.strip() if scheme.isalpha() else ""


def _referenced_secrets(written: Any, loaded: Any, secret_inputs: frozenset[str]) -> Iterator[str]:
    """What the secret ``${VAR}`` references in ``written`` became in ``loaded``: those whose name looks
    secret, and the ``${input:ID}`` of a password input."""
    if isinstance(written, str) and isinstance(loaded, str):
        yield from _secrets_in_string(written, loaded, secret_inputs)
    elif isinstance(written, list) and isinstance(loaded, list):
        for written_item, loaded_item in zip(written, loaded, strict=False):
            yield from _referenced_secrets(written_item, loaded_item, secret_inputs)
    elif isinstance(written, dict) and isinstance(loaded, dict):
        for key, written_item in written.items():
            if key in loaded:
                yield from _referenced_secrets(written_item, loaded[key], secret_inputs)


def _is_secret_reference(reference: str, secret_inputs: frozenset[str]) -> bool:
    if reference.startswith("input:") and reference[len("input:") :] in secret_inputs:
        return True
    return looks_like_secret_name(_variable_name(reference))


def _secrets_in_string(written: str, loaded: str, secret_inputs: frozenset[str]) -> Iterator[str]:
    references = list(_REFERENCE.finditer(written))
    secret = [_is_secret_reference(match.group(1), secret_inputs) for match in references]
    if not any(secret):
        return
    # The written text as a pattern: its literal parts, and a group where each reference was.
    parts, start = [], 0
    for match in references:
        parts += [re.escape(written[start : match.start()]), "(.*?)"]
        start = match.end()
    parts.append(re.escape(written[start:]))
    expanded = re.fullmatch("".join(parts), loaded, re.DOTALL)
    if expanded is None:  # adjusted after expansion (a path made absolute): keep all of it secret
        yield loaded
        return
    yield from (value for value, is_secret in zip(expanded.groups(), secret, strict=True) if is_secret)


def _variable_name(reference: str) -> str:
    """``GH_TOKEN`` of ``env:GH_TOKEN``, ``GH_TOKEN:-x`` or ``input:GH_TOKEN``."""
    for prefix in ("env:", "input:"):
        if reference.startswith(prefix):
            reference = reference[len(prefix) :]
    return reference.partition(":-")[0]
