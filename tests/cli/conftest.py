"""The terminal commands as a person runs them: real subprocesses, the real default model, tmux for a tty.

Three things keep these tests within about two minutes on a loaded 2-core machine, and change nothing
the tests look at: one inference thread (llama.cpp's threads wait on each other at every step; when
other processes hold the cores, a 2-thread prefill here ran up to 10 times slower than a 1-thread
one), only the tools the tests use enabled (a smaller tools section to prefill each turn), and a data
folder that has answered once before (`warm_cache`): what a person's has after the first question.
"""

from __future__ import annotations

import fcntl
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import Terminal, run_edgehost

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
    """The cache folder of a data folder that has answered one question, made once per run by a real
    `ask` (the first test process to need it makes it, the others wait for it): the KV state of the
    system prompt (llm/prompt_cache.py), the embedding model's int8 copy and the tool vectors. Each
    `home` starts from a copy, so a test's first turn does not prefill the ~700-token system prompt
    again (a few seconds each, tens under load); the tests of a fresh folder's first question
    (tests/host/test_prompt_warm_up.py, tests/llm/test_prompt_cache.py) make their own folders."""
    from edgehost.errors import EdgeHostError
    from edgehost.llm.default_model import default_model_path

    try:
        default_model_path()
    except EdgeHostError as exc:
        pytest.skip(str(exc))
    # pytest-xdist's workers each have a base folder inside the run's own one, which they share.
    run_folder = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        run_folder = run_folder.parent
    folder = run_folder / "warm-home"
    with (run_folder / "warm-home.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (folder / "made").exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a process that failed midway left
            folder.mkdir()
            (folder / "settings.json").write_text(json.dumps(SETTINGS))
            done = run_edgehost(folder, "ask", "Hello!", "--max-tokens", "1")
            assert done.returncode == 0, done.stderr
            (folder / "made").touch()
    cache = folder / "cache"
    assert any((cache / "prompts").iterdir()), "the first answer left no prompt cache"
    return cache


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
