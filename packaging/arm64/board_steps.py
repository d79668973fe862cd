"""The checks `make test-arm64` runs inside the Debian 12 arm64 userland (packaging/test_arm64.sh), one
per step, each as a board user would run EdgeHost: the `edgehost` command of the venv installed from
the wheel, on a fake Orange Pi 5 device tree and NPU node (EDGEHOST_SYSFS_ROOT).

    python board_steps.py doctor | rkllm | llama | window

Exit 0 when the step passes; what failed is printed. Run by the venv's python, from the repository
copy inside the userland (its tests/ fixtures build the fake tree and the RKLLM stand-in library).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
for helper in ("sysfs", "rkllm_stub"):
    sys.path.insert(0, str(REPO / "tests" / "fixtures" / helper))

from fake_sysfs import FakeBoard, build  # noqa: E402
from rkllm_stub_runtime import STUB_VERSIONS, build_stub  # noqa: E402

WORK = Path(os.environ.get("ARM64_WORK", "/build/work"))
EDGEHOST = str(Path(sys.executable).with_name("edgehost"))
# Emulated AArch64 runs 5-10x slower than the machine: every wait is long. A reply of the default
# model on llama.cpp under qemu takes minutes; the built-in servers take ~20 s to start.
COMMAND_TIMEOUT_S = 900
# A turn of the default model: the self-test's took 27 minutes here (~900 prompt tokens at ~1 token/s).
TURN_TIMEOUT_S = 3600
SERVERS_WAIT_S = 240
# As on a real board: the runtime library where the setup guide puts it (docs/setup-rk3588.md step 4).
SYSTEM_RKLLM = Path("/usr/lib/librkllmrt.so")
STUB_REPLY = "Hello wörld €!"


class StepFailed(Exception):
    pass


def check(condition: bool, what: str) -> None:
    if not condition:
        raise StepFailed(what)
    print(f"  ok: {what}")


def orange_pi_5() -> Path:
    """The device tree, CPUs and NPU node of an Orange Pi 5 on the vendor kernel (rknpu 0.9.8)."""
    return build(
        WORK / "orangepi-5-root",
        FakeBoard(compatible=("xunlong,orangepi-5", "rockchip,rk3588s"), model="Xunlong Orange Pi 5"),
    )


def edgehost(
    data_dir: Path, *argv: str, env: dict[str, str] | None = None, timeout: float = COMMAND_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    command = [EDGEHOST, "--data-dir", str(data_dir), *argv]
    print(f"  $ {' '.join(command)}", flush=True)
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
        raise StepFailed(f"`edgehost {' '.join(argv)}` exited {done.returncode}")
    return done


def data_dir_with(name: str, settings: dict[str, Any]) -> Path:
    folder = WORK / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text(json.dumps(settings))
    return folder


def fake_rkllm_model(folder: Path) -> Path:
    model = folder / "models" / "Qwen2.5-1.5B-Instruct-w8a8-rk3588.rkllm"
    model.parent.mkdir(parents=True, exist_ok=True)
    model.write_bytes(b"not really a model")
    return model


def step_doctor() -> None:
    check(platform.machine() == "aarch64", f"this userland is aarch64 ({platform.machine()})")
    root = orange_pi_5()
    # A 1.2.1 runtime where a board user copies librkllmrt.so, compiled by the board's gcc.
    stub = build_stub(WORK / "stubs" / "system", "1.2", STUB_VERSIONS["1.2"])
    shutil.copy(stub, SYSTEM_RKLLM)
    data = data_dir_with("doctor", {})
    (data / "settings.json").write_text(json.dumps({"model": str(fake_rkllm_model(data))}))
    env = {"EDGEHOST_SYSFS_ROOT": str(root)}
    env.pop("EDGEHOST_RKLLM_LIB", None)
    print(edgehost(data, "doctor", env=env).stdout)
    report = json.loads(edgehost(data, "doctor", "--json", env=env).stdout)
    board = report["board"]
    check(board["model"] == "Xunlong Orange Pi 5", f"board {board['model']!r}")
    check(str(board["soc"]).startswith("rk3588"), f"SoC {board['soc']!r}")
    profile = board["profile"]
    check(
        (profile["name"], profile["chosen_by"]) == ("orangepi-5", "detection"),
        f"profile {profile['name']} chosen by {profile['chosen_by']}",
    )
    check(report["cpu"]["big_cores"] == [4, 5, 6, 7], f"big cores {report['cpu']['big_cores']}")
    npu = report["npu"]
    check(npu["present"] and npu["accessible"], f"NPU {npu['render_node']} usable")
    check(npu["driver_version"] == "0.9.8", f"NPU driver {npu['driver_version']}")
    runtime = report["rkllm_runtime"]
    check(
        runtime.get("found") and runtime["path"] == str(SYSTEM_RKLLM) and runtime["version"] == "1.2.1",
        f"RKLLM runtime {runtime}",
    )
    check(report["backends"]["rkllm"]["available"], f"rkllm backend: {report['backends']['rkllm']['reason']}")
    check(report["backend"]["name"] == "rkllm", f"doctor's backend plan: {report['backend']['name']}")


def step_rkllm() -> None:
    root = orange_pi_5()
    # The x86 suite's checks of both ABIs, run here: struct sizes and offsets on the AArch64 ctypes, and
    # every field the binding writes read back by the stand-in library at its C offset.
    pytest = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "tests/rkllm/test_rkllm_abi.py",
            "tests/rkllm/test_rkllm_engine.py",
        ],
        cwd=REPO,
        timeout=COMMAND_TIMEOUT_S,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    check(pytest.returncode == 0, "tests/rkllm (ABI layouts, every field at its offset) pass on aarch64")
    for abi, version in STUB_VERSIONS.items():
        stub = build_stub(WORK / "stubs" / abi, abi, version)
        kind = subprocess.run(["file", "-L", str(stub)], capture_output=True, text=True).stdout
        check("ARM aarch64" in kind, f"the {version} stand-in is AArch64 code")
        data = data_dir_with(f"rkllm-{abi}", {})
        (data / "settings.json").write_text(json.dumps({"model": str(fake_rkllm_model(data))}))
        done = edgehost(
            data,
            "ask",
            "--backend",
            "rkllm",
            "--rkllm-lib",
            str(stub),
            "Say hello",
            env={"EDGEHOST_SYSFS_ROOT": str(root)},
        )
        check(
            STUB_REPLY in done.stdout,
            f"ABI {abi}: `ask --backend rkllm` streams {STUB_REPLY!r}: {done.stdout!r}",
        )


def step_llama() -> None:
    import llama_cpp  # the cross-compiled wheel (packaging/arm64/build_llama_wheel.sh)

    lib = Path(llama_cpp.__file__).parent / "lib"
    for name in ("libllama.so", "libggml-cpu.so"):
        kind = subprocess.run(["file", "-L", str(lib / name)], capture_output=True, text=True).stdout
        check("ARM aarch64" in kind, f"{name} is AArch64 code")
    # Built for the A76 cores: ggml reports the ARM features it was compiled with.
    features = subprocess.run(
        [sys.executable, "-c", "import llama_cpp; print(llama_cpp.llama_print_system_info().decode())"],
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
    ).stdout
    print(f"  llama.cpp: {features.strip()}")
    check("DOTPROD = 1" in features and "FP16_VA = 1" in features, "dotprod and fp16 compiled in")
    # This machine's own CPUs (not the fake board's eight), and one thread: under qemu-user, llama.cpp's
    # threads waiting on each other cost more than a second core gives (SmolLM2 on two emulated cores:
    # ~0.9 tokens/s prefill, ~0.4 decode; on one: ~1.3 and ~0.9).
    data = data_dir_with("llama", {"threads": 1})
    env: dict[str, str] = {}
    tools = edgehost(data, "tools", "--wait", str(SERVERS_WAIT_S), env=env)
    check("board__uptime" in tools.stdout, "the built-in servers list their tools")
    done = edgehost(
        data,
        "ask",
        "--backend",
        "llamacpp",
        "How long has the board been up?",
        "--yes",
        "--json",
        "--max-tokens",
        "48",
        "--temperature",
        "0",
        env=env,
        timeout=TURN_TIMEOUT_S,
    )
    answer = json.loads(done.stdout)
    calls = [(e["tool"], e["status"]) for e in answer["executions"]]
    print(f"  answer: {answer['text'][:300]!r}; calls {calls}")
    check(
        bool(calls) and calls[0][1] == "ok" and calls[0][0].startswith("board__"),
        f"a board tool was called: {calls}",
    )
    check(answer["perf"]["generated_tokens"] > 0, "the default model generated the answer")


def step_window() -> None:
    import PySide6

    # Its turn (a ~900-token prompt and a forced call on the default model) is bounded at 300 s for a
    # board and takes ~15-27 minutes under the emulator: its waits x12.
    data = data_dir_with("window", {})
    done = edgehost(
        data,
        "--self-test",
        env={"QT_QPA_PLATFORM": "offscreen", "EDGEHOST_WAIT_SCALE": "12"},
        timeout=2 * 3600,
    )
    print("  " + "\n  ".join((done.stdout + done.stderr).strip().splitlines()[-8:]))
    check(done.returncode == 0, f"--self-test passed offscreen on PySide6 {PySide6.__version__}")


STEPS: dict[str, Callable[[], None]] = {
    "doctor": step_doctor,
    "rkllm": step_rkllm,
    "llama": step_llama,
    "window": step_window,
}


def main() -> int:
    name = sys.argv[1] if len(sys.argv) == 2 else ""
    if name not in STEPS:
        print(f"usage: board_steps.py {{{'|'.join(STEPS)}}}", file=sys.stderr)
        return 2
    WORK.mkdir(parents=True, exist_ok=True)
    try:
        STEPS[name]()
    except (StepFailed, subprocess.TimeoutExpired) as failure:
        print(f"FAIL {name}: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
