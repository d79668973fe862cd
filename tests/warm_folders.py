"""Data folders that have answered once before: what a person's has after the first question.

A fresh data folder's first turn prefills the whole system prompt (~800 tokens: seconds alone, tens of
seconds beside the suite's other workers) and quantises the embedding model; every turn after it reads
both from ``<data>/cache``. Tests that are not about the first question start from a copy of such a
cache, made once per run by a real ``ask`` (the first test process to need it makes it, the others wait
for it); the tests of a fresh folder's first question (tests/host/test_prompt_warm_up.py,
tests/llm/test_prompt_cache.py) make their own folders.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from edgehost.slow_machine import scaled_wait

FIRST_ANSWER_S = round(scaled_wait(600))  # a loaded CI machine, the model read from a cold page cache


def warm_cache(
    tmp_path_factory: pytest.TempPathFactory, worker_id: str, name: str, settings: dict[str, Any]
) -> Path:
    """The ``cache`` folder of a data folder with ``settings`` that has answered "Hello!", shared by the
    run's test processes under ``name``. Skips when the default model is not installed."""
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
    folder = run_folder / name
    with (run_folder / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (folder / "made").exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a process that failed midway left
            folder.mkdir()
            if settings:
                (folder / "settings.json").write_text(json.dumps(settings))
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "edgehost",
                    "--data-dir",
                    str(folder),
                    "ask",
                    "Hello!",
                    "--max-tokens",
                    "1",
                ],
                capture_output=True,
                text=True,
                timeout=FIRST_ANSWER_S,
            )
            assert done.returncode == 0, done.stderr
            (folder / "made").touch()
    cache = folder / "cache"
    assert any((cache / "prompts").iterdir()), "the first answer left no prompt cache"
    return cache
