"""Board detection (device tree, NPU, CPUs, thermal zones) and board profiles (board_profiles/*.toml)."""

from __future__ import annotations

from pathlib import Path

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
    BoardProfile,
    MatchRules,
    expected_speed,
    load_profile,
    load_profiles,
    profiles_dir,
    select_profile,
)

__all__ = [
    "BoardInfo",
    "BoardProfile",
    "CpuCore",
    "MatchRules",
    "MemoryInfo",
    "NpuInfo",
    "ThermalZone",
    "big_cores",
    "current_profile",
    "detect_board",
    "detect_npu",
    "load_profile",
    "load_profiles",
    "profiles_dir",
    "read_cpus",
    "read_loadavg",
    "read_memory",
    "read_thermal_zones",
    "read_uptime",
    "expected_speed",
    "select_profile",
    "system_root",
]


def current_profile(override: str | None = None, root: Path | None = None) -> tuple[BoardInfo, BoardProfile]:
    """Detect this board (under ``root``, default system_root()) and choose its profile.

    ``override`` is ``--profile NAME`` or the ``profile`` setting. Raises UsageError for an unknown
    name and ConfigError for a broken profile file.
    """
    info = detect_board(root if root is not None else system_root())
    return info, select_profile(info, load_profiles(), override)
