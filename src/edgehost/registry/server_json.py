"""A server of the MCP Registry as its ``server.json`` describes it (schema 2025-12-11), read into plain
data: what it is, the packages it installs from (npm, PyPI, an OCI image, a NuGet package, an MCPB
bundle) and the remote endpoints it serves, each with the values a person must or may give.

Read leniently: a field of a wrong type is dropped, not fatal (registries are written by many hands),
but an entry without a name, or a package without an identifier, is no entry and no package. Pure and
Qt-free; the registry client (``edgehost.registry.client``) fetches, this reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from edgehost.mcp.config import server_name_like

__all__ = [
    "OFFICIAL_META",
    "Argument",
    "Input",
    "Package",
    "RegistryEntry",
    "Remote",
    "read_entry",
]

OFFICIAL_META = "io.modelcontextprotocol.registry/official"

InputFormat = Literal["string", "number", "boolean", "filepath"]


@dataclass(frozen=True)
class Input:
    """A value the entry asks for (the schema's Input / InputWithVariables / KeyValueInput): an environment
    variable, a header, a URL variable, or the value of an argument."""

    name: str  # the variable's, header's or argument's name ("--port", "target_dir", "API_KEY")
    description: str = ""
    required: bool = False
    format: InputFormat = "string"
    value: str | None = None  # fixed by the publisher (not for the user to change); {var} filled in
    secret: bool = False
    default: str | None = None
    placeholder: str | None = None
    choices: tuple[str, ...] = ()
    variables: Mapping[str, Input] = field(default_factory=dict)  # {var} in ``value``, asked for


@dataclass(frozen=True)
class Argument:
    """A command-line argument: positional (``value_hint`` names it) or named (``--flag value``)."""

    kind: Literal["positional", "named"]
    input: Input
    value_hint: str | None = None
    repeated: bool = False


@dataclass(frozen=True)
class Package:
    registry_type: str  # npm | pypi | oci | nuget | mcpb (others are shown, not installed)
    identifier: str  # the package name, the image reference, or the bundle's download URL
    version: str | None = None
    registry_base_url: str | None = None
    file_sha256: str | None = None
    runtime_hint: str | None = None
    transport: str = "stdio"  # stdio | streamable-http | sse
    transport_url: str | None = None
    headers: tuple[Input, ...] = ()
    runtime_arguments: tuple[Argument, ...] = ()
    package_arguments: tuple[Argument, ...] = ()
    environment: tuple[Input, ...] = ()


@dataclass(frozen=True)
class Remote:
    transport: str  # streamable-http | sse
    url: str
    headers: tuple[Input, ...] = ()
    variables: Mapping[str, Input] = field(default_factory=dict)


@dataclass(frozen=True)
class RegistryEntry:
    name: str  # reverse-DNS, one slash: io.github.owner/server
    version: str
    description: str = ""
    title: str = ""
    website: str | None = None
    repository: str | None = None
    packages: tuple[Package, ...] = ()
    remotes: tuple[Remote, ...] = ()
    status: str = "active"  # the registry's: active | deprecated | deleted
    status_message: str = ""
    published_at: str | None = None
    updated_at: str | None = None

    @property
    def display_name(self) -> str:
        return self.title or self.name.rsplit("/", 1)[-1]

    @property
    def short_name(self) -> str:
        """A server name for the servers file, from the part of the name after the slash."""
        return server_name_like(self.name.rsplit("/", 1)[-1])


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


def _input(data: Mapping[str, Any], name: str, *, secret_parent: bool = False) -> Input:
    """``secret_parent``: the Input this is a variable of is secret (``"Bearer {api_key}"``): so is it."""
    raw_format = data.get("format")
    choices = data.get("choices")
    variables = data.get("variables")
    secret = secret_parent or data.get("isSecret") is True
    return Input(
        name=name,
        description=_text(data, "description") or "",
        required=data.get("isRequired") is True,
        format=raw_format if raw_format in ("string", "number", "boolean", "filepath") else "string",
        value=_text(data, "value"),
        secret=secret,
        default=_scalar_text(data.get("default")),
        placeholder=_text(data, "placeholder"),
        choices=tuple(str(c) for c in choices) if isinstance(choices, list) else (),
        variables=_variables(variables, secret=secret),
    )


def _scalar_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    return None


def _variables(data: Any, *, secret: bool = False) -> dict[str, Input]:
    if not isinstance(data, Mapping):
        return {}
    return {
        str(key): _input(value, str(key), secret_parent=secret)
        for key, value in data.items()
        if isinstance(value, Mapping)
    }


def _key_values(items: Any) -> tuple[Input, ...]:
    if not isinstance(items, list):
        return ()
    return tuple(
        _input(item, item["name"]) for item in items if isinstance(item, Mapping) and _text(item, "name")
    )


def _arguments(items: Any) -> tuple[Argument, ...]:
    if not isinstance(items, list):
        return ()
    found: list[Argument] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "named" and _text(item, "name"):
            found.append(
                Argument("named", _input(item, item["name"]), repeated=item.get("isRepeated") is True)
            )
        elif item.get("type") == "positional" and (_text(item, "valueHint") or _text(item, "value")):
            hint = _text(item, "valueHint")
            found.append(
                Argument(
                    "positional",
                    _input(item, hint or "argument"),
                    value_hint=hint,
                    repeated=item.get("isRepeated") is True,
                )
            )
    return tuple(found)


def _package(data: Mapping[str, Any]) -> Package | None:
    registry_type, identifier = _text(data, "registryType"), _text(data, "identifier")
    if registry_type is None or identifier is None:
        return None
    transport = data.get("transport") if isinstance(data.get("transport"), Mapping) else {}
    assert isinstance(transport, Mapping)
    return Package(
        registry_type={"docker": "oci", "docker-hub": "oci"}.get(registry_type, registry_type),
        identifier=identifier,
        version=_text(data, "version"),
        registry_base_url=_text(data, "registryBaseUrl"),
        file_sha256=_text(data, "fileSha256"),
        runtime_hint=_text(data, "runtimeHint"),
        transport=_text(transport, "type") or "stdio",
        transport_url=_text(transport, "url"),
        headers=_key_values(transport.get("headers")),
        runtime_arguments=_arguments(data.get("runtimeArguments")),
        package_arguments=_arguments(data.get("packageArguments")),
        environment=_key_values(data.get("environmentVariables")),
    )


def _remote(data: Mapping[str, Any]) -> Remote | None:
    kind, url = _text(data, "type"), _text(data, "url")
    if kind not in ("streamable-http", "sse") or url is None:
        return None
    return Remote(kind, url, _key_values(data.get("headers")), _variables(data.get("variables")))


def _list_of(data: Any, read: Any) -> tuple[Any, ...]:
    if not isinstance(data, list):
        return ()
    return tuple(item for item in (read(x) for x in data if isinstance(x, Mapping)) if item is not None)


def read_entry(item: Mapping[str, Any]) -> RegistryEntry | None:
    """One element of a registry listing (``{"server": {...}, "_meta": {...}}``) or a bare server.json;
    None when it has no name or version."""
    server = item.get("server") if isinstance(item.get("server"), Mapping) else item
    assert isinstance(server, Mapping)
    name, version = _text(server, "name"), _text(server, "version")
    if name is None or version is None:
        return None
    meta = item.get("_meta")
    official: Mapping[str, Any] = {}
    if isinstance(meta, Mapping) and isinstance(meta.get(OFFICIAL_META), Mapping):
        official = meta[OFFICIAL_META]
    repository = server.get("repository")
    return RegistryEntry(
        name=name,
        version=version,
        description=_text(server, "description") or "",
        title=_text(server, "title") or "",
        website=_text(server, "websiteUrl"),
        repository=_text(repository, "url") if isinstance(repository, Mapping) else None,
        packages=_list_of(server.get("packages"), _package),
        remotes=_list_of(server.get("remotes"), _remote),
        status=_text(official, "status") or "active",
        status_message=_text(official, "statusMessage") or "",
        published_at=_text(official, "publishedAt"),
        updated_at=_text(official, "updatedAt"),
    )


def read_entries(items: Sequence[Any]) -> list[RegistryEntry]:
    """The entries of a listing's ``servers`` that can be read."""
    return [entry for entry in (read_entry(x) for x in items if isinstance(x, Mapping)) if entry is not None]
