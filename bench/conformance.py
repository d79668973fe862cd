"""The MCP conformance suite's client scenarios against `edgehost probe` (issue 11's
``conformance_client_pass``), one protocol era at a time:

  RESULT conformance_client_pass_2025_11_25 P/N   scenarios passed / run at the 2025-11-25 wire
  RESULT conformance_client_pass_2026_07_28 P/N   the same at the 2026-07-28 wire
  RESULT conformance_client_pass_other P/N        2025-03-26 back-compat and extensions, default wire

Each failing scenario is printed with the checks it failed. Needs `make peers`.
"""

from __future__ import annotations

import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conformance.suite import ERAS, NODE, OTHER_SCENARIOS, RUNNER, SCENARIOS, ScenarioRun, run_scenario

# Scenarios run side by side; each is a few seconds of a Node runner and one edgehost process.
PARALLEL_RUNS = 4


def main() -> int:
    if not (NODE.exists() and RUNNER.exists()):
        print("the conformance suite is not installed: run `make peers`", file=sys.stderr)
        return 1
    groups = {era: [(s, era) for s in SCENARIOS[era]] for era in ERAS}
    groups["other"] = [(s, None) for s in OTHER_SCENARIOS]
    with tempfile.TemporaryDirectory() as root, ThreadPoolExecutor(PARALLEL_RUNS) as pool:

        def run(job: tuple[str, str | None]) -> ScenarioRun:
            workdir = Path(tempfile.mkdtemp(dir=root))
            return run_scenario(job[0], job[1], workdir)

        for group, jobs in groups.items():
            runs = list(pool.map(run, jobs))
            for failed in (r for r in runs if not r.passed):
                print(f"failed {group} {failed.scenario} (exit {failed.returncode})")
                for problem in failed.problems()[:5]:
                    print(f"    {problem[:200]}")
            passed = sum(r.passed for r in runs)
            print(
                f"RESULT conformance_client_pass_{group.replace('-', '_')} {passed}/{len(runs)}", flush=True
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
