#!/usr/bin/env python3
"""Check that EdgeHost's runtime dependencies install from binary wheels on an RK3588 board image.

Board images (Debian 12, Ubuntu 22.04, Armbian) are aarch64 with glibc 2.31-2.38 and have no
compiler set up for Qt or pydantic-core, so every runtime dependency must resolve to a wheel for
aarch64 at glibc <= 2.31, on each supported Python (3.10, 3.11, 3.12). The dependency list is read
from pyproject.toml (the `dependencies` plus the board extra `rk3588`; the `llamacpp` extra is left
out: it is compiled on the board). PySide6-Essentials is pinned to 6.8.0.2, the newest release
with wheels for glibc < 2.39 (see /work/shared/PEERS.md), so this checks the floor Qt too.

Usage: python packaging/check_board_wheels.py [--python 3.10 ...] [--resolve-only] [--keep DIR]
Prints one PASS/FAIL line per Python version and exits 1 if any failed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
PYTHONS = ("3.10", "3.11", "3.12")
GLIBC_FLOOR = 31  # Ubuntu 20.04 / Debian 11-era boards; Debian 12 is 2.36, Ubuntu 22.04 is 2.35
FLOOR_PINS = {"pyside6-essentials": "PySide6-Essentials==6.8.0.2"}
BOARD_EXTRAS = ("rk3588",)


def aarch64_platform_tags(glibc_minor: int = GLIBC_FLOOR) -> list[str]:
    """Every wheel platform tag a glibc 2.<minor> aarch64 system accepts (pip takes them explicitly)."""
    return ["manylinux2014_aarch64"] + [
        f"manylinux_2_{minor}_aarch64" for minor in range(17, glibc_minor + 1)
    ]


def board_requirements(
    pyproject: Path, python_version: str, extras: tuple[str, ...] = BOARD_EXTRAS
) -> list[str]:
    """The runtime requirements for an aarch64 Linux board on ``python_version``, markers evaluated for
    that target (pip would evaluate them for the interpreter running it), floor pins applied."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in extras:
        lines += project.get("optional-dependencies", {}).get(extra, [])
    env = {
        **default_environment(),
        "python_version": python_version,
        "python_full_version": f"{python_version}.0",
        "platform_machine": "aarch64",
        "platform_system": "Linux",
        "sys_platform": "linux",
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }
    result = []
    for line in lines:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate(env):  # type: ignore[arg-type]
            continue
        pinned = FLOOR_PINS.get(canonicalize_name(req.name))
        req.marker = None
        result.append(pinned or str(req))
    return result


def pip_command(python_version: str, requirements: list[str], dest: Path, *, resolve_only: bool) -> list[str]:
    platforms = [arg for tag in aarch64_platform_tags() for arg in ("--platform", tag)]
    common = ["--only-binary=:all:", "--python-version", python_version, "--implementation", "cp", *platforms]
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    if resolve_only:
        # Resolves with the same resolver and tags but fetches only metadata (PEP 658), not the wheels.
        return [
            *pip,
            "install",
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "--target",
            str(dest / "target"),
            "--report",
            str(dest / "report.json"),
            *common,
            *requirements,
        ]
    return [*pip, "download", "--quiet", "-d", str(dest), *common, *requirements]


def resolved_files(dest: Path, *, resolve_only: bool) -> list[str]:
    if resolve_only:
        report = json.loads((dest / "report.json").read_text(encoding="utf-8"))
        return sorted(Path(item["download_info"]["url"]).name for item in report["install"])
    return sorted(p.name for p in dest.iterdir() if p.suffix == ".whl")


def check(python_version: str, dest: Path, *, resolve_only: bool) -> tuple[bool, str]:
    """Resolve for one Python version into ``dest``; (passed, summary or pip's error tail)."""
    dest.mkdir(parents=True, exist_ok=True)
    requirements = board_requirements(REPO / "pyproject.toml", python_version)
    proc = subprocess.run(
        pip_command(python_version, requirements, dest, resolve_only=resolve_only),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-8:])
        return False, tail
    files = resolved_files(dest, resolve_only=resolve_only)
    binary = [f for f in files if not f.endswith("-none-any.whl")]
    return True, f"{len(files)} wheels, platform-specific: {', '.join(binary) or 'none'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", action="append", choices=PYTHONS, help="only this version (repeatable)")
    parser.add_argument("--resolve-only", action="store_true", help="resolve from metadata, do not download")
    parser.add_argument("--keep", metavar="DIR", help="download into DIR/<version> and keep it")
    args = parser.parse_args(argv)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="edgehost-board-wheels-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        for version in args.python or PYTHONS:
            passed, detail = check(version, root / version, resolve_only=args.resolve_only)
            status = "PASS" if passed else "FAIL"
            print(f"{status} python {version} aarch64 glibc 2.{GLIBC_FLOOR}: {detail}", flush=True)
            failed += not passed
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
