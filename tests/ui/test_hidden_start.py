"""`edgehost --hidden` (the login autostart): the app starts in the tray without its window; a later
start of EdgeHost shows the window; without a tray the window is shown anyway, and the log says why."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tests.ui.conftest import STEP_S

from edgehost.host.options import HostOptions
from edgehost.llm.scripted import ScriptedBackend
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.ui._instance import instance_name, send_to_running
from edgehost.ui.app import Desktop


@contextlib.asynccontextmanager
async def hidden_desktop(data_dir: Path, *, tray: bool) -> AsyncIterator[Desktop]:
    """The app started with --hidden, as the only instance for ``data_dir``; ``tray`` says whether the
    desktop has a system tray (the offscreen platform has none, so one is assumed for the test)."""
    paths = Paths.resolve(None, data_dir)
    desktop = Desktop(
        paths,
        Settings(close_to_tray=True),
        HostOptions(backend=ScriptedBackend([])),
        instance=instance_name(paths),
    )
    desktop.tray.available = tray
    try:
        await desktop.start(hidden=True)
        yield desktop
    finally:
        await desktop.aclose()


def test_a_hidden_start_shows_no_window_until_edgehost_is_started_again(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with hidden_desktop(data_dir, tray=True) as desktop:
            assert not desktop.window.isVisible() and not desktop.quick_ask.isVisible()
            assert desktop.instance is not None
            received = asyncio.Event()
            desktop.instance.message_received.connect(lambda _message: received.set())
            # What a second `edgehost` (the menu entry) does: it finds this instance and asks it to show.
            assert await asyncio.to_thread(send_to_running, desktop.instance.name, "show")
            await asyncio.wait_for(received.wait(), STEP_S)
            assert desktop.window.isVisible()

    run(scenario())


def test_a_hidden_start_without_a_tray_shows_the_window_and_logs_why(
    data_dir: Path, run: Any, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        async with hidden_desktop(data_dir, tray=False) as desktop:
            assert desktop.window.isVisible()

    with caplog.at_level(logging.WARNING, logger="edgehost.ui.app"):
        run(scenario())
    assert any("no system tray" in r.getMessage() for r in caplog.records)
