"""The built-in ``board`` MCP server: what the board is and how it is doing, read-only.

Board model, SoC and profile; CPU cores with current and maximum frequency; every thermal zone;
memory, disk, uptime and load; the NPU (presence, driver version, load where readable); the clock
(date, time, time zone). Everything but the clock comes from edgehost.boards' detection functions, so
``--root`` (or EDGEHOST_SYSFS_ROOT) points it at a fake tree in tests. Run it with
``edgehost serve board``.
"""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from edgehost import __version__
from edgehost.boards import (
    BoardProfile,
    big_cores,
    detect_board,
    detect_npu,
    load_profiles,
    read_cpus,
    read_loadavg,
    read_memory,
    read_thermal_zones,
    read_uptime,
    select_profile,
    system_root,
)
from edgehost.errors import EdgeHostError
from edgehost.servers._common import run_stdio

__all__ = ["BoardReader", "build_server", "main"]

_READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
_MB = 1024 * 1024


def _mb(value: int | None) -> float | None:
    return round(value / _MB, 1) if value is not None else None


class BoardReader:
    """The readings behind the tools, for one system root (``/`` or a fake tree)."""

    def __init__(self, root: Path, profile_override: str | None = None) -> None:
        self.root = root
        self.profile_override = profile_override

    def _profile(self) -> BoardProfile | None:
        try:
            return select_profile(detect_board(self.root), load_profiles(), self.profile_override)
        except EdgeHostError:
            return None

    def board(self) -> dict[str, Any]:
        info = detect_board(self.root)
        profile = self._profile()
        return {
            "model": info.model,
            "compatible": list(info.compatible),
            "armbian_board": info.armbian_board,
            "soc": info.soc,
            "machine": info.machine,
            "profile": profile.name if profile else None,
            "profile_display_name": profile.display_name if profile else None,
            "cpu_count": len(info.cpus),
            "big_cores": list(big_cores(info.cpus)),
            "ram_total_mb": _mb(info.memory_total_bytes),
            "npu_present": info.npu.present,
        }

    def cpus(self) -> dict[str, Any]:
        cores = read_cpus(self.root)
        big = set(big_cores(cores))
        return {
            "cores": [
                {
                    "cpu": core.id,
                    "cluster": ("big" if core.id in big else "little") if big else None,
                    "cur_mhz": core.cur_freq_khz // 1000 if core.cur_freq_khz else None,
                    "max_mhz": core.max_freq_khz // 1000 if core.max_freq_khz else None,
                    "capacity": core.capacity,
                }
                for core in cores
            ],
            "load_average": list(read_loadavg(self.root) or ()),
        }

    def temperatures(self) -> dict[str, Any]:
        zones = [asdict(zone) for zone in read_thermal_zones(self.root)]
        if not zones:  # said in words, or the model reads an empty list as a reading to make up
            return {
                "zones": [],
                "note": "this machine has no readable temperature sensors (no thermal zones)",
            }
        return {"zones": zones}

    def memory(self) -> dict[str, Any]:
        memory = read_memory(self.root)
        used = (
            memory.total_bytes - memory.available_bytes
            if memory.total_bytes is not None and memory.available_bytes is not None
            else None
        )
        return {
            "total_mb": _mb(memory.total_bytes),
            "available_mb": _mb(memory.available_bytes),
            "used_mb": _mb(used),
        }

    def disk(self, path: str) -> dict[str, Any]:
        try:
            usage = shutil.disk_usage(os.path.expanduser(path or "/"))
        except OSError as exc:
            raise ToolError(f"cannot read disk usage of {path!r}: {exc.strerror or exc}") from None
        return {
            "path": path or "/",
            "total_mb": _mb(usage.total),
            "used_mb": _mb(usage.used),
            "free_mb": _mb(usage.free),
            "used_percent": round(100.0 * usage.used / usage.total, 1) if usage.total else None,
        }

    def clock(self) -> dict[str, Any]:
        now = datetime.now().astimezone()
        offset = now.strftime("%z")
        return {
            "date": now.date().isoformat(),
            "time": now.strftime("%H:%M:%S"),
            "weekday": now.strftime("%A"),
            "time_zone": now.tzname(),
            "utc_offset": f"{offset[:3]}:{offset[3:]}",
        }

    def uptime(self) -> dict[str, Any]:
        return {"uptime_seconds": read_uptime(self.root), "load_average": list(read_loadavg(self.root) or ())}

    def npu(self) -> dict[str, Any]:
        npu = detect_npu(self.root)
        data = asdict(npu)
        data["driver_too_old"] = npu.driver_too_old
        if npu.present and npu.load is None:
            data["load_note"] = "the NPU load is only readable by root (/sys/kernel/debug/rknpu/load)"
        return data


def build_server(reader: BoardReader) -> MCPServer:
    server = MCPServer(
        "board",
        version=__version__,
        instructions="Read-only facts about the machine EdgeHost runs on: board, CPUs, temperatures, "
        "memory, disk, uptime, the NPU and the clock.",
    )

    @server.tool(annotations=_READ_ONLY)
    def board_info() -> dict[str, Any]:
        """The board model, SoC, detected EdgeHost board profile, CPU count, RAM and whether it has an NPU."""
        return reader.board()

    @server.tool(annotations=_READ_ONLY)
    def cpu_status() -> dict[str, Any]:
        """Every CPU core with its current and maximum frequency in MHz and cluster, plus the load average."""
        return reader.cpus()

    @server.tool(annotations=_READ_ONLY)
    def temperatures() -> dict[str, Any]:
        """The temperature in degrees Celsius of every thermal zone (SoC, big/little cores, GPU, NPU ...)."""
        return reader.temperatures()

    @server.tool(annotations=_READ_ONLY)
    def memory_usage() -> dict[str, Any]:
        """Total, available and used RAM in MB."""
        return reader.memory()

    @server.tool(annotations=_READ_ONLY)
    def disk_usage(
        path: Annotated[
            str, Field(description="A folder on the disk to measure; '/' for the root file system")
        ] = "/",
    ) -> dict[str, Any]:
        """Total, used and free space in MB of the file system holding ``path``."""
        return reader.disk(path)

    @server.tool(annotations=_READ_ONLY)
    def clock() -> dict[str, Any]:
        """The current local date and time of the board's clock, with the weekday and time zone."""
        return reader.clock()

    @server.tool(annotations=_READ_ONLY)
    def uptime() -> dict[str, Any]:
        """How long the board has been up since boot, in seconds, and the 1, 5 and 15 minute load averages."""
        return reader.uptime()

    @server.tool(annotations=_READ_ONLY)
    def npu_status() -> dict[str, Any]:
        """The Rockchip NPU: present or not, its device node and whether we may use it, driver version,
        clock and load where readable."""
        return reader.npu()

    return server


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="edgehost serve board", description="The built-in board MCP server (stdio)"
    )
    parser.add_argument(
        "--root", help="read /proc, /sys and /etc under this folder (default: $EDGEHOST_SYSFS_ROOT or /)"
    )
    parser.add_argument("--profile", help="board profile name instead of the detected one")
    args = parser.parse_args(list(argv) if argv is not None else None)
    root = Path(args.root) if args.root else system_root()
    return run_stdio(build_server(BoardReader(root, args.profile)))


if __name__ == "__main__":
    raise SystemExit(main())
