"""The built-in `board` server over real stdio with the SDK's Client, on a fake RK3588 tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
from fake_sysfs import build, rk3588_board
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent
from tests.support import CONNECT_TIMEOUT_S, python_server_client

from edgehost.servers.board import BoardReader


async def call(client: Client, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await client.call_tool(name, arguments or {})
    text = "\n".join(b.text for b in result.content if isinstance(b, TextContent))
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


def test_the_built_in_board_server_reads_the_tree_that_board_detection_reads(tmp_path: Path) -> None:
    """A stdio server gets only the safe variables of the host's environment; EDGEHOST_SYSFS_ROOT (a
    fake tree for a demo) reached detection but not the built-in board server, which read the real /."""
    root = build(tmp_path / "root", rk3588_board(model="Radxa ROCK 5B", compatible=("radxa,rock-5b",)))
    done = subprocess.run(
        [sys.executable, "-m", "edgehost", "--data-dir", str(tmp_path / "data"), "call", "board__board_info"],
        capture_output=True,
        text=True,
        env={**os.environ, "EDGEHOST_SYSFS_ROOT": str(root)},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    board = json.loads(done.stdout)
    assert (board["model"], board["profile"]) == ("Radxa ROCK 5B", "rock-5b")
