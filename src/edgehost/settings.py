"""User settings: a small JSON file the app itself writes (enable flags, model, backend ...).

Server definitions live in the servers config (Claude Desktop / VS Code JSON or TOML), not here.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from edgehost.errors import ConfigError


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
    approval_timeout_s: float = 120.0
    tool_budget_fraction: float = 0.25
    max_correction_rounds: int = 2
    max_calls_per_turn: int = 8
    # Who decides whether and which tool a turn calls: auto (the host for models under 1.5B
    # parameters, the model otherwise) | host | model. See agent/routing.py resolve_routing.
    routing: str = "auto"
    close_to_tray: bool = True
    theme: str = "system"  # system | dark | light
    # The window's one-time hint that the embedded model is a tiny one, with the model to get instead.
    model_hint_dismissed: bool = False
    extra: dict[str, Any] = field(default_factory=dict)  # unknown keys, kept on save

    @classmethod
    def load(cls, path: Path) -> Settings:
        """Read settings; a missing file gives the defaults.

        Raises ConfigError naming the file and line when the JSON is broken.
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
        known = {f.name for f in fields(cls)} - {"extra", "openai"}
        kwargs: dict[str, Any] = {k: v for k, v in data.items() if k in known}
        for key, value in kwargs.items():
            problem = _problem(key, value)
            if problem:
                raise ConfigError(problem, path=str(path), line=_line_of(text, key), field=key)
        settings = cls(**kwargs)
        if isinstance(data.get("openai"), dict):
            settings.openai = OpenAISettings(
                **{k: v for k, v in data["openai"].items() if k in {f.name for f in fields(OpenAISettings)}}
            )
        settings.extra = {k: v for k, v in data.items() if k not in known and k != "openai"}
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


_NONE = type(None)
_TYPES: dict[str, tuple[type, ...]] = {
    "backend": (str,),
    "model": (str, _NONE),
    "profile": (str, _NONE),
    "context_length": (int, _NONE),
    "threads": (int, _NONE),
    "rkllm_lib": (str, _NONE),
    "rkllm_abi": (str, _NONE),
    "disabled_servers": (list,),
    "disabled_tools": (list,),
    "approval_timeout_s": (int, float),
    "tool_budget_fraction": (int, float),
    "max_correction_rounds": (int,),
    "max_calls_per_turn": (int,),
    "routing": (str,),
    "close_to_tray": (bool,),
    "theme": (str,),
    "model_hint_dismissed": (bool,),
}
_CHOICES: dict[str, tuple[Any, ...]] = {
    "backend": ("auto", "llamacpp", "rkllm", "openai"),
    "theme": ("system", "dark", "light"),
    "routing": ("auto", "host", "model"),
    "rkllm_abi": (None, "1.2", "1.3"),
}
_TYPE_NAMES = {
    str: "a string",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    list: "a list",
    _NONE: "null",
}


def _problem(key: str, value: Any) -> str | None:
    """Why ``value`` is not acceptable for the setting ``key`` (None when it is)."""
    wanted = _TYPES.get(key, (object,))
    bool_for_number = isinstance(value, bool) and bool not in wanted and (int in wanted or float in wanted)
    if bool_for_number or not isinstance(value, wanted):
        names = [_TYPE_NAMES.get(t, t.__name__) for t in wanted if not (t is int and float in wanted)]
        return f"must be {' or '.join(names)}, not {json.dumps(value)}"
    if key in _CHOICES and value not in _CHOICES[key]:
        return f"must be one of {', '.join(json.dumps(c) for c in _CHOICES[key])}, not {json.dumps(value)}"
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        return f"must not be negative, not {value}"
    return None


def _line_of(text: str, key: str) -> int | None:
    needle = json.dumps(key) + ":"
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line.replace('" :', '":'):
            return number
    return None
