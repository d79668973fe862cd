"""A question's vector as tool ranking reads it: moved toward the tools that answer its kind (issue 33).

A sentence embedding places a question by its subject. "Commit this to memory: my bike lock code is
4512" sits next to the board's memory usage (RAM), far from the memory server's "Create multiple new
entities in the knowledge graph"; "dump your whole memory" likewise. What connects the two is how
people ask an assistant to remember, recall or forget, which all-MiniLM-L6-v2 never learned.

A linear map, learned from the calibration questions only (bench/fit_query_adapter.py: the
calibration half of tests/fixtures/everyday_questions/, the earlier sets and calibration_more.json),
adds to the question's unit vector a correction ``W @ q`` and normalises the sum. ``W`` is fitted so that the right tool of
each calibration question ranks first among the tools it was asked over (a softmax over the ranker's
whole score, lexical part and cues included), with an L2 penalty chosen by cross-validation. The tools' vectors are not touched, so a tool no one fitted for is
placed as before; only the way questions are read changes. The held-out half is never read; it is
what bench/selection_recall.py reports, and bench/external_tool_check.py shows what the map does to
functions of public questions it never saw.

Only tool ranking reads adapted vectors: the small-talk gate, the question probe and the fitting of
argument values read the question as it is. The weights ship in resources/routing/query_adapter.npz
with the embedders whose vector space they were fitted in; any other embedder reads questions as they
are, and so does every embedder when the file is missing or unreadable.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache

import numpy as np

from edgehost.paths import shipped_dir

__all__ = ["ADAPTER_FILE", "QueryAdapter", "query_adapter", "shipped_adapter"]

ADAPTER_FILE = "query_adapter.npz"
log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class QueryAdapter:
    embedders: tuple[str, ...]  # the embedders whose vector space it was fitted in (their names)
    matrix: np.ndarray  # d x d: the correction added to a question's unit vector

    def adapt(self, vector: np.ndarray) -> np.ndarray:
        """``vector`` (a question's unit vector) with its correction, as a unit vector again."""
        moved = vector + self.matrix @ vector
        norm = float(np.linalg.norm(moved))
        return (moved / norm).astype(np.float32) if norm > 1e-12 else vector


@cache
def shipped_adapter() -> QueryAdapter | None:
    """The map in resources/routing/; None when it is missing, unreadable, not square or not finite
    (questions are then ranked as they are)."""
    try:
        path = shipped_dir("resources") / "routing" / ADAPTER_FILE
        with np.load(path, allow_pickle=False) as data:
            matrix = np.asarray(data["matrix"], dtype=np.float32)
            embedders = tuple(str(name) for name in np.atleast_1d(data["embedders"]))
    except Exception as exc:  # noqa: BLE001 - a damaged file (a bad zip, a bad deflate stream, odd arrays) is no map
        log.warning("tool ranking reads questions without the query adapter: %s", exc)
        return None
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or not np.isfinite(matrix).all():
        log.warning("tool ranking reads questions without the query adapter: its matrix is malformed")
        return None
    return QueryAdapter(embedders, matrix)


def query_adapter(embedder_name: str, dimensions: int) -> QueryAdapter | None:
    """The shipped map, if it was fitted for the embedder named ``embedder_name`` and its vectors of
    ``dimensions``; None otherwise."""
    adapter = shipped_adapter()
    if adapter is None or embedder_name not in adapter.embedders or adapter.matrix.shape[0] != dimensions:
        return None
    return adapter
