"""The KV cache of a prompt kept on disk, so a restart does not prefill the system prompt again
(llama.cpp's state files here; RKLLM's prompt cache files in RkllmPromptCache below).

Within one worker process the llama.cpp engine already reuses the KV cache of the prefix a prompt
shares with the previous one: every new conversation starts with the same system prompt and tools
section (728 tokens; 4.6 s to prefill on this machine, 15-50 s on a board), and only its question is
evaluated. After a restart the cache is empty. This module keeps one file per model and context size
in the data folder: the KV state of sequence 0 (llama.cpp's ``llama_state_seq_save_file``, no logits)
after the first long prefill, and its tokens beside it. At the next start, a prompt that shares at
least ``MIN_SHARED_TOKENS`` with it loads it, and the engine evaluates the rest.

Files are written to a temporary name and renamed; a file that does not load (another llama.cpp
version, a truncated write) is ignored and replaced. The folder keeps the ``KEEP`` caches used last
(a model removed or a context changed leaves one behind, up to a few hundred MB for a 3B model):
each save deletes the older ones and temporary files left by a killed worker.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["KEEP", "MIN_SHARED_TOKENS", "PromptCache", "RkllmPromptCache", "prune"]

# Below this a prefill is quick anyway; above it the saved state is worth loading.
MIN_SHARED_TOKENS = 64
KEEP = 3  # caches kept in the folder, the most recently used
STALE_PART_S = 3600.0  # a temporary file this old belongs to no running save


def _shared(a: list[int], b: list[int]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def _cache_key(model_path: Path, n_ctx: int, layout: str = "") -> str:
    """One key per model file (its path, size and time), context size and KV layout (flash attention
    stores V untransposed: a state saved without it does not load with it)."""
    stat = model_path.stat()
    identity = f"{model_path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{n_ctx}" + (
        f"|{layout}" if layout else ""
    )
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:20]


class PromptCache:
    """llama.cpp's: the KV state of sequence 0 and its tokens."""

    def __init__(self, folder: Path, model_path: Path, n_ctx: int, layout: str = "") -> None:
        key = _cache_key(model_path, n_ctx, layout)
        self.state_file = folder / f"{key}.kv"
        self.tokens_file = folder / f"{key}.tokens.npy"
        self.digest_file = folder / f"{key}.kv.sum"
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
        if _shared(saved, prompt) < MIN_SHARED_TOKENS or not self._intact():
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
        with contextlib.suppress(OSError):
            os.utime(self.state_file)  # used: pruning keeps the caches used last
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
        digest = _digest(partial)
        os.replace(partial, self.state_file)
        os.replace(tokens_partial, self.tokens_file)
        self.digest_file.write_text(digest)
        self.saved = True
        prune(self.state_file.parent)
        return True

    def _intact(self) -> bool:
        """Whether the state file is the one written: llama.cpp aborts the process on some damaged
        files (with flash attention on: SIGABRT on one cut short) rather than refusing them."""
        try:
            return self.digest_file.read_text().strip() == _digest(self.state_file)
        except OSError:
            return False


def _digest(path: Path) -> str:
    digest = hashlib.blake2b()
    with path.open("rb") as handle:  # (hashlib.file_digest is Python 3.11's)
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class RkllmPromptCache:
    """RKLLM's prompt cache files: the runtime writes one when a run asks it to
    (``RKLLMPromptCacheParam``) and reuses its longest matching prefix after
    ``rkllm_load_prompt_cache``. The prompt it was saved from is kept beside it, to tell whether a new
    prompt shares enough to be worth loading.

    A save runs inside the runtime, on a board we cannot test here, and an RKLLM 1.2.1 user reported
    it crashing the process: a marker file is written before the save and removed after it, and a
    marker found at start (the save never finished) turns caching off for this model file for good.
    """

    def __init__(self, folder: Path, model_path: Path, n_ctx: int) -> None:
        key = _cache_key(model_path, n_ctx)
        self.cache_file = folder / f"{key}.rkllm-cache"
        self.prompt_file = folder / f"{key}.prompt.txt"
        self.marker = folder / f"{key}.rkllm-cache.saving"
        self.disabled = self.marker.exists()

    def shared_prefix(self, prompt: str) -> str:
        """The start ``prompt`` shares with the saved cache's ("" when there is none)."""
        if self.disabled or not self.cache_file.is_file():
            return ""
        try:
            saved = self.prompt_file.read_text(encoding="utf-8")
        except (OSError, ValueError):
            return ""
        return os.path.commonprefix([saved, prompt])

    def begin_save(self) -> str | None:
        """The file the runtime should write the cache to, or None when caching is off."""
        if self.disabled:
            return None
        self.cache_file.parent.mkdir(parents=True, exist_ok=True)
        self.marker.touch()
        return str(self.cache_file.with_name(f"{self.cache_file.name}.{os.getpid()}.part"))

    def end_save(self, written_to: str, prompt: str, completed: bool) -> None:
        """Keep the cache the runtime wrote (``completed``: the run ended normally) or drop it."""
        part = Path(written_to)
        if completed and part.is_file():
            os.replace(part, self.cache_file)
            self.prompt_file.write_text(prompt, encoding="utf-8")
            with contextlib.suppress(OSError):
                os.utime(self.cache_file)
            prune(self.cache_file.parent)
        else:
            part.unlink(missing_ok=True)
        self.marker.unlink(missing_ok=True)

    def used(self) -> None:
        with contextlib.suppress(OSError):
            os.utime(self.cache_file)


_CACHE_SUFFIXES = (".kv", ".rkllm-cache")


def prune(folder: Path, keep: int = KEEP) -> None:
    """Delete all but the ``keep`` caches in ``folder`` used last, and stale temporary files."""
    now = time.time()

    def modified(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    states = sorted((p for p in folder.glob("*") if p.suffix in _CACHE_SUFFIXES), key=modified, reverse=True)
    for state in states[keep:]:
        for companion in folder.glob(f"{state.name.split('.', 1)[0]}.*"):  # its tokens, prompt ...
            if not companion.name.endswith(".saving"):
                companion.unlink(missing_ok=True)
    for part in folder.glob("*.part*"):
        if now - modified(part) > STALE_PART_S:
            part.unlink(missing_ok=True)
