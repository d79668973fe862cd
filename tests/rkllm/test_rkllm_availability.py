"""availability(): whether RKLLM can run here, checked without loading the library."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_sysfs import build, rk3588_board, x86_pc
from rkllm_stub_runtime import build_stub

from edgehost.boards import load_profiles
from edgehost.llm.rkllm import availability
from edgehost.settings import Settings

PROFILE = next(p for p in load_profiles() if p.name == "orangepi-5-plus")


@pytest.fixture
def settings(stub_libraries: dict[str, Path], model_file: Path) -> Settings:
    return Settings(model=str(model_file), rkllm_lib=str(stub_libraries["1.3"]))


def test_available_with_npu_library_and_model(tmp_path: Path, settings: Settings) -> None:
    ok, reason = availability(settings, PROFILE, root=build(tmp_path / "root", rk3588_board()))
    assert ok, reason
    assert "1.3.0" in reason


def test_no_npu_says_so(tmp_path: Path, settings: Settings) -> None:
    x86 = next(p for p in load_profiles() if p.name == "generic-x86_64")
    ok, reason = availability(settings, x86, root=build(tmp_path / "root", x86_pc()))
    assert not ok and "no Rockchip NPU" in reason and "has no NPU" in reason


def test_missing_node_and_old_driver_are_reasons(tmp_path: Path, settings: Settings) -> None:
    ok, reason = availability(settings, PROFILE, root=build(tmp_path / "a", rk3588_board(npu_node=False)))
    assert not ok and "is missing" in reason
    ok, reason = availability(
        settings, PROFILE, root=build(tmp_path / "b", rk3588_board(npu_driver_version="0.9.3"))
    )
    assert not ok and "too old" in reason and "0.9.7" in reason


def test_library_problems_are_reasons(tmp_path: Path, settings: Settings) -> None:
    root = build(tmp_path / "root", rk3588_board())
    ok, reason = availability(settings, PROFILE, tmp_path / "nowhere.so", root=root)
    assert not ok and "does not exist" in reason
    old = build_stub(tmp_path / "old", "1.2", "1.0.1")
    ok, reason = availability(settings, PROFILE, old, root=root)
    assert not ok and "1.0.1 is not supported" in reason


def test_a_model_must_be_configured(tmp_path: Path, settings: Settings) -> None:
    root = build(tmp_path / "root", rk3588_board())
    settings.model = None
    ok, reason = availability(settings, PROFILE, root=root)
    assert not ok and ".rkllm model" in reason
    settings.model = str(tmp_path / "gone.rkllm")
    ok, reason = availability(settings, PROFILE, root=root)
    assert not ok and "does not exist" in reason


def test_the_sysfs_root_comes_from_the_environment(
    tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGEHOST_SYSFS_ROOT", str(build(tmp_path / "root", rk3588_board())))
    assert availability(settings, PROFILE)[0]
