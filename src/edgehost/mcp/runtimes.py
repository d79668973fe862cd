"""Which runtimes the configured MCP servers need (Node for ``npx``, uv for ``uvx``, Docker, Python) and
which of them this machine lacks, with the Debian package or command that provides each.

A board image usually has Python and nothing else: a server entry written for a desktop
(``"command": "npx"``) fails there with "command not found" only when it starts. ``doctor`` says so
beforehand, from the servers file alone: nothing is started or connected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgehost.mcp.config import ServerConfig
from edgehost.programs import find_program

__all__ = ["INVENTORY", "RUNTIMES", "Runtime", "RuntimeNeed", "runtime_inventory", "runtime_needs"]


@dataclass(frozen=True)
class Runtime:
    name: str  # short key: node, uv, docker, podman, python
    title: str  # what a user calls it
    install: str  # the command that provides it on Debian 12 / Ubuntu 22.04 board images


# Debian 12 packages npx with npm (Node 18); it has no uv package, and pip refuses to install into the
# system Python (PEP 668), so uv comes through pipx.
NODE = Runtime("node", "Node.js", "edgehost runtimes install node (or sudo apt install nodejs npm)")
UV = Runtime("uv", "uv", "sudo apt install pipx && pipx install uv")
DOCKER = Runtime("docker", "Docker", "sudo apt install docker.io && sudo usermod -aG docker $USER")
PODMAN = Runtime("podman", "Podman", "sudo apt install podman")
PYTHON = Runtime("python", "Python", "sudo apt install python3")
PIPX = Runtime("pipx", "pipx", "sudo apt install pipx")

# The command of a server entry (its file name, without a directory) -> the runtime it belongs to.
RUNTIMES: dict[str, Runtime] = {
    "npx": NODE,
    "node": NODE,
    "npm": NODE,
    "nodejs": NODE,
    "uvx": UV,
    "uv": UV,
    "docker": DOCKER,
    "podman": PODMAN,
    "python": PYTHON,
    "python3": PYTHON,
    "pipx": PIPX,
}


def _runtime_of(command: str) -> Runtime | None:
    name = Path(command).name
    if name in RUNTIMES:
        return RUNTIMES[name]
    if name.startswith("python3."):  # python3.11 ...
        return PYTHON
    return None


@dataclass(frozen=True)
class RuntimeNeed:
    """One command the configured servers start, whether it is found here, and how to get it."""

    command: str
    runtime: Runtime | None  # None: a server's own program (not a known runtime)
    servers: tuple[str, ...]
    found: str | None  # the path it resolves to here, None when missing

    def as_dict(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "runtime": self.runtime.name if self.runtime else None,
            "title": self.runtime.title if self.runtime else None,
            "servers": list(self.servers),
            "found": self.found,
            "install": self.install_hint,
        }

    @property
    def install_hint(self) -> str:
        if self.runtime is not None:
            return self.runtime.install
        return f"install {self.command} or give its full path as the server's command"


def runtime_needs(servers: list[ServerConfig]) -> list[RuntimeNeed]:
    """The commands the user's stdio servers start (built-in, failed and disabled entries aside), one
    entry per command, in the order the servers file names them."""
    users: dict[str, list[ServerConfig]] = {}
    for server in servers:
        if server.builtin or server.error or not server.enabled:
            continue
        if server.transport != "stdio" or not server.command:
            continue
        users.setdefault(server.command, []).append(server)
    return [
        RuntimeNeed(
            command=command,
            runtime=_runtime_of(command),
            servers=tuple(s.name for s in entries),
            found=find_program(command, entries[0].env.get("PATH")),  # with the server's own PATH, if any
        )
        for command, entries in users.items()
    ]


# The runtimes servers run with, by the program a server entry names: what `edgehost runtimes` and
# `doctor` list, found here or not.
INVENTORY = (("npx", NODE), ("uvx", UV), ("docker", DOCKER), ("python3", PYTHON))


def runtime_inventory() -> list[dict[str, Any]]:
    """Each runtime of INVENTORY: its program, where it is found (EdgeHost's own uv and the data
    folder's Node included), or how to get it."""
    rows = []
    for program, runtime in INVENTORY:
        found = find_program(program)
        rows.append(
            {
                "runtime": runtime.title,
                "program": program,
                "found": found,
                "install": None if found else runtime.install,
            }
        )
    return rows
