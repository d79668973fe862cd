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

Tool ranking reads two embedding models (agent/_e5_embedding.py): a question's MiniLM vector and
its e5 vector, side by side, are one vector, and so are a tool's; the map moves the joint question
vector. A tool's score is its MiniLM cosine plus ``e5_weight`` times the dot product of the question's
e5 vector with the tool's less ``e5_centre``, the mean e5 vector of the calibration tools. e5's
vectors share a large common part (any question and any tool are near 0.8 apart), which says nothing
about which tool fits; without it the sum stays near MiniLM's scale, on which the routing gate's
floors and the margins of agent/routing.py and agent/selection.py are set, and the map, which may
move weight between the two halves of the joint vector, cannot raise every score at once. The
weight, like the map's penalty, is chosen by cross-validation.

Only tool ranking reads the map. The question probe reads both models' vectors as they are
(agent/question_probe.py); the small-talk similarity and the fitting of argument values read the
question's MiniLM vector as it is. The weights ship in
resources/routing/query_adapter.npz with the embedders whose vector space they were fitted in; any
other embedder, or an index without e5, ranks by MiniLM's cosines alone, and so does every embedder
when the file is missing or unreadable.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from edgehost.paths import shipped_dir

__all__ = ["ADAPTER_FILE", "QueryAdapter", "query_adapter", "shipped_adapter"]

ADAPTER_FILE = "query_adapter.npz"
log = logging.getLogger(__name__)
_ROOT2 = math.sqrt(2.0)


@dataclass(frozen=True, eq=False)
class QueryAdapter:
    embedders: tuple[str, ...]  # the MiniLM embedders whose vector space it was fitted in (their names)
    tool_model: str  # the second model's name (agent/_e5_embedding.E5_NAME)
    e5_weight: float
    e5_centre: np.ndarray  # the mean e5 vector of the calibration tools
    matrix: np.ndarray  # d x d over the joint vector: the correction added to a question's

    def adapt(self, vector: np.ndarray) -> np.ndarray:
        """``vector`` (a question's unit vector) with its correction, as a unit vector again."""
        moved = vector + self.matrix @ vector
        norm = float(np.linalg.norm(moved))
        return (moved / norm).astype(np.float32) if norm > 1e-12 else vector

    def scores(
        self,
        question: tuple[np.ndarray, np.ndarray],
        texts: tuple[np.ndarray, np.ndarray],
        adapted: bool = True,
    ) -> np.ndarray:
        """The tool scores of ``texts`` (their MiniLM and e5 unit vectors, one row per text) for the
        ``question`` (its two unit vectors), read through the map when ``adapted`` (module docstring)."""
        joint = np.concatenate(question) / _ROOT2
        if adapted:
            joint = self.adapt(joint)
        split = question[0].shape[0]
        first, second = texts
        centred = second - self.e5_centre
        return _ROOT2 * (first @ joint[:split] + self.e5_weight * (centred @ joint[split:]))


@cache
def shipped_adapter() -> QueryAdapter | None:
    """The map in resources/routing/; None when it is missing, unreadable, not square or not finite
    (tools are then ranked by MiniLM alone)."""
    try:
        path = shipped_dir("resources") / "routing" / ADAPTER_FILE
        with np.load(path, allow_pickle=False) as data:
            matrix = np.asarray(data["matrix"], dtype=np.float32)
            embedders = tuple(str(name) for name in np.atleast_1d(data["embedders"]))
            tool_model = str(data["tool_model"])
            weight = float(data["e5_weight"])
            centre = np.asarray(data["e5_centre"], dtype=np.float32)
    except Exception as exc:  # noqa: BLE001 - a damaged file (a bad zip, a bad deflate stream, odd arrays) is no map
        log.warning("tool ranking reads questions without the query adapter: %s", exc)
        return None
    if (
        matrix.ndim != 2
        or matrix.shape[0] != matrix.shape[1]
        or not np.isfinite(matrix).all()
        or not math.isfinite(weight)
        or centre.ndim != 1
        or centre.shape[0] >= matrix.shape[0]
        or not np.isfinite(centre).all()
    ):
        log.warning("tool ranking reads questions without the query adapter: its matrix is malformed")
        return None
    return QueryAdapter(embedders, tool_model, weight, centre, matrix)


def query_adapter(embedder_name: str, tool_model: str, dimensions: tuple[int, int]) -> QueryAdapter | None:
    """The shipped map, if it was fitted for the MiniLM embedder named ``embedder_name`` beside the
    ``tool_model``, with vectors of ``dimensions`` (MiniLM's, the tool model's); None otherwise."""
    adapter = shipped_adapter()
    if (
        adapter is None
        or embedder_name not in adapter.embedders
        or tool_model != adapter.tool_model
        or adapter.matrix.shape[0] != sum(dimensions)
        or adapter.e5_centre.shape[0] != dimensions[1]
    ):
        return None
    return adapter
