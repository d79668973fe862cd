"""The query adapter (agent/query_adapter.py): how tool ranking reads a question, with the real MiniLM and
the shipped map, fitted by bench/fit_query_adapter.py on the calibration questions only."""

from __future__ import annotations

import numpy as np
import pytest
from tests.question_sets import QuestionSet, everyday

from edgehost.agent import query_adapter
from edgehost.agent._embedding import MiniLMEmbedder
from edgehost.agent.ranking import BlendedRanker, EmbeddingRanker
from edgehost.agent.vector_index import VectorIndex


@pytest.fixture(scope="module")
def everyday_calibration() -> QuestionSet:
    return everyday("calibration")


class Unfitted:
    """The same MiniLM under a name the map was not fitted for: it reads questions as they are."""

    name = "minilm-unfitted"

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner

    def embed(self, texts):
        return self.inner.embed(texts)


class FlagSpy:
    """A real index, recording the ``adapted`` flag of each similarities call."""

    def __init__(self, inner: VectorIndex) -> None:
        self.inner = inner
        self.name = inner.name
        self.flags: list[bool] = []

    def similarities(self, query, texts, keep=True, adapted=False):
        self.flags.append(adapted)
        return self.inner.similarities(query, texts, keep, adapted)

    def projections(self, query, directions):
        return self.inner.projections(query, directions)


def recall_at_1(semantic: EmbeddingRanker, questions: QuestionSet) -> float:
    ranker = BlendedRanker(semantic)
    hits = 0
    for question in questions.tool_questions:
        scores = ranker.scores(question.as_routed, questions.tools)
        hits += questions.tools[int(np.argmax(scores))].name in question.tools
    return hits / len(questions.tool_questions)


def test_the_shipped_map_ranks_the_calibration_questions_tools_first(minilm, everyday_calibration) -> None:
    # What the map was fitted for; bench/selection_recall.py reports the held-out half (0.62 -> 0.73).
    index = VectorIndex(minilm)
    without = recall_at_1(EmbeddingRanker(index, adapted=False), everyday_calibration)
    with_map = recall_at_1(EmbeddingRanker(index), everyday_calibration)
    assert with_map > without  # measured 0.67 without
    assert with_map >= 0.95  # measured 1.0


def test_only_tool_ranking_reads_the_adapted_question(minilm, everyday_calibration) -> None:
    index = VectorIndex(minilm)
    texts = ["create entities: Create multiple new entities in the knowledge graph", "thanks a lot!"]
    question = "Commit this to memory: my bike lock code is 4512."
    plain = index.similarities(question, texts)
    assert plain == pytest.approx(
        [float(v) for v in minilm.embed(texts) @ minilm.embed([question])[0]], abs=1e-5
    )
    assert index.similarities(question, texts, adapted=True) != pytest.approx(plain, abs=1e-3)
    assert index.similarities(question, texts) == plain  # the kept vector is the question's own

    spy = FlagSpy(index)
    semantic = EmbeddingRanker(spy)  # type: ignore[arg-type]
    semantic.scores(question, everyday_calibration.tools)
    assert spy.flags == [True]
    semantic.best_similarity(question, ["thanks a lot!"])  # the small-talk gate
    semantic.asks_for_a_task(question)  # the question probe (projections)
    assert spy.flags == [True, False]


def test_an_embedder_the_map_was_not_fitted_for_reads_questions_as_they_are(minilm) -> None:
    index = VectorIndex(Unfitted(minilm))
    texts = ["read graph: Read the entire knowledge graph"]
    assert index.similarities("dump your whole memory", texts, adapted=True) == index.similarities(
        "dump your whole memory", texts
    )


@pytest.mark.parametrize(
    "content",
    [b"not a zip file", None],
    ids=["damaged", "missing"],
)
def test_a_damaged_or_missing_map_leaves_ranking_as_it_was(tmp_path, monkeypatch, content) -> None:
    (tmp_path / "routing").mkdir()
    if content is not None:
        (tmp_path / "routing" / query_adapter.ADAPTER_FILE).write_bytes(content)
    monkeypatch.setattr(query_adapter, "shipped_dir", lambda _name: tmp_path)
    query_adapter.shipped_adapter.cache_clear()
    try:
        assert query_adapter.query_adapter("minilm-cpu", 384) is None
    finally:
        query_adapter.shipped_adapter.cache_clear()


@pytest.mark.parametrize(
    "matrix", [np.zeros((8, 4)), np.full((8, 8), np.nan)], ids=["not-square", "not-finite"]
)
def test_a_malformed_map_is_not_used(tmp_path, monkeypatch, matrix) -> None:
    (tmp_path / "routing").mkdir()
    np.savez(
        tmp_path / "routing" / query_adapter.ADAPTER_FILE, matrix=matrix, embedders=np.array(["minilm-cpu"])
    )
    monkeypatch.setattr(query_adapter, "shipped_dir", lambda _name: tmp_path)
    query_adapter.shipped_adapter.cache_clear()
    try:
        assert query_adapter.shipped_adapter() is None
    finally:
        query_adapter.shipped_adapter.cache_clear()


def test_a_map_of_other_dimensions_is_not_used(tmp_path, monkeypatch) -> None:
    (tmp_path / "routing").mkdir()
    np.savez(
        tmp_path / "routing" / query_adapter.ADAPTER_FILE,
        matrix=np.zeros((8, 8), np.float16),
        embedders=np.array(["minilm-cpu"]),
    )
    monkeypatch.setattr(query_adapter, "shipped_dir", lambda _name: tmp_path)
    query_adapter.shipped_adapter.cache_clear()
    try:
        assert query_adapter.shipped_adapter() is not None
        assert query_adapter.query_adapter("minilm-cpu", 384) is None
        assert query_adapter.query_adapter("minilm-cpu", 8) is not None
    finally:
        query_adapter.shipped_adapter.cache_clear()
