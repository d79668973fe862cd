"""Board detection (device tree, NPU, CPUs, thermal zones) and board profiles (board_profiles/*.toml)."""

from __future__ import annotations

from pathlib import Path

from edgehost.boards.choice import (
    ProfileChoice,
    ProfileWarning,
    choose_profile,
    match_rule,
    profile_mismatch,
    select_profile,
)
from edgehost.boards.detection import (
    BoardInfo,
    CpuCore,
    MemoryInfo,
    NpuInfo,
    ThermalZone,
    big_cores,
    detect_board,
    detect_npu,
    read_cpus,
    read_loadavg,
    read_memory,
    read_thermal_zones,
    read_uptime,
    system_root,
)
from edgehost.boards.profiles import (
    USER_PROFILES_FOLDER,
    BoardProfile,
    MatchRules,
    ProfileSet,
    expected_speed,
    load_profile,
    load_profiles,
    profiles_dir,
    read_profiles,
    user_profiles_dir,
    warn_once,
)
from edgehost.paths import Paths
from edgehost.settings import SettingText

__all__ = [
    "BoardInfo",
    "BoardProfile",
    "CpuCore",
    "MatchRules",
    "MemoryInfo",
    "NpuInfo",
    "ProfileChoice",
    "ProfileSet",
    "ProfileWarning",
    "ThermalZone",
    "big_cores",
    "choose_profile",
    "current_choice",
    "current_profile",
    "detect_board",
    "detect_npu",
    "load_profile",
    "load_profiles",
    "match_rule",
    "profile_mismatch",
    "profiles_dir",
    "read_cpus",
    "read_loadavg",
    "read_memory",
    "read_profiles",
    "read_thermal_zones",
    "read_uptime",
    "expected_speed",
    "select_profile",
    "system_root",
    "user_profiles_dir",
    "warn_once",
]


def current_profile(
    override: str | None = None, root: Path | None = None, paths: Paths | None = None
) -> tuple[BoardInfo, BoardProfile]:
    """Detect this board (under ``root``, default system_root()) and choose its profile.

    ``override`` is ``--profile NAME`` or the ``profile`` setting (see choose_profile: an unknown name
    from the command line raises UsageError, one from the settings file falls back to the detected
    profile with a warning in the log). The user's own profiles are read too: from
    user_profiles_dir(``paths``), else from beside the settings file that named ``override``; one that
    cannot be read is left out with a warning. Raises ConfigError for a broken shipped profile file.
    """
    info, choice = current_choice(override, root, paths)
    for warning in choice.warnings:
        warn_once(warning.problem)
    return info, choice.profile


def current_choice(
    override: str | None = None, root: Path | None = None, paths: Paths | None = None
) -> tuple[BoardInfo, ProfileChoice]:
    """current_profile's detection and choice, with who chose the profile and what is wrong with the
    choice (its warnings, not logged: for a face to show them). Raises as current_profile does."""
    info = detect_board(root if root is not None else system_root())
    return info, choose_profile(info, load_profiles(user_dir=_user_dir(override, paths)), override)


def _user_dir(override: str | None, paths: Paths | None) -> Path | None:
    if paths is not None:
        return user_profiles_dir(paths)
    if isinstance(override, SettingText) and override.file:
        # settings.json is in the config folder, where the user's profiles are too.
        return Path(override.file).parent / USER_PROFILES_FOLDER
    return None
