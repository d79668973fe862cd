"""`edgehost doctor` names the runtimes the configured servers need (npx, uvx, docker, python) and says
how to get the missing ones: a board image usually has Python and nothing else (and the uv that comes
with EdgeHost)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_sysfs import build, rk3588_board

from edgehost.programs import bundled_dirs
from edgehost.slow_machine import scaled_wait

BUNDLED_UVX = str(Path(bundled_dirs()[0]) / "uvx")

# `edgehost doctor` in a fresh interpreter imports the whole CLI; slow on a loaded 2-core machine.
CLI_TIMEOUT_S = round(scaled_wait(120))

SERVERS = {
    "mcpServers": {
        "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},
        "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]},
        "time": {"command": "uvx", "args": ["mcp-server-time"]},
        "github": {"command": "docker", "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"]},
        "local": {"command": "python3", "args": ["-m", "my_server"]},
        "off": {"command": "podman", "args": ["run", "x"], "disabled": True},
        "remote": {"url": "https://example.com/mcp"},
    }
}


def run_doctor(data_dir: Path, root: Path, path: str, *argv: str) -> subprocess.CompletedProcess[str]:
    # A PATH with only the folder python3 is in (and none of npx, uvx, docker), as on a bare board image.
    env = {**os.environ, "EDGEHOST_SYSFS_ROOT": str(root), "PATH": path}
    return subprocess.run(
        [sys.executable, "-m", "edgehost", "--data-dir", str(data_dir), "doctor", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=CLI_TIMEOUT_S,
    )


@pytest.fixture
def bare_board(tmp_path: Path, data_dir: Path) -> dict[str, Any]:
    (data_dir / "servers.json").write_text(json.dumps(SERVERS))
    only_python = tmp_path / "bin"
    only_python.mkdir()
    (only_python / "python3").symlink_to(sys.executable)
    return {"root": build(tmp_path / "root", rk3588_board()), "path": str(only_python)}


def test_doctor_names_the_missing_runtimes_of_the_configured_servers_with_their_fix(
    bare_board: dict[str, Any], data_dir: Path
) -> None:
    done = run_doctor(data_dir, bare_board["root"], bare_board["path"], "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    needs = {need["command"]: need for need in report["servers"]["runtimes"]}
    # The disabled entry and the remote one start nothing here.
    assert list(needs) == ["npx", "uvx", "docker", "python3"]
    assert needs["npx"]["servers"] == ["memory", "everything"] and needs["npx"]["runtime"] == "node"
    assert needs["python3"]["found"] == str(Path(bare_board["path"]) / "python3")
    assert needs["uvx"]["found"] == BUNDLED_UVX  # uv comes with EdgeHost: not on the PATH, still found
    missing = {p["problem"]: p["hint"] for p in report["problems"] if "is not installed here" in p["problem"]}
    assert missing == {
        "npx (Node.js) is not installed here: the servers memory, everything need it": (
            "edgehost runtimes install node (or sudo apt install nodejs npm)"
        ),
        "docker (Docker) is not installed here: the server github needs it": (
            "sudo apt install docker.io && sudo usermod -aG docker $USER"
        ),
    }


def test_doctor_text_shows_each_runtime_found_or_missing(bare_board: dict[str, Any], data_dir: Path) -> None:
    done = run_doctor(data_dir, bare_board["root"], bare_board["path"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert (
        "  npx (Node.js) for memory, everything: MISSING - edgehost runtimes install node (or sudo apt install nodejs npm)"
        in lines
    )
    assert f"  python3 (Python) for local: {Path(bare_board['path']) / 'python3'}" in lines
    assert f"  uvx (uv) for time: {BUNDLED_UVX}" in lines
    [runtimes] = [line for line in lines if line.startswith("Runtimes: ")]
    assert (
        runtimes.startswith("Runtimes: Node.js no (edgehost runtimes install node")
        and "; uv yes; Docker no (" in runtimes
    )


def test_a_runtime_on_the_path_the_server_entry_gives_counts_as_found(
    tmp_path: Path, data_dir: Path, bare_board: dict[str, Any]
) -> None:
    own_bin = tmp_path / "node-bin"
    own_bin.mkdir()
    (own_bin / "npx").write_text("#!/bin/sh\n")
    (own_bin / "npx").chmod(0o755)
    servers = {"mcpServers": {"memory": {"command": "npx", "args": ["x"], "env": {"PATH": str(own_bin)}}}}
    (data_dir / "servers.json").write_text(json.dumps(servers))
    done = run_doctor(data_dir, bare_board["root"], bare_board["path"], "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["servers"]["runtimes"][0]["found"] == str(own_bin / "npx")
    assert not [p for p in report["problems"] if "is not installed here" in p["problem"]]
