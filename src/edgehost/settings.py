"""User settings: a small JSON file the app itself writes (enable flags, model, backend ...), and the
defaults of what they set.

Server definitions live in the servers config (Claude Desktop / VS Code JSON or TOML), not here.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from edgehost.errors import ConfigError

__all__ = [
    "DEFAULT_APPROVAL_TIMEOUT_S",
    "DEFAULT_CONTEXT_LENGTH",
    "DEFAULT_MAX_CALLS_PER_TURN",
    "DEFAULT_MAX_PARALLEL_CALLS",
    "DEFAULT_MAX_CORRECTION_ROUNDS",
    "DEFAULT_TOOL_BUDGET_FRACTION",
    "BACKEND_LABELS",
    "ROUTING_LABELS",
    "Backend",
    "BackendName",
    "OpenAISettings",
    "SettingText",
    "Settings",
]

# The defaults, defined here once: the agent, the approval flow, the board profiles and the backend
# factory import them.
DEFAULT_CONTEXT_LENGTH = 4096  # tokens, when neither the settings nor the board profile give one
DEFAULT_APPROVAL_TIMEOUT_S = 120.0  # long enough to read the arguments, short enough not to hang a script
DEFAULT_TOOL_BUDGET_FRACTION = 0.25  # of the context, for the tools section of the prompt
DEFAULT_MAX_CORRECTION_ROUNDS = 2
DEFAULT_MAX_CALLS_PER_TURN = 8
DEFAULT_MAX_PARALLEL_CALLS = 4  # calls of one reply running at once

BackendName = Literal["llamacpp", "rkllm", "openai"]
Backend = Literal["auto", BackendName]
Routing = Literal["auto", "host", "model"]
Theme = Literal["system", "dark", "light"]
RkllmAbi = Literal["1.2", "1.3"]

# What each backend and routing choice is called on screen (the window, the web page): the settings'
# values are ids a user never has to read.
BACKEND_LABELS = {
    "auto": "Automatic (by board)",
    "llamacpp": "llama.cpp on the CPU",
    "rkllm": "RKLLM on the NPU",
    "openai": "OpenAI-compatible server",
}
ROUTING_LABELS = {
    "auto": "Tools: automatic",
    "host": "Tools: EdgeHost decides",
    "model": "Tools: the model decides",
}


class SettingText(str):
    """A text setting as read from the settings file, remembering where: the ``file``, the ``key`` and its
    ``line``. It is its text everywhere else (compares, hashes and is saved as a plain string).

    It lets a reader that finds the value wrong name where it was written, and tell a setting apart from
    the same text given on the command line: a board profile the settings name that does not exist
    falls back to the detected one with a warning, while an unknown ``--profile`` stays an error
    (edgehost.boards.profiles.choose_profile).
    """

    file: str
    key: str
    line: int | None

    def __new__(cls, text: str, file: str = "", key: str = "", line: int | None = None) -> SettingText:
        value = super().__new__(cls, text)
        value.file, value.key, value.line = file, key, line
        return value

    def __reduce__(self) -> tuple[Any, ...]:
        return (SettingText, (str(self), self.file, self.key, self.line))

    def __deepcopy__(self, memo: dict[int, Any]) -> SettingText:
        return self  # immutable, like the str it is

    def __copy__(self) -> SettingText:
        return self


@dataclass
class OpenAISettings:
    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = ""
    api_key_env: str = "OPENAI_API_KEY"


@dataclass
class Settings:
    backend: str = "auto"  # auto | llamacpp | rkllm | openai
    model: str | None = None  # path to a .gguf or .rkllm file; None = the embedded default
    profile: str | None = None  # board profile name; None = detected
    context_length: int | None = None  # None = from the profile, capped by the model
    threads: int | None = None  # None = from the profile
    rkllm_lib: str | None = None
    rkllm_abi: str | None = None  # "1.2" | "1.3"; None = read from the library
    openai: OpenAISettings = field(default_factory=OpenAISettings)
    disabled_servers: list[str] = field(default_factory=list)
    disabled_tools: list[str] = field(default_factory=list)  # namespaced server__tool
    approval_timeout_s: float = DEFAULT_APPROVAL_TIMEOUT_S
    tool_budget_fraction: float = DEFAULT_TOOL_BUDGET_FRACTION
    max_correction_rounds: int = DEFAULT_MAX_CORRECTION_ROUNDS
    max_calls_per_turn: int = DEFAULT_MAX_CALLS_PER_TURN
    # Who decides whether and which tool a turn calls: auto (the host for models under 1.5B
    # parameters, the model otherwise) | host | model. See agent/routing.py resolve_routing.
    routing: str = "auto"
    close_to_tray: bool = True
    theme: str = "system"  # system | dark | light
    # The window's one-time hint that the embedded model is a tiny one, with the model to get instead.
    model_hint_dismissed: bool = False
    # The MCP Registry servers are searched in (an organisation's own, say); None = the official one.
    # EDGEHOST_REGISTRY_URL is over it (edgehost.registry.client.registry_url).
    registry_url: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # unknown keys, kept on save

    @classmethod
    def load(cls, path: Path) -> Settings:
        """Read settings; a missing file gives the defaults. Keys this version does not know are kept
        (in ``extra``, written back on save), unless they look like a misspelt known one.

        Raises ConfigError naming the file, line and key when the JSON is broken or a value is wrong.
        """
        if not path.exists():
            return cls()
        text = path.read_text(encoding="utf-8")
        try:
            data = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            raise ConfigError(exc.msg, path=str(path), line=exc.lineno, column=exc.colno) from None
        if not isinstance(data, dict):
            raise ConfigError("settings must be a JSON object", path=str(path), line=1)
        # Checked by pydantic models imported only now: at a start without a settings file the window
        # does not wait for pydantic (issue 12).
        from edgehost._settings_file import check_settings_file

        known, openai, extra = check_settings_file(_over_defaults(data), text, path)
        if isinstance(known.get("profile"), str):
            known["profile"] = _remembered(known["profile"], "profile", text, path)
        settings = cls(**known)
        settings.openai = OpenAISettings(**openai)
        settings.extra = extra
        return settings

    def save(self, path: Path) -> None:
        """Write atomically (temp file + rename) so a crash never leaves half a file."""
        data = asdict(self)
        extra = data.pop("extra")
        data.update(extra)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, sort_keys=True)
            handle.write("\n")
        os.replace(tmp, path)

    def is_server_enabled(self, name: str) -> bool:
        return name not in self.disabled_servers

    def is_tool_enabled(self, namespaced: str) -> bool:
        return namespaced not in self.disabled_tools

    def set_server_enabled(self, name: str, enabled: bool) -> None:
        _set_membership(self.disabled_servers, name, present=not enabled)

    def set_tool_enabled(self, namespaced: str, enabled: bool) -> None:
        _set_membership(self.disabled_tools, namespaced, present=not enabled)


def _set_membership(items: list[str], item: str, *, present: bool) -> None:
    if present and item not in items:
        items.append(item)
        items.sort()
    elif not present and item in items:
        items.remove(item)


def _remembered(value: str, key: str, text: str, path: Path) -> SettingText:
    """``value`` of the top-level ``key`` with the file and line it was read from."""
    from edgehost.key_locations import json_locations

    position = json_locations(text).position_of((key,))
    return SettingText(value, str(path), key, position.line if position else None)


def _over_defaults(data: dict[str, Any]) -> dict[str, Any]:
    """The file's keys over the defaults (the ``openai`` table key by key)."""
    defaults = asdict(Settings())
    defaults.pop("extra")
    merged = {**defaults, **data}
    if isinstance(data.get("openai"), dict):
        merged["openai"] = {**defaults["openai"], **data["openai"]}
    return merged
