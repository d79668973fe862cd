"""Can Qt open a window here? The system libraries Qt's xcb (X11) plugin needs and board images often
lack (libxcb-cursor0 and friends), named as the Debian packages that provide them.

Qt itself only says "Could not load the Qt platform plugin "xcb"" and aborts; ``doctor`` reports the
missing packages, and the desktop app prints them when Qt fails that way. Nothing here imports Qt (the
plugin is found on disk and read with ``ldd``), so doctor stays fast and works without a display.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GuiPlatform", "check_gui_platform", "debian_package", "install_hint", "missing_libraries"]

LDD_TIMEOUT_S = 10.0
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)
_SONAME = re.compile(r"^(?P<name>.+?)\.so\.(?P<version>[\d.]+)$")


@dataclass(frozen=True)
class GuiPlatform:
    platform: str  # what Qt will use: "xcb", "wayland", "offscreen" ...
    display: str | None  # $DISPLAY or $WAYLAND_DISPLAY, None when there is no screen to open on
    missing: tuple[str, ...] = ()  # libraries (sonames) the xcb plugin cannot find
    checked: bool = True  # False when the plugin or ldd was not there to check

    @property
    def packages(self) -> list[str]:
        return list(dict.fromkeys(debian_package(soname) for soname in self.missing))


def debian_package(soname: str) -> str:
    """The Debian package a shared library comes in, by Debian's library-naming policy:
    libxcb-cursor.so.0 -> libxcb-cursor0, libxkbcommon-x11.so.0 -> libxkbcommon-x11-0."""
    found = _SONAME.match(soname)
    if found is None:
        return soname
    name, version = found["name"].lower(), found["version"].split(".")[0]
    return f"{name}{'-' if name[-1].isdigit() else ''}{version}"


def install_hint(packages: list[str]) -> str:
    return f"sudo apt install {' '.join(packages)}"


def _platform_name() -> str:
    chosen = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0].split(";")[0].strip()
    if chosen:
        return chosen
    return "wayland" if os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("DISPLAY") else "xcb"


def _xcb_plugin_files() -> list[Path]:
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return []
    qt = Path(next(iter(spec.submodule_search_locations))) / "Qt"
    candidates = [qt / "plugins" / "platforms" / "libqxcb.so", *sorted((qt / "lib").glob("libQt6XcbQpa.so*"))]
    return [path for path in candidates if path.is_file()][:2]


def _loader_environment() -> dict[str, str]:
    """The environment for ldd: in a PyInstaller bundle, the library path this process was started with
    (the bundle's folder first: it carries libxcb-cursor and friends), which the bundle's entry point
    takes back from child processes; elsewhere, this process's own."""
    environ = dict(os.environ)
    bundle = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundle:
        environ["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, (bundle, environ.get("LD_LIBRARY_PATH"))))
    return environ


def missing_libraries(files: list[Path]) -> tuple[str, ...] | None:
    """The shared libraries ``files`` need that the system lacks (sonames), None if ldd cannot tell."""
    ldd = shutil.which("ldd")
    if not files or ldd is None:
        return None
    try:
        listed = subprocess.run(
            [ldd, *map(str, files)],
            capture_output=True,
            text=True,
            timeout=LDD_TIMEOUT_S,
            check=False,
            env=_loader_environment(),
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    return tuple(dict.fromkeys(_NOT_FOUND.findall(listed)))


def check_gui_platform() -> GuiPlatform:
    """What Qt will open its window on, and which libraries its xcb plugin lacks (X11 only)."""
    platform = _platform_name()
    display = os.environ.get("WAYLAND_DISPLAY" if platform == "wayland" else "DISPLAY") or None
    if platform != "xcb":
        return GuiPlatform(platform, display)
    missing = missing_libraries(_xcb_plugin_files())
    return GuiPlatform(platform, display, missing or (), checked=missing is not None)
