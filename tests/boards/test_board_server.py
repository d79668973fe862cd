"""The built-in `board` server over real stdio with the SDK's Client, on a fake RK3588 tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio
import pytest
from fake_sysfs import build, rk3588_board
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, TextContent
from tests.support import CONNECT_TIMEOUT_S, python_server_client

import edgehost.servers.board as board_server
from edgehost.boards import current_profile, load_profiles
from edgehost.paths import Paths
from edgehost.servers.board import BoardReader, build_server, clock_text, duration_text


def text_of(result: CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent))


async def call(client: Client, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await client.call_tool(name, arguments or {})
    text = text_of(result)
    assert not result.is_error, text
    if result.structured_content is not None:
        return dict(result.structured_content)
    return dict(json.loads(text))


async def test_every_tool_answers_from_the_board_and_is_read_only(tmp_path: Path) -> None:
    root = build(tmp_path / "root", rk3588_board())
    code = "import sys; from edgehost.servers.board import main; sys.exit(main(sys.argv[1:]))"
    async with python_server_client("-c", code, "--root", str(root)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {
            "board_info",
            "cpu_status",
            "temperatures",
            "memory_usage",
            "disk_usage",
            "uptime",
            "npu_status",
            "clock",
        }
        for tool in tools.values():
            assert tool.annotations is not None and tool.annotations.read_only_hint is True, tool.name

        board = await call(client, "board_info")
        assert board["model"] == "Xunlong Orange Pi 5 Plus"
        assert (board["soc"], board["profile"], board["npu_present"]) == ("rk3588", "orangepi-5-plus", True)
        assert board["big_cores"] == [4, 5, 6, 7]

        cpus = await call(client, "cpu_status")
        assert [c["max_mhz"] for c in cpus["cores"]] == [1800] * 4 + [2304] * 4
        assert cpus["cores"][5]["cluster"] == "big" and cpus["cores"][0]["cur_mhz"] == 900

        zones = (await call(client, "temperatures"))["zones"]
        assert len(zones) == 7 and zones[-1]["type"] == "npu-thermal" and zones[-1]["temp_c"] == 44.0

        memory = await call(client, "memory_usage")
        assert memory["available_mb"] == 12 * 1024

        disk = await call(client, "disk_usage", {"path": str(tmp_path)})
        assert disk["total_mb"] > 0 and disk["free_mb"] >= 0

        assert (await call(client, "uptime"))["uptime_seconds"] == 12345.67

        before = datetime.now().astimezone().replace(microsecond=0)
        clock = await call(client, "clock")
        read = datetime.fromisoformat(f"{clock['date']}T{clock['time']}{clock['utc_offset']}")
        assert before <= read <= datetime.now().astimezone()
        assert clock["weekday"] == read.strftime("%A") and clock["time_zone"]

        npu = await call(client, "npu_status")
        assert (npu["present"], npu["driver_version"], npu["accessible"]) == (True, "0.9.8", True)
        assert "load_note" in npu

        missing = await client.call_tool("disk_usage", {"path": str(tmp_path / "nope")})
        assert missing.is_error


async def test_the_sysfs_root_can_come_from_the_environment(tmp_path: Path) -> None:
    root = build(
        tmp_path / "root",
        rk3588_board(model="Radxa ROCK 5B", compatible=("radxa,rock-5b", "rockchip,rk3588")),
    )
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "edgehost.servers.board"],
        env={"EDGEHOST_SYSFS_ROOT": str(root), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(params) as client:
            board = await call(client, "board_info")
    assert (board["model"], board["profile"]) == ("Radxa ROCK 5B", "rock-5b")


def test_a_machine_without_thermal_zones_says_so_in_words(tmp_path: Path) -> None:
    """An empty list alone reads to a small model as a reading to fill in; the note is what it repeats."""
    root = build(tmp_path / "root", rk3588_board(thermal=[]))
    reading = BoardReader(root).temperatures()
    assert reading == {
        "zones": [],
        "note": "this machine has no readable temperature sensors (no thermal zones)",
    }
    assert len(BoardReader(build(tmp_path / "other", rk3588_board())).temperatures()["zones"]) == 7


def _board_info_through_the_host(data: Path, root: Path) -> dict[str, Any]:
    """``board_info`` as ``edgehost --data-dir DATA call`` gets it from the built-in server, on ``root``."""
    done = subprocess.run(
        [sys.executable, "-m", "edgehost", "--data-dir", str(data), "call", "board__board_info"],
        capture_output=True,
        text=True,
        env={**os.environ, "EDGEHOST_SYSFS_ROOT": str(root)},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout))


def test_the_built_in_board_server_reads_the_tree_that_board_detection_reads(tmp_path: Path) -> None:
    """A stdio server gets only the safe variables of the host's environment; EDGEHOST_SYSFS_ROOT (a
    fake tree for a demo) reached detection but not the built-in board server, which read the real /."""
    root = build(tmp_path / "root", rk3588_board(model="Radxa ROCK 5B", compatible=("radxa,rock-5b",)))
    board = _board_info_through_the_host(tmp_path / "data", root)
    assert (board["model"], board["profile"]) == ("Radxa ROCK 5B", "rock-5b")


def test_the_built_in_board_server_reports_the_users_own_profile_from_the_config_folder(
    tmp_path: Path,
) -> None:
    """The app chose a profile from the shipped ones and <config dir>/board_profiles; the board server,
    started without that folder, read the shipped ones alone and named another profile than the app."""
    root = build(tmp_path / "root", rk3588_board(model="Radxa ROCK 5B", compatible=("radxa,rock-5b",)))
    data = tmp_path / "data"
    mine = data / "board_profiles"
    mine.mkdir(parents=True)
    shipped = next(p for p in load_profiles() if p.name == "rock-5b")
    (mine / "my-rock.toml").write_text(
        Path(shipped.source or "").read_text().replace('"Radxa ROCK 5B"', '"My ROCK 5B"', 1)
    )
    board = _board_info_through_the_host(data, root)
    assert (board["profile"], board["profile_display_name"]) == ("rock-5b", "My ROCK 5B")
    _info, app_profile = current_profile(None, root, Paths.resolve(None, data))
    assert app_profile.display_name == board["profile_display_name"]  # the app's choice


async def test_the_board_server_run_without_a_config_folder_reads_the_users_default_one(
    tmp_path: Path,
) -> None:
    """``edgehost serve board`` run by hand (or by another MCP host) reads the same folder as the app."""
    root = build(tmp_path / "root", rk3588_board())
    (tmp_path / "data" / "board_profiles").mkdir(parents=True)
    (tmp_path / "data" / "board_profiles" / "mine.toml").write_text('display_name = "Mine"\n')
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "edgehost.servers.board", "--root", str(root), "--profile", "mine"],
        env={"EDGEHOST_DATA_DIR": str(tmp_path / "data"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(params) as client:
            board = await call(client, "board_info")
    assert (board["profile"], board["profile_display_name"]) == ("mine", "Mine")


async def test_edgehost_serve_board_with_a_data_folder_reads_the_profiles_in_it(tmp_path: Path) -> None:
    """``edgehost --data-dir D serve board`` typed by hand reads D's board_profiles, as the app does."""
    root = build(tmp_path / "root", rk3588_board())
    data = tmp_path / "elsewhere"
    (data / "board_profiles").mkdir(parents=True)
    (data / "board_profiles" / "mine.toml").write_text('display_name = "Mine"\n')
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "edgehost",
            "--data-dir",
            str(data),
            "serve",
            "board",
            "--root",
            str(root),
            "--profile",
            "mine",
        ],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    with anyio.fail_after(CONNECT_TIMEOUT_S):
        async with Client(params) as client:
            board = await call(client, "board_info")
    assert (board["profile"], board["profile_display_name"]) == ("mine", "Mine")


# --- results a small model reads right -------------------------------------------------------------

TUESDAY_10_56_UTC = datetime(2026, 5, 12, 10, 56, 12, tzinfo=timezone.utc)


async def read_as_text(root: Path, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
    """One call to the board server of ``root``, in-process."""
    async with Client(build_server(BoardReader(root))) as client:
        return await client.call_tool(name, arguments or {})


def test_the_clock_gives_the_time_in_the_zone_asked_for_and_names_the_boards_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked the time in Tokyo, the tool gave the board's UTC clock with nothing saying whose time it was."""
    monkeypatch.setenv("TZ", "Europe/Paris")
    reader = BoardReader(build(tmp_path / "root", rk3588_board()))
    tokyo = reader.clock("Asia/Tokyo", at=TUESDAY_10_56_UTC)
    assert (tokyo["time"], tokyo["date"], tokyo["utc_offset"]) == ("19:56:12", "2026-05-12", "+09:00")
    assert (tokyo["time_zone"], tokyo["board_time_zone"]) == ("Asia/Tokyo", "Europe/Paris")
    assert clock_text(tokyo, asked=True) == (
        "In Asia/Tokyo (JST, UTC+9) it is 19:56 on Tuesday 2026-05-12. "
        "(The board's own time zone is Europe/Paris.)"
    )
    own = reader.clock("", at=TUESDAY_10_56_UTC)
    assert (own["time"], own["time_zone"], own["board_time_zone"]) == (
        "12:56:12",
        "Europe/Paris",
        "Europe/Paris",
    )
    assert clock_text(own, asked=False).startswith(
        "On the board's clock it is 12:56 on Tuesday 2026-05-12, in the board's time zone, Europe/Paris (CEST, UTC+2)."
    )
    # A city alone, or another case, is the zone it names.
    assert reader.clock("tokyo", at=TUESDAY_10_56_UTC)["time_zone"] == "Asia/Tokyo"
    assert reader.clock("america/new_york", at=TUESDAY_10_56_UTC)["time"] == "06:56:12"


async def test_the_clock_tool_takes_a_time_zone_and_says_in_its_text_whose_time_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TZ", "UTC")
    root = build(tmp_path / "root", rk3588_board())
    async with Client(build_server(BoardReader(root))) as client:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == "clock"]
        assert "timezone" in (tool.description or "")
        timezone_argument = tool.input_schema["properties"]["timezone"]
        assert timezone_argument["type"] == "string" and "IANA" in timezone_argument["description"]
        assert "required" not in tool.input_schema or not tool.input_schema["required"]
        result = await client.call_tool("clock", {"timezone": "Asia/Tokyo"})
        assert not result.is_error, text_of(result)
        assert text_of(result).startswith("In Asia/Tokyo (JST, UTC+9) it is ")
        assert text_of(result).endswith("(The board's own time zone is UTC.)")
        assert result.structured_content is not None
        assert result.structured_content["time_zone"] == "Asia/Tokyo"
        assert text_of(result).split(" it is ")[1][:5] == result.structured_content["time"][:5]
        board = await client.call_tool("clock", {})
        assert text_of(board).startswith("On the board's clock it is ")
        assert "in the board's time zone, UTC." in text_of(board)


def test_the_clock_reads_the_time_zone_names_once_however_often_it_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every clock call with a timezone walked the whole zone database again to look the name up."""
    monkeypatch.setenv("TZ", "UTC")
    reads: list[int] = []
    real = board_server._zone_names

    def counted() -> frozenset[str]:
        reads.append(1)
        return real()

    monkeypatch.setattr(board_server, "_zone_names", counted)
    board_server._zone_table.cache_clear()  # built again below, from the same names
    reader = BoardReader(build(tmp_path / "root", rk3588_board()))
    asked = ["Asia/Tokyo", "tokyo", "america/new_york", "Europe/Paris", "Tokyo"]
    zones = [reader.clock(name, at=TUESDAY_10_56_UTC)["time_zone"] for name in asked]
    assert zones == ["Asia/Tokyo", "Asia/Tokyo", "America/New_York", "Europe/Paris", "Asia/Tokyo"]
    assert len(reads) == 1


@pytest.mark.parametrize(
    ("given", "suggested"),
    [
        ("Asia/Tokio", "Asia/Tokyo"),
        ("Tokio", "Asia/Tokyo"),
        ("JST", "Asia/Tokyo"),
        ("Europe/Pariss", "Europe/Paris"),
    ],
)
async def test_an_unknown_time_zone_is_an_error_that_names_the_argument_and_close_zones(
    tmp_path: Path, given: str, suggested: str
) -> None:
    result = await read_as_text(build(tmp_path / "root", rk3588_board()), "clock", {"timezone": given})
    assert result.is_error
    text = text_of(result)
    assert f"timezone {given!r} is not a known time zone" in text, text
    assert "IANA name like Asia/Tokyo" in text and f"did you mean {suggested}" in text, text


async def test_the_uptime_reads_in_hours_and_minutes_first_and_in_seconds_too(tmp_path: Path) -> None:
    """Given 57377.57 seconds, the embedded model answered "1.92 hours"."""
    root = build(tmp_path / "root", rk3588_board())
    (root / "proc/uptime").write_text("57377.57 40000.00\n")
    result = await read_as_text(root, "uptime")
    assert text_of(result) == (
        "The board has been up for 15 h 56 min since it booted (57377.57 seconds). "
        "Load average over 1, 5 and 15 minutes: 0.52, 0.31, 0.2."
    )
    assert result.structured_content == {
        "uptime": "15 h 56 min",
        "uptime_seconds": 57377.57,
        "load_average": [0.52, 0.31, 0.2],
    }


def test_durations_read_as_people_write_them() -> None:
    assert duration_text(57377.57) == "15 h 56 min"
    assert duration_text(42.9) == "42 s"
    assert duration_text(3600) == "1 h"
    assert duration_text(86400 + 3600 + 60) == "1 day 1 h 1 min"
    assert duration_text(3 * 86400 + 125) == "3 days 2 min"


async def test_without_thermal_zones_the_temperatures_result_is_a_sentence_with_the_data_kept(
    tmp_path: Path,
) -> None:
    """The model and the user read raw JSON, {"zones": [], "note": ...}, where a sentence says it."""
    result = await read_as_text(build(tmp_path / "root", rk3588_board(thermal=[])), "temperatures")
    assert text_of(result).startswith("This machine has no readable temperature sensors (no thermal zones)")
    assert result.structured_content == {
        "zones": [],
        "note": "this machine has no readable temperature sensors (no thermal zones)",
    }
    with_zones = await read_as_text(build(tmp_path / "other", rk3588_board()), "temperatures")
    assert json.loads(text_of(with_zones)) == with_zones.structured_content  # readings stay data
