"""Issue 32, board screens: on a 7-inch panel (800×480, 1024×600) and on HDMI at 1280×720 every window,
panel and dialog fits the screen with its buttons in reach, the status bar keeps the model's state and
the composer's hint is not clipped.

Each screen size is a real screen of Qt's offscreen platform (its configfile's "screens"), in a process
of its own (a process has one QApplication, made for one screen): tests/ui/board_screen_check.py opens
everything there and reports what does not fit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QDialog
from tests.ui.board_screen_check import LONG_MODEL, MARKER

from edgehost.slow_machine import scaled_wait
from edgehost.ui._screen import DECORATIONS, fits_screen
from edgehost.ui._widgets import Part, fit_parts
from edgehost.ui.composer import PLACEHOLDERS

REPO = Path(__file__).resolve().parents[2]
SCREENS = [(800, 480), (1024, 600), (1280, 720)]
WINDOWS = {
    "main",
    "servers",
    "tools",
    "history",
    "models",
    "settings",
    "server-form",
    "registry",
    "bundle",
    "approval",
    "elicitation",
    "sampling",
    "tool-picker",
    "quick-ask",
}
CHECK_S = scaled_wait(
    180.0
)  # one process: the app, its two built-in servers and fourteen windows (~4 s unloaded)


@pytest.fixture(scope="module", params=SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def screen(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The report of board_screen_check.py run on one screen of this size."""
    width, height = request.param
    config = tmp_path_factory.mktemp("screen") / "screens.json"
    config.write_text(
        json.dumps(
            {
                "windowFrameMargins": True,  # a frame around each window, as a window manager draws
                "screens": [
                    {"name": "board", "x": 0, "y": 0, "width": width, "height": height, "logicalDpi": 96}
                ],
            }
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "tests.ui.board_screen_check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"},
        timeout=CHECK_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARKER)]
    assert lines, done.stdout[-2000:] + done.stderr[-2000:]
    report: dict[str, Any] = json.loads(lines[-1].removeprefix(MARKER))
    assert report["available"] == [width, height], "the screen configuration was not used"
    return report


def test_every_window_panel_and_dialog_fits_the_screen_with_its_buttons_in_reach(
    screen: dict[str, Any],
) -> None:
    windows = screen["windows"]
    assert set(windows) == WINDOWS
    assert {name: found for name, found in windows.items() if found} == {}


def test_the_main_window_shrinks_to_a_7_inch_screen_with_room_for_a_title_bar_and_a_taskbar(
    screen: dict[str, Any],
) -> None:
    width, height = screen["main_minimum"]
    assert width + DECORATIONS.width() <= 800
    assert height + DECORATIONS.height() <= 480 - 40  # 40: a taskbar


def test_the_status_bar_elides_a_long_model_name_and_keeps_the_models_state(screen: dict[str, Any]) -> None:
    shown = screen["status_text"]
    assert shown.startswith("● Qwen2.5") and " · ready" in shown
    assert LONG_MODEL not in shown and "…" in shown  # too long for any of these screens' bars
    assert screen["status_fits"]
    assert LONG_MODEL in screen["status_tooltip"]


def test_the_composers_hint_is_never_clipped(screen: dict[str, Any]) -> None:
    assert screen["placeholder"] in PLACEHOLDERS
    assert screen["placeholder_fits"]
    if screen["available"][0] >= 1024:
        assert screen["placeholder"] == PLACEHOLDERS[0]


def test_the_tool_picker_shows_several_tools_at_once(screen: dict[str, Any]) -> None:
    assert screen["tool_picker_rows"] >= 3


def _metrics() -> QFontMetrics:
    return QFontMetrics(QFont("DejaVu Sans", 10))


READY = [
    Part("● "),
    Part("Qwen2.5-1.5B-Instruct-Q4_K_M", Qt.TextElideMode.ElideMiddle),
    Part(" · ready"),
    Part(" · RKLLM on the NPU", Qt.TextElideMode.ElideRight, " · NPU"),
]


def test_a_line_with_room_is_shown_whole(qapp: Any) -> None:
    assert fit_parts(_metrics(), 10_000, READY) == "● Qwen2.5-1.5B-Instruct-Q4_K_M · ready · RKLLM on the NPU"


def test_a_short_line_says_where_the_model_runs_in_short_before_its_name_is_cut(qapp: Any) -> None:
    metrics = _metrics()
    short = "● Qwen2.5-1.5B-Instruct-Q4_K_M · ready · NPU"
    assert fit_parts(metrics, metrics.horizontalAdvance(short), READY) == short
    narrower = fit_parts(metrics, metrics.horizontalAdvance(short) - 30, READY)
    assert narrower.startswith("● Qwen") and "…" in narrower and narrower.endswith("_M · ready · NPU")


def test_no_width_cuts_the_models_state(qapp: Any) -> None:
    for width in (0, 40, 120):
        line = fit_parts(_metrics(), width, READY)
        assert line.startswith("● ") and " · ready" in line


def test_a_window_asking_for_more_than_its_screen_opens_at_the_screens_size_less_a_title_bar(
    qtbot: Any,
) -> None:
    window = QDialog()
    qtbot.addWidget(window)
    fits_screen(window, QSize(5000, 5000))
    window.show()
    qtbot.waitUntil(window.isVisible)
    available = window.screen().availableGeometry()
    assert window.size() == available.size() - DECORATIONS


def test_a_maximized_window_shown_again_is_still_maximized(qtbot: Any) -> None:
    window = QDialog()
    qtbot.addWidget(window)
    fits_screen(window, QSize(5000, 5000))
    window.showMaximized()
    qtbot.waitUntil(window.isMaximized)
    window.hide()
    window.show()
    assert window.isMaximized()
