"""Desktop integration without Qt: where the bundled resources are, and the freedesktop menu entry,
icons and autostart entry that ``edgehost install-desktop`` writes into the user's XDG folders.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from edgehost.errors import EdgeHostError
from edgehost.paths import shipped_dir

__all__ = [
    "APP_ID",
    "ICON_SIZES",
    "INSTALL_MARKER",
    "DesktopInstall",
    "DesktopUninstall",
    "HIDDEN_OPTION",
    "XdgDirs",
    "desktop_exec_value",
    "install_desktop",
    "launch_command",
    "render_desktop_entry",
    "resources_dir",
    "uninstall_desktop",
]

# The desktop file id and icon name. The GUI passes it to QGuiApplication.setDesktopFileName (the Wayland
# app id); on X11 docks match the window by StartupWMClass, which is Qt's WM_CLASS class: the
# application name, "EdgeHost".
APP_ID = "edgehost"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
# Written into every .desktop file we install, so that --uninstall never deletes an entry it did not write.
INSTALL_MARKER = "X-EdgeHost-Installed-By"
_MARKER_LINE = f"{INSTALL_MARKER}=edgehost install-desktop"
# The global option that starts the app in the tray without its window: what a login start wants.
HIDDEN_OPTION = "--hidden"


def resources_dir() -> Path:
    """The folder holding icons, the .desktop template and prompts (see edgehost.paths.shipped_dir).

    Raises EdgeHostError when it is missing (a broken install).
    """
    try:
        return shipped_dir("resources")
    except FileNotFoundError as exc:
        raise EdgeHostError(str(exc)) from None


@dataclass(frozen=True)
class XdgDirs:
    """The user's XDG base folders (the parts desktop integration writes to)."""

    data_home: Path
    config_home: Path

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> XdgDirs:
        """Read XDG_DATA_HOME / XDG_CONFIG_HOME; unset, empty or relative values mean the defaults
        under $HOME, as the XDG Base Directory specification says."""
        env = os.environ if environ is None else environ
        home = Path(env.get("HOME") or Path.home())

        def pick(name: str, default: Path) -> Path:
            value = env.get(name, "")
            return Path(value) if value and os.path.isabs(value) else default

        return cls(
            data_home=pick("XDG_DATA_HOME", home / ".local" / "share"),
            config_home=pick("XDG_CONFIG_HOME", home / ".config"),
        )

    @property
    def menu_entry(self) -> Path:
        return self.data_home / "applications" / f"{APP_ID}.desktop"

    @property
    def autostart_entry(self) -> Path:
        return self.config_home / "autostart" / f"{APP_ID}.desktop"

    @property
    def icons_root(self) -> Path:
        return self.data_home / "icons" / "hicolor"

    def icon_files(self) -> dict[Path, str]:
        """Installed icon path -> file name of its source in resources/icons/."""
        files = {
            self.icons_root / f"{size}x{size}" / "apps" / f"{APP_ID}.png": f"{APP_ID}-{size}.png"
            for size in ICON_SIZES
        }
        files[self.icons_root / "scalable" / "apps" / f"{APP_ID}.svg"] = f"{APP_ID}.svg"
        return files


@dataclass(frozen=True)
class DesktopInstall:
    command: tuple[str, ...]
    written: tuple[Path, ...]


@dataclass(frozen=True)
class DesktopUninstall:
    removed: tuple[Path, ...]
    # .desktop files at our paths that another tool wrote (no marker): left in place.
    kept: tuple[Path, ...]


def launch_command() -> list[str]:
    """The absolute command that starts this EdgeHost: the bundle's executable when frozen, else the
    ``edgehost`` console script next to the interpreter or on PATH, else ``python -m edgehost``."""
    if getattr(sys, "frozen", False):
        return [os.path.abspath(sys.executable)]
    # Not resolved: a venv's bin/python is a symlink, and the console script sits beside the link.
    beside = Path(os.path.abspath(sys.executable)).parent / APP_ID
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which(APP_ID)
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), "-m", APP_ID]


# Characters that force quoting of an Exec argument (Desktop Entry spec, "The Exec key").
_EXEC_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def desktop_exec_value(command: Sequence[str]) -> str:
    """The value of an ``Exec=`` key that runs ``command``: each argument quoted where the Desktop Entry
    spec requires it, ``%`` doubled, and backslashes escaped for the string-value level."""
    parts = []
    for arg in command:
        arg = arg.replace("%", "%%")
        if arg and not (_EXEC_RESERVED & set(arg)):
            parts.append(arg)
            continue
        inner = "".join("\\" + ch if ch in '"`$\\' else ch for ch in arg)
        parts.append('"' + inner + '"')
    # The whole value is a desktop "string": its own escape level doubles every backslash once more.
    return " ".join(parts).replace("\\", "\\\\")


def render_desktop_entry(template: str, command: Sequence[str], *, autostart: bool = False) -> str:
    """The template with each ``Exec=edgehost …`` pointing at ``command``, a TryExec, and our marker.

    For autostart the desktop actions are dropped (they mean nothing there) and the app is started with
    ``--hidden``, in the tray.
    """
    exe = desktop_exec_value([*command, HIDDEN_OPTION] if autostart else command)
    dropped_keys = {"TryExec", INSTALL_MARKER} | ({"Actions"} if autostart else set())
    lines: list[str] = []
    group = ""
    for line in template.splitlines():
        if line.strip().startswith("["):
            group = line.strip()
        if autostart and group != "[Desktop Entry]":
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        if sep and key in dropped_keys:
            continue
        if sep and key == "Exec" and (value == APP_ID or value.startswith(APP_ID + " ")):
            line = f"Exec={exe}{value[len(APP_ID) :]}"
        lines.append(line)
        if group == "[Desktop Entry]" and sep and key == "Type":
            lines.append("TryExec=" + command[0].replace("\\", "\\\\"))
            lines.append(_MARKER_LINE)
            if autostart:
                lines.append("X-GNOME-Autostart-enabled=true")
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines) + "\n"


def install_desktop(
    xdg: XdgDirs,
    *,
    autostart: bool = False,
    command: Sequence[str] | None = None,
    resources: Path | None = None,
) -> DesktopInstall:
    """Write the menu entry and the hicolor icons (and the autostart entry when asked) for the user.

    Existing files at those paths are replaced. Raises EdgeHostError when a resource is missing and
    OSError when a folder cannot be written.
    """
    command = list(command or launch_command())
    resources = resources or resources_dir()
    template_file = resources / f"{APP_ID}.desktop"
    if not template_file.is_file():
        raise EdgeHostError(f"desktop entry template not found: {template_file}")
    template = template_file.read_text(encoding="utf-8")
    sources = {dest: resources / "icons" / name for dest, name in xdg.icon_files().items()}
    missing = [str(src) for src in sources.values() if not src.is_file()]
    if missing:
        raise EdgeHostError("icons not found: " + ", ".join(missing))

    written: list[Path] = []
    for dest, src in sources.items():
        _write_atomic(dest, src.read_bytes())
        written.append(dest)
    _write_atomic(xdg.menu_entry, render_desktop_entry(template, command).encode("utf-8"))
    written.append(xdg.menu_entry)
    if autostart:
        entry = render_desktop_entry(template, command, autostart=True)
        _write_atomic(xdg.autostart_entry, entry.encode("utf-8"))
        written.append(xdg.autostart_entry)
    return DesktopInstall(command=tuple(command), written=tuple(written))


def uninstall_desktop(xdg: XdgDirs) -> DesktopUninstall:
    """Remove what install_desktop writes: our icons, and the menu and autostart entries that carry our
    marker; then the icon folders this left empty. Raises OSError when a file cannot be removed."""
    removed: list[Path] = []
    kept: list[Path] = []
    for entry in (xdg.menu_entry, xdg.autostart_entry):
        if not entry.is_file():
            continue
        if _MARKER_LINE in entry.read_text(encoding="utf-8", errors="replace").splitlines():
            entry.unlink()
            removed.append(entry)
        else:
            kept.append(entry)
    for icon in xdg.icon_files():
        if icon.is_file():
            icon.unlink()
            removed.append(icon)
        _remove_empty_parents(icon.parent, up_to=xdg.icons_root)
    return DesktopUninstall(removed=tuple(removed), kept=tuple(kept))


def _remove_empty_parents(folder: Path, *, up_to: Path) -> None:
    """Remove ``folder`` and its parents, up to and including ``up_to``, while they are empty."""
    while folder == up_to or up_to in folder.parents:
        if folder.exists():
            try:
                folder.rmdir()
            except OSError:  # not empty: someone else's icons live there too
                return
        folder = folder.parent


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
