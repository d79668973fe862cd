"""The embedding model's weights, read a piece at a time without the safetensors package's loader (which
copied every tensor holding the GIL), are the package's, tensor for tensor, fp32 and int8."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load, save_file

from edgehost.agent import _embedding
from edgehost.agent._embedding import EmbeddingUnavailable, find_minilm_source


def _same(expected: dict[str, np.ndarray], actual: dict[str, np.ndarray]) -> None:
    assert set(actual) == set(expected)
    for name, tensor in expected.items():
        assert actual[name].dtype == tensor.dtype and actual[name].shape == tensor.shape, name
        assert np.array_equal(actual[name], tensor), name


def test_the_packaged_fp32_weights_are_read_as_the_safetensors_package_reads_them() -> None:
    source = find_minilm_source()
    if source.is_dir():
        pytest.skip("the model is a folder here, not the package's zip")
    expected = load(zipfile.ZipFile(source).read(_embedding.WEIGHTS_FP32))
    weights, _tokenizer, _config = _embedding._read_model_files(source)
    _same(expected, _embedding._safetensors_arrays(weights))


def test_int8_weights_written_by_the_package_are_read_back_the_same(tmp_path: Path) -> None:
    tensors = {
        "a": np.arange(12, dtype=np.int8).reshape(3, 4),
        "a.scale": np.linspace(0, 1, 3, dtype=np.float32).reshape(3, 1),
        "ids": np.arange(5, dtype=np.int64),
    }
    save_file(tensors, str(tmp_path / "w.safetensors"), metadata={"format": "test"})
    _same(tensors, _embedding._safetensors_arrays((tmp_path / "w.safetensors").read_bytes()))


def test_bytes_that_are_not_safetensors_are_refused_with_a_reason() -> None:
    with pytest.raises(EmbeddingUnavailable, match="not readable"):
        _embedding._safetensors_arrays(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all}")
