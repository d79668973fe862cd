"""The settings file's model: what each key takes, checked by pydantic (imported only when a settings
file is read, so that a start without one does not wait for pydantic)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from edgehost.errors import ConfigError
from edgehost.key_locations import KeyLocations, json_locations
from edgehost.settings import Backend, RkllmAbi, Routing, Theme
from edgehost.validation_messages import config_error, key_path_text, near_miss

__all__ = ["check_setting_values", "check_settings_file"]


def check_settings_file(
    data: dict[str, Any], text: str, path: Path
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The checked values of ``data`` (the file's keys over the defaults; ``text`` is the file's JSON):
    the known keys, the known keys of the ``openai`` table, and the unknown keys (kept on save).

    Raises ConfigError naming the file, line and key when a value is wrong or a key is misspelt.
    """
    locations = json_locations(text)
    try:
        checked = _SettingsFile.model_validate(data)
    except ValidationError as exc:
        raise config_error(exc, _SettingsFile, path=str(path), locations=locations) from None
    _refuse_misspelt_keys(checked, (), path, locations)
    _refuse_misspelt_keys(checked.openai, ("openai",), path, locations)
    return _known(checked), _known(checked.openai), dict(checked.model_extra or {})


def check_setting_values(current: dict[str, Any], values: Mapping[str, Any]) -> None:
    """Raise ValueError naming the setting and what it takes when one of ``values`` (over the ``current``
    settings, as Settings.save writes them) is not a value the settings file would take."""
    try:
        _SettingsFile.model_validate({**current, **values})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "settings"
        raise ValueError(f"{where}: {error['msg']}") from None


class _OpenAIFile(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")

    base_url: str
    model: str
    api_key_env: str


class _SettingsFile(BaseModel):
    """What each key of the settings file takes. It checks the file's keys over the defaults (Settings()),
    so it declares no defaults of its own."""

    model_config = ConfigDict(strict=True, extra="allow")

    backend: Backend
    model: str | None
    profile: str | None
    context_length: int | None = Field(ge=0)
    threads: int | None = Field(ge=0)
    rkllm_lib: str | None
    rkllm_abi: RkllmAbi | None
    openai: _OpenAIFile
    disabled_servers: list[str]
    disabled_tools: list[str]
    approval_timeout_s: float = Field(ge=0)
    tool_budget_fraction: float = Field(ge=0, le=1, description="a fraction from 0 to 1")
    max_correction_rounds: int = Field(ge=0)
    max_calls_per_turn: int = Field(ge=0)
    routing: Routing
    close_to_tray: bool
    theme: Theme
    model_hint_dismissed: bool
    registry_url: str | None = Field(pattern=r"^https?://", description="an http(s) address")


def _known(checked: BaseModel) -> dict[str, Any]:
    """The checked values of the known keys (not sub-tables)."""
    return {
        name: value
        for name in type(checked).model_fields
        if not isinstance(value := getattr(checked, name), BaseModel)
    }


def _refuse_misspelt_keys(
    checked: BaseModel, prefix: tuple[str, ...], path: Path, locations: KeyLocations
) -> None:
    """Raise ConfigError for an unknown key that is a near miss of a known one (``"theem"``): a typo
    would otherwise be kept and ignored. Other unknown keys (a newer version's) are kept."""
    for key in checked.model_extra or {}:
        meant = near_miss(key, type(checked).model_fields)
        if meant:
            key_path = (*prefix, key)
            position = locations.position_of(key_path)
            raise ConfigError(
                f"unknown setting {key!r} (did you mean {meant!r}?)",
                path=str(path),
                line=position.line if position else None,
                column=position.column if position else None,
                field=key_path_text(key_path),
            )
