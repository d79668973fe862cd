"""A median timing of one call, for the benches that time a step of a turn."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_ms(function: Callable[[], object], runs: int = 50) -> float:
    """The median wall time of ``function()`` over ``runs`` calls, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)
