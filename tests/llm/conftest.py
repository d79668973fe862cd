"""Fixtures for the llm tests: the embedded default model, workers, the llama.cpp OpenAI server."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from llm_helpers import free_port
from tests.support import stop_process

from edgehost.llm.worker_backend import WorkerBackend
from edgehost.slow_machine import scaled_wait

ENGINES = Path(__file__).resolve().parent / "engines"
# Bound on every wait for the model: generous for a loaded 2-core machine, never hit when healthy.
MODEL_WAIT_S = scaled_wait(120.0)


@pytest.fixture
async def llama_backend(model_path: Path, tmp_path: Path) -> AsyncIterator[WorkerBackend]:
    backend = WorkerBackend(
        "llamacpp", {"model_path": str(model_path), "n_ctx": 2048, "threads": 1, "seed": 7}, log_dir=tmp_path
    )
    await backend.load()
    yield backend
    await backend.close()


@pytest.fixture
def test_engines_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lets worker processes import the test engines in tests/llm/engines."""
    existing = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(ENGINES), existing) if p))


@pytest.fixture(scope="module")
def llama_server(model_path: Path) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server on the default model; yields its /v1 URL."""
    if importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python[server] is not installed")
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model_path),
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--n_threads",
            "1",
            "--verbose",
            "false",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    ready = threading.Event()
    log: list[str] = []

    def watch() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line)
            if "Uvicorn running on" in line:
                ready.set()
        ready.set()  # exited: let the fixture fail with the log instead of waiting

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        if not ready.wait(MODEL_WAIT_S) or process.poll() is not None:
            pytest.fail("llama_cpp.server did not start:\n" + "".join(log[-20:]))
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop_process(process)
        watcher.join(10)  # the pipe is at its end once the server exited
        if process.stderr is not None:
            process.stderr.close()
