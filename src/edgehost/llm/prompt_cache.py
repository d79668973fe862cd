"""The KV cache of a prompt kept on disk, so a restart does not prefill the system prompt again.

Within one worker process the llama.cpp engine already reuses the KV cache of the prefix a prompt
shares with the previous one: every new conversation starts with the same system prompt and tools
section (728 tokens; 4.6 s to prefill on this machine, 15-50 s on a board), and only its question is
evaluated. After a restart the cache is empty. This module keeps one file per model and context size
in the data folder: the KV state of sequence 0 (llama.cpp's ``llama_state_seq_save_file``, no logits)
after the first long prefill, and its tokens beside it. At the next start, a prompt that shares at
least ``MIN_SHARED_TOKENS`` with it loads it, and the engine evaluates the rest.

Files are written to a temporary name and renamed; a file that does not load (another llama.cpp
version, a truncated write) is ignored and replaced.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["MIN_SHARED_TOKENS", "PromptCache"]

# Below this a prefill is quick anyway; above it the saved state is worth loading.
MIN_SHARED_TOKENS = 64


def _shared(a: list[int], b: list[int]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


class PromptCache:
    def __init__(self, folder: Path, model_path: Path, n_ctx: int) -> None:
        stat = model_path.stat()
        identity = f"{model_path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{n_ctx}"
        key = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:20]
        self.state_file = folder / f"{key}.kv"
        self.tokens_file = folder / f"{key}.tokens.npy"
        self.saved = False  # this process wrote the file already

    def tokens(self) -> list[int]:
        try:
            return [int(t) for t in np.load(self.tokens_file)]
        except (OSError, ValueError):
            return []

    def load(self, llama: Any, llama_cpp: Any, prompt: list[int]) -> int:
        """Load the saved state into ``llama``'s empty context when it shares at least
        MIN_SHARED_TOKENS with ``prompt``; the number of tokens now in the context (0: nothing)."""
        saved = self.tokens()
        if _shared(saved, prompt) < MIN_SHARED_TOKENS or not self.state_file.is_file():
            return 0
        capacity = len(saved)
        tokens = (llama_cpp.llama_token * capacity)()
        count = ctypes.c_size_t(0)
        read = llama_cpp.llama_state_seq_load_file(
            llama._ctx.ctx, str(self.state_file).encode("utf-8"), 0, tokens, capacity, ctypes.byref(count)
        )
        if not read or count.value != capacity or list(tokens) != saved:
            llama._ctx.kv_cache_seq_rm(-1, 0, -1)
            llama.n_tokens = 0
            return 0
        llama.input_ids[:capacity] = np.asarray(saved, dtype=np.intc)
        llama.n_tokens = capacity
        return capacity

    def save(self, llama: Any, llama_cpp: Any) -> bool:
        """Write ``llama``'s context (its sequence 0 and tokens) as this model's saved prompt."""
        count = int(llama.n_tokens)
        if count < MIN_SHARED_TOKENS:
            return False
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        ids = [int(t) for t in llama.input_ids[:count]]
        tokens = (llama_cpp.llama_token * count)(*ids)
        partial = self.state_file.with_name(f"{self.state_file.name}.{os.getpid()}.part")
        written = llama_cpp.llama_state_seq_save_file(
            llama._ctx.ctx, str(partial).encode("utf-8"), 0, tokens, count
        )
        if not written:
            partial.unlink(missing_ok=True)
            return False
        tokens_partial = self.tokens_file.with_name(f"{self.tokens_file.stem}.{os.getpid()}.part.npy")
        np.save(tokens_partial, np.asarray(ids, dtype=np.int32))
        os.replace(partial, self.state_file)
        os.replace(tokens_partial, self.tokens_file)
        self.saved = True
        return True
