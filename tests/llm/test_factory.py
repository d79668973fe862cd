"""Choosing the backend: the board profile's order, skipping what cannot run here and saying why."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgehost.boards import BoardProfile
from edgehost.llm.base import BackendError
from edgehost.llm.factory import check_backends, create_backend, engine_config
from edgehost.llm.worker_backend import WorkerBackend
from edgehost.paths import Paths
from edgehost.settings import OpenAISettings, Settings

ORANGE_PI_5 = BoardProfile(
    name="orangepi-5",
    display_name="Orange Pi 5",
    npu_cores=3,
    backend_order=["rkllm", "llamacpp", "openai"],
    threads=4,
    affinity=[4, 5, 6, 7],
    context_length=4096,
    rkllm_cpu_mask=0xF0,
    rkllm_cpu_count=4,
)
NOWHERE = OpenAISettings(base_url="http://127.0.0.1:9/v1")


def test_without_an_npu_the_profile_order_falls_back_to_llama_cpp_and_says_why(
    model_path: Path, data_dir: Path
) -> None:
    backend, skipped = create_backend(Settings(), ORANGE_PI_5, Paths.resolve(None, data_dir))
    assert isinstance(backend, WorkerBackend)
    assert backend.capabilities.backend == "llamacpp"
    assert list(skipped) == ["rkllm"] and skipped["rkllm"]


def test_the_engine_config_comes_from_the_profile_and_settings(model_path: Path) -> None:
    config = engine_config("llamacpp", Settings(context_length=2048), ORANGE_PI_5)
    assert config == {
        "model_path": str(model_path),
        "n_ctx": 2048,
        "threads": 4,
        "affinity": [4, 5, 6, 7],
        "repeat_penalty": 1.1,
        "repeat_last_n": 64,
        "frequency_penalty": 0.0,
        "presence_penalty": 0.0,
    }
    rkllm = engine_config("rkllm", Settings(model="/m/q.rkllm", rkllm_lib="/l.so"), ORANGE_PI_5)
    assert (rkllm["model_path"], rkllm["cpu_mask"], rkllm["cpu_count"], rkllm["rkllm_lib"]) == (
        "/m/q.rkllm",
        0xF0,
        4,
        "/l.so",
    )


def test_a_chosen_backend_that_cannot_run_is_an_error_with_the_reason(data_dir: Path) -> None:
    with pytest.raises(BackendError, match="openai backend is not available: no OpenAI-compatible server"):
        create_backend(Settings(openai=NOWHERE), None, Paths.resolve(None, data_dir), backend="openai")


def test_a_missing_model_file_makes_llama_cpp_unavailable(data_dir: Path) -> None:
    settings = Settings(model=str(data_dir / "missing.gguf"), openai=NOWHERE)
    report = check_backends(settings, ORANGE_PI_5, Paths.resolve(None, data_dir))
    assert not report["llamacpp"].available and "missing.gguf" in report["llamacpp"].reason
    assert not report["openai"].available
    with pytest.raises(BackendError, match="no backend can run here"):
        create_backend(settings, ORANGE_PI_5, Paths.resolve(None, data_dir))


def test_an_unknown_backend_name_is_refused(data_dir: Path) -> None:
    with pytest.raises(BackendError, match="unknown backend"):
        create_backend(Settings(), None, Paths.resolve(None, data_dir), backend="tensorflow")
