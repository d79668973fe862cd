"""Time from process start to the main window's first painted frame (offscreen), against a bare
PySide6 window.

Both children create the QApplication, watch for the first Paint event of a main window (a filter on
each QMainWindow, installed as it is made), print and exit there; the EdgeHost child then runs the real
entry point (`edgehost --data-dir D`). Rounds alternate so machine noise hits both. Prints
``RESULT startup <edgehost / bare>`` (goal <= 1.5, bench/summary.py), ``RESULT startup_edgehost_ms`` and
``RESULT startup_bare_ms`` (medians); and the same against a bare window that uses one flag of Qt's
namespace (``RESULT startup_vs_qt_namespace``, ``RESULT startup_bare_with_qt_namespace_ms``): PySide
creates the whole namespace's enums on its first use, which the plain bare window never pays. Also
``RESULT startup_to_show_ms``: EdgeHost until its window's Show event (what this script measured before
stop 25; the first frame was painted ~30-40 ms after it, and no figure saw that).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CHILD_TIMEOUT_S = 120.0

# The watcher listens to main windows only: a filter on the whole application made every event of every
# widget a Python call (wrapping its receiver): ~25 ms more for EdgeHost's window, almost none for the bare.
# EVENT is replaced by the event that ends the child: Paint (the first frame) or Show.
WATCH = """
import os, sys
from PySide6 import QtWidgets
from PySide6.QtCore import QEvent, QObject
app = QtWidgets.QApplication([sys.argv[0]])
class FirstEvent(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.EVENT:
            sys.stdout.write("shown\\n"); sys.stdout.flush(); os._exit(0)
        return False
watcher = FirstEvent()
class WatchedMainWindow(QtWidgets.QMainWindow):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.installEventFilter(watcher)
QtWidgets.QMainWindow = WatchedMainWindow  # what `from PySide6.QtWidgets import QMainWindow` gives now
"""
FIRST_PAINT = WATCH.replace("EVENT", "Paint")
BARE = FIRST_PAINT + (
    "w = QtWidgets.QMainWindow(); w.setWindowTitle('bare'); w.resize(1180, 760); w.show(); app.exec()\n"
)
# The same bare window using one flag of Qt's namespace: the first `from PySide6.QtCore import Qt`
# makes PySide create all of the namespace's Python enums (94, ~16 ms), which any real window pays.
BARE_WITH_QT_NAMESPACE = FIRST_PAINT + (
    "from PySide6.QtCore import Qt\n"
    "w = QtWidgets.QMainWindow(); w.setWindowTitle('bare'); w.resize(1180, 760)\n"
    "w.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose); w.show(); app.exec()\n"
)
RUN_EDGEHOST = "from edgehost.cli.main import main; sys.exit(main(['--data-dir', sys.argv[1]]))\n"
EDGEHOST = FIRST_PAINT + RUN_EDGEHOST
EDGEHOST_TO_SHOW = WATCH.replace("EVENT", "Show") + RUN_EDGEHOST


def time_child(code: str, *args: str) -> float:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "QT_LOGGING_RULES": "qt.qpa.*=false"}
    # As installed: pip compiles the bytecode at install and the bundle ships it; an editable checkout
    # under PYTHONDONTWRITEBYTECODE would compile all of edgehost's modules at every start instead.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, env=env, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    elapsed = time.perf_counter() - started
    process.wait(CHILD_TIMEOUT_S)
    if line.strip() != "shown":
        raise SystemExit(f"startup: the child never showed its window (exit {process.returncode})")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    bare: list[float] = []
    bare_qt: list[float] = []
    edgehost: list[float] = []
    edgehost_shown: list[float] = []
    with tempfile.TemporaryDirectory(prefix="edgehost-startup-") as folder:
        time_child(EDGEHOST, folder)  # warm the file cache, write the bytecode, create the data folder
        for _ in range(args.rounds):
            bare.append(time_child(BARE))
            bare_qt.append(time_child(BARE_WITH_QT_NAMESPACE))
            edgehost.append(time_child(EDGEHOST, folder))
            edgehost_shown.append(time_child(EDGEHOST_TO_SHOW, folder))
    bare_ms = statistics.median(bare) * 1000
    edgehost_ms = statistics.median(edgehost) * 1000
    print(f"RESULT startup {edgehost_ms / bare_ms:.2f}")
    print(f"RESULT startup_edgehost_ms {edgehost_ms:.0f}")
    print(f"RESULT startup_bare_ms {bare_ms:.0f}")
    bare_qt_ms = statistics.median(bare_qt) * 1000
    print(f"RESULT startup_vs_qt_namespace {edgehost_ms / bare_qt_ms:.2f}")
    print(f"RESULT startup_bare_with_qt_namespace_ms {bare_qt_ms:.0f}")
    print(f"RESULT startup_to_show_ms {statistics.median(edgehost_shown) * 1000:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
