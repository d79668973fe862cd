"""How long the whole test suite takes, as `make test` runs it (the environment already installed).

Runs the suite's pytest step (every test, branch coverage included, across the cores as `make test`
does) and prints ``RESULT make_test_s``. With ``--beside-load`` it runs it again beside another load
of two busy cores (two processes spinning for the whole run), as on a shared machine:
``RESULT make_test_beside_load_s`` and their ratio ``RESULT make_test_load_ratio``. That run sets
EDGEHOST_WAIT_SCALE (``--wait-scale``, 4 by default: the load makes the suite about 3.3 times slower),
as a user of a shared machine would, so that every bound of the tests grows with the load. The slowest tests
of each run are printed on stderr.

    .venv/bin/python bench/suite_time.py [--beside-load] [--workers N] [-- PYTEST ARGS]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPIN = "while True: pass"
LOG = REPO / "build" / "suite_time.log"


def run_suite(workers: str, extra: list[str], wait_scale: float = 1.0) -> tuple[float, int]:
    """(seconds, pytest's exit code) of one run of the suite as `make test` runs it."""
    env = {**os.environ, "EDGEHOST_STRICT_TESTS": "1", "QT_QPA_PLATFORM": "offscreen"}
    if wait_scale > 1:
        env["EDGEHOST_WAIT_SCALE"] = str(wait_scale)
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers, "--dist", "worksteal",
        "--cov", "--cov-report=", "--durations=15", *extra,
    ]  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.PIPE, text=True, check=False)
    elapsed = time.monotonic() - started
    LOG.write_text(done.stdout, encoding="utf-8")  # a failure's traceback, which the tail below may cut
    tail = done.stdout.splitlines()[-25:]
    print("\n".join(tail), file=sys.stderr)
    print(f"(pytest's whole output: {LOG.relative_to(REPO)})", file=sys.stderr)
    return elapsed, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beside-load", action="store_true", help="also run beside two busy cores")
    # As `make test`: one worker more than the cores.
    parser.add_argument(
        "--workers", default=os.environ.get("TEST_WORKERS", str(len(os.sched_getaffinity(0)) + 1))
    )
    parser.add_argument("--wait-scale", type=float, default=4.0, help="EDGEHOST_WAIT_SCALE beside the load")
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    (REPO / "build" / "coverage").mkdir(parents=True, exist_ok=True)
    quiet, code = run_suite(args.workers, args.pytest_args)
    print(f"RESULT make_test_s {quiet:.0f}")
    if code != 0:
        print(f"the suite failed (pytest exit {code})", file=sys.stderr)
        return code
    if args.beside_load:
        spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(2)]
        try:
            loaded, code = run_suite(args.workers, args.pytest_args, args.wait_scale)
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
        print(f"RESULT make_test_beside_load_s {loaded:.0f}")
        print(f"RESULT make_test_load_ratio {loaded / quiet:.2f}")
        if code != 0:
            print(f"the suite failed beside the load (pytest exit {code})", file=sys.stderr)
            return code
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
