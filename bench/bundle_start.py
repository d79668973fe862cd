"""Bundle size and start time of the PyInstaller bundle against the venv, same run.

Runs `edgehost --help` from dist/edgehost/ and from the venv's console script, alternating, and
prints:
  RESULT bundle_size_mb <size of dist/edgehost in MiB>
  RESULT bundle_start_ratio <median bundle start / median venv start>
  RESULT bundle_first_start_ratio <first bundle start / first venv start>  (the cold-ish run)
With --self-test also (slow: the whole app offscreen and one model turn, once each):
  RESULT bundle_self_test_ratio <bundle `--self-test` time / venv `--self-test` time>
Build the bundle first (make bundle); without it the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUNDLE = REPO / "dist" / "edgehost"
ROUNDS = 7


def folder_size_mb(folder: Path) -> float:
    total = sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return total / 2**20


def start_seconds(command: list[str], timeout: float = 120, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(
        command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout, env=env
    )
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description="bundle size and start time against the venv")
    parser.add_argument("--self-test", action="store_true", help="also time `--self-test` (minutes)")
    args = parser.parse_args()
    bundle_exe = BUNDLE / "edgehost"
    if not bundle_exe.is_file():
        print(f"bundle_start: {bundle_exe} not built (make bundle); nothing measured")
        return 0
    venv_exe = Path(sys.executable).parent / "edgehost"
    venv_cmd = [str(venv_exe)] if venv_exe.is_file() else [sys.executable, "-m", "edgehost"]
    commands = {"bundle": [str(bundle_exe), "--help"], "venv": [*venv_cmd, "--help"]}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(ROUNDS):
        for name, command in commands.items():
            times[name].append(start_seconds(command))
    for name, values in times.items():
        print(
            f"{name}: first {values[0]:.3f} s, median {statistics.median(values):.3f} s ({os.cpu_count()} cpus)"
        )
    print(f"RESULT bundle_size_mb {folder_size_mb(BUNDLE):.1f}")
    print(
        f"RESULT bundle_start_ratio {statistics.median(times['bundle']) / statistics.median(times['venv']):.2f}"
    )
    print(f"RESULT bundle_first_start_ratio {times['bundle'][0] / times['venv'][0]:.2f}")
    if args.self_test:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        bundle_s = start_seconds([str(bundle_exe), "--self-test"], timeout=900, env=env)
        venv_s = start_seconds([*venv_cmd, "--self-test"], timeout=900, env=env)
        print(f"self-test: bundle {bundle_s:.1f} s, venv {venv_s:.1f} s")
        print(f"RESULT bundle_self_test_ratio {bundle_s / venv_s:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
