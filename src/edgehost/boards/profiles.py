"""Board profiles: TOML files in ``board_profiles/`` that say how to run models on one kind of board.

A profile is chosen (boards/choice.py) from the detected board or named by the user with
``--profile NAME`` or the ``profile`` setting. The shipped profiles can be added to or overridden by the user's own, in
``board_profiles/`` beside settings.json (user_profiles_dir).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictStr, ValidationError
from pydantic_core import PydanticCustomError

from edgehost.errors import ConfigError
from edgehost.key_locations import toml_locations
from edgehost.paths import Paths, shipped_dir
from edgehost.settings import DEFAULT_CONTEXT_LENGTH, BackendName
from edgehost.toml_text import load_toml
from edgehost.validation_messages import config_error

__all__ = [
    "SamplingDefaults",
    "BoardProfile",
    "MatchRules",
    "ProfileSet",
    "load_profile",
    "load_profiles",
    "profiles_dir",
    "read_profiles",
    "expected_speed",
    "user_profiles_dir",
    "warn_once",
]

log = logging.getLogger(__name__)

# The folder of the user's own profiles, in the folder settings.json is in.
USER_PROFILES_FOLDER = "board_profiles"


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
    context_length: int = DEFAULT_CONTEXT_LENGTH
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


def user_profiles_dir(paths: Paths) -> Path:
    """The user's own profiles: ``board_profiles/`` in the folder settings.json is in (the config
    folder; with ``--data-dir DIR``, DIR). A profile there adds a board, or replaces the shipped
    profile of the same name."""
    return paths.config_dir / USER_PROFILES_FOLDER


# --- the file's model ----------------------------------------------------------------------------

_DEFAULT = BoardProfile(name="", display_name="")
_DEFAULT_SAMPLING = SamplingDefaults()


def _one_or_many(value: Any) -> Any:
    """``soc = "rk3588"`` means ``soc = ["rk3588"]``."""
    return [value] if isinstance(value, str) else value


def _number_as_text(value: Any) -> Any:
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def _speed_points(value: Any) -> tuple[tuple[float, float], ...]:
    try:
        pairs = tuple((float(size), float(rate)) for size, rate in value)
    except (TypeError, ValueError):
        pairs = ()
    if not pairs or any(size <= 0 or rate <= 0 for size, rate in pairs):
        raise PydanticCustomError(
            "speed_points", "must be a list of [billions of parameters, tokens/s] pairs, both positive"
        )
    return pairs


def _range(low: float, high: float, default: float, *, whole: bool = False) -> Any:
    kind = "a whole number" if whole else "a number"
    return Field(default=default, ge=low, le=high, description=f"{kind} from {low:g} to {high:g}")


_Names = Annotated[list[StrictStr], BeforeValidator(_one_or_many)]
_CpuNumbers = list[Annotated[int, Field(ge=0)]]
_NAMES = "a string or a list of strings"


class _Table(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class _MatchTable(_Table):
    compatible: _Names = Field(default_factory=list, description=_NAMES)
    model: _Names = Field(default_factory=list, description=_NAMES)
    armbian_board: _Names = Field(default_factory=list, description=_NAMES)
    soc: _Names = Field(default_factory=list, description=_NAMES)
    arch: _Names = Field(default_factory=list, description=_NAMES)


_SpeedPoints = Annotated[Any, AfterValidator(_speed_points)]
_SPEED = "a list of [billions of parameters, tokens/s] pairs"


class _SpeedTable(_Table):
    """Measured decode speeds, one list per backend; a key that names no backend is refused by name."""

    llamacpp: _SpeedPoints = Field(default=None, description=_SPEED)
    rkllm: _SpeedPoints = Field(default=None, description=_SPEED)
    openai: _SpeedPoints = Field(default=None, description=_SPEED)

    def points(self) -> dict[str, tuple[tuple[float, float], ...]]:
        return {name: value for name in type(self).model_fields if (value := getattr(self, name)) is not None}


class _SamplingTable(_Table):
    repeat_penalty: float = _range(1.0, 2.0, _DEFAULT_SAMPLING.repeat_penalty)
    repeat_last_n: int = _range(0, 4096, _DEFAULT_SAMPLING.repeat_last_n, whole=True)
    frequency_penalty: float = _range(0.0, 2.0, _DEFAULT_SAMPLING.frequency_penalty)
    presence_penalty: float = _range(0.0, 2.0, _DEFAULT_SAMPLING.presence_penalty)


class _ProfileFile(_Table):
    """What each key of a profile file takes; an unknown key is refused by name."""

    name: str | None = Field(default=None, min_length=1)  # None: the file's name
    display_name: str | None = None  # None: the name
    match: _MatchTable = Field(default_factory=_MatchTable)
    soc: str | None = None
    npu_cores: int = Field(default=_DEFAULT.npu_cores, ge=0)
    big_cores: _CpuNumbers = Field(default_factory=list, description="a list of CPU numbers")
    backend_order: Annotated[list[BackendName], BeforeValidator(_one_or_many)] = Field(
        default_factory=list, description="a list of backends"
    )
    threads: int = Field(default=_DEFAULT.threads, ge=0)
    affinity: _CpuNumbers = Field(default_factory=list, description="a list of CPU numbers")
    context_length: int = Field(default=_DEFAULT.context_length, gt=0)
    rkllm_cpu_mask: int = Field(default=_DEFAULT.rkllm_cpu_mask, ge=0)
    rkllm_cpu_count: int = Field(default=_DEFAULT.rkllm_cpu_count, ge=0)
    speed: _SpeedTable = Field(default_factory=_SpeedTable)
    env: dict[str, Annotated[StrictStr, BeforeValidator(_number_as_text)]] = Field(
        default_factory=dict, description="a table of strings"
    )
    sampling: _SamplingTable = Field(default_factory=_SamplingTable)


def load_profile(path: Path) -> BoardProfile:
    """Read one profile file. Raises ConfigError naming the file, line and key when it is bad."""
    where = str(path)
    text = path.read_text(encoding="utf-8")
    data = load_toml(text, where)
    locations = toml_locations(text)
    if "recommended_models" in data:
        position = locations.position_of(("recommended_models",))
        raise ConfigError(
            "[[recommended_models]] is no longer read: the model catalog (resources/models/catalog.toml) suggests "
            "models from the board's RAM, NPU and the [speed] table; remove it",
            path=where,
            line=position.line if position else None,
            column=position.column if position else None,
            field="recommended_models",
        )
    try:
        checked = _ProfileFile.model_validate(data)
    except ValidationError as exc:
        raise config_error(exc, _ProfileFile, path=where, locations=locations, toml=True) from None
    name = checked.name or path.stem
    match = checked.match
    return BoardProfile(
        name=name,
        display_name=checked.display_name if checked.display_name is not None else name,
        match=MatchRules(
            compatible=tuple(match.compatible),
            model=tuple(match.model),
            armbian_board=tuple(match.armbian_board),
            soc=tuple(match.soc),
            arch=tuple(match.arch),
        ),
        soc=checked.soc,
        npu_cores=checked.npu_cores,
        big_cores=checked.big_cores,
        backend_order=list(checked.backend_order) or list(_DEFAULT.backend_order),
        threads=checked.threads,
        affinity=checked.affinity,
        context_length=checked.context_length,
        rkllm_cpu_mask=checked.rkllm_cpu_mask,
        rkllm_cpu_count=checked.rkllm_cpu_count,
        speed=checked.speed.points(),
        env=dict(checked.env),
        sampling=SamplingDefaults(**checked.sampling.model_dump()),
        source=where,
    )


def load_profiles(directory: Path | None = None, *, user_dir: Path | None = None) -> list[BoardProfile]:
    """Every ``*.toml`` profile in ``directory`` (default: profiles_dir()), sorted by name; with
    ``user_dir``, the user's profiles too (read_profiles), a user profile that cannot be read left out
    with a warning in the log.

    Raises ConfigError for a broken file or two profiles with the same name in ``directory``.
    """
    if user_dir is not None:
        found = read_profiles(user_dir, directory)
        for problem in found.problems:
            warn_once(f"{problem} (this board profile is left out)")
        return found.profiles
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


@dataclass
class ProfileSet:
    """The profiles to choose from: the shipped ones, and the user's, which replace shipped ones of the
    same name. A user profile that cannot be read is left out; ``problems`` says why, by file and line."""

    profiles: list[BoardProfile]
    shipped_dir: Path
    user_dir: Path | None
    user_profiles: list[str] = field(default_factory=list)  # names read from user_dir
    overridden: list[str] = field(default_factory=list)  # shipped profiles a user profile replaces
    problems: list[ConfigError] = field(default_factory=list)


def read_profiles(user_dir: Path | None, directory: Path | None = None) -> ProfileSet:
    """The shipped profiles (``directory``, default profiles_dir()) and those in ``user_dir`` (when it
    exists). Raises ConfigError only for a broken shipped profile (a broken install)."""
    shipped = directory if directory is not None else profiles_dir()
    by_name = {profile.name: profile for profile in load_profiles(shipped)}
    found = ProfileSet(profiles=[], shipped_dir=shipped, user_dir=user_dir)
    mine: dict[str, BoardProfile] = {}
    for path in sorted(user_dir.glob("*.toml")) if user_dir is not None and user_dir.is_dir() else []:
        try:
            profile = load_profile(path)
        except ConfigError as exc:
            found.problems.append(exc)
            continue
        except (OSError, UnicodeDecodeError) as exc:
            found.problems.append(ConfigError(f"cannot be read: {exc}", path=str(path)))
            continue
        if profile.name in mine:
            found.problems.append(
                ConfigError(
                    f"profile {profile.name!r} is also defined in {mine[profile.name].source}", path=str(path)
                )
            )
            continue
        mine[profile.name] = profile
    found.user_profiles = sorted(mine)
    found.overridden = sorted(name for name in mine if name in by_name)
    by_name.update(mine)
    found.profiles = [by_name[name] for name in sorted(by_name)]
    return found


_warned: set[str] = set()


def warn_once(message: str) -> None:
    """Log ``message`` as a warning the first time this process meets it (profiles are read and
    chosen at start, again for the model catalog ...)."""
    if message not in _warned:
        _warned.add(message)
        log.warning("%s", message)


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
