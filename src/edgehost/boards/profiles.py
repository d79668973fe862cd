"""Board profiles: TOML files in ``board_profiles/`` that say how to run models on one kind of board.

A profile is chosen from the detected board (device-tree compatible and model strings, Armbian's
``BOARD=``, the SoC, the CPU architecture) or named by the user with ``--profile NAME``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edgehost.boards.detection import BoardInfo
from edgehost.errors import ConfigError, UsageError
from edgehost.paths import shipped_dir
from edgehost.toml_text import load_toml

__all__ = [
    "SamplingDefaults",
    "BoardProfile",
    "MatchRules",
    "load_profile",
    "load_profiles",
    "match_score",
    "profiles_dir",
    "expected_speed",
    "select_profile",
]


@dataclass(frozen=True)
class MatchRules:
    """How a profile recognises its board. Every list is "any of"."""

    compatible: tuple[str, ...] = ()  # exact device-tree compatible entries
    model: tuple[str, ...] = ()  # substrings of /proc/device-tree/model, ending at a word boundary
    armbian_board: tuple[str, ...] = ()  # BOARD= values of /etc/armbian-release
    soc: tuple[str, ...] = ()  # SoC families ("rk3588" also matches "rk3588s")
    arch: tuple[str, ...] = ()  # platform.machine() values


@dataclass(frozen=True)
class SamplingDefaults:
    """Repetition controls for the model (the profile's ``[sampling]`` table): small models repeat
    themselves without them. llama.cpp applies all four; RKLLM takes ``repeat_penalty`` at load."""

    repeat_penalty: float = 1.1  # RKLLM's own default (rkllm_createDefaultParam)
    repeat_last_n: int = 64  # tokens the penalties look back over
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "repeat_penalty": self.repeat_penalty,
            "repeat_last_n": self.repeat_last_n,
            "frequency_penalty": self.frequency_penalty,
            "presence_penalty": self.presence_penalty,
        }


@dataclass
class BoardProfile:
    name: str
    display_name: str
    match: MatchRules = field(default_factory=MatchRules)
    soc: str | None = None
    npu_cores: int = 0
    big_cores: list[int] = field(default_factory=list)
    backend_order: list[str] = field(default_factory=lambda: ["llamacpp"])
    threads: int = 0  # 0 = let the runtime decide
    affinity: list[int] = field(default_factory=list)  # CPUs the inference worker is pinned to; [] = none
    context_length: int = 4096
    rkllm_cpu_mask: int = 0
    rkllm_cpu_count: int = 0
    # Measured decode speeds per backend: (parameters in billions, tokens/s) pairs (the [speed] table).
    speed: dict[str, tuple[tuple[float, float], ...]] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    sampling: SamplingDefaults = field(default_factory=SamplingDefaults)
    source: str | None = None  # the TOML file it came from

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "display_name": self.display_name,
            "soc": self.soc,
            "npu_cores": self.npu_cores,
            "big_cores": list(self.big_cores),
            "backend_order": list(self.backend_order),
            "threads": self.threads,
            "affinity": list(self.affinity),
            "context_length": self.context_length,
            "rkllm_cpu_mask": self.rkllm_cpu_mask,
            "rkllm_cpu_count": self.rkllm_cpu_count,
            "speed": {backend: [list(point) for point in points] for backend, points in self.speed.items()},
            "env": dict(self.env),
            "sampling": self.sampling.as_dict(),
            "source": self.source,
        }


def profiles_dir() -> Path:
    """The folder holding the shipped profiles (see edgehost.paths.shipped_dir).

    Raises ConfigError when it is missing (a broken install).
    """
    try:
        return shipped_dir("board_profiles")
    except FileNotFoundError as exc:
        raise ConfigError(str(exc)) from None


def _strings(data: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError("must be a list of strings", path=where, field=key)
    return tuple(value)


def _ints(data: dict[str, Any], key: str, where: str) -> tuple[int, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
        raise ConfigError("must be a list of integers", path=where, field=key)
    return tuple(value)


# field: (smallest, largest) accepted
_SAMPLING_RANGES: dict[str, tuple[float, float]] = {
    "repeat_penalty": (1.0, 2.0),
    "repeat_last_n": (0, 4096),
    "frequency_penalty": (0.0, 2.0),
    "presence_penalty": (0.0, 2.0),
}


def _sampling(table: Any, where: str) -> SamplingDefaults:
    if not isinstance(table, dict):
        raise ConfigError("must be a table", path=where, field="sampling")
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _SAMPLING_RANGES:
            raise ConfigError(
                f"unknown key; known: {', '.join(_SAMPLING_RANGES)}", path=where, field=f"sampling.{key}"
            )
        low, high = _SAMPLING_RANGES[key]
        wanted = int if key == "repeat_last_n" else (int, float)
        if isinstance(value, bool) or not isinstance(value, wanted) or not low <= value <= high:
            raise ConfigError(
                f"must be a number from {low:g} to {high:g}", path=where, field=f"sampling.{key}"
            )
        values[key] = value
    return SamplingDefaults(**values)


def _speed(table: Any, where: str) -> dict[str, tuple[tuple[float, float], ...]]:
    if not isinstance(table, dict):
        raise ConfigError("must be a table of [[billions, tokens/s], ...] lists", path=where, field="speed")
    speed = {}
    for backend, points in table.items():
        try:
            pairs = tuple((float(size), float(rate)) for size, rate in points)
        except (TypeError, ValueError):
            pairs = ()
        if not pairs or any(size <= 0 or rate <= 0 for size, rate in pairs):
            raise ConfigError(
                "must be a list of [billions of parameters, tokens/s] pairs, both positive",
                path=where,
                field=f"speed.{backend}",
            )
        speed[str(backend)] = pairs
    return speed


def load_profile(path: Path) -> BoardProfile:
    """Read one profile file. Raises ConfigError naming the file (and line or field) when it is bad."""
    where = str(path)
    data = load_toml(path.read_text(encoding="utf-8"), where)
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name:
        raise ConfigError("must be a non-empty string", path=where, field="name")
    match = data.get("match", {})
    if not isinstance(match, dict):
        raise ConfigError("must be a table", path=where, field="match")
    if "recommended_models" in data:
        raise ConfigError(
            "[[recommended_models]] is no longer read: the model catalog (resources/models/catalog.toml) suggests "
            "models from the board's RAM, NPU and the [speed] table; remove it",
            path=where,
            field="recommended_models",
        )
    speed = _speed(data.get("speed", {}), where)
    env = data.get("env", {})
    if not isinstance(env, dict):
        raise ConfigError("must be a table of strings", path=where, field="env")
    sampling = _sampling(data.get("sampling", {}), where)
    try:
        return BoardProfile(
            name=name,
            display_name=str(data.get("display_name", name)),
            match=MatchRules(
                compatible=_strings(match, "compatible", where),
                model=_strings(match, "model", where),
                armbian_board=_strings(match, "armbian_board", where),
                soc=_strings(match, "soc", where),
                arch=_strings(match, "arch", where),
            ),
            soc=data.get("soc"),
            npu_cores=int(data.get("npu_cores", 0)),
            big_cores=list(_ints(data, "big_cores", where)),
            backend_order=list(_strings(data, "backend_order", where) or ("llamacpp",)),
            threads=int(data.get("threads", 0)),
            affinity=list(_ints(data, "affinity", where)),
            context_length=int(data.get("context_length", 4096)),
            rkllm_cpu_mask=int(data.get("rkllm_cpu_mask", 0)),
            rkllm_cpu_count=int(data.get("rkllm_cpu_count", 0)),
            speed=speed,
            env={str(k): str(v) for k, v in env.items()},
            sampling=sampling,
            source=where,
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad value: {exc}", path=where) from None


def load_profiles(directory: Path | None = None) -> list[BoardProfile]:
    """Every ``*.toml`` profile in ``directory`` (default: profiles_dir()), sorted by name.

    Raises ConfigError for a broken file or two profiles with the same name.
    """
    folder = directory if directory is not None else profiles_dir()
    profiles: dict[str, BoardProfile] = {}
    for path in sorted(folder.glob("*.toml")):
        profile = load_profile(path)
        if profile.name in profiles:
            raise ConfigError(
                f"profile {profile.name!r} is also defined in {profiles[profile.name].source}", path=str(path)
            )
        profiles[profile.name] = profile
    return [profiles[name] for name in sorted(profiles)]


def _model_pattern_matches(pattern: str, model: str) -> bool:
    # "Orange Pi 5" must not match "Orange Pi 5B" nor "ROCK 5B" match "ROCK 5B+": the pattern has to
    # end where a word ends.
    return re.search(re.escape(pattern) + r"(?![\w+])", model, re.IGNORECASE) is not None


def match_score(profile: BoardProfile, info: BoardInfo) -> tuple[int, int] | None:
    """How well ``profile`` fits the board: (rule strength, matched length); None if it does not.

    Board-specific rules (compatible, Armbian BOARD) beat a model-string match, which beats a SoC
    match, which beats a CPU architecture match; among equals the longest matched string wins.
    """
    rules = profile.match
    best: tuple[int, int] | None = None

    def consider(score: tuple[int, int]) -> None:
        nonlocal best
        if best is None or score > best:
            best = score

    compatible = {c.lower() for c in info.compatible}
    for entry in rules.compatible:
        if entry.lower() in compatible:
            consider((4, len(entry)))
    if info.armbian_board:
        for board in rules.armbian_board:
            if board.lower() == info.armbian_board.lower():
                consider((4, len(board)))
    if info.model:
        for pattern in rules.model:
            if _model_pattern_matches(pattern, info.model):
                consider((3, len(pattern)))
    if info.soc:
        for soc in rules.soc:
            if info.soc.lower().startswith(soc.lower()):
                consider((2, len(soc)))
    for arch in rules.arch:
        if arch.lower() == info.machine.lower():
            consider((1, len(arch)))
    return best


def select_profile(
    info: BoardInfo, profiles: Sequence[BoardProfile], override: str | None = None
) -> BoardProfile:
    """The profile named by ``override``, else the best match for ``info``.

    Raises UsageError when ``override`` names no profile (the message lists the names), and
    ConfigError when no profile matches at all (the generic ones should always match).
    """
    if override:
        for profile in profiles:
            if profile.name == override:
                return profile
        names = ", ".join(p.name for p in profiles)
        raise UsageError(f"unknown board profile {override!r}; known profiles: {names}")
    scored = [(score, profile) for profile in profiles if (score := match_score(profile, info)) is not None]
    if not scored:
        raise ConfigError(f"no board profile matches this machine ({info.machine}); use --profile NAME")
    scored.sort(key=lambda item: item[0], reverse=True)
    return scored[0][1]


def expected_speed(profile: BoardProfile, backend: str, params_b: float) -> float | None:
    """Decode tokens/s of a model with ``params_b`` billion parameters on ``backend``, from the
    profile's measured points: interpolated between them on a log-log scale, and beyond them taken as
    inversely proportional to the size (decode reads every weight once per token). None when the
    profile has no figures for the backend."""
    points = sorted(profile.speed.get(backend, ()))
    if not points or params_b <= 0:
        return None
    if params_b <= points[0][0]:
        return points[0][1] * points[0][0] / params_b
    if params_b >= points[-1][0]:
        return points[-1][1] * points[-1][0] / params_b
    for (size_a, speed_a), (size_b, speed_b) in zip(points, points[1:], strict=False):
        if size_a <= params_b <= size_b and size_a < size_b:
            share = (math.log(params_b) - math.log(size_a)) / (math.log(size_b) - math.log(size_a))
            return math.exp(math.log(speed_a) + share * (math.log(speed_b) - math.log(speed_a)))
    return None  # pragma: no cover - the points cover every size between the first and the last
