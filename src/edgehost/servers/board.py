"""The built-in ``board`` MCP server: what the board is and how it is doing, read-only.

Board model, SoC and profile; CPU cores with current and maximum frequency; every thermal zone;
memory, disk, uptime and load; the NPU (presence, driver version, load where readable); the clock
(date, time, time zone, here or in a time zone asked for). Everything but the clock comes from
edgehost.boards' detection functions, so ``--root`` (or EDGEHOST_SYSFS_ROOT) points it at a fake tree in
tests. Run it with ``edgehost serve board``.

A small model reads a result's text and repeats it, so the results it gets wrong as bare data (the
clock, which says nothing of whose time it is; the uptime in seconds, which it converts wrongly; "no
sensors") are said in a sentence; the data stays in the structured content.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone, tzinfo
from functools import cache
from pathlib import Path
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
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
    user_profiles_dir,
)
from edgehost.errors import EdgeHostError
from edgehost.paths import Paths
from edgehost.servers._common import run_stdio

__all__ = ["BoardReader", "build_server", "main"]

_READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
_MB = 1024 * 1024
NO_SENSORS = "this machine has no readable temperature sensors (no thermal zones)"
NO_SENSORS_SENTENCE = "This machine has no readable temperature sensors (no thermal zones), so there is no temperature to report."

# A tool's result: a sentence for the model (and the user) to read, the data as structured content.
Answer = Annotated[CallToolResult, dict[str, Any]]


def _mb(value: int | None) -> float | None:
    return round(value / _MB, 1) if value is not None else None


def _answer(data: dict[str, Any], text: str | None = None) -> CallToolResult:
    """``data`` as structured content, read by the model as ``text`` (default: the data as JSON)."""
    shown = text if text is not None else json.dumps(data, ensure_ascii=False, indent=2)
    return CallToolResult(content=[TextContent(type="text", text=shown)], structured_content=data)


def duration_text(seconds: float) -> str:
    """A duration as people write it: "15 h 56 min", "3 days 2 h", "42 s" (seconds only under a minute)."""
    total = max(0, int(seconds))
    if total < 60:
        return f"{total} s"
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [f"{days} day{'s' if days != 1 else ''}"] if days else []
    parts += [f"{hours} h"] if hours else []
    parts += [f"{minutes} min"] if minutes else []
    return " ".join(parts)


# --- time zones -------------------------------------------------------------------------------


@cache
def _zone_names() -> frozenset[str]:
    return frozenset(available_timezones())


@dataclass(frozen=True)
class _ZoneTable:
    """The time zone database's names, looked up by the clock tool: built once, on its first use."""

    names: tuple[str, ...]  # sorted
    by_lower_name: dict[str, str]  # {"asia/tokyo": "Asia/Tokyo", ...}
    by_city: dict[str, list[str]]  # {"tokyo": ["Asia/Tokyo"], "new york": ["America/New_York"], ...}


@cache
def _zone_table() -> _ZoneTable:
    names = tuple(sorted(_zone_names()))
    cities: dict[str, list[str]] = {}
    for name in names:
        if "/" in name:  # a zone's last part, in words
            cities.setdefault(_words(name.rsplit("/", 1)[-1]), []).append(name)
    return _ZoneTable(names, {name.lower(): name for name in names}, cities)


@cache
def _zones_by_abbreviation() -> dict[str, list[str]]:
    """{"JST": ["Asia/Tokyo", ...], "PST": [...]}: what each zone is called in January and in July."""
    found: dict[str, list[str]] = {}
    for name in _zone_table().names:
        zone = _zone_info(name)
        if zone is None or "/" not in name or name.startswith("Etc/"):
            continue
        for month in (1, 7):
            abbreviation = datetime(2026, month, 15, 12, tzinfo=zone).tzname() or ""
            if abbreviation.isalpha() and name not in found.get(abbreviation, []):
                found.setdefault(abbreviation, []).append(name)
    return found


def _words(name: str) -> str:
    return " ".join(name.replace("_", " ").split()).lower()


def _zone_info(name: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # unknown, not a key (a path), unreadable
        return None


def find_zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (the clock tool's ``timezone`` argument), also written in other case
    or as its city alone ("tokyo"). Raises ToolError naming the argument, with close names."""
    text = name.strip()
    table = _zone_table()
    exact = table.by_lower_name.get(text.replace(" ", "_").lower())
    cities = table.by_city.get(_words(text), []) if "/" not in text else []
    key = exact or (cities[0] if len(cities) == 1 else None) or (text if not table.names else None)
    zone = _zone_info(key) if key else None
    if zone is not None:
        return zone
    if not table.names:
        raise ToolError(
            f"timezone {name!r} cannot be looked up: this machine has no time zone database (tzdata)"
        )
    close = (
        cities
        or _zones_by_abbreviation().get(text.upper(), [])[:4]
        or difflib.get_close_matches(text, table.names, n=3, cutoff=0.6)
    )
    close += [
        zone
        for city in difflib.get_close_matches(_words(text), list(table.by_city), n=3, cutoff=0.75)
        for zone in table.by_city[city]
    ]
    hint = f"; did you mean {', '.join(dict.fromkeys(close[:4]))}?" if close else ""
    raise ToolError(
        f"timezone {name!r} is not a known time zone: give an IANA name like Asia/Tokyo or "
        f"Europe/Paris, or leave timezone out for the board's own time{hint}"
    )


def board_zone() -> tuple[tzinfo, str]:
    """The board's own time zone and its name: the IANA name where the system says it ($TZ,
    /etc/localtime's link, /etc/timezone), else the C library's local zone and its abbreviation."""
    named = os.environ.get("TZ")
    if named is not None:
        key = named.lstrip(":") or "UTC"  # TZ="" is UTC to the C library
        key = key.split("/zoneinfo/", 1)[-1] if key.startswith("/") else key
    else:
        link = Path("/etc/localtime")
        key = ""
        if link.is_symlink():
            key = os.path.realpath(link).split("/zoneinfo/", 1)[-1]
            key = key.removeprefix("posix/").removeprefix("right/")
        if not key or key.startswith("/"):
            try:
                key = Path("/etc/timezone").read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                key = ""
    zone = _zone_info(key) if key and not key.startswith("/") else None
    if zone is not None:
        return zone, key
    local = datetime.now().astimezone()
    assert local.tzinfo is not None
    return local.tzinfo, local.tzname() or "local time"


def _offset(moment: datetime) -> str:
    """The offset from UTC as ISO 8601 writes it, e.g. +09:00 (for the data)."""
    offset = moment.strftime("%z")
    return f"{offset[:3]}:{offset[3:]}"


def _offset_words(offset: str) -> str:
    """+09:00 as UTC+9, +05:30 as UTC+5:30 (for the sentence): no 09:00 a reader could take for the time."""
    hours, _, minutes = offset[1:].partition(":")
    return f"UTC{offset[0]}{int(hours)}" + (f":{minutes}" if minutes.strip("0") else "")


def clock_text(clock: dict[str, Any], asked: bool) -> str:
    """The clock in a sentence that says whose time it is (``asked``: in a zone the caller gave)."""
    name, abbreviation = clock["time_zone"], clock["time_zone_abbreviation"]
    offset = _offset_words(clock["utc_offset"])
    # "Asia/Tokyo (JST, UTC+9)", "UTC"; an abbreviation that is only the offset ("+04") is left out.
    details = [a for a in (abbreviation, offset) if a and a[0] not in "+-" and a not in (name, "UTC+0")]
    where = f"{name} ({', '.join(dict.fromkeys(details))})" if details else name
    when = f"{clock['time'][:5]} on {clock['weekday']} {clock['date']}"
    if asked:
        return f"In {where} it is {when}. (The board's own time zone is {clock['board_time_zone']}.)"
    return (
        f"On the board's clock it is {when}, in the board's time zone, {where}. "
        "(For another place's time, give the timezone argument.)"
    )


def uptime_text(uptime: dict[str, Any]) -> str:
    seconds = uptime["uptime_seconds"]
    up = (
        f"The board has been up for {uptime['uptime']} since it booted ({seconds} seconds)."
        if seconds is not None
        else "The board's uptime cannot be read (/proc/uptime)."
    )
    load = uptime["load_average"]
    if len(load) == 3:
        up += f" Load average over 1, 5 and 15 minutes: {load[0]}, {load[1]}, {load[2]}."
    return up


class BoardReader:
    """The readings behind the tools, for one system root (``/`` or a fake tree)."""

    def __init__(
        self, root: Path, profile_override: str | None = None, user_profiles: Path | None = None
    ) -> None:
        """``user_profiles``: the user's own profiles folder (user_profiles_dir), read beside the shipped
        ones as the app reads them; ``None`` for the shipped profiles alone."""
        self.root = root
        self.profile_override = profile_override
        self.user_profiles = user_profiles

    def _profile(self) -> BoardProfile | None:
        try:
            profiles = load_profiles(user_dir=self.user_profiles)
            return select_profile(detect_board(self.root), profiles, self.profile_override)
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
            return {"zones": [], "note": NO_SENSORS}
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

    def clock(self, timezone_name: str = "", at: datetime | None = None) -> dict[str, Any]:
        """The time ``at`` (default: now) in the IANA zone ``timezone_name``, or on the board's clock
        when it is empty; with the board's own zone either way. Raises ToolError for an unknown zone."""
        own, own_name = board_zone()
        zone: tzinfo = find_zone(timezone_name) if timezone_name.strip() else own
        moment = (at or datetime.now(timezone.utc)).astimezone(zone)
        return {
            "date": moment.date().isoformat(),
            "time": moment.strftime("%H:%M:%S"),
            "weekday": moment.strftime("%A"),
            "time_zone": zone.key if isinstance(zone, ZoneInfo) else own_name,
            "time_zone_abbreviation": moment.tzname(),
            "utc_offset": _offset(moment),
            "board_time_zone": own_name,
        }

    def uptime(self) -> dict[str, Any]:
        seconds = read_uptime(self.root)
        return {
            "uptime": duration_text(seconds) if seconds is not None else None,
            "uptime_seconds": seconds,
            "load_average": list(read_loadavg(self.root) or ()),
        }

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
    def temperatures() -> Answer:
        """The temperature in degrees Celsius of every thermal zone (SoC, big/little cores, GPU, NPU ...)."""
        reading = reader.temperatures()
        # Said in a sentence: an empty list reads to a small model as a reading to make up.
        return _answer(reading, None if reading["zones"] else NO_SENSORS_SENTENCE)

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
    def clock(
        timezone: Annotated[
            str,
            Field(
                description="IANA time zone of a place, such as Asia/Tokyo or Europe/Paris; "
                "leave it out for the board's own time zone"
            ),
        ] = "",
    ) -> Answer:
        """The current date and time on the board's clock, or in another place's time zone (timezone)."""
        reading = reader.clock(timezone)
        return _answer(reading, clock_text(reading, asked=bool(timezone.strip())))

    @server.tool(annotations=_READ_ONLY)
    def uptime() -> Answer:
        """How long the board has been up since boot, in hours and minutes and in seconds, and the 1, 5 and
        15 minute load averages."""
        reading = reader.uptime()
        return _answer(reading, uptime_text(reading))

    @server.tool(annotations=_READ_ONLY)
    def npu_status() -> dict[str, Any]:
        """The Rockchip NPU: present or not, its device node and whether we may use it, driver version,
        clock and load where readable."""
        return reader.npu()

    return server


def server_from_args(argv: Sequence[str] | None = None) -> MCPServer:
    """The server ``edgehost serve board ARGS`` serves (argparse exits on bad arguments)."""
    parser = argparse.ArgumentParser(
        prog="edgehost serve board", description="The built-in board MCP server (stdio)"
    )
    parser.add_argument(
        "--root", help="read /proc, /sys and /etc under this folder (default: $EDGEHOST_SYSFS_ROOT or /)"
    )
    parser.add_argument("--profile", help="board profile name instead of the detected one")
    parser.add_argument(
        "--config-dir",
        help="EdgeHost's config folder (where settings.json is), whose board_profiles/ holds your own board "
        "profiles (default: $EDGEHOST_DATA_DIR, else the usual config folder)",
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    root = Path(args.root) if args.root else system_root()
    paths = Paths.resolve()
    if args.config_dir:
        paths = replace(paths, config_dir=Path(args.config_dir).expanduser())
    reader = BoardReader(root, args.profile, user_profiles_dir(paths))
    return build_server(reader)


def main(argv: Sequence[str] | None = None) -> int:
    return run_stdio(server_from_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
