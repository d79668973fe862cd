"""Bundle size and start time of the PyInstaller bundle against the venv, same run.

Runs `edgehost --help` from dist/edgehost/ and from the venv's console script, alternating, and
prints:
  RESULT bundle_size_mb <size of dist/edgehost in MiB>
  RESULT bundle_start_ratio <median bundle start / median venv start>
  RESULT bundle_first_start_ratio <first bundle start / first venv start>  (the cold-ish run)
Build the bundle first (make bundle); without it the script says so and exits 0.
"""

from __future__ import annotations

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


def start_seconds(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return time.perf_counter() - started


def main() -> int:
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
