"""Whether Qt can open a window: missing X11 libraries named as Debian packages, in doctor and in the
app's own failure (real shared libraries built with the C compiler, a real `edgehost` without a
display)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from edgehost.boards.gui_platform import debian_package, missing_libraries
from edgehost.slow_machine import scaled_wait

APP_TIMEOUT_S = round(scaled_wait(120))


def build_library_needing_a_gone_one(folder: Path) -> Path:
    """A shared library linked against libedgehost-gone.so.3, which is then deleted (as a board image
    without libxcb-cursor0 lacks what Qt's xcb plugin was linked against)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.fail("no C compiler: `make test` needs build-essential (llama-cpp-python needs it too)")
    gone = folder / "libedgehost-gone.so.3"
    (folder / "gone.c").write_text("int gone(void) { return 3; }\n")
    (folder / "plugin.c").write_text("int gone(void);\nint plugin(void) { return gone(); }\n")
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-Wl,-soname,libedgehost-gone.so.3", "-o", gone, folder / "gone.c"],
        check=True,
    )
    plugin = folder / "libplugin.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-o", plugin, folder / "plugin.c", gone, f"-Wl,-rpath,{folder}"],
        check=True,
    )
    assert missing_libraries([plugin]) == ()  # found while it is there
    gone.unlink()
    return plugin


def test_a_library_the_plugin_needs_and_the_system_lacks_is_named(tmp_path: Path) -> None:
    plugin = build_library_needing_a_gone_one(tmp_path)
    assert missing_libraries([plugin]) == ("libedgehost-gone.so.3",)


def test_libraries_are_named_by_the_debian_packages_that_ship_them() -> None:
    assert debian_package("libxcb-cursor.so.0") == "libxcb-cursor0"
    assert debian_package("libxcb-icccm.so.4") == "libxcb-icccm4"
    assert debian_package("libxkbcommon-x11.so.0") == "libxkbcommon-x11-0"  # a name ending in a digit
    assert debian_package("libEGL.so.1") == "libegl1"


def test_without_a_display_the_app_says_what_to_use_instead_of_only_qts_abort(data_dir: Path) -> None:
    env = {
        k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "EDGEHOST_OFFSCREEN")
    }
    env["QT_QPA_PLATFORM"] = "xcb"
    done = subprocess.run(
        [sys.executable, "-m", "edgehost", "--data-dir", str(data_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=APP_TIMEOUT_S,
        check=False,
    )
    assert done.returncode != 0
    assert 'Could not load the Qt platform plugin "xcb"' in done.stderr  # Qt's own words are kept
    assert "EdgeHost: there is no display to open the window on" in done.stderr
    assert "edgehost chat" in done.stderr


def test_doctor_names_the_packages_the_window_lacks(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_doctor import run_doctor_json

    from edgehost.boards import gui_platform

    plugin = build_library_needing_a_gone_one(tmp_path)  # stands in for Qt's libqxcb.so
    monkeypatch.setattr(gui_platform, "_xcb_plugin_files", lambda: [plugin])
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    report = run_doctor_json(data_dir, capsys)
    assert report["gui"]["missing_libraries"] == ["libedgehost-gone.so.3"]
    [problem] = [p for p in report["problems"] if "window" in p["problem"]]
    assert problem["hint"].startswith("sudo apt install libedgehost-gone3")


def test_in_the_bundle_a_library_it_carries_is_not_named_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bundle's entry point gives child processes (ldd too) the user's library path back, while
    # the app itself loads libxcb-cursor and friends from the bundle's folder.
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.fail("no C compiler: `make test` needs build-essential (llama-cpp-python needs it too)")
    bundle = tmp_path / "_internal"
    bundle.mkdir()
    carried = bundle / "libedgehost-carried.so.1"
    (tmp_path / "carried.c").write_text("int carried(void) { return 1; }\n")
    (tmp_path / "plugin.c").write_text("int carried(void);\nint plugin(void) { return carried(); }\n")
    subprocess.run(
        [
            compiler,
            "-shared",
            "-fPIC",
            "-Wl,-soname,libedgehost-carried.so.1",
            "-o",
            carried,
            tmp_path / "carried.c",
        ],
        check=True,
    )
    plugin = tmp_path / "libplugin.so"  # no rpath: found only through the library path
    subprocess.run([compiler, "-shared", "-fPIC", "-o", plugin, tmp_path / "plugin.c", carried], check=True)
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    assert missing_libraries([plugin]) == ("libedgehost-carried.so.1",)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    assert missing_libraries([plugin]) == ()
