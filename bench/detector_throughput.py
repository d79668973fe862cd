"""Tool-call detector throughput on a 1 MB transcript (prose with calls mixed in) fed in 4-character chunks.

Prints ``RESULT detector_mb_per_s <MB/s>`` and ``RESULT detector_vs_scan <ratio>``: the detector's
speed as a fraction of a plain streaming ``str.find`` for one marker over the same chunks, run in
the same process (the machine is noisy; the ratio is the comparable figure).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from edgehost.agent.detector import PROMPT_DIALECTS, ToolCallDetector, ToolCallParsed, dialect_example

SIZE = 1_000_000
CHUNK = 4
ROUNDS = 3

PROSE = (
    "the board reports its temperature and the NPU load while the model answers a question about "
    "files in the sandbox folder with [links](https://example.org) and `inline code` and <b>tags</b> "
    "plus a list: 1. first 2. second [note] <- arrows -> {braces} done."
)
WORDS = PROSE.split()


def transcript(seed: int = 3) -> tuple[str, int]:
    """About SIZE characters of prose with a tool call in a random dialect every ~2 KB."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    calls = 0
    dialects = [d for d in PROMPT_DIALECTS if d != "bare-json"]
    while size < SIZE:
        paragraph = " ".join(rng.choice(WORDS) for _ in range(rng.randint(200, 400))) + "\n\n"
        call = dialect_example(
            rng.choice(dialects), "files__read_file", {"path": f"/srv/data/{calls}.txt", "max_bytes": 4096}
        )
        parts.append(paragraph)
        parts.append(call + "\n")
        size += len(paragraph) + len(call) + 1
        calls += 1
    return "".join(parts), calls


def chunks_of(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


def run_detector(chunks: list[str]) -> int:
    detector = ToolCallDetector()
    found = 0
    for chunk in chunks:
        for event in detector.feed(chunk):
            if isinstance(event, ToolCallParsed):
                found += 1
    for event in detector.finish():
        if isinstance(event, ToolCallParsed):
            found += 1
    return found


def run_scan(chunks: list[str]) -> int:
    """Baseline: the least a streaming scanner does, carrying a marker's length across chunks."""
    marker = "[TOOL_CALL]"
    keep = len(marker) - 1
    carry = ""
    found = 0
    for chunk in chunks:
        window = carry + chunk
        if window.find(marker) >= 0:
            found += 1
        carry = window[-keep:]
    return found


def best_time(fn: Callable[[list[str]], int], chunks: list[str]) -> tuple[float, int]:
    best = float("inf")
    result = 0
    for _ in range(ROUNDS):
        start = time.perf_counter()
        result = fn(chunks)
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    text, inserted = transcript()
    chunks = chunks_of(text)
    detector_s, found = best_time(run_detector, chunks)
    scan_s, _ = best_time(run_scan, chunks)
    if found != inserted:
        raise SystemExit(f"detector found {found} calls, {inserted} were inserted")
    megabytes = len(text.encode("utf-8")) / 1_000_000
    print(
        f"# {megabytes:.2f} MB, {len(chunks)} chunks of {CHUNK}, {inserted} calls; detector {detector_s:.3f} s, scan {scan_s:.3f} s"
    )
    print(f"RESULT detector_mb_per_s {megabytes / detector_s:.2f}")
    print(f"RESULT detector_vs_scan {scan_s / detector_s:.3f}")


if __name__ == "__main__":
    main()
