"""The terminal commands as a person runs them: real subprocesses, the real default model, tmux for a tty.

Three things keep these tests within about two minutes on a loaded 2-core machine, and change nothing
the tests look at: one inference thread (llama.cpp's threads wait on each other at every step; when
other processes hold the cores, a 2-thread prefill here ran up to 10 times slower than a 1-thread
one), only the tools the tests use enabled (a smaller tools section to prefill each turn), and a data
folder that has answered once before (`warm_cache`): what a person's has after the first question.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import Terminal
from tests import warm_folders

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


SETTINGS = {"threads": 1, "disabled_tools": OTHER_BUILTIN_TOOLS}


@pytest.fixture(scope="session")
def warm_cache(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The cache folder of a data folder with SETTINGS that has answered one question
    (tests/warm_folders.py): the KV state of the system prompt, the embedding model's int8 copy and the
    tool vectors. Each `home` starts from a copy."""
    return warm_folders.warm_cache(tmp_path_factory, worker_id, "warm-home", SETTINGS)


@pytest.fixture
def home(data_dir: Path, model_path: Path, warm_cache: Path) -> Path:
    """A --data-dir with settings for the default model on this machine, the cache of one answer before
    and a file to protect."""
    (data_dir / "settings.json").write_text(json.dumps(SETTINGS))
    shutil.copytree(warm_cache, data_dir / "cache")
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
