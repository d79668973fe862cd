"""From a registry entry to a server in the servers file, as the reference hosts do it:

- npm  → ``npx -y <runtime args> NAME@VERSION <package args>``
- PyPI → ``uvx <runtime args> NAME==VERSION <package args>`` (uv ships with EdgeHost)
- OCI  → ``docker run -i --rm <runtime args> -e VAR … IMAGE:TAG <package args>``
- NuGet → ``dnx <runtime args> NAME@VERSION --yes [--] <package args>``
- a remote → Streamable HTTP or SSE to its URL, with its headers

Each way is an InstallOption: whether this machine can run it now (and what to install if not), the
values a person must or may give as a flat JSON-schema form (edgehost.form_fields reads it for the
window and the terminal alike), and the server entry those values make. A value the entry marks
secret is never written into the servers file: the entry holds a VS Code ``${input:ID}`` reference and
the value goes to the credential store (the OS keyring, as OAuth tokens do). Nothing is run through a
shell: the command is a program and its arguments.
"""

from __future__ import annotations

import logging
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2

from edgehost.mcp.config import ServerConfig, ServersConfig, Transport, server_name_problem
from edgehost.mcp.runtimes import DOCKER, NODE, UV, Runtime
from edgehost.programs import find_program
from edgehost.registry.oci_platforms import image_platforms, machine_platform
from edgehost.registry.server_json import Argument, Input, Package, RegistryEntry, Remote

__all__ = [
    "KIND_LABELS",
    "InstallOption",
    "InstallPlan",
    "SecretInputs",
    "check_server_name",
    "form_text",
    "refuse_references",
    "run_labels",
    "install_options",
]

# What each way of running a server is called on a card.
KIND_LABELS = {
    "npm": "npm",
    "pypi": "PyPI",
    "oci": "container",
    "nuget": "NuGet",
    "mcpb": "bundle",
    "remote": "remote",
}
_PROGRAMS: dict[str, tuple[str, Runtime | None]] = {
    "npm": ("npx", NODE),
    "pypi": ("uvx", UV),
    "oci": ("docker", DOCKER),
    "nuget": (
        "dnx",
        Runtime("dotnet", ".NET 10 SDK", "see https://dot.net/download (dnx comes with .NET 10)"),
    ),
}
log = logging.getLogger(__name__)
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_OCI_TAG = re.compile(r"(:[\w][\w.-]{0,127}|@sha256:[0-9a-f]{64})$")


@dataclass(frozen=True)
class _Field:
    """One value asked for: where it goes is given by the plan that owns it."""

    key: str  # the form's property name, unique in the form
    input: Input


@dataclass(frozen=True)
class InstallPlan:
    """What the form's values make: the server entry, the VS Code inputs it refers to (the secrets),
    and the secret values for the credential store, by input id."""

    server: ServerConfig
    inputs: tuple[dict[str, Any], ...]
    secrets: Mapping[str, str]

    def servers_config(self) -> ServersConfig:
        """The plan as a servers file of one entry, to merge into the user's."""
        extra: dict[str, Any] = {"inputs": list(self.inputs)} if self.inputs else {}
        return ServersConfig(servers=[self.server], extra=extra)

    def command_line(self) -> list[str]:
        """The program and arguments that will run (a secret shown as its ${input:ID} reference), or
        the transport and URL of a remote server."""
        if self.server.transport == "stdio":
            return [self.server.command or "", *self.server.args]
        return [self.server.transport, self.server.url or ""]

    def summary(self) -> list[str]:
        """What a person checks before it runs: the command line (quoted as a shell would take it,
        though none is used), then its environment and its headers, secrets as their references."""
        lines = [shlex.join(self.command_line())]
        if self.server.env:
            lines.append("environment: " + " ".join(f"{k}={v}" for k, v in self.server.env.items()))
        if self.server.headers:
            lines.append("headers: " + ", ".join(f"{k}: {v}" for k, v in self.server.headers.items()))
        return lines


@dataclass(frozen=True)
class InstallOption:
    """One way to run a registry entry here: from one of its packages, or one of its remotes."""

    entry: RegistryEntry
    kind: str  # npm | pypi | oci | nuget | mcpb | remote, or another registry type (not supported)
    package: Package | None = None
    remote: Remote | None = None
    fields: tuple[_Field, ...] = field(default=(), repr=False)

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    def why_not_here(self) -> str | None:
        """Why this machine cannot run this option now (with what to install), or None when it can."""
        if self.remote is not None:
            return None
        assert self.package is not None
        if self.package.transport != "stdio":
            return (
                f"its {self.label} package serves {self.package.transport} on a port of its own, which EdgeHost"
                " does not start yet"
            )
        if self.kind == "mcpb":
            return None if self.package.file_sha256 else "its bundle has no fileSha256 to check it by"
        if self.kind not in _PROGRAMS:
            return f"EdgeHost cannot install {self.kind} packages"
        program, runtime = _PROGRAMS[self.kind]
        if find_program(program) is None:
            title = runtime.title if runtime else program
            return f"it needs {title} ({program}), which is not installed: {runtime.install if runtime else ''}".rstrip(
                ": "
            )
        return None

    def image_problem(self) -> str | None:
        """For a container image: that it has no build for this machine, as its registry lists them (a
        network read); None for other kinds, or when the registry cannot say."""
        if self.kind != "oci" or self.package is None:
            return None
        image = _reference("oci", self.package)
        try:
            platforms = image_platforms(image)
        except (httpx2.HTTPError, ValueError) as exc:
            log.info("the platforms of %s cannot be read (%s); docker will tell", image, exc)
            return None
        ours = machine_platform()
        if platforms is None or ours in platforms:
            return None
        return f"the image {image} has no {ours} build (it has {', '.join(sorted(platforms)) or 'none'})"

    def needs_node(self) -> bool:
        """Whether only Node.js is missing to run this option here (EdgeHost can install it)."""
        return (
            self.kind == "npm"
            and self.package is not None
            and self.package.transport == "stdio"
            and (find_program("npx") is None)
        )

    def form_schema(self) -> dict[str, Any]:
        """The values to ask, as a flat JSON object schema (title, description, default, choices,
        required; ``writeOnly`` for a secret)."""
        properties: dict[str, Any] = {}
        required: list[str] = []
        for item in self.fields:
            spec = item.input
            prop: dict[str, Any] = {"type": _json_type(spec), "title": item.key}
            if spec.description:
                prop["description"] = spec.description
            if spec.default is not None and not spec.secret:
                prop["default"] = _typed(spec, spec.default)
            if spec.choices:
                prop["enum"] = [_typed(spec, c) for c in spec.choices]
            if spec.secret:
                prop["writeOnly"] = True
            if spec.format == "filepath":
                prop["format"] = "filepath"
            properties[item.key] = prop
            if spec.required:
                required.append(item.key)
        return {"type": "object", "properties": properties, "required": required}

    def plan(self, name: str, values: Mapping[str, Any]) -> InstallPlan:
        """The server entry called ``name`` that the form's ``values`` make (a required value left out
        is taken from its default; an optional one left blank leaves its argument, variable or header
        out). Raises ValueError naming a required value that has neither, or for a bundle (its own
        options are known once it is downloaded: edgehost.registry.bundle_download)."""
        if self.kind == "mcpb":
            raise ValueError("a bundle's options are asked once it is downloaded")
        check_server_name(name)
        given = {k: form_text(v) for k, v in values.items() if v is not None and form_text(v) != ""}
        secret_keys = {f.key for f in self.fields if f.input.secret}
        refuse_references({k: v for k, v in given.items() if k not in secret_keys})
        missing = [
            f.key for f in self.fields if f.input.required and f.key not in given and f.input.default is None
        ]
        if missing:
            raise ValueError("a value is needed for " + ", ".join(missing))
        resolver = _Resolver(name, self.fields, given)
        if self.remote is not None:
            url = resolver.fill(self.remote.url, self.remote.variables)
            headers = resolver.key_values(self.remote.headers)
            transport: Transport = "http" if self.remote.transport == "streamable-http" else "sse"
            server = ServerConfig(name=name, transport=transport, url=url, headers=headers)
        else:
            assert self.package is not None
            program, args, env = _command(self.kind, self.package, resolver)
            server = ServerConfig(name=name, command=program, args=args, env=env)
        server.source = f"registry {self.entry.name} {self.entry.version}"
        return InstallPlan(server, tuple(resolver.inputs), dict(resolver.secrets))


def refuse_references(values: Mapping[str, str]) -> None:
    """Raise ValueError for a typed value with ``${`` in it: the servers file would expand it when the
    server starts, from EdgeHost's environment or the credential store (another server's secret, say).
    A secret is kept apart and referred to, so it may hold any text."""
    for key, text in values.items():
        if "${" in text:
            raise ValueError(f"{key} may not contain ${{ (the servers file would expand it)")


def run_labels(options: Sequence[InstallOption]) -> tuple[list[str], list[str]]:
    """What a card says of an entry: the ways it runs (npm, PyPI …), and those this machine can run now."""
    kinds = list(dict.fromkeys(o.label for o in options))
    here = list(dict.fromkeys(o.label for o in options if o.why_not_here() is None))
    return kinds, here


def check_server_name(name: str) -> None:
    """Raise ValueError when ``name`` cannot name a server: it names a folder and a file's entry (a
    bundle's ``..`` would have been the data folder itself)."""
    problem = server_name_problem(name)
    if problem is not None:
        raise ValueError(f"{name!r} cannot name a server: {problem}")


def install_options(entry: RegistryEntry) -> list[InstallOption]:
    """Every way to run ``entry``, packages first (in the entry's order), then its remotes."""
    options = [
        InstallOption(entry, package.registry_type, package=package, fields=_package_fields(package))
        for package in entry.packages
    ]
    options += [
        InstallOption(entry, "remote", remote=remote, fields=_remote_fields(remote))
        for remote in entry.remotes
    ]
    return options


# --- the form's fields ------------------------------------------------------------------------------


def _argument_key(argument: Argument) -> str:
    if argument.kind == "named":
        return argument.input.name.lstrip("-")
    return argument.value_hint or argument.input.name


def _fields_of(key: str, spec: Input) -> list[_Field]:
    """The fields one Input asks: its variables where its value is fixed, else itself."""
    if spec.value is not None:
        return [_Field(name, variable) for name, variable in spec.variables.items()]
    return [_Field(key, spec)]


def _unique(fields: Sequence[_Field]) -> tuple[_Field, ...]:
    seen: dict[str, _Field] = {}
    for item in fields:
        seen.setdefault(item.key, item)  # one question for a variable used twice ({path} in two args)
    return tuple(seen.values())


def _package_fields(package: Package) -> tuple[_Field, ...]:
    found: list[_Field] = []
    for argument in (*package.runtime_arguments, *package.package_arguments):
        found += _fields_of(_argument_key(argument), argument.input)
    for variable in package.environment:
        found += _fields_of(variable.name, variable)
    return _unique(found)


def _remote_fields(remote: Remote) -> tuple[_Field, ...]:
    found = [
        _Field(name, spec) for name, spec in remote.variables.items() if name in _placeholders(remote.url)
    ]
    for header in remote.headers:
        found += _fields_of(header.name, header)
    return _unique(found)


def _placeholders(text: str) -> set[str]:
    return set(_PLACEHOLDER.findall(text))


def _json_type(spec: Input) -> str:
    return {"number": "number", "boolean": "boolean"}.get(spec.format, "string")


def _typed(spec: Input, text: str) -> Any:
    if spec.format == "boolean":
        return text.strip().lower() == "true"
    if spec.format == "number":
        try:
            number = float(text)
        except ValueError:
            return text
        return int(number) if number.is_integer() else number
    return text


def form_text(value: Any) -> str:
    """A form value as the command line or environment takes it ("true"/"false", "7", "3.5")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip() if isinstance(value, str) else str(value)


# --- values into the entry ------------------------------------------------------------------------------


class SecretInputs:
    """One entry's secrets as VS Code inputs: the entry holds ``${input:ID}`` where a secret goes, the
    servers file declares the input (a password), and the value itself goes to the credential store."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.inputs: list[dict[str, Any]] = []
        self.secrets: dict[str, str] = {}

    @staticmethod
    def input_id(server: str, key: str) -> str:
        """``server__key``: a server name has no "__", so no two servers' ids meet (foo + api-key and
        foo-api + key were both foo-api-key)."""
        return f"{server}__{key}"

    def reference(self, key: str, description: str, value: str | None) -> str:
        """The reference to the secret ``key``; ``value`` None keeps the one stored before."""
        input_id = self.input_id(self.server, key)
        if all(item["id"] != input_id for item in self.inputs):
            self.inputs.append(
                {"id": input_id, "type": "promptString", "description": description or key, "password": True}
            )
        if value is not None:
            self.secrets[input_id] = value
        return "${input:" + input_id + "}"


class _Resolver(SecretInputs):
    """Fills one entry's values: the person's, else the defaults; secrets become ${input:ID} references."""

    def __init__(self, server: str, fields: Sequence[_Field], given: Mapping[str, str]) -> None:
        super().__init__(server)
        self.given = given

    def value(self, key: str, spec: Input) -> str | None:
        """What goes where ``spec`` (asked as ``key``) is used; None to leave it out."""
        text = self.given.get(key, spec.default)
        if text is None:
            return None
        return self.reference(key, spec.description, text) if spec.secret else text

    def fill(self, template: str, variables: Mapping[str, Input]) -> str:
        """``template`` with each {var} it names replaced (one left as written when it is no variable)."""

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            spec = variables.get(name)
            if spec is None:
                return match.group(0)
            return self.value(name, spec) or ""

        return _PLACEHOLDER.sub(replace, template)

    def resolved(self, key: str, spec: Input) -> str | None:
        """An Input's final text: its fixed value with variables filled, or the value given for it; None
        (left out) when a variable it names was left blank (no ``--dir ''``, no ``Bearer `` header)."""
        if spec.value is not None:
            named = [spec.variables[v] for v in _placeholders(spec.value) if v in spec.variables]
            if any(self.given.get(v.name, v.default) is None for v in named):
                return None
            return self.fill(spec.value, spec.variables)
        return self.value(key, spec)

    def arguments(self, arguments: Sequence[Argument]) -> list[str]:
        words: list[str] = []
        for argument in arguments:
            text = self.resolved(_argument_key(argument), argument.input)
            if text is None:
                continue  # an optional value left blank: its argument is left out
            words += [argument.input.name, text] if argument.kind == "named" else [text]
        return words

    def key_values(self, items: Sequence[Input]) -> dict[str, str]:
        found: dict[str, str] = {}
        for spec in items:
            text = self.resolved(spec.name, spec)
            if text is not None:
                found[spec.name] = text
        return found


def _command(kind: str, package: Package, resolver: _Resolver) -> tuple[str, list[str], dict[str, str]]:
    """(program, arguments, environment) of a package, in the reference hosts' order."""
    program, _runtime = _PROGRAMS.get(kind, (kind, None))
    env = resolver.key_values(package.environment)
    args: list[str] = []
    if kind == "oci":
        args += ["run", "-i", "--rm"]
    if kind == "npm":
        args.append("-y")  # npx asks before it installs a package; the person agreed in the form
    args += resolver.arguments(package.runtime_arguments)
    if kind == "oci":
        for name in env:
            args += ["-e", name]  # the value reaches docker through its environment, not its command line
    args.append(_reference(kind, package))
    package_args = resolver.arguments(package.package_arguments)
    if kind == "nuget":
        args.append("--yes")
        if package_args:
            args.append("--")
    return program, args + package_args, env


def _reference(kind: str, package: Package) -> str:
    """The package as its runtime names it: name@version, name==version, image:tag."""
    identifier, version = package.identifier, package.version
    if not version:
        return identifier
    if kind in ("npm", "nuget"):
        return f"{identifier}@{version}"
    if kind == "pypi":
        return f"{identifier}=={version}"
    if kind == "oci" and not _OCI_TAG.search(identifier.rsplit("/", 1)[-1]):
        return f"{identifier}:{version}"
    return identifier
