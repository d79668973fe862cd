"""`edgehost` paints its window before it imports the core: what is imported by the time the main
window's first frame is painted, in a real process started as a user starts the app (issue 12)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Prints the imported modules at the main window's first Paint event, then exits there.
WATCH = """
import os, sys
from PySide6 import QtWidgets
from PySide6.QtCore import QEvent, QObject
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            check = sys.modules["shibokensupport.feature"]._mod_uses_pyside
            print(" ".join(sorted(sys.modules)), "pyside-check=" + check.__module__, flush=True)
            os._exit(0)
        return False
watcher = FirstPaint()
class WatchedMainWindow(QtWidgets.QMainWindow):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.installEventFilter(watcher)
QtWidgets.QMainWindow = WatchedMainWindow
from edgehost.cli.main import main
sys.exit(main(["--data-dir", sys.argv[1]]))
"""
# Each is tens of milliseconds before the first frame; the window needs none of them.
NOT_BEFORE_THE_WINDOW = ("pydantic", "mcp", "numpy", "edgehost.host", "edgehost.cli.web_commands", "asyncio")


def test_the_windows_first_frame_is_painted_before_asyncio_the_core_and_the_mcp_sdk_are_imported(
    tmp_path: Path,
) -> None:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),  # no settings file: a first start
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    done = subprocess.run(
        [sys.executable, "-c", WATCH, str(tmp_path / "data")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    imported = set(done.stdout.split())
    assert "edgehost.ui.main_window" in imported
    # PySide's check of each module imported after it reads sources without keeping them (from the start).
    assert "pyside-check=edgehost.ui._pyside_imports" in imported
    early = sorted(
        m for m in imported if m.split(".")[0] in NOT_BEFORE_THE_WINDOW or m in NOT_BEFORE_THE_WINDOW
    )
    early += sorted(m for m in imported for prefix in NOT_BEFORE_THE_WINDOW if m.startswith(prefix + "."))
    assert early == [], f"imported before the first frame was painted: {sorted(set(early))}"
