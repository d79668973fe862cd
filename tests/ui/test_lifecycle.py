"""Quitting: closing the window without a tray quits; SIGTERM quits cleanly; servers are stopped."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from tests.ui.conftest import STEP_S, opened_desktop, wait_until

from edgehost.host.options import HostOptions
from edgehost.llm.scripted import ScriptedBackend
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.ui.app import Desktop, quit_on_signals
from edgehost.ui.main_window import MainWindow


def _stopped(desktop: Any) -> bool:
    return all(
        getattr(s.status, "value", s.status) in ("stopped", "disabled") for s in desktop.host.server_states()
    )


def test_sigterm_quits_the_app_and_stops_its_servers(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        # The app's own run(), not the test fixture: what is asserted is what the app did on SIGTERM,
        # before any cleanup of the test's.
        desktop = Desktop(
            Paths.resolve(None, data_dir),
            Settings(close_to_tray=False),
            HostOptions(backend=ScriptedBackend()),
        )
        app = asyncio.create_task(desktop.run())
        try:
            with quit_on_signals(desktop.quit):
                await wait_until(lambda: desktop.host.started)
                states = await desktop.host.wait_servers_ready(STEP_S)
                assert any(getattr(s.status, "value", s.status) == "ready" for s in states)
                os.kill(os.getpid(), signal.SIGTERM)
                assert await asyncio.wait_for(app, STEP_S) == 0
            assert _stopped(desktop)
        finally:
            if not app.done():
                app.cancel()
                await desktop.aclose()

    run(scenario())


def test_closing_the_window_without_a_tray_quits(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            desktop.window.can_hide_to_tray = lambda: False
            desktop.window.close()
            await asyncio.wait_for(desktop.until_quit(), STEP_S)

    run(scenario())


def test_closing_the_window_with_a_tray_keeps_the_app_running(data_dir: Path, run: Any) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            desktop.window.settings.close_to_tray = True
            desktop.window.can_hide_to_tray = lambda: True
            desktop.window.close()
            assert not desktop.window.isVisible() and not desktop._quit.is_set()
            desktop.tray.show_requested.emit()
            assert desktop.window.isVisible()

    run(scenario())


def test_closing_the_window_while_the_core_still_loads_quits_once_it_has_loaded(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        settings = Settings(close_to_tray=False)
        window = MainWindow(settings)  # as run_app does: the window before the host exists
        window.show_window()
        window.close()
        desktop = Desktop(
            Paths.resolve(None, data_dir), settings, HostOptions(backend=ScriptedBackend()), window=window
        )
        try:
            await asyncio.wait_for(desktop.until_quit(), STEP_S)
        finally:
            await desktop.aclose()

    run(scenario())


def test_a_start_that_fails_says_why_in_the_chat_and_the_status_bar_no_longer_says_loading(
    data_dir: Path, run: Any
) -> None:
    async def scenario() -> None:
        desktop = Desktop(
            Paths.resolve(None, data_dir),
            Settings(close_to_tray=False),
            HostOptions(backend=ScriptedBackend()),
            profile_override="no-such-board",  # --profile: an unknown name stops the start
        )
        app = asyncio.create_task(desktop.run())
        try:
            await wait_until(lambda: desktop.start_error is not None)
            assert "unknown board profile 'no-such-board'" in desktop.start_error
            label = desktop.window.status.model_label
            assert label.text().startswith("✕ Model not started: unknown board"), label.text()
            assert "unknown board profile 'no-such-board'" in label.toolTip()  # the line, cut to the bar
        finally:
            desktop.quit()
            await asyncio.wait_for(app, STEP_S)

    run(scenario())


def test_a_profile_the_settings_name_that_does_not_exist_is_said_in_the_window_and_the_detected_one_used(
    data_dir: Path, run: Any
) -> None:
    from PySide6.QtWidgets import QLabel

    (data_dir / "settings.json").write_text('{\n  "profile": "rock5b"\n}\n')
    settings = Settings.load(data_dir / "settings.json")

    async def scenario() -> None:
        desktop = Desktop(Paths.resolve(None, data_dir), settings, HostOptions(backend=ScriptedBackend()))
        app = asyncio.create_task(desktop.run())
        try:

            def shown() -> list[str]:
                return [label.text() for label in desktop.window.chat.findChildren(QLabel)]

            # The notice comes once host.start() has returned, which is after `started` is set.
            await wait_until(lambda: desktop.host.started and any("rock5b" in text for text in shown()))
            assert desktop.start_error is None and desktop.host.profile.name != "rock-5b"
            [notice] = [text for text in shown() if "rock5b" in text]
            assert notice.startswith(f"⚠ {data_dir / 'settings.json'}:2: unknown board profile 'rock5b'")
            assert "(did you mean 'rock-5b'?)" in notice and "To fix it: set 'profile' to 'rock-5b'" in notice
        finally:
            desktop.quit()
            await asyncio.wait_for(app, STEP_S)

    run(scenario())
