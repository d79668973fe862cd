"""Model files: the embedded default and what a file says about itself, without loading weights."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgehost.llm._gguf import GGUFError, read_gguf_metadata
from edgehost.llm.models import describe_model, find_models


def test_the_default_models_metadata_is_read_without_llama_cpp(model_path: Path) -> None:
    metadata = read_gguf_metadata(model_path)
    assert metadata["general.architecture"] == "llama"
    assert metadata["llama.context_length"] == 8192
    assert "<|im_start|>" in metadata["tokenizer.chat_template"]
    assert metadata["tokenizer.ggml.tokens"] == "<array of 49152>"


def test_the_models_folder_lists_gguf_and_rkllm_files_and_the_embedded_default(
    model_path: Path, tmp_path: Path
) -> None:
    (tmp_path / "qwen").mkdir()
    (tmp_path / "qwen" / "Qwen2.5-1.5B-Instruct_W8A8_RK3588.rkllm").write_bytes(b"\0" * 1000)
    (tmp_path / "broken.gguf").write_bytes(b"not a gguf")
    (tmp_path / "notes.txt").write_text("ignored")
    models = {Path(m.path).name: m for m in find_models(tmp_path)}
    assert set(models) == {model_path.name, "Qwen2.5-1.5B-Instruct_W8A8_RK3588.rkllm", "broken.gguf"}
    default = models[model_path.name]
    assert (default.source, default.format, default.context_length, default.chat_template) == (
        "embedded default",
        "gguf",
        8192,
        True,
    )
    assert (
        default.name == "SmolLM2-135M-Instruct.Q4_1"
    )  # the file's name, not general.name (a training run's)
    rkllm = models["Qwen2.5-1.5B-Instruct_W8A8_RK3588.rkllm"]
    assert (rkllm.format, rkllm.size_bytes, rkllm.context_length) == ("rkllm", 1000, None)
    assert models["broken.gguf"].error is not None


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.gguf"
    path.write_bytes(b"GGML....")
    with pytest.raises(GGUFError):
        read_gguf_metadata(path)
    assert describe_model(path).error
