"""The official MCP conformance suite's client scenarios, every one of them, run against `edgehost probe`.

Each scenario of each protocol era (2025-11-25: the initialize handshake; 2026-07-28: stateless, per-
request metadata) is one test, judged as the suite's runner judges it (no failed check, no warning,
the client exited 0 unless the scenario allows a client error). The 2025-03-26 back-compat scenarios
and the extensions run at the wire the suite picks for them. A scenario that cannot pass with the mcp
SDK we build on is marked xfail(strict): it fails the run the day it starts passing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conformance.suite import (
    ERAS,
    NODE,
    OTHER_SCENARIOS,
    RUNNER,
    SCENARIOS,
    list_scenarios,
    run_scenario,
)

pytestmark = pytest.mark.peers

_SDK_DPOP = (
    "DPoP (SEP-1932): the mcp SDK 2.3.0's OAuth client has no DPoP proofs, so the token request and the "
    "MCP requests carry a Bearer token instead of DPoP-bound ones"
)
_SDK_WIF = (
    "workload identity federation: the mcp SDK 2.3.0 has no urn:ietf:params:oauth:grant-type:jwt-bearer "
    "grant for a workload JWT (it answers with authorization_code)"
)
_SKILLS = (
    "skills extension (SEP-2640): neither EdgeHost nor the mcp SDK 2.3.0 implements skills/list, so the "
    "scenario's checks are never reached"
)
EXPECTED_FAILURES: dict[str, str] = {
    "auth/dpop": _SDK_DPOP,
    "auth/dpop-nonce": _SDK_DPOP,
    "auth/wif-jwt-bearer": _SDK_WIF,
    "sep-2640-client-no-prefetch": _SKILLS,
    "sep-2640-client-verify-digest": _SKILLS,
    "sep-2640-client-verify-size": _SKILLS,
    "sep-2640-client-verify-frontmatter": _SKILLS,
}


def _cases() -> list[object]:
    runs = [(scenario, era) for era in ERAS for scenario in SCENARIOS[era]]
    runs += [(scenario, None) for scenario in OTHER_SCENARIOS]
    cases: list[object] = []
    for scenario, era in runs:
        marks = []
        if scenario in EXPECTED_FAILURES:
            marks.append(pytest.mark.xfail(strict=True, reason=EXPECTED_FAILURES[scenario]))
        cases.append(pytest.param(scenario, era, marks=marks, id=f"{era or 'default-wire'}:{scenario}"))
    return cases


def _require_suite() -> None:
    for path in (NODE, RUNNER):
        if not path.exists():
            pytest.skip(f"{path} is missing: run `make peers`")


@pytest.mark.parametrize(("scenario", "era"), _cases())
def test_edgehost_probe_passes_the_conformance_client_scenario(
    scenario: str, era: str | None, tmp_path: Path
) -> None:
    _require_suite()
    run = run_scenario(scenario, era, tmp_path)
    assert run.passed, "\n".join([f"exit {run.returncode}", *run.problems(), run.output])


def test_the_scenario_lists_are_those_of_the_installed_suite() -> None:
    """A new suite version with new scenarios must not pass unnoticed: every one it lists is run here."""
    _require_suite()
    for era in ERAS:
        assert list_scenarios(era) == list(SCENARIOS[era])
    everything = set(list_scenarios(None))
    assert everything == {s for era in ERAS for s in SCENARIOS[era]} | set(OTHER_SCENARIOS)
    assert len(everything) == 48
