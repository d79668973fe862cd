"""Read the metadata of a GGUF file (architecture, context length, chat template) without its weights.

Only the header's key/value section is read; large arrays (the vocabulary) are skipped. Needs no
llama.cpp, so `edgehost models` and `doctor` work without the llamacpp extra.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["GGUFError", "read_gguf_metadata"]

_MAGIC = b"GGUF"
# GGUF value types -> struct format of a scalar
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
# Arrays longer than this (the vocabulary, merges) are skipped rather than decoded.
_MAX_KEPT_ARRAY = 64


class GGUFError(ValueError):
    """The file is not a readable GGUF file."""


def read_gguf_metadata(path: str | Path) -> dict[str, Any]:
    """Return the key/value metadata of a GGUF file; long arrays are replaced by their length.

    Raises GGUFError when the file is not GGUF (v2 or v3) or is truncated; OSError when unreadable.
    """
    with open(path, "rb") as handle:
        if handle.read(4) != _MAGIC:
            raise GGUFError(f"{path} is not a GGUF file")
        version = _unpack(handle, "I")
        if version not in (2, 3):
            raise GGUFError(f"{path}: unsupported GGUF version {version}")
        _tensor_count = _unpack(handle, "Q")
        kv_count = _unpack(handle, "Q")
        metadata: dict[str, Any] = {}
        for _ in range(kv_count):
            key = _read_string(handle)
            metadata[key] = _read_value(handle, _unpack(handle, "I"))
        return metadata


def _unpack(handle: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize("<" + fmt)
    data = handle.read(size)
    if len(data) != size:
        raise GGUFError("truncated GGUF header")
    return struct.unpack("<" + fmt, data)[0]


def _read_string(handle: BinaryIO) -> str:
    length = _unpack(handle, "Q")
    data = handle.read(length)
    if len(data) != length:
        raise GGUFError("truncated GGUF header")
    return data.decode("utf-8", errors="replace")


def _read_value(handle: BinaryIO, value_type: int) -> Any:
    if value_type == _STRING:
        return _read_string(handle)
    if value_type == _ARRAY:
        item_type = _unpack(handle, "I")
        count = _unpack(handle, "Q")
        if count > _MAX_KEPT_ARRAY:
            _skip_array(handle, item_type, count)
            return f"<array of {count}>"
        return [_read_value(handle, item_type) for _ in range(count)]
    fmt = _SCALARS.get(value_type)
    if fmt is None:
        raise GGUFError(f"unknown GGUF value type {value_type}")
    return _unpack(handle, fmt)


def _skip_array(handle: BinaryIO, item_type: int, count: int) -> None:
    fmt = _SCALARS.get(item_type)
    if fmt is not None:
        handle.seek(struct.calcsize("<" + fmt) * count, 1)
        return
    for _ in range(count):
        _read_value(handle, item_type)
