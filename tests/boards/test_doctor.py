"""`edgehost doctor` on fake board trees, with a stub RKLLM runtime built from C."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_sysfs import build, rk3588_board, x86_pc
from rkllm_stub_runtime import build_stub

from edgehost.cli import board_commands
from edgehost.cli.context import CliContext
from edgehost.errors import UsageError
from edgehost.paths import Paths
from edgehost.slow_machine import scaled_wait

# `edgehost doctor` in a fresh interpreter imports the whole CLI; slow on a loaded 2-core machine.
CLI_TIMEOUT_S = round(scaled_wait(120))


def doctor(data_dir: Path, *argv: str, profile: str | None = None) -> CliContext:
    parser = argparse.ArgumentParser()
    board_commands.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["doctor", *argv])
    return CliContext(paths=Paths.resolve(None, data_dir), args=args, profile_override=profile)


def run_doctor_json(
    data_dir: Path, capsys: pytest.CaptureFixture[str], *argv: str, profile: str | None = None
) -> dict[str, Any]:
    ctx = doctor(data_dir, "--json", *argv, profile=profile)
    assert ctx.args.handler(ctx) == 0
    return dict(json.loads(capsys.readouterr().out))


@pytest.fixture
def rk3588_setup(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    root = build(tmp_path / "root", rk3588_board())
    library = build_stub(tmp_path / "lib", "1.3", "1.3.0")
    model = data_dir / "models" / "Qwen3-1.7B-w8a8-rk3588.rkllm"
    model.parent.mkdir(parents=True)
    model.write_bytes(b"stub model")
    (data_dir / "settings.json").write_text(json.dumps({"model": str(model), "rkllm_lib": str(library)}))
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(root))
    monkeypatch.delenv("EDGEHOST_RKLLM_LIB", raising=False)
    return {"root": root, "library": library, "model": model}


def test_doctor_json_on_an_rk3588_board_with_the_runtime(
    rk3588_setup: dict[str, Path], data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = run_doctor_json(data_dir, capsys)
    board = report["board"]
    assert board["model"] == "Xunlong Orange Pi 5 Plus" and board["soc"] == "rk3588"
    assert board["profile"]["name"] == "orangepi-5-plus" and board["profile"]["chosen_by"] == "detection"
    assert report["cpu"]["big_cores"] == [4, 5, 6, 7]
    assert report["npu"]["present"] and report["npu"]["driver_version"] == "0.9.8"
    assert report["rkllm_runtime"] == {
        "found": True,
        "path": str(rk3588_setup["library"]),
        "version": "1.3.0",
        "abi": "1.3",
    }
    assert set(report["backends"]) >= {"llamacpp", "rkllm", "openai"}
    for result in report["backends"].values():
        assert isinstance(result["available"], bool) and isinstance(result["reason"], str)
    assert report["backends"]["rkllm"]["available"], report["backends"]["rkllm"]["reason"]
    assert any(m["path"] == str(rk3588_setup["model"]) for m in report["models"])
    assert report["libraries"]["mcp"]
    assert len(report["thermal"]) == 7
    assert not [p for p in report["problems"] if "rkllm" in p["problem"] or "NPU" in p["problem"]]


def test_doctor_hints_at_the_render_group_and_the_missing_runtime(
    rk3588_setup: dict[str, Path], data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (rk3588_setup["root"] / "dev/dri/renderD129").chmod(0o000)
    (data_dir / "settings.json").write_text(json.dumps({"model": str(rk3588_setup["model"])}))
    report = run_doctor_json(data_dir, capsys, "--rkllm-lib", str(rk3588_setup["root"] / "no-such-lib.so"))
    hints = " ".join(p["hint"] for p in report["problems"])
    assert not report["backends"]["rkllm"]["available"]
    assert all(p["hint"] != p["problem"] for p in report["problems"])  # a hint says more than its problem
    assert len([p for p in report["problems"] if "no-such-lib.so" in p["problem"]]) == 1  # said once
    assert "airockchip/rknn-llm" in hints  # the runtime is missing: where to get it
    if os.geteuid() != 0:  # root may open anything: the permission problem cannot be staged as root
        assert "sudo usermod -aG" in hints
        assert "no permission" in report["backends"]["rkllm"]["reason"]
    else:
        assert "does not exist" in report["backends"]["rkllm"]["reason"]


def test_doctor_on_a_pc_has_no_npu_problem_and_honours_profile_override(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", x86_pc())))
    report = run_doctor_json(data_dir, capsys)
    assert not report["npu"]["present"]
    assert not any("NPU" in p["problem"] for p in report["problems"])
    overridden = run_doctor_json(data_dir, capsys, profile="rock-5b")
    assert overridden["board"]["profile"]["name"] == "rock-5b"
    assert overridden["board"]["profile"]["chosen_by"] == "--profile"
    assert any("no NPU found" in p["problem"] for p in overridden["problems"])
    with pytest.raises(UsageError, match="known profiles"):
        ctx = doctor(data_dir, "--json", profile="no-such-board")
        ctx.args.handler(ctx)


def test_doctor_text_output_names_every_section(
    rk3588_setup: dict[str, Path], data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctx = doctor(data_dir)
    assert ctx.args.handler(ctx) == 0
    out = capsys.readouterr().out
    for heading in (
        "Board:",
        "Profile:",
        "CPU:",
        "RAM:",
        "NPU:",
        "RKLLM:",
        "Backends:",
        "Models:",
        "Libraries:",
        "Servers:",
        "Data:",
    ):
        assert heading in out
    assert "Orange Pi 5 Plus" in out and "1.3.0" in out


def test_edgehost_doctor_json_runs_as_a_command(rk3588_setup: dict[str, Path], data_dir: Path) -> None:
    env = {**os.environ, "EDGEHOST_SYSFS_ROOT": str(rk3588_setup["root"])}
    done = subprocess.run(
        [sys.executable, "-m", "edgehost", "--data-dir", str(data_dir), "doctor", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=CLI_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["board"]["profile"]["name"] == "orangepi-5-plus"
    assert report["backends"]["rkllm"]["available"]


def test_doctor_names_a_broken_servers_entry_with_its_line_and_where_the_logs_are(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # It had said "No problems found" with a server whose address could never work.
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", x86_pc())))
    (data_dir / "servers.json").write_text(
        '{"mcpServers": {\n "a": {"command": "x", "arguments": []},\n "b": {"url": "htp://x"}}}'
    )
    report = run_doctor_json(data_dir, capsys)
    assert report["servers"]["configured"] == ["a", "b"]
    assert any("servers.json:3" in p["problem"] and "htp://x" in p["problem"] for p in report["problems"])
    assert any("did you mean 'args'" in warning for warning in report["servers"]["warnings"])
    assert report["files"]["logs"] == str(data_dir / "logs")
