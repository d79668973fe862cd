"""Where EdgeHost's log records go: a rotating file in the log folder, and the terminal for warnings.

Records are written as the code logging them made them: a message that can carry a secret is redacted
by its caller (``edgehost.redaction``) before it is logged. Third-party libraries reach the file and
the terminal only from WARNING up, so an HTTP library's request lines (URLs can carry tokens) stay out.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from edgehost.paths import Paths, create_private

__all__ = ["LOG_FILE_NAME", "LoggingSetup", "configure_logging", "open_child_log", "rotate_when_larger"]

LOG_FILE_NAME = "edgehost.log"
# A few weeks of everyday use; four files at most stay on a board's small eMMC.
MAX_BYTES = 1_000_000
BACKUP_COUNT = 3
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
STREAM_FORMAT = "edgehost: %(levelname)s %(name)s: %(message)s"
_OWN_LOGGERS = "edgehost"


class _OwnInfoOthersWarnings(logging.Filter):
    """EdgeHost's records from INFO up; other libraries' from WARNING up."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        return record.name == _OWN_LOGGERS or record.name.startswith(_OWN_LOGGERS + ".")


class LoggingSetup:
    """The handlers configure_logging added to the root logger; ``close()`` removes them again."""

    def __init__(self, handlers: list[logging.Handler], previous_level: int, file: Path | None) -> None:
        self.handlers = handlers
        self.file = file  # None when the log folder could not be made
        self._previous_level = previous_level

    def close(self) -> None:
        """Remove and close the handlers and restore the root logger's level. Raises nothing."""
        root = logging.getLogger()
        for handler in self.handlers:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(self._previous_level)


def configure_logging(paths: Paths, *, verbose: bool = False, stream: bool = True) -> LoggingSetup:
    """Send log records to ``paths.log_dir / "edgehost.log"`` (rotated past 1 MB, three old files kept)
    and, when ``stream``, WARNING and above (INFO and above when ``verbose``) to stderr.

    Call it once per process, before the command runs, and ``close()`` the result when it ends. A log
    folder that cannot be made leaves only the stderr handler (and says so there). Raises nothing.
    """
    root = logging.getLogger()
    previous_level = root.level
    handlers: list[logging.Handler] = []
    problem = ""
    log_file: Path | None = None
    try:
        paths.log_dir.mkdir(parents=True, exist_ok=True)
        # delay: a command that logs nothing does not touch the file.
        file_handler = _PrivateRotatingFileHandler(
            paths.log_dir / LOG_FILE_NAME,
            maxBytes=MAX_BYTES,
            backupCount=BACKUP_COUNT,
            encoding="utf-8",
            delay=True,
        )
    except OSError as exc:
        problem = f"cannot write logs to {paths.log_dir}: {exc}"
    else:
        log_file = paths.log_dir / LOG_FILE_NAME
        file_handler.setFormatter(logging.Formatter(FILE_FORMAT))
        file_handler.setLevel(logging.INFO)
        handlers.append(file_handler)
    if stream or problem:
        stream_handler = logging.StreamHandler(sys.stderr)
        stream_handler.setFormatter(logging.Formatter(STREAM_FORMAT))
        stream_handler.setLevel(logging.INFO if verbose else logging.WARNING)
        handlers.append(stream_handler)
    for handler in handlers:
        handler.addFilter(_OwnInfoOthersWarnings())
        root.addHandler(handler)
    if previous_level > logging.INFO:  # never raise it: a test harness may already want DEBUG
        root.setLevel(logging.INFO)
    setup = LoggingSetup(handlers, previous_level, log_file)
    if problem:
        logging.getLogger(__name__).warning("%s", problem)
    return setup


def rotate_when_larger(path: Path, max_bytes: int = MAX_BYTES) -> bool:
    """Move ``path`` to ``path.1`` (replacing an older one) when it is larger than ``max_bytes``, so a
    log that a child process appends to does not grow forever. True when it was moved.

    For files written by processes that reopen them at start (the model worker's stderr). Raises nothing:
    a file that cannot be moved is left where it is.
    """
    try:
        if path.stat().st_size <= max_bytes:
            return False
        os.replace(path, path.with_name(path.name + ".1"))
    except OSError:
        return False
    return True


def open_child_log(log_file: Path | None, max_bytes: int = MAX_BYTES) -> tuple[Any, int]:
    """A child process's stderr: ``log_file`` opened for appending (moved to ``.1`` first when larger than
    ``max_bytes``) and where this start's lines begin; ``subprocess.DEVNULL`` and 0 without a log file.
    The caller closes the file once the child has it. Raises OSError."""
    if log_file is None:
        return subprocess.DEVNULL, 0
    log_file.parent.mkdir(parents=True, exist_ok=True)
    rotate_when_larger(log_file, max_bytes)
    create_private(log_file)
    stderr = open(log_file, "ab")  # noqa: SIM115 - the caller closes it once the child inherited it
    return stderr, stderr.tell()


class _PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A log file only its owner reads (0600), the rotated ones too: it holds servers' output, tool
    names and paths."""

    def _open(self) -> Any:
        create_private(Path(self.baseFilename))
        return super()._open()
