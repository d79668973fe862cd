"""`edgehost servers | tools | call | resources | read | prompts | prompt`.

One test runs the real `python -m edgehost` process; the others call the same entry point in-process
(``edgehost.cli.main.main``), which saves an interpreter start per command on this slow machine.
`probe` is exercised by the conformance tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp_support import EVERYTHING, HOSTILE, node_binary, write_config
from tests.conftest import peer_path

from edgehost.cli.main import main

# A CLI run starts Python, connects, lists and closes; bounded well above what it needs.
CLI_TIMEOUT_S = 120


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def edgehost(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    def run(data_dir: Path, config: Path, *args: str) -> Run:
        capsys.readouterr()
        code = main(["--config", str(config), "--data-dir", str(data_dir), *args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def test_servers_json_in_a_real_process_shows_ready_and_failed_servers(data_dir: Path, config: Path) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "edgehost",
            "--config",
            str(config),
            "--data-dir",
            str(data_dir),
            "servers",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
    )
    assert completed.returncode == 0, completed.stderr
    servers = {s["name"]: s for s in json.loads(completed.stdout)}
    assert servers["hostile"]["status"] == "ready"
    assert servers["hostile"]["tools"] >= 5
    assert servers["broken"]["status"] == "failed"
    assert "broken" in servers["broken"]["error"]
    assert any("cannot open /dev/npu0" in line for line in servers["broken"]["stderrTail"])
    assert servers["board"]["status"] == "disabled"


@pytest.fixture
def config(data_dir: Path) -> Path:
    return write_config(
        data_dir,
        {
            "hostile": {"command": sys.executable, "args": [str(HOSTILE)], "timeout": 2},
            "broken": {"command": sys.executable, "args": [str(HOSTILE), "--exit-at-start"]},
            "everything": {"command": node_binary(), "args": [str(peer_path(*EVERYTHING)), "stdio"]},
            "board": {"enabled": False},
            "files": {"enabled": False},
        },
    )


def test_tools_json_lists_namespaced_tools_of_one_server(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    completed = edgehost(data_dir, config, "tools", "--server", "everything", "--json")
    assert completed.returncode == 0, completed.stderr
    tools = json.loads(completed.stdout)
    assert {t["server"] for t in tools} == {"everything"}
    echo = next(t for t in tools if t["name"] == "everything__echo")
    assert echo["enabled"] is True and "description" in echo and "annotations" in echo
    ranked = edgehost(
        data_dir,
        config,
        "tools",
        "--server",
        "everything",
        "--query",
        "sum of two numbers",
        "--top",
        "3",
        "--json",
    )
    assert ranked.returncode == 0, ranked.stderr
    top = [t["name"] for t in json.loads(ranked.stdout)]
    assert len(top) == 3 and "everything__get-sum" in top


def test_call_prints_content_and_saves_images(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    completed = edgehost(data_dir, config, "call", "everything__get-tiny-image", "{}")
    assert completed.returncode == 0, completed.stderr
    saved = list((data_dir / "outputs").glob("*.png"))
    assert len(saved) == 1 and saved[0].read_bytes().startswith(b"\x89PNG")
    assert str(saved[0]) in completed.stdout


def test_call_json_gives_content_structured_content_and_is_error(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    completed = edgehost(data_dir, config, "call", "hostile__echo", '{"text": "hi"}', "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert result["content"] == [{"type": "text", "text": "hi"}]
    assert result["isError"] is False
    assert "structuredContent" in result


def test_call_exit_codes_say_what_went_wrong(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    timeout = edgehost(data_dir, config, "call", "hostile__hang", "{}")
    assert timeout.returncode == 1 and "timed out" in timeout.stderr
    dead = edgehost(data_dir, config, "call", "hostile__die", '{"message": "goodbye"}')
    assert dead.returncode == 1 and "dropped its connection" in dead.stderr and "goodbye" in dead.stderr
    broken = edgehost(data_dir, config, "call", "broken__echo", '{"text": "x"}')
    assert broken.returncode == 1 and "failed" in broken.stderr
    tool_error = edgehost(data_dir, config, "call", "hostile__echo", "{}")  # missing argument: isError result
    assert tool_error.returncode == 1 and "returned an error" in tool_error.stderr
    assert edgehost(data_dir, config, "call", "hostile__echo", "not json").returncode == 2
    assert edgehost(data_dir, config, "call", "nobody__echo", "{}").returncode == 2


def test_resources_read_prompts_and_prompt(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    listed = edgehost(data_dir, config, "resources", "--server", "everything", "--json")
    assert listed.returncode == 0, listed.stderr
    uri = next(r["uri"] for r in json.loads(listed.stdout) if r["kind"] == "resource")
    read = edgehost(data_dir, config, "read", uri, "--server", "everything", "--json")
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["contents"][0]["uri"] == uri
    prompts = edgehost(data_dir, config, "prompts", "--server", "everything", "--json")
    assert "everything__args-prompt" in {p["name"] for p in json.loads(prompts.stdout)}
    got = edgehost(data_dir, config, "prompt", "everything__args-prompt", "city=Lyon")
    assert got.returncode == 0, got.stderr
    assert "Lyon" in got.stdout
