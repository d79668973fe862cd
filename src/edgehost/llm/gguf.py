"""Read the metadata of a GGUF file (architecture, context length, chat template) without its weights.

Only the header's key/value section is read; large arrays (the vocabulary) are skipped. Needs no
llama.cpp, so `edgehost models` and `doctor` work without the llamacpp extra.

Every length and count the header gives is checked against what is left of the file before it is
used: a corrupted header is a GGUFError naming the offset, never a huge read or a long loop.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["GGUFError", "gguf_context_length", "read_gguf_metadata"]

_MAGIC = b"GGUF"
# GGUF value types -> struct format of a scalar
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
# Arrays longer than this (the vocabulary, merges) are skipped rather than decoded.
_MAX_KEPT_ARRAY = 64
# Arrays of arrays deeper than this are taken for corruption (llama.cpp itself reads none).
_MAX_NESTING = 4
# The fewest bytes a key/value pair takes: its key's length (8) and its value's type (4); an array
# item that is a string takes its length (8), one that is an array its type and count (12).
_MIN_PAIR_BYTES = 12
_MIN_ITEM_BYTES = {_STRING: 8, _ARRAY: 12}


class GGUFError(ValueError):
    """The file is not a readable GGUF file."""


def read_gguf_metadata(path: str | Path) -> dict[str, Any]:
    """Return the key/value metadata of a GGUF file; long arrays are replaced by their length.

    Raises GGUFError when the file is not GGUF (v2 or v3), is truncated or its header is corrupt;
    OSError when unreadable.
    """
    with open(path, "rb") as handle:
        if handle.read(4) != _MAGIC:
            raise GGUFError(f"{path} is not a GGUF file")
        header = _Header(handle)
        version = header.unpack("I")
        if version not in (2, 3):
            raise GGUFError(f"{path}: unsupported GGUF version {version}")
        _tensor_count = header.unpack("Q")
        kv_count = header.unpack("Q")
        header.check_room(kv_count * _MIN_PAIR_BYTES, f"{kv_count} key/value pairs")
        metadata: dict[str, Any] = {}
        for _ in range(kv_count):
            key = header.string()
            metadata[key] = header.value(header.unpack("I"))
        return metadata


class _Header:
    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.size = os.fstat(handle.fileno()).st_size
        self.offset = handle.tell()  # kept here: asking the file for it each time is slow

    def check_room(self, size: int, what: str) -> None:
        """Raises GGUFError when ``size`` bytes (of ``what``) would run past the end of the file."""
        if size > self.size - self.offset:
            raise GGUFError(f"corrupt GGUF header: {what} at offset {self.offset}, past the end of the file")

    def read(self, size: int) -> bytes:
        data = self.handle.read(size)
        if len(data) != size:
            raise GGUFError("truncated GGUF header")
        self.offset += size
        return data

    def unpack(self, fmt: str) -> Any:
        return struct.unpack("<" + fmt, self.read(struct.calcsize("<" + fmt)))[0]

    def string(self) -> str:
        length = self.unpack("Q")
        self.check_room(length, f"a string of {length} bytes")
        return self.read(length).decode("utf-8", errors="replace")

    def value(self, value_type: int, depth: int = 0) -> Any:
        if value_type == _STRING:
            return self.string()
        if value_type == _ARRAY:
            if depth >= _MAX_NESTING:
                raise GGUFError(
                    f"corrupt GGUF header: arrays nested {depth + 1} deep at offset {self.offset}"
                )
            item_type = self.unpack("I")
            count = self.unpack("Q")
            fmt = _SCALARS.get(item_type)
            item_size = struct.calcsize("<" + fmt) if fmt else _MIN_ITEM_BYTES.get(item_type, 0)
            self.check_room(count * item_size, f"an array of {count} items")
            if count > _MAX_KEPT_ARRAY:
                self.skip_array(item_type, count, depth)
                return f"<array of {count}>"
            return [self.value(item_type, depth + 1) for _ in range(count)]
        fmt = _SCALARS.get(value_type)
        if fmt is None:
            raise GGUFError(f"unknown GGUF value type {value_type}")
        return self.unpack(fmt)

    def skip_array(self, item_type: int, count: int, depth: int) -> None:
        fmt = _SCALARS.get(item_type)
        if fmt is not None:
            size = struct.calcsize("<" + fmt) * count
            self.handle.seek(size, 1)
            self.offset += size
            return
        if item_type not in _MIN_ITEM_BYTES:
            raise GGUFError(f"unknown GGUF value type {item_type}")
        for _ in range(count):
            self.value(item_type, depth + 1)


def gguf_context_length(metadata: dict[str, Any]) -> int | None:
    """The model's training context (``<arch>.context_length``), if the metadata has it."""
    arch = metadata.get("general.architecture")
    value = metadata.get(f"{arch}.context_length")
    return int(value) if isinstance(value, int) else None
