"""Stub librkllmrt.so libraries built from C once per session (tests/fixtures/rkllm_stub)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
for helper_folder in ("rkllm_stub", "sysfs"):
    if str(FIXTURES / helper_folder) not in sys.path:
        sys.path.insert(0, str(FIXTURES / helper_folder))

from rkllm_stub_runtime import STUB_VERSIONS, StubProbe, build_stub  # noqa: E402


@pytest.fixture(scope="session")
def stub_libraries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("rkllm-stubs")
    return {abi: build_stub(base / abi, abi, version) for abi, version in STUB_VERSIONS.items()}


@pytest.fixture(params=["1.2", "1.3"])
def abi(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def stub_lib(stub_libraries: dict[str, Path], abi: str) -> Path:
    return stub_libraries[abi]


@pytest.fixture
def probe(stub_lib: Path) -> StubProbe:
    return StubProbe(stub_lib)


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "Qwen2.5-1.5B-Instruct-w8a8-rk3588.rkllm"
    path.write_bytes(b"not really a model")
    return path


@pytest.fixture
def engine_config(stub_lib: Path, model_file: Path) -> Callable[..., dict[str, object]]:
    def make(**overrides: object) -> dict[str, object]:
        config: dict[str, object] = {
            "model_path": str(model_file),
            "n_ctx": 2048,
            "threads": 4,
            "affinity": [],
            "rkllm_lib": str(stub_lib),
            "rkllm_abi": None,
            "cpu_mask": 0xF0,
            "cpu_count": 4,
        }
        config.update(overrides)
        return config

    return make
