"""The terminal commands as a person runs them: real subprocesses, the real default model, tmux for a tty.

Two settings keep these tests within about two minutes on a loaded 2-core machine, and change nothing
the tests look at: one inference thread (llama.cpp's threads wait on each other at every step; when
other processes hold the cores, a 2-thread prefill here ran up to 10 times slower than a 1-thread
one), and only the tools the tests use enabled (a smaller tools section to prefill each turn).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import Terminal

OTHER_BUILTIN_TOOLS = [
    "board__board_info",
    "board__cpu_status",
    "board__temperatures",
    "board__memory_usage",
    "board__disk_usage",
    "board__npu_status",
    "files__write_file",
    "files__edit_file",
    "files__move_file",
    "files__search_files",
    "files__make_directory",
]


@pytest.fixture
def home(data_dir: Path, model_path: Path) -> Path:
    """A --data-dir with settings for the default model on this machine and a file to protect."""
    settings = {"threads": 1, "disabled_tools": OTHER_BUILTIN_TOOLS}
    (data_dir / "settings.json").write_text(json.dumps(settings))
    (data_dir / "files").mkdir()
    (data_dir / "files" / "notes.txt").write_text("keep me")
    return data_dir


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (apt-get install tmux)")
    term = Terminal(tmp_path)
    yield term
    term.close()
