"""Where EdgeHost keeps its files: platformdirs folders, overridden by --config / --data-dir."""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from edgehost import APP_NAME

SERVER_CONFIG_NAMES = ("servers.json", "servers.toml")
# A folder standing in for / when the board is read (a fake device tree for tests and demos): board
# detection and the built-in board server both read it.
SYSFS_ROOT_ENV = "EDGEHOST_SYSFS_ROOT"


@dataclass(frozen=True)
class Paths:
    """Every folder and file EdgeHost reads or writes.

    ``--data-dir DIR`` moves *all* state (settings, servers config, history, models, logs) into DIR,
    which is what tests and portable installs want.
    """

    config_dir: Path
    data_dir: Path
    log_dir: Path
    explicit_config: Path | None = None

    @classmethod
    def resolve(
        cls, config: str | os.PathLike[str] | None = None, data_dir: str | os.PathLike[str] | None = None
    ) -> Paths:
        data_dir = data_dir or os.environ.get("EDGEHOST_DATA_DIR")
        explicit = Path(config).expanduser().resolve() if config else None
        if data_dir:
            root = Path(data_dir).expanduser().resolve()
            return cls(config_dir=root, data_dir=root, log_dir=root / "logs", explicit_config=explicit)
        return cls(
            config_dir=Path(platformdirs.user_config_dir(APP_NAME)),
            data_dir=Path(platformdirs.user_data_dir(APP_NAME)),
            log_dir=Path(platformdirs.user_log_dir(APP_NAME)),
            explicit_config=explicit,
        )

    @property
    def servers_file(self) -> Path:
        """The servers config: --config, else servers.json / servers.toml in the config folder."""
        if self.explicit_config is not None:
            return self.explicit_config
        for name in SERVER_CONFIG_NAMES:
            candidate = self.config_dir / name
            if candidate.exists():
                return candidate
        return self.config_dir / SERVER_CONFIG_NAMES[0]

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def history_db(self) -> Path:
        return self.data_dir / "history.db"

    @property
    def models_dir(self) -> Path:
        return self.data_dir / "models"

    @property
    def files_root(self) -> Path:
        """Default root of the built-in `files` server."""
        return self.data_dir / "files"

    @property
    def cache_dir(self) -> Path:
        """What EdgeHost can make again: prompt caches, tool vectors, the registry's last answers."""
        return self.data_dir / "cache"

    @property
    def output_dir(self) -> Path:
        """Where images and blobs returned by tools are saved."""
        return self.data_dir / "outputs"

    def ensure(self) -> Paths:
        """Create the folders. New ones are private (0700): the history holds conversations and tool
        results; a folder that already exists keeps the permissions its owner gave it."""
        for folder in (self.config_dir, self.data_dir, self.log_dir):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        return self


def create_private(path: Path) -> None:
    """Create ``path`` empty and readable by its owner only (0600), unless it exists: a file EdgeHost
    makes for the user's own data (the history, the logs) is private whatever folder it is in.
    Raises OSError when it cannot be made."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


def shipped_dir(name: str) -> Path:
    """A folder shipped with EdgeHost: ``resources`` or ``board_profiles``.

    In a PyInstaller bundle it sits at the bundle's root; otherwise inside the package (in a source
    checkout ``src/edgehost/<name>`` is a link to the repository's top-level folder, and a wheel
    carries a copy). Raises FileNotFoundError naming where it looked when the folder is missing.
    """
    candidates = []
    bundle = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundle:
        candidates.append(Path(bundle) / name)
    candidates.append(Path(__file__).resolve().parent / name)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    raise FileNotFoundError(
        f"EdgeHost's {name} folder is missing (looked in {', '.join(map(str, candidates))})"
    )


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file renamed over it, keeping the file's mode.

    Raises OSError.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(temp, path.stat().st_mode & 0o777)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
