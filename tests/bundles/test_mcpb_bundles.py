"""MCPB bundles as a person installs them: real `.mcpb` files packed (and signed) with the official CLI
(`mcpb`, @anthropic-ai/mcpb) from a small node server and a small uv server, then `edgehost install`,
a tool call, an update that keeps the options, `edgehost uninstall`; and the bundles that cannot be
installed, each with its reason."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import zipfile
from pathlib import Path

import pytest
from tests.bundles.mcpb_support import FIXTURES, NODE, mcpb, other_architecture_bundle, packed
from tests.cli.cli_helpers import run_edgehost

KEY = "key-0123456789abcdef"

pytestmark = pytest.mark.peers


def edgehost(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The peers' Node first on the PATH: the node bundle runs `node`; no keyring: the data folder's file.
    env = {
        **os.environ,
        "PATH": f"{NODE.parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    return run_edgehost(home, *args, env=env)


def test_a_signed_node_bundle_installs_keeps_its_secret_apart_updates_in_place_and_uninstalls(
    tmp_path: Path, data_dir: Path
) -> None:
    bundle = packed(FIXTURES / "hello-node", tmp_path / "hello-node.mcpb")
    mcpb("sign", "--self-signed", str(bundle), cwd=tmp_path)  # a signature block after the zip

    refused = edgehost(data_dir, "install", str(bundle), "--yes")
    assert refused.returncode == 2 and "a value is needed for api_key" in refused.stderr

    done = edgehost(
        data_dir, "install", str(bundle), "--yes", "--set", f"api_key={KEY}", "--set", "greeting=Hi"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    folder = data_dir / "bundles" / "hello-node"
    assert f"It will run as 'hello-node': node {folder}/server/index.js --greeting=Hi" in done.stdout
    assert "hello-node: ready, 1 tool: hello-node__greet" in done.stdout
    written = (data_dir / "servers.json").read_text()
    assert KEY not in written and KEY not in done.stdout
    assert json.loads(written)["mcpServers"]["hello-node"]["env"] == {
        "API_KEY": "${input:hello-node__api_key}"
    }
    called = edgehost(data_dir, "call", "hello-node__greet", '{"name": "Ada"}')
    assert called.stdout.strip() == "Hi, Ada! (from the node bundle, with an API key)"

    newer = packed(FIXTURES / "hello-node", tmp_path / "hello-node-1.1.mcpb", version="1.1.0")
    updated = edgehost(data_dir, "install", str(newer), "--yes")  # no option given: the earlier ones stay
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert "installed before as hello-node" in updated.stdout
    listed = json.loads(edgehost(data_dir, "bundles", "--json").stdout)
    assert [(b["name"], b["version"]) for b in listed] == [("hello-node", "1.1.0")]
    called = edgehost(data_dir, "call", "hello-node__greet", '{"name": "Ada"}')
    assert called.stdout.strip() == "Hi, Ada! (from the node bundle, with an API key)"

    credentials_before = (data_dir / "oauth-credentials.json").read_text()  # the store without a keyring
    removed = edgehost(data_dir, "uninstall", "hello-node")
    assert removed.returncode == 0, removed.stderr
    assert not folder.exists()
    assert "hello-node" not in json.loads((data_dir / "servers.json").read_text()).get("mcpServers", {})
    assert KEY in credentials_before
    assert KEY not in (data_dir / "oauth-credentials.json").read_text()  # its secret is forgotten too


def test_a_uv_bundle_runs_with_the_uv_that_comes_with_edgehost(tmp_path: Path, data_dir: Path) -> None:
    bundle = packed(FIXTURES / "hello-uv", tmp_path / "hello-uv.mcpb")
    done = edgehost(data_dir, "install", str(bundle), "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"uv run --directory {data_dir / 'bundles' / 'hello-uv'} src/server.py" in done.stdout
    assert "hello-uv: ready, 1 tool: hello-uv__python_version" in done.stdout
    called = edgehost(data_dir, "call", "hello-uv__python_version", "{}")
    assert called.stdout.startswith("Python 3.") and "(uv bundle)" in called.stdout


def test_a_binary_built_for_another_machine_is_refused_with_its_architecture(
    tmp_path: Path, data_dir: Path
) -> None:
    bundle, theirs = other_architecture_bundle(tmp_path)
    done = edgehost(data_dir, "install", str(bundle), "--yes")
    assert done.returncode == 1
    assert (
        f"its program server/hello is built for {theirs}; this machine is {platform.machine()}" in done.stderr
    )
    assert not (data_dir / "bundles" / "other").exists()


def test_a_broken_manifest_names_its_field_and_line_and_a_zip_of_another_kind_says_so(
    tmp_path: Path, data_dir: Path
) -> None:
    manifest = json.loads((FIXTURES / "hello-node" / "manifest.json").read_text())
    manifest["server"]["type"] = "java"
    broken = tmp_path / "broken.mcpb"
    with zipfile.ZipFile(broken, "w") as archive:  # the official CLI refuses to pack it
        archive.writestr("manifest.json", json.dumps(manifest, indent=2))
    done = edgehost(data_dir, "install", str(broken), "--yes")
    assert done.returncode != 0
    assert (
        'broken.mcpb!manifest.json:11:5: must be one of "node", "python", "binary", "uv", not "java"'
        in done.stderr
    )
    assert "(field 'server.type')" in done.stderr

    mac_only = packed(FIXTURES / "hello-uv", tmp_path / "mac.mcpb", compatibility={"platforms": ["darwin"]})
    done = edgehost(data_dir, "install", str(mac_only), "--yes")
    assert done.returncode == 1 and "it is made for darwin, not for Linux" in done.stderr

    other = tmp_path / "other.mcpb"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("README.md", "no manifest here")
    done = edgehost(data_dir, "install", str(other), "--yes")
    assert done.returncode != 0 and "has no manifest.json at its root: is it an MCPB bundle?" in done.stderr
