"""The app's own event loop (run_app's): child processes, as the MCP servers are, are spawned and reaped."""

from __future__ import annotations

import asyncio
import sys

from PySide6.QtWidgets import QApplication

from edgehost.ui.app import event_loop

EXIT_WAIT_S = 30.0  # a Python child starting on a loaded 2-core machine


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
