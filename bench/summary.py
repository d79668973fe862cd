"""`make bench`: run every bench/*.py and print one table of their RESULT lines against the goals.

Each bench prints ``RESULT <figure> <value>`` lines on stdout (and the baseline it divides by as one
of them); its stderr goes to build/bench/<bench>.log. The goals of the issues are kept here, in GOALS,
and nowhere else: a figure without a goal is shown with "-". A bench that fails (a bundle bench
without a built bundle, say) is listed with its exit code and the others still run.

    python bench/summary.py                     # every bench
    python bench/summary.py startup idle        # some of them
    python bench/summary.py --results FILE ...  # a table from RESULT lines saved earlier

Exits 1 when a figure misses its goal or a bench failed, so CI can run it.
"""

from __future__ import annotations

import argparse
import operator
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
LOGS = BENCH.parent / "build" / "bench"
BENCH_TIMEOUT_S = 3600.0  # the slowest (agent accuracy with a real model) takes minutes, not an hour

# figure: (comparison, goal, issue that set it)
GOALS: dict[str, tuple[str, float, str]] = {
    "ui_stall_ms": ("<=", 16.0, "12"),
    "startup": ("<=", 1.5, "12"),
    "idle_rss_mb": ("<=", 120.0, "12"),
    "idle_cpu": ("<=", 1.0, "12"),
    "bundle_mb_without_model": ("<=", 250.0, "12"),
    "bundle_mb_with_model": ("<=", 350.0, "12"),
    "turn_overhead_ms": ("<=", 5.0, "12"),
    "turn_overhead_typed_ms": ("<=", 5.0, "12"),
    "concurrent_start": ("<=", 1.3, ""),
    "decode_overhead": (">=", 0.95, ""),
    "mcp_call_overhead": ("<=", 1.10, ""),
    "prefill_reuse": ("<=", 1.2, ""),
    "first_token_warm_ratio": ("<=", 1.2, ""),
    "first_question_ratio": ("<=", 0.2, ""),
    "cancel_latency_ms": ("<", 200.0, ""),
    "parallel_calls": ("<=", 1.3, "13"),
    "task_call_ratio": ("<=", 1.05, "13"),
    "web_first_token_ratio": ("<=", 1.1, ""),
    "web_idle_cpu_percent": ("<=", 0.5, ""),
}
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
}


def parse_results(lines: Iterable[str]) -> list[tuple[str, float]]:
    """The (figure, value) of each ``RESULT figure value`` line; other lines are ignored."""
    results = []
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and parts[0] == "RESULT":
            try:
                results.append((parts[1], float(parts[2])))
            except ValueError:
                continue
    return results


def verdict(figure: str, value: float) -> tuple[str, str]:
    """(goal text, "yes" / "NO" / "-") for one figure."""
    if figure not in GOALS:
        return "-", "-"
    comparison, goal, _issue = GOALS[figure]
    return f"{comparison} {goal:g}", "yes" if _COMPARE[comparison](value, goal) else "NO"


def run_bench(script: Path) -> tuple[list[tuple[str, float]], int, float]:
    """Run one bench; its RESULT values, exit code and wall time. Its stderr goes to build/bench/."""
    LOGS.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    started = time.monotonic()
    with open(LOGS / f"{script.stem}.log", "w") as log:
        try:
            done = subprocess.run(
                [sys.executable, str(script)],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                env=env,
                timeout=BENCH_TIMEOUT_S,
                check=False,
            )
            stdout, code = done.stdout, done.returncode
        except subprocess.TimeoutExpired as exc:
            stdout, code = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else "", -1
        log.write(stdout)
    return parse_results(stdout.splitlines()), code, time.monotonic() - started


def table(rows: list[tuple[str, str, str, str, str]]) -> str:
    header = ("bench", "figure", "value", "goal", "ok")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benches", nargs="*", help="bench names (default: every bench/*.py)")
    parser.add_argument("--results", type=Path, help="read RESULT lines from this file instead of running")
    args = parser.parse_args(argv)
    rows: list[tuple[str, str, str, str, str]] = []
    failed = False
    if args.results is not None:
        for figure, value in parse_results(args.results.read_text().splitlines()):
            rows.append((args.results.name, figure, f"{value:g}", *verdict(figure, value)))
    else:
        names = args.benches or sorted(
            p.stem for p in BENCH.glob("*.py") if p.stem != "summary" and not p.stem.startswith("_")
        )
        for name in names:
            print(f"running bench/{name}.py ...", file=sys.stderr, flush=True)
            results, code, seconds = run_bench(BENCH / f"{name}.py")
            print(f"  {seconds:.0f} s, exit {code}", file=sys.stderr, flush=True)
            for figure, value in results:
                rows.append((name, figure, f"{value:g}", *verdict(figure, value)))
            if code != 0:
                failed = True
                rows.append((name, f"(failed: exit {code}, see build/bench/{name}.log)", "", "", "NO"))
    print(table(rows))
    missed = [row for row in rows if row[4] == "NO"]
    print(
        f"\n{len(rows)} figures, {sum(row[4] == 'yes' for row in rows)} goals met, {len(missed)} missed or failed"
    )
    return 1 if missed or failed else 0


if __name__ == "__main__":
    sys.exit(main())
