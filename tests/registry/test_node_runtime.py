"""On a board image without Node.js, `edgehost runtimes install node` puts Node from PyPI into the data
folder, and a server published on npm then runs through its npx: the real memory server, fetched from the
npm registry by way of a registry entry."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.cli.cli_helpers import run_edgehost
from tests.registry_standin import MEMORY, MEMORY_VERSION, StandInRegistry
from tests.support import board_image_path

pytestmark = pytest.mark.peers

MEMORY_NAME = "io.github.modelcontextprotocol/memory"


@pytest.fixture
def board(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[StandInRegistry]:
    standin = StandInRegistry()
    standin.add(MEMORY)
    standin.start()
    monkeypatch.setenv("EDGEHOST_REGISTRY_URL", standin.url)
    monkeypatch.setenv("PATH", board_image_path(tmp_path / "bin"))
    yield standin
    standin.stop()


@pytest.mark.usefixtures("board")
def test_an_npm_server_runs_on_a_board_once_node_is_installed_into_the_data_folder(data_dir: Path) -> None:
    listed = run_edgehost(data_dir, "runtimes", "--json")
    rows = {row["program"]: row for row in json.loads(listed.stdout)["runtimes"]}
    assert rows["npx"]["found"] is None and "edgehost runtimes install node" in rows["npx"]["install"]
    assert rows["uvx"]["found"] is not None  # it comes with EdgeHost
    refused = run_edgehost(data_dir, "servers", "add", MEMORY_NAME, "--yes")
    assert refused.returncode == 2 and "it needs Node.js (npx)" in refused.stderr

    asked = run_edgehost(data_dir, "runtimes", "install", "node")
    assert asked.returncode == 2 and "add --yes" in asked.stderr
    assert "MB download" in asked.stdout  # the size is shown before anything is installed
    installed = run_edgehost(data_dir, "runtimes", "install", "node", "--yes")
    assert installed.returncode == 0, installed.stderr
    npx = data_dir / "runtimes" / "node" / "bin" / "npx"
    assert subprocess.run([str(npx), "--version"], capture_output=True, text=True, check=True).stdout.strip()

    added = run_edgehost(data_dir, "servers", "add", MEMORY_NAME, "--yes")
    assert added.returncode == 0, added.stdout + added.stderr
    assert (
        f"It will run as 'memory': npx -y @modelcontextprotocol/server-memory@{MEMORY_VERSION}"
        in added.stdout
    )
    assert "memory: ready, 9 tools:" in added.stdout
    called = run_edgehost(data_dir, "call", "memory__read_graph", "{}", "--json")
    assert called.returncode == 0, called.stderr
    assert '"entities"' in called.stdout

    assert run_edgehost(data_dir, "runtimes", "remove", "node").returncode == 0
    assert not (data_dir / "runtimes" / "node").exists()
