"""The app's own event loop (run_app's): child processes, as the MCP servers are, are spawned and reaped."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from PySide6.QtWidgets import QApplication

from edgehost.slow_machine import scaled_wait
from edgehost.ui.app import event_loop

EXIT_WAIT_S = scaled_wait(30.0)  # a Python child starting on a loaded 2-core machine


def test_a_child_process_started_on_the_apps_loop_is_reaped_with_its_exit_code(qapp: QApplication) -> None:
    loop = event_loop(qapp)

    async def spawn_and_wait() -> int:
        process = await asyncio.create_subprocess_exec(sys.executable, "-c", "raise SystemExit(3)")
        return await asyncio.wait_for(process.wait(), EXIT_WAIT_S)

    try:
        assert loop.run_until_complete(spawn_and_wait()) == 3
    finally:
        loop.close()
        asyncio.set_event_loop(None)
        if sys.version_info < (3, 12):  # later tests' loops get asyncio's default watcher again
            asyncio.set_child_watcher(asyncio.ThreadedChildWatcher())


def test_garbage_is_collected_on_the_gui_thread_not_in_a_worker(qapp: Any) -> None:
    """A cycle holding a Qt object with a running timer, dropped while a worker thread allocates,
    is freed by the GUI thread's collector, not by the worker (a worker's collection left the timer
    registered: the segfaults in QTimerInfoList::activateTimers)."""
    import gc
    import threading
    import weakref

    from PySide6.QtCore import QTimer

    from edgehost.ui._gc import GuiThreadCollector

    was_enabled = gc.isenabled()
    collector = GuiThreadCollector(interval_ms=60_000)  # the test calls it instead of the timer
    try:
        assert not gc.isenabled()

        class Holder:
            timer: QTimer

        holder = Holder()
        holder.cycle = holder  # type: ignore[attr-defined]
        holder.timer = QTimer()
        holder.timer.start(60_000)
        gone = weakref.ref(holder)
        del holder
        kept: list[list[object]] = []  # what the worker makes stays alive, as a ranking's results do
        worker = threading.Thread(target=lambda: kept.extend([] for _ in range(2 * gc.get_threshold()[0])))
        worker.start()
        worker.join()
        assert gone() is not None  # the worker's allocations passed the threshold and freed nothing
        assert gc.get_count()[0] > gc.get_threshold()[0]
        assert collector.collect_due() > 0
        assert gone() is None
    finally:
        collector.stop()
    assert gc.isenabled() == was_enabled


def test_the_gui_collector_collects_nothing_while_collection_is_paused() -> None:
    """The core's import pauses collection (load_core); the GUI thread's collector used to call
    gc.collect through the pause, a full collection of the heap being built: 20-35 ms of a held window."""
    import gc

    from edgehost.ui._gc import GuiThreadCollector, collection_paused

    collector = GuiThreadCollector(interval_ms=60_000)  # the test calls it instead of the timer
    try:
        with collection_paused():
            cycles: list[list[object]] = []
            for _ in range(2 * gc.get_threshold()[0]):
                cycle: list[object] = []
                cycle.append(cycle)
                cycles.append(cycle)
            del cycles, cycle
            assert gc.get_count()[0] > gc.get_threshold()[0]
            assert collector.collect_due() == 0
        assert collector.collect_due() > 0  # due once the pause ends
    finally:
        collector.stop()
