"""Model files: the embedded default and what a file says about itself, without loading weights."""

from __future__ import annotations

import random
import re
import struct
from pathlib import Path

import pytest

from edgehost.llm.gguf import GGUFError, read_gguf_metadata
from edgehost.models.files import describe_model, find_models


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


def _gguf_header(*fields: bytes) -> bytes:
    """GGUF v3 with no tensors and one key/value pair, followed by ``fields``."""
    return b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + b"".join(fields)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        # A key whose length is beyond any file (an index-sized int overflows) or merely past this one.
        ((struct.pack("<Q", 2**64 - 1),), f"a string of {2**64 - 1} bytes at offset 32, past the end"),
        ((struct.pack("<Q", 2**62),), f"a string of {2**62} bytes at offset 32, past the end"),
        # An array of 2**62 uint32 values that the file cannot hold.
        (
            (struct.pack("<Q", 1), b"k", struct.pack("<IIQ", 9, 4, 2**62)),
            f"an array of {2**62} items at offset 49, past the end",
        ),
    ],
)
def test_a_length_or_count_past_the_end_of_the_file_is_a_corrupt_header(
    tmp_path: Path, fields: tuple[bytes, ...], message: str
) -> None:
    path = tmp_path / "corrupt.gguf"
    path.write_bytes(_gguf_header(*fields) + b"\0" * 64)
    with pytest.raises(GGUFError, match=f"corrupt GGUF header: {re.escape(message)}"):
        read_gguf_metadata(path)


def test_a_gguf_file_with_random_bytes_after_its_header_is_listed_with_its_error(tmp_path: Path) -> None:
    # As a download cut and filled with garbage would be: the magic and version, then noise.
    noise = random.Random(3).randbytes(4096)
    (tmp_path / "garbled.gguf").write_bytes(b"GGUF" + struct.pack("<I", 3) + noise)
    (tmp_path / "fine.rkllm").write_bytes(b"\0" * 100)
    models = {Path(m.path).name: m for m in find_models(tmp_path)}
    assert {"garbled.gguf", "fine.rkllm"} <= set(models)
    garbled = models["garbled.gguf"]
    assert garbled.error is not None and garbled.error.startswith("corrupt GGUF header: ")
    assert (garbled.size_bytes, garbled.context_length) == (4 + 4 + 4096, None)
    assert models["fine.rkllm"].error is None
