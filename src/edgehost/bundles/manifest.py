"""An MCPB bundle's ``manifest.json`` (manifest_version 0.1 to 0.4, and the older ``dxt_version``), checked
with errors that name the field and its line: ``bundle.mcpb!manifest.json:7:13: must be one of "node",
"python", "binary", "uv", not "java" (field 'server.type')``.

Only what a host acts on is checked strictly (the server, its configuration, the user's options, the
platforms); other keys (icons, tools, prompts, localization, a newer version's additions) are kept as
written and not looked at.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from edgehost.errors import ConfigError
from edgehost.key_locations import json_locations
from edgehost.validation_messages import config_error

__all__ = ["MANIFEST_VERSIONS", "Manifest", "McpConfig", "UserOption", "read_manifest"]

MANIFEST_VERSIONS = ("0.1", "0.2", "0.3", "0.4")
_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class _Author(_Open):
    name: str = Field(min_length=1)


class _Override(_Open):
    command: str | None = None
    args: list[str] | None = None
    env: dict[str, str] | None = None


class McpConfig(_Open):
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    platform_overrides: dict[str, _Override] = Field(default_factory=dict)


class _Server(_Open):
    type: Literal["node", "python", "binary", "uv"]
    entry_point: str = Field(min_length=1)
    mcp_config: McpConfig | None = None


class UserOption(_Open):
    """One ``user_config`` option: what the person fills in when the bundle is installed."""

    type: Literal["string", "number", "boolean", "directory", "file"]
    title: str = Field(min_length=1)
    description: str = ""
    required: bool = False
    default: str | int | float | bool | list[str] | None = None
    multiple: bool = False
    sensitive: bool = False
    min: int | float | None = None
    max: int | float | None = None


class _Compatibility(_Open):
    platforms: list[str] | None = None


class Manifest(_Open):
    manifest_version: str | None = None
    dxt_version: str | None = None  # the older name of manifest_version
    name: str = Field(pattern=_NAME, description="a name of letters, digits, '.', '_' and '-'")
    display_name: str | None = None
    version: str = Field(min_length=1)
    description: str = Field(min_length=1)
    author: _Author
    server: _Server
    user_config: dict[str, UserOption] = Field(default_factory=dict)
    compatibility: _Compatibility | None = None

    @model_validator(mode="after")
    def _versions_and_config(self) -> Manifest:
        version = self.manifest_version or self.dxt_version
        if version is None:
            raise ValueError("manifest_version is missing (one of " + ", ".join(MANIFEST_VERSIONS) + ")")
        if version not in MANIFEST_VERSIONS:
            raise ValueError(
                f"manifest_version {version!r} is not one this EdgeHost reads ({', '.join(MANIFEST_VERSIONS)})"
            )
        if self.server.type == "uv" and version != "0.4":
            raise ValueError('server.type "uv" needs manifest_version 0.4')
        if self.server.mcp_config is None and self.server.type != "uv":
            raise ValueError(f"server.mcp_config is missing: a {self.server.type} server needs its command")
        return self

    @property
    def title(self) -> str:
        return self.display_name or self.name


def read_manifest(text: str, where: str) -> Manifest:
    """The manifest in ``text`` (read from ``where``, named in errors). Raises ConfigError with the
    field and its line."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(exc.msg, path=where, line=exc.lineno, column=exc.colno) from None
    if not isinstance(data, dict):
        raise ConfigError("the manifest must be a JSON object", path=where, line=1)
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        raise config_error(exc, Manifest, path=where, locations=json_locations(text)) from None
