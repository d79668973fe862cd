"""Python's cyclic garbage collector, run on the GUI thread only.

The collector runs in whichever thread happens to allocate when a generation fills up: the tool
ranking's thread, a download's, the core import's. A Qt object it frees there is destroyed from the
wrong thread, so its active timers stay registered with the GUI thread's dispatcher, which later
delivers a timer event to freed memory: a segfault in QTimerInfoList::activateTimers, seen in the UI
test suite whenever one more window was opened and closed before a test that ranks tools.

While the app runs, automatic collection is off and a timer on the GUI thread collects the
generations whose thresholds the allocation counts passed, as the automatic collector would, except
while collection is paused (``collection_paused``: the core's import, whose objects are frozen after).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

from PySide6.QtCore import QObject, QTimer

__all__ = ["GuiThreadCollector", "collection_paused"]

CHECK_INTERVAL_MS = 250
_pauses = 0


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """No collection while the block runs: neither the automatic one nor GuiThreadCollector's (which
    calls ``gc.collect`` itself, so ``gc.disable`` alone does not stop it: a full collection of the
    heap the core's import was building held the window 20-35 ms, bench/ui_stall.py)."""
    global _pauses  # noqa: PLW0603 - one count for the process, as the collector's own state is
    enabled = gc.isenabled()
    gc.disable()
    _pauses += 1
    try:
        yield
    finally:
        _pauses -= 1
        if enabled:
            gc.enable()


class GuiThreadCollector(QObject):
    def __init__(self, parent: QObject | None = None, interval_ms: int = CHECK_INTERVAL_MS) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start()

    def collect_due(self) -> int:
        """Collect the oldest generation whose threshold is passed; the number of objects freed (0
        while collection is paused)."""
        if _pauses:
            return 0
        counts, thresholds = gc.get_count(), gc.get_threshold()
        due = [g for g in range(3) if thresholds[g] and counts[g] > thresholds[g]]
        return gc.collect(max(due)) if due else 0

    def stop(self) -> None:
        """Automatic collection as it was before (after one collection here)."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()
