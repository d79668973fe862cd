"""Where the program a server runs is found: on the PATH, then among the programs EdgeHost brings with it
(``uv`` and ``uvx``, from the uv package, next to this Python's own scripts), then among the runtimes
installed into the data folder (``<data>/runtimes/NAME/bin``: Node, edgehost.mcp.node_runtime).

A board image has Python and rarely uv or Node.js: servers published on PyPI (``uvx NAME==VERSION``)
then run with nothing installed by hand. One search for the three who ask: the server's start
(``stdio_environment``), its check before a start (``ServerConfig.missing_program``), and the
registry's "can this machine run it now" (``edgehost.registry.install``).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from pathlib import Path

__all__ = ["UV_FOLDER", "bundled_dirs", "find_program", "runtimes_folder", "search_path", "use_runtimes_of"]

# The data folder whose installed runtimes servers find: one per process, set where the Paths are known
# (the CLI's entry point, the Host); None until then.
_data_dir: Path | None = None


def runtimes_folder(data_dir: Path) -> Path:
    return data_dir / "runtimes"


def use_runtimes_of(data_dir: Path) -> None:
    """From now on, servers find the runtimes installed into ``data_dir``."""
    global _data_dir
    _data_dir = data_dir


def _installed_dirs() -> list[str]:
    if _data_dir is None:
        return []
    folder = runtimes_folder(_data_dir)
    if not folder.is_dir():
        return []
    # A runtime being installed (NAME.partial) is not one yet.
    return sorted(
        str(b) for b in folder.glob("*/bin") if b.is_dir() and not b.parent.name.endswith(".partial")
    )


# Where the PyInstaller bundle keeps uv and uvx, under its _internal folder (packaging/edgehost.spec).
UV_FOLDER = "uv-bin"


@functools.cache
def bundled_dirs() -> tuple[str, ...]:
    """The folders of the programs EdgeHost brings (the uv package's binary); () when it is missing."""
    if getattr(sys, "frozen", False):
        folder = Path(getattr(sys, "_MEIPASS", "")) / UV_FOLDER
        return (str(folder),) if (folder / "uv").is_file() else ()
    try:
        from uv import find_uv_bin
    except ImportError:
        return ()
    try:
        return (os.path.dirname(find_uv_bin()),)
    except FileNotFoundError:
        return ()


def search_path(path: str | None = None) -> str:
    """``path`` (default this process's PATH) with EdgeHost's own program folders after it."""
    path = os.environ.get("PATH", os.defpath) if path is None else path
    present = path.split(os.pathsep)
    extra = [folder for folder in (*bundled_dirs(), *_installed_dirs()) if folder not in present]
    return os.pathsep.join([path, *extra]) if extra and path else os.pathsep.join(extra) or path


def find_program(command: str, path: str | None = None) -> str | None:
    """Where ``command`` (a name, or a path with a folder) resolves when a server is started with
    ``path`` as its PATH (default this process's), EdgeHost's own programs included; None if nowhere."""
    command = os.path.expanduser(command)
    if os.sep in command:
        return command if os.path.isfile(command) and os.access(command, os.X_OK) else None
    return shutil.which(command, path=search_path(path))
