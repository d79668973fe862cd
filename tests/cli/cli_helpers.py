"""Running edgehost commands as a person does: a pipe for stdin, or a tmux pane for a terminal."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from edgehost.slow_machine import scaled_wait

COMMAND_TIMEOUT_S = scaled_wait(
    180.0
)  # one command with up to two model rounds, on a machine shared with others
POLL_S = 0.2
EXIT_MARK = "[exited with"


def edgehost_command(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "edgehost", "--data-dir", str(home), *args]


def run_edgehost(
    home: Path, *args: str, stdin: str | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run one command to its end; stdin is a pipe with ``stdin`` (or empty), never a tty; ``env``: the
    whole environment (default this process's)."""
    return subprocess.run(
        edgehost_command(home, *args),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        env=env,
    )


class Terminal:
    """One command in a tmux pane of a private tmux server: keys in, screen text out."""

    def __init__(self, folder: Path) -> None:
        # A socket path must stay under ~100 characters; pytest's tmp_path can be longer.
        self._socket_dir = tempfile.mkdtemp(prefix="eh-tmux-")
        self._socket = str(Path(self._socket_dir) / "s")
        self._config = folder / "tmux.conf"
        # The pane stays after the command exits so its exit status can be read.
        self._config.write_text("set -g remain-on-exit on\nset -g history-limit 20000\n")

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", self._socket, "-f", str(self._config), *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return done.stdout

    def start(self, command: list[str]) -> None:
        # The shell prints the exit status where the screen shows it (tmux's pane_dead_status can
        # stay empty for a pane whose process it has not reaped yet).
        shell = f'{shlex.join(command)}; echo "{EXIT_MARK} $?]"'
        self._tmux("new-session", "-d", "-s", "t", "-x", "160", "-y", "50", shell)

    def type_line(self, text: str) -> None:
        self._tmux("send-keys", "-t", "t", "-l", text)
        self._tmux("send-keys", "-t", "t", "Enter")

    def press(self, key: str) -> None:
        self._tmux("send-keys", "-t", "t", key)

    def screen(self) -> str:
        """Everything the pane showed (scrollback included), wrapped lines joined."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t")

    def exit_status(self) -> int | None:
        """The command's exit status once it ended, else None."""
        found = re.search(rf"^{re.escape(EXIT_MARK)} (\d+)\]$", self.screen(), re.MULTILINE)
        return int(found.group(1)) if found else None

    def wait_for(
        self, predicate: Callable[[str], bool], what: str, timeout: float = COMMAND_TIMEOUT_S
    ) -> str:
        """Poll the screen until ``predicate(screen)``; fails with the screen after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if predicate(text):
                return text
            if time.monotonic() > deadline:
                pytest.fail(f"waited {timeout:g} s for {what}; the screen:\n{text}")
            if self.exit_status() is not None and not predicate(text := self.screen()):
                pytest.fail(f"the command ended (status {self.exit_status()}) before {what}:\n{text}")
            time.sleep(POLL_S)

    def wait_for_text(self, needle: str, timeout: float = COMMAND_TIMEOUT_S, *, count: int = 1) -> str:
        return self.wait_for(lambda s: s.count(needle) >= count, repr(needle), timeout)

    def prompts(self) -> int:
        """How many `> ` input prompts the screen has shown (answered or waiting)."""
        return len(re.findall(r"^>(?: |$)", self.screen(), re.MULTILINE))

    def command(self, line: str, timeout: float = COMMAND_TIMEOUT_S) -> str:
        """Type one chat line and wait until the chat asks for the next one; the screen then."""
        before = self.prompts()
        self.type_line(line)
        return self.wait_for(
            lambda s: len(re.findall(r"^>(?: |$)", s, re.MULTILINE)) > before and s.rstrip().endswith(">"),
            f"the prompt after {line!r}",
            timeout,
        )

    def wait_exit(self, timeout: float = 60.0) -> int:
        deadline = time.monotonic() + timeout
        while (status := self.exit_status()) is None:
            if time.monotonic() > deadline:
                pytest.fail(f"the command did not end within {timeout:g} s:\n{self.screen()}")
            time.sleep(POLL_S)
        return status

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self._socket, "kill-server"], capture_output=True, timeout=30)
        shutil.rmtree(self._socket_dir, ignore_errors=True)
