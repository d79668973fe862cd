"""`edgehost call | read | tools | servers` run as a person runs them (real `python -m edgehost`
processes), against servers and servers files that misbehave the way an adversarial probe found
(issue 30): binary content that is not base64, a server still starting, a file nested 100,000 deep."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_helpers import run_edgehost

BLOCKS_SERVER = Path(__file__).resolve().parent / "binary_blocks_server.py"
HOSTILE = Path(__file__).resolve().parent.parent / "fixtures" / "servers" / "hostile.py"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# The built-in servers start in a few seconds; bounded well above that on a loaded machine.
WAIT_S = "60"


def write_servers(folder: Path, servers: dict[str, object]) -> Path:
    path = folder / "servers.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


@pytest.fixture
def blocks_config(tmp_path: Path) -> Path:
    return write_servers(
        tmp_path,
        {
            "blocks": {"command": sys.executable, "args": [str(BLOCKS_SERVER)]},
            "board": {"enabled": False},
            "files": {"enabled": False},
        },
    )


def test_call_names_the_block_that_is_not_base64_and_prints_and_saves_the_others(
    data_dir: Path, blocks_config: Path
) -> None:
    done = run_edgehost(data_dir, "--config", str(blocks_config), "call", "blocks__mixed")
    assert done.returncode == 1, done.stderr  # not all of the result could be shown
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        "edgehost: block 2 of 4 of the result of blocks__mixed: image image/png: not saved, its data is"
        " not valid base64 (Only base64 data is allowed)"
    )
    [saved] = (data_dir / "outputs").glob("*.png")
    assert saved.read_bytes().startswith(PNG_SIGNATURE)
    assert done.stdout.splitlines() == [
        "before the images",
        "[image image/png: not saved, its data is not valid base64 (Only base64 data is allowed)]",
        f"[image image/png saved to {saved}]",
        "after the images",
    ]


def test_read_names_the_part_that_is_not_base64_and_prints_the_others(
    data_dir: Path, blocks_config: Path
) -> None:
    done = run_edgehost(data_dir, "--config", str(blocks_config), "read", "blob://broken")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "edgehost: block 2 of 2 of what was read: blob://broken (image/png): not saved" in done.stderr
    assert done.stdout.splitlines()[0] == "the text part"
    assert not (data_dir / "outputs").exists() or not any((data_dir / "outputs").iterdir())


def test_tools_while_a_server_is_still_starting_says_so_and_exits_1_unlike_no_tools_at_all(
    data_dir: Path, tmp_path: Path
) -> None:
    slow = write_servers(
        tmp_path,
        {
            "slow": {"command": sys.executable, "args": [str(HOSTILE), "--slow-start", "600"]},
            "board": {"enabled": False},
            "files": {"enabled": False},
        },
    )
    listed = run_edgehost(data_dir, "--config", str(slow), "tools", "--wait", "1")
    assert listed.returncode == 1, listed.stderr  # a script must not take it for "no such tool"
    assert listed.stdout == "(no tools yet: slow still starting)\n"
    assert "(slow is still starting; see --wait)" in listed.stderr
    as_json = run_edgehost(data_dir, "--config", str(slow), "tools", "--json", "--wait", "1")
    assert as_json.returncode == 1 and json.loads(as_json.stdout) == []
    none = write_servers(tmp_path, {"board": {"enabled": False}, "files": {"enabled": False}})
    empty = run_edgehost(data_dir, "--config", str(none), "tools", "--wait", "1")
    assert (empty.returncode, empty.stdout) == (0, "(no tools)\n")


DEEP = 100_000
DEEP_ARRAY = ("[" * DEEP + "]" * DEEP, ":1:101: ")
DEEP_OBJECT = ('{"a":' * DEEP + "1" + "}" * DEEP, ":1:501: ")


@pytest.mark.parametrize(
    ("deep_file", "command", "shows"),
    [
        (DEEP_ARRAY, ["servers", "--wait", WAIT_S], "files: ready"),
        (DEEP_OBJECT, ["tools", "--server", "files", "--wait", WAIT_S], "files__read_file"),
        (DEEP_OBJECT, ["call", "files__list_directory"], "the files folder ("),
    ],
    ids=["array-servers", "object-tools", "object-call"],
)
def test_a_servers_file_nested_100000_deep_is_named_as_broken_and_the_built_in_servers_still_run(
    data_dir: Path, tmp_path: Path, deep_file: tuple[str, str], command: list[str], shows: str
) -> None:
    text, where = deep_file
    deep = tmp_path / "servers.json"
    deep.write_text(text, encoding="utf-8")
    done = run_edgehost(data_dir, "--config", str(deep), *command)
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert f"{deep}{where}nested more than 100 levels deep" in done.stderr
    assert shows in done.stdout, done.stdout + done.stderr
