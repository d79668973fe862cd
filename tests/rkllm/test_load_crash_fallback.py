"""A runtime that dies while loading the model (the prebuilt RKLLM 1.3.0's SIGILL on some RK3588
boards, airockchip/rknn-llm issue 518): the host says what happened and what to do, and loads the
next backend of the board's order for this session. The stub runtime raises SIGILL in rkllm_init."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from fake_sysfs import build, rk3588_board

from edgehost.host import events as ev
from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.llm.base import BackendError
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.slow_machine import scaled_wait

LOAD_TIMEOUT_S = scaled_wait(120.0)


@pytest.fixture
def crashing_model(tmp_path: Path, model_file: Path) -> Path:
    path = tmp_path / "Qwen3-1.7B-SIGILL.rkllm"
    path.write_bytes(model_file.read_bytes())
    return path


async def load(tmp_path: Path, settings: Settings) -> list[Any]:
    """The model statuses of a host on an Orange Pi 5 Plus (a fake sysfs) as it loads the model."""
    host = Host(
        Paths.resolve(None, tmp_path / "data"),
        settings,
        HostOptions(with_servers=False),
        profile_override="orangepi-5-plus",
    )
    try:
        return await _statuses(host)
    finally:
        await host.aclose()


async def _statuses(host: Host) -> list[Any]:
    statuses: list[Any] = []
    host.subscribe(lambda e: statuses.append(e) if isinstance(e, ev.ModelStatusChanged) else None)
    await host.start()
    with contextlib.suppress(BackendError):
        await host.wait_model(LOAD_TIMEOUT_S)
    return statuses


async def test_a_sigill_at_load_names_the_cause_and_the_board_falls_back_to_llama_cpp(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stub_libraries: dict[str, Path],
    crashing_model: Path,
    model_path: Path,
) -> None:
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", rk3588_board())))
    settings = Settings(model=str(crashing_model), rkllm_lib=str(stub_libraries["1.3"]))
    statuses = await load(tmp_path, settings)
    assert [(s.status, s.backend) for s in statuses] == [
        ("loading", "rkllm"),
        ("loading", "llamacpp"),
        ("ready", "llamacpp"),
    ]
    ready = statuses[-1]
    assert (
        "RKLLM crashed while loading the model (the model process exited with signal 4 (SIGILL)"
        in ready.detail
    )
    assert "airockchip/rknn-llm issue 518" in ready.detail and "install the 1.2.3 runtime" in ready.detail
    assert ready.detail.endswith("Using llamacpp for this session.")
    assert ready.model == model_path.stem  # the embedded model: a .rkllm file is not llama.cpp's


async def test_a_backend_the_user_chose_is_not_replaced_when_it_crashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stub_libraries: dict[str, Path], crashing_model: Path
) -> None:
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", rk3588_board())))
    settings = Settings(backend="rkllm", model=str(crashing_model), rkllm_lib=str(stub_libraries["1.3"]))
    statuses = await load(tmp_path, settings)
    assert [(s.status, s.backend) for s in statuses] == [("loading", "rkllm"), ("failed", "rkllm")]
    assert "SIGILL" in statuses[-1].detail
