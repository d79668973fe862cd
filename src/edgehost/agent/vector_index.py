"""Sentence-embedding similarity of texts to a question: the numpy side of tool ranking.

A ``VectorIndex`` embeds texts with one embedder (agent/_embedding.py: MiniLM on the CPU, or the NPU's),
keeps their unit vectors by the hash of the text, in memory and in a file (so a restart embeds nothing
it saw before), and answers ``similarities(question, texts)`` with cosine similarities. Tools are
scored with ``tool_similarities``, which reads e5 beside MiniLM when the index has it (``tool_model``,
agent/_e5_embedding.py) and the question through the query adapter (agent/query_adapter.py). The last few
questions' vectors are kept: routing and selection of one turn embed the question once, and a question
embedded while it was typed (``anticipate``) is not embedded again when it is asked.

The host runs its index in a process of its own (agent/ranking_process.py), so that the GUI process
holds neither numpy nor the model; tests and benches may open one here (``open_index``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import zipfile
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from edgehost.agent._e5_embedding import E5Embedder
from edgehost.agent._embedding import (
    Embedder,
    EmbeddingUnavailable,
    MiniLMEmbedder,
    RknnEmbedder,
    int8_source,
)
from edgehost.agent.query_adapter import query_adapter

__all__ = ["VectorIndex", "open_index"]

# One budget for both models (keyed by model and text), twice what one model kept:
STACKED_KEPT = 16  # text lists' matrices kept whole (a turn asks again for the same tools and examples)
QUERIES_KEPT = 16  # the last questions' vectors: one typed ahead (anticipate), a follow-up's combined text
EMBEDDING_BATCH = 16  # texts of similar length per forward pass, to waste little on padding

log = logging.getLogger(__name__)


class VectorIndex:
    """Unit vectors of texts by ``embedder`` (and ``tool_model``, for tools), cached (see the module
    docstring)."""

    def __init__(
        self,
        embedder: Embedder,
        cache_file: Path | None = None,
        tool_model: E5Embedder | None = None,
        tool_model_cache_file: Path | None = None,
    ) -> None:
        """``cache_file``, ``tool_model_cache_file``: where each model's vectors are kept."""
        self.embedder = embedder
        self.tool_model = tool_model
        self.name = embedder.name
        # Each model's vectors by their key, and the file they are kept in.
        self._caches: dict[str, tuple[dict[str, np.ndarray], Path | None]] = {
            embedder.name: (_read_vectors(cache_file) if cache_file else {}, cache_file)
        }
        if tool_model is not None:
            self._caches[tool_model.name] = (
                _read_vectors(tool_model_cache_file) if tool_model_cache_file else {},
                tool_model_cache_file,
            )
        self._queries: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()  # (embedder, question)
        self._keys: dict[tuple[str, str], str] = {}  # (embedder, text) -> its cache key
        self._stacked: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}  # the rows of texts, by embedder

    def prepare(self, texts: Sequence[str]) -> None:
        """Embed the texts not seen yet (ahead of the first question that needs them): tool texts, by
        both models when the index has two."""
        self._text_vectors(texts, self.embedder)
        if self.tool_model is not None:
            self._text_vectors(texts, self.tool_model)

    def similarities(self, query: str, texts: Sequence[str], keep: bool = True) -> list[float]:
        """Cosine similarity of ``query`` to each of ``texts`` by the first embedder, in order.
        ``keep=False`` for texts seen once (a question's words): their vectors are not kept, in memory
        or on disk."""
        if not texts:
            return []
        vectors = self._text_vectors(texts, self.embedder) if keep else self.embedder.embed(list(texts))
        return [float(s) for s in vectors @ self._query_vector(query, self.embedder)]

    def tool_similarities(self, query: str, texts: Sequence[str], adapted: bool = True) -> list[float]:
        """How well each of ``texts`` (tools' texts) answers ``query``: both models' cosines, the
        question read through the query adapter when ``adapted`` (agent/query_adapter.py). Without e5
        or a map fitted for these models, the first embedder's cosines."""
        if not texts:
            return []
        first = self._text_vectors(texts, self.embedder)
        question = self._query_vector(query, self.embedder)
        if self.tool_model is not None:
            second = self._query_vector(query, self.tool_model)
            adapter = query_adapter(self.name, self.tool_model.name, (question.shape[0], second.shape[0]))
            if adapter is not None:
                tools = (first, self._text_vectors(texts, self.tool_model))
                return [float(s) for s in adapter.scores((question, second), tools, adapted)]
        return [float(s) for s in first @ question]

    @property
    def tool_model_name(self) -> str:
        """The second model's name; "" when the index has none."""
        return self.tool_model.name if self.tool_model is not None else ""

    def projections(
        self, query: str, directions: Sequence[Sequence[float]], joint: bool = False
    ) -> list[float]:
        """The dot product of ``query``'s unit vector with each of ``directions`` (a linear probe's
        weights, agent/question_probe.py), in order. ``joint``: of its MiniLM and e5 unit vectors side by
        side (the index must have e5)."""
        if not directions:
            return []
        vector = self._query_vector(query, self.embedder)
        if joint:
            if self.tool_model is None:
                raise ValueError("a joint projection needs the index's second model")
            vector = np.concatenate([vector, self._query_vector(query, self.tool_model)])
        return [float(s) for s in np.asarray(directions, dtype=np.float32) @ vector]

    def anticipate(self, query: str) -> None:
        """Embed ``query`` now (the question as it is being typed), for a later ``similarities``."""
        self._query_vector(query, self.embedder)
        if self.tool_model is not None:
            self._query_vector(query, self.tool_model)

    def close(self) -> None:
        close = getattr(self.embedder, "close", None)
        if close is not None:
            close()

    def _query_vector(self, query: str, embedder: Embedder) -> np.ndarray:
        key = (embedder.name, query)
        vector = self._queries.get(key)
        if vector is None:
            embed = getattr(embedder, "embed_queries", embedder.embed)
            vector = self._queries[key] = embed([query])[0]
            if len(self._queries) > QUERIES_KEPT:
                self._queries.popitem(last=False)
        else:
            self._queries.move_to_end(key)
        return vector

    def _text_vectors(self, texts: Sequence[str], embedder: Embedder) -> np.ndarray:
        whole = (embedder.name, tuple(texts))
        stacked = self._stacked.get(whole)
        if stacked is None:
            if len(self._stacked) >= STACKED_KEPT:
                self._stacked.clear()
            stacked = self._stacked[whole] = self._vectors(texts, embedder)
        return stacked

    def _vectors(self, texts: Sequence[str], embedder: Embedder) -> np.ndarray:
        keys = [self._key(text, embedder) for text in texts]
        cache, cache_file = self._caches[embedder.name]
        missing = sorted(
            {k: t for k, t in zip(keys, texts, strict=True) if k not in cache}.items(),
            key=lambda kt: len(kt[1]),
        )
        for start in range(0, len(missing), EMBEDDING_BATCH):
            chunk = missing[start : start + EMBEDDING_BATCH]
            for (key, _text), vector in zip(
                chunk, embedder.embed([text for _key, text in chunk]), strict=True
            ):
                cache[key] = vector
        if missing and cache_file is not None:
            _write_vectors(cache_file, cache)
        return np.stack([cache[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)

    def _key(self, text: str, embedder: Embedder) -> str:
        key = self._keys.get((embedder.name, text))
        if key is None:
            digest = hashlib.sha1(f"{embedder.name}\n{text}".encode()).hexdigest()
            key = self._keys[embedder.name, text] = digest
        return key


def open_index(
    *, npu_model: Path | None = None, npu_core_mask: str = "core2", cache_dir: Path | None = None
) -> tuple[VectorIndex | None, tuple[str, ...]]:
    """The index on the best embedder this machine runs: the NPU's when ``npu_model`` is given and works,
    else the CPU's, with e5 beside it for tools (agent/_e5_embedding.py), and why a better one was
    skipped. With ``cache_dir`` the vectors are kept there (a file per embedding model) and the CPU
    model is the int8 one (_embedding.int8_source).

    Loading the CPU models takes 0.1-1 s. None (and every reason) when no embedder runs here.
    """
    reasons: list[str] = []
    embedder: Embedder | None = None
    if npu_model is not None:
        try:
            embedder = RknnEmbedder.open(npu_model, core_mask=npu_core_mask)
        except EmbeddingUnavailable as exc:
            reasons.append(f"NPU ranker {exc}")
    if embedder is None:
        try:
            embedder = MiniLMEmbedder.load(int8_source(cache_dir) if cache_dir is not None else None)
        except EmbeddingUnavailable as exc:
            reasons.append(f"CPU embedding ranker unavailable: {exc}")
            return None, tuple(reasons)
    tool_model: E5Embedder | None = None
    try:
        tool_model = E5Embedder.load()
    except EmbeddingUnavailable as exc:
        reasons.append(f"tools are ranked without e5: {exc}")

    def where(model: Embedder | None) -> Path | None:
        return cache_dir / f"tool-vectors-{model.name}.npz" if cache_dir is not None and model else None

    return VectorIndex(embedder, where(embedder), tool_model, where(tool_model)), tuple(reasons)


def _read_vectors(path: Path) -> dict[str, np.ndarray]:
    """The cached vectors in ``path``; none when it is missing or unreadable (it is only a cache)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return {key: data[key] for key in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return {}


def _write_vectors(path: Path, vectors: Mapping[str, np.ndarray]) -> None:
    """Write atomically (a temporary file, then a rename); a failure leaves the old cache."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=".vectors-", suffix=".npz", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, **dict(vectors))  # type: ignore[arg-type]
        os.replace(temporary, path)
    except OSError:
        log.warning("could not write the tool embedding cache %s", path, exc_info=True)
