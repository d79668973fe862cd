"""`edgehost doctor` says what will actually be used (the profile and the rule that chose it, the backend and
why, threads, CPU pinning and context), where profiles were read from, and keeps running on a profile
problem in the settings or the user's profiles folder, which it reports with the file."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from fake_sysfs import build, rk3588_board, x86_pc

from edgehost.cli import board_commands
from edgehost.cli.context import CliContext
from edgehost.paths import Paths


def run_doctor(
    data_dir: Path, capsys: pytest.CaptureFixture[str], *argv: str, profile: str | None = None
) -> tuple[dict[str, Any], str]:
    """The JSON report and the text report of one doctor run each."""
    outputs = []
    for extra in (["--json"], []):
        parser = argparse.ArgumentParser()
        board_commands.register(parser.add_subparsers(dest="command"))
        args = parser.parse_args(["doctor", *extra, *argv])
        ctx = CliContext(paths=Paths.resolve(None, data_dir), args=args, profile_override=profile)
        assert ctx.args.handler(ctx) == 0
        outputs.append(capsys.readouterr().out)
    return json.loads(outputs[0]), outputs[1]


def line(text: str, heading: str) -> str:
    [found] = [row for row in text.splitlines() if row.startswith(heading)]
    return found


def write_settings(data_dir: Path, **values: Any) -> None:
    (data_dir / "settings.json").write_text(json.dumps(values, indent=1))


@pytest.fixture
def pc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = build(tmp_path / "root", x86_pc())
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(root))
    return root


@pytest.fixture
def llamacpp_runs(model_path: Path) -> None:
    """The backend checks below need llama.cpp to be the backend used (the default model is there)."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp (llama-cpp-python) is not installed")


def test_doctor_runs_on_an_unknown_settings_profile_and_reports_it_with_the_file(
    pc: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_settings(data_dir, profile="rock5b")
    report, text = run_doctor(data_dir, capsys)
    assert report["board"]["profile"]["name"] == "generic-x86_64"
    assert report["board"]["profile"]["chosen_by"] == "detection"
    [problem] = [p for p in report["problems"] if "rock5b" in p["problem"]]
    assert problem["problem"].startswith(f"{data_dir / 'settings.json'}:2: unknown board profile 'rock5b'")
    assert "(did you mean 'rock-5b'?)" in problem["problem"] and "(field 'profile')" in problem["problem"]
    assert "set 'profile' to 'rock-5b'" in problem["hint"]
    assert "unknown board profile 'rock5b'" in text


@pytest.mark.usefixtures("llamacpp_runs")
def test_doctor_names_the_detection_rule_the_backend_and_why_and_the_threads(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", rk3588_board())))
    monkeypatch.delenv("EDGEHOST_RKLLM_LIB", raising=False)
    write_settings(data_dir, rkllm_lib=str(tmp_path / "no-such-librkllmrt.so"))
    report, text = run_doctor(data_dir, capsys)
    assert report["board"]["profile"]["rule"] == "device-tree compatible string 'xunlong,orangepi-5-plus'"
    assert "(chosen by detection: device-tree compatible string 'xunlong,orangepi-5-plus')" in text
    backend = report["backend"]
    assert backend["name"] == "llamacpp" and "no-such-librkllmrt.so" in backend["skipped"]["rkllm"]
    assert line(text, "Backend:").startswith("Backend:  llamacpp (rkllm: ")
    plan = report["inference"]
    assert (plan["threads"], plan["threads_from"], plan["affinity"]) == (4, "the profile", [4, 5, 6, 7])
    assert (plan["pinning"], plan["on_big_cores"]) == ("pinned to CPUs 4-7", True)
    assert (plan["context_length"], plan["context_from"]) == (4096, "the profile")
    assert line(text, "Threads:").startswith(
        "Threads:  4 (from the profile); pinned to CPUs 4-7 (the big cores); context 4096 tokens (from the profile"
    )


@pytest.mark.usefixtures("llamacpp_runs")
def test_doctor_says_the_settings_threads_and_context_win_and_an_rk3588_profile_on_a_pc_is_not_pinned(
    pc: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_settings(data_dir, threads=2, context_length=2048)
    report, text = run_doctor(data_dir, capsys, profile="rock-5b")
    plan = report["inference"]
    assert (plan["threads"], plan["threads_from"]) == (2, "the 'threads' setting")
    assert (plan["context_length"], plan["context_from"]) == (2048, "the 'context_length' setting")
    assert plan["pinning"] == "affinity [4, 5, 6, 7] not applied: this machine has CPUs 0-3"
    assert "affinity [4, 5, 6, 7] not applied: this machine has CPUs 0-3" in line(text, "Threads:")
    [mismatch] = [p for p in report["problems"] if "does not match the detected board" in p["problem"]]
    assert mismatch["problem"].startswith("the board profile 'rock-5b' (--profile) is for an RK3588 board")
    assert "leave out --profile" in mismatch["hint"]


def test_doctor_says_the_npu_node_is_missing_rather_than_not_permitted(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", rk3588_board(npu_node=False))))
    report, text = run_doctor(data_dir, capsys)
    assert not report["npu"]["node_exists"]
    npu = line(text, "NPU:")
    assert "missing" in npu and "NO PERMISSION" not in npu
    assert any("renderD129 is missing" in p["problem"] for p in report["problems"])


def test_doctor_lists_the_profile_folders_uses_a_user_override_and_reports_a_broken_user_profile(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", rk3588_board())))
    mine = data_dir / "board_profiles"
    mine.mkdir()
    (mine / "opi.toml").write_text(
        'name = "orangepi-5-plus"\nsoc = "rk3588"\nthreads = 3\n[match]\nmodel = "Orange Pi 5 Plus"\n'
    )
    (mine / "unknown.toml").write_text('name = "x"\n\n[speed]\nllama_cpp = [[0.5, 10]]\n')
    (mine / "syntax.toml").write_text('name = "y"\nthreads = 4 4\n')
    report, text = run_doctor(data_dir, capsys)
    profile = report["board"]["profile"]
    assert (profile["name"], profile["threads"], profile["source"]) == (
        "orangepi-5-plus",
        3,
        str(mine / "opi.toml"),
    )
    assert profile["rule"] == "model name 'Orange Pi 5 Plus' (in 'Xunlong Orange Pi 5 Plus')"
    folders = report["profiles"]
    assert folders["user_dir"] == str(mine) and folders["shipped_dir"].endswith("board_profiles")
    assert (folders["user_profiles"], folders["overridden"]) == (["orangepi-5-plus"], ["orangepi-5-plus"])
    assert f"yours in {mine} (orangepi-5-plus; replacing the shipped orangepi-5-plus)" in line(
        text, "Profiles:"
    )
    problems = [p["problem"] for p in report["problems"]]
    assert f"{mine / 'unknown.toml'}:4:1: unknown key 'llama_cpp' (did you mean 'llamacpp'?)" in " ".join(
        problems
    )
    [syntax] = [p for p in problems if "syntax.toml" in p]
    assert syntax.startswith(f"{mine / 'syntax.toml'}:2:13: invalid TOML: ") and "(at line" not in syntax
