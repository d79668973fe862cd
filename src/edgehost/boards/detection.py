"""What board this is, read without root from /proc, /sys and /etc.

Every function takes ``root`` (default ``/``) so tests point it at a fake device tree; the
environment variable ``EDGEHOST_SYSFS_ROOT`` does the same for a whole process (see system_root()).
Nothing here raises for a missing or unreadable file: an unknown value is None or empty.
"""

from __future__ import annotations

import fcntl
import os
import platform
import re
import stat
import struct
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from edgehost.paths import SYSFS_ROOT_ENV

__all__ = [
    "MIN_RKNPU_DRIVER",
    "BoardInfo",
    "CpuCore",
    "MemoryInfo",
    "NpuInfo",
    "ThermalZone",
    "big_cores",
    "detect_board",
    "detect_npu",
    "read_cpus",
    "read_loadavg",
    "read_memory",
    "read_thermal_zones",
    "read_uptime",
    "system_root",
]

# RKLLM needs the vendor NPU driver 0.9.7 or newer (RKLLM_FACTS.md).
MIN_RKNPU_DRIVER = (0, 9, 7)
_VERSION_RE = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def system_root() -> Path:
    """``$EDGEHOST_SYSFS_ROOT`` if set (a fake tree for tests and demos), else ``/``."""
    return Path(os.environ.get(SYSFS_ROOT_ENV) or "/")


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _read_int(path: Path) -> int | None:
    text = _read_text(path)
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        return None


@dataclass(frozen=True)
class CpuCore:
    id: int
    max_freq_khz: int | None = None
    cur_freq_khz: int | None = None
    capacity: int | None = None  # arm64 cpu_capacity, 1024 for the biggest core


@dataclass(frozen=True)
class ThermalZone:
    name: str  # thermal_zoneN
    type: str  # e.g. "soc-thermal", "bigcore0-thermal", "npu-thermal" (names differ between kernels)
    temp_c: float | None


@dataclass(frozen=True)
class MemoryInfo:
    total_bytes: int | None
    available_bytes: int | None


@dataclass(frozen=True)
class NpuInfo:
    present: bool = False
    driver: str | None = None  # DRIVER= of the render node's uevent ("RKNPU")
    render_node: str | None = None  # e.g. /dev/dri/renderD129
    node_exists: bool = False
    accessible: bool = False  # the current user may open the node read/write
    node_group: str | None = None  # group owning the node ("render")
    driver_version: str | None = None  # "0.9.8" where readable
    load: str | None = None  # debugfs load line where readable (root only)
    cur_freq_hz: int | None = None

    @property
    def driver_too_old(self) -> bool:
        if self.driver_version is None:
            return False
        found = _VERSION_RE.search(self.driver_version)
        return found is not None and tuple(int(x) for x in found.groups()) < MIN_RKNPU_DRIVER


@dataclass(frozen=True)
class BoardInfo:
    machine: str
    model: str | None = None
    compatible: tuple[str, ...] = ()
    armbian_board: str | None = None
    soc: str | None = None
    cpus: tuple[CpuCore, ...] = ()
    npu: NpuInfo = field(default_factory=NpuInfo)
    memory_total_bytes: int | None = None

    @property
    def ram_gb(self) -> float | None:
        return self.memory_total_bytes / 2**30 if self.memory_total_bytes else None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["compatible"] = list(self.compatible)
        data["cpus"] = [asdict(c) for c in self.cpus]
        data["big_cores"] = list(big_cores(self.cpus))
        data["ram_gb"] = round(self.ram_gb, 2) if self.ram_gb else None
        return data


def read_compatible(root: Path = Path("/")) -> tuple[str, ...]:
    """The NUL-separated entries of /proc/device-tree/compatible."""
    try:
        raw = (root / "proc/device-tree/compatible").read_bytes()
    except OSError:
        return ()
    return tuple(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)


def read_model(root: Path = Path("/")) -> str | None:
    text = _read_text(root / "proc/device-tree/model")
    if text is None:
        return None
    return text.strip("\0\n ") or None


def read_armbian_board(root: Path = Path("/")) -> str | None:
    text = _read_text(root / "etc/armbian-release")
    if text is None:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "BOARD":
            return value.strip().strip("\"'") or None
    return None


def soc_from_compatible(compatible: tuple[str, ...]) -> str | None:
    """The SoC named by a ``rockchip,rkNNNN[s]`` entry ("rk3588s" for the S variant)."""
    socs = [m.group(1) for c in compatible if (m := re.fullmatch(r"rockchip,(rk\d{4}[a-z]?)", c.strip()))]
    if not socs:
        return None
    # Boards list the exact variant before the family ("rockchip,rk3588s" then maybe "rockchip,rk3588").
    return max(socs, key=len)


def read_cpus(root: Path = Path("/")) -> tuple[CpuCore, ...]:
    base = root / "sys/devices/system/cpu"
    cores = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return ()
    for entry in entries:
        found = re.fullmatch(r"cpu(\d+)", entry.name)
        if not found:
            continue
        cores.append(
            CpuCore(
                id=int(found.group(1)),
                max_freq_khz=_read_int(entry / "cpufreq/cpuinfo_max_freq"),
                cur_freq_khz=_read_int(entry / "cpufreq/scaling_cur_freq"),
                capacity=_read_int(entry / "cpu_capacity"),
            )
        )
    return tuple(sorted(cores, key=lambda c: c.id))


def big_cores(cpus: tuple[CpuCore, ...]) -> tuple[int, ...]:
    """CPUs of the fastest cluster (by cpu_capacity, else max frequency); () when all are alike."""
    for key in ("capacity", "max_freq_khz"):
        values = {c.id: getattr(c, key) for c in cpus if getattr(c, key) is not None}
        if len(values) == len(cpus) and len(set(values.values())) > 1:
            top = max(values.values())
            return tuple(i for i, v in values.items() if v == top)
    return ()


def read_thermal_zones(root: Path = Path("/")) -> tuple[ThermalZone, ...]:
    base = root / "sys/class/thermal"
    zones = []
    try:
        entries = [e for e in base.iterdir() if e.name.startswith("thermal_zone")]
    except OSError:
        return ()
    for entry in sorted(entries, key=lambda e: int(re.sub(r"\D", "", e.name) or 0)):
        millidegrees = _read_int(entry / "temp")
        zones.append(
            ThermalZone(
                name=entry.name,
                type=(_read_text(entry / "type") or "").strip() or entry.name,
                temp_c=millidegrees / 1000.0 if millidegrees is not None else None,
            )
        )
    return tuple(zones)


def read_memory(root: Path = Path("/")) -> MemoryInfo:
    text = _read_text(root / "proc/meminfo") or ""
    values: dict[str, int] = {}
    for line in text.splitlines():
        found = re.match(r"(\w+):\s+(\d+)\s*kB", line)
        if found:
            values[found.group(1)] = int(found.group(2)) * 1024
    return MemoryInfo(total_bytes=values.get("MemTotal"), available_bytes=values.get("MemAvailable"))


def read_uptime(root: Path = Path("/")) -> float | None:
    text = _read_text(root / "proc/uptime")
    try:
        return float(text.split()[0]) if text else None
    except (ValueError, IndexError):
        return None


def read_loadavg(root: Path = Path("/")) -> tuple[float, float, float] | None:
    text = _read_text(root / "proc/loadavg")
    try:
        parts = text.split() if text else []
        return (float(parts[0]), float(parts[1]), float(parts[2]))
    except (ValueError, IndexError):
        return None


def _uevent_driver(path: Path) -> str | None:
    for line in (_read_text(path) or "").splitlines():
        key, _, value = line.partition("=")
        if key == "DRIVER":
            return value.strip()
    return None


# DRM_IOCTL_VERSION = _IOWR('d', 0x00, struct drm_version); struct drm_version is 64 bytes on LP64:
# int major, minor, patchlevel; size_t name_len; char* name; size_t date_len; char* date; size_t
# desc_len; char* desc. With every length 0 the kernel copies no strings, only the three numbers.
_DRM_VERSION_SIZE = 64
_DRM_IOCTL_VERSION = (3 << 30) | (_DRM_VERSION_SIZE << 16) | (ord("d") << 8) | 0x00


def _drm_driver_version(node: Path) -> str | None:
    try:
        if not stat.S_ISCHR(node.stat().st_mode):
            return None
        fd = os.open(node, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        buffer = bytearray(_DRM_VERSION_SIZE)
        fcntl.ioctl(fd, _DRM_IOCTL_VERSION, buffer)
        major, minor, patch = struct.unpack_from("iii", buffer)
        return f"{major}.{minor}.{patch}"
    except OSError:
        return None
    finally:
        os.close(fd)


def _npu_driver_version(root: Path, node: Path | None) -> str | None:
    # debugfs needs root; /sys/module/rknpu/version exists when the driver declares MODULE_VERSION.
    for source in ("sys/kernel/debug/rknpu/version", "sys/module/rknpu/version"):
        text = _read_text(root / source)
        if text and (found := _VERSION_RE.search(text)):
            return found.group(0)
    return _drm_driver_version(node) if node is not None else None


def _npu_freq(root: Path) -> int | None:
    base = root / "sys/class/devfreq"
    try:
        entries = sorted(e for e in base.iterdir() if "npu" in e.name)
    except OSError:
        return None
    for entry in entries:
        value = _read_int(entry / "cur_freq")
        if value is not None:
            return value
    return None


def detect_npu(root: Path = Path("/")) -> NpuInfo:
    """The Rockchip NPU: a DRM render node whose device's uevent says ``DRIVER=RKNPU``."""
    base = root / "sys/class/drm"
    try:
        renders = sorted(e for e in base.iterdir() if e.name.startswith("renderD"))
    except OSError:
        renders = []
    for entry in renders:
        driver = _uevent_driver(entry / "device/uevent")
        if driver is None or driver.upper() != "RKNPU":
            continue
        node = root / "dev/dri" / entry.name
        exists = node.exists()
        group = None
        if exists:
            try:
                import grp

                group = grp.getgrgid(node.stat().st_gid).gr_name
            except (KeyError, OSError):
                group = None
        load = _read_text(root / "sys/kernel/debug/rknpu/load")
        return NpuInfo(
            present=True,
            driver=driver,
            render_node=str(Path("/dev/dri") / entry.name) if root == Path("/") else str(node),
            node_exists=exists,
            accessible=exists and os.access(node, os.R_OK | os.W_OK),
            node_group=group,
            driver_version=_npu_driver_version(root, node if exists else None),
            load=load.strip() if load else None,
            cur_freq_hz=_npu_freq(root),
        )
    return NpuInfo()


def detect_board(root: Path = Path("/"), machine: str | None = None) -> BoardInfo:
    """Everything that identifies this board; ``machine`` defaults to platform.machine()."""
    compatible = read_compatible(root)
    return BoardInfo(
        machine=machine or platform.machine(),
        model=read_model(root),
        compatible=compatible,
        armbian_board=read_armbian_board(root),
        soc=soc_from_compatible(compatible),
        cpus=read_cpus(root),
        npu=detect_npu(root),
        memory_total_bytes=read_memory(root).total_bytes,
    )
