"""The query adapter (agent/query_adapter.py): how tool ranking reads a question, with the real MiniLM and
e5 and the shipped map, fitted by bench/fit_query_adapter.py on the calibration questions only."""

from __future__ import annotations

import numpy as np
import pytest
from tests.question_sets import QuestionSet, everyday

from edgehost.agent import query_adapter
from edgehost.agent._embedding import MiniLMEmbedder
from edgehost.agent.ranking import BlendedRanker, EmbeddingRanker
from edgehost.agent.vector_index import VectorIndex

# The fields of a map file beside its matrix (bench/fit_query_adapter.py writes them).
FIELDS = {
    "embedders": np.array(["minilm-cpu"]),
    "tool_model": np.array("e5-small-q4"),
    "e5_weight": np.array(2.0),
    "e5_centre": np.full(4, 0.1),  # e5 half of the 8 dimensions the tests map
}


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


class CallSpy:
    """A real index, recording which reading each call asks for."""

    def __init__(self, inner: VectorIndex) -> None:
        self.inner = inner
        self.name = inner.name
        self.tool_model_name = inner.tool_model_name
        self.calls: list[str] = []

    def similarities(self, query, texts, keep=True):
        self.calls.append("plain")
        return self.inner.similarities(query, texts, keep)

    def tool_similarities(self, query, texts, adapted=True):
        self.calls.append("tools, adapted" if adapted else "tools")
        return self.inner.tool_similarities(query, texts, adapted)

    def projections(self, query, directions, joint=False):
        return self.inner.projections(query, directions, joint)


def recall_at_1(semantic: EmbeddingRanker, questions: QuestionSet) -> float:
    ranker = BlendedRanker(semantic)
    hits = 0
    for question in questions.tool_questions:
        scores = ranker.scores(question.as_routed, questions.tools)
        hits += questions.tools[int(np.argmax(scores))].name in question.tools
    return hits / len(questions.tool_questions)


def test_the_shipped_map_ranks_the_calibration_questions_tools_first(
    ranking_index, everyday_calibration
) -> None:
    # What the map was fitted for; bench/selection_recall.py reports the held-out half.
    without = recall_at_1(EmbeddingRanker(ranking_index, adapted=False), everyday_calibration)
    with_map = recall_at_1(EmbeddingRanker(ranking_index), everyday_calibration)
    assert with_map > without  # measured 0.70 without
    assert with_map >= 0.95  # measured 0.986


def test_only_tool_ranking_reads_both_models_and_the_map(
    minilm, e5, ranking_index, everyday_calibration
) -> None:
    texts = ["create entities: Create multiple new entities in the knowledge graph", "thanks a lot!"]
    question = "Commit this to memory: my bike lock code is 4512."
    plain = ranking_index.similarities(question, texts)
    assert plain == pytest.approx(
        [float(v) for v in minilm.embed(texts) @ minilm.embed([question])[0]], abs=1e-5
    )
    adapter = query_adapter.shipped_adapter()
    assert adapter is not None
    joint = (minilm.embed([question])[0], e5.embed_queries([question])[0])
    assert ranking_index.tool_similarities(question, texts, adapted=False) == pytest.approx(
        adapter.scores(joint, (minilm.embed(texts), e5.embed(texts)), adapted=False), abs=1e-4
    )
    assert ranking_index.tool_similarities(question, texts) != pytest.approx(
        ranking_index.tool_similarities(question, texts, adapted=False), abs=1e-3
    )
    assert ranking_index.similarities(question, texts) == plain  # the kept vector is the question's own

    spy = CallSpy(ranking_index)
    semantic = EmbeddingRanker(spy)  # type: ignore[arg-type]
    semantic.scores(question, everyday_calibration.tools)
    assert spy.calls == ["tools, adapted"]
    semantic.best_similarity(question, ["thanks a lot!"])  # the small-talk gate
    semantic.asks_for_a_task(question)  # the question probe (projections)
    assert spy.calls == ["tools, adapted", "plain"]


def test_e5_scores_stay_near_minilm_scale(minilm, ranking_index, everyday_calibration) -> None:
    # The routing gate's floors and the selection margins are cosines of MiniLM's scale: e5's centre keeps
    # the joint score's level there (agent/query_adapter.py).
    texts = [f"{t.name}: {t.description}" for t in everyday_calibration.tools]
    alone = VectorIndex(minilm)
    gaps = [
        np.mean(ranking_index.tool_similarities(q.text, texts, adapted=False))
        - np.mean(alone.similarities(q.text, texts))
        for q in everyday_calibration.tool_questions[:20]
    ]
    assert abs(float(np.mean(gaps))) < 0.1  # measured 0.01


def test_an_embedder_the_map_was_not_fitted_for_reads_questions_as_they_are(minilm, e5) -> None:
    index = VectorIndex(Unfitted(minilm), tool_model=e5)
    texts = ["read graph: Read the entire knowledge graph"]
    assert index.tool_similarities("dump your whole memory", texts) == index.similarities(
        "dump your whole memory", texts
    )


def test_an_index_without_e5_ranks_tools_by_minilm_alone(minilm) -> None:
    index = VectorIndex(minilm)
    texts = ["read graph: Read the entire knowledge graph", "get current time: the time in a timezone"]
    for adapted in (True, False):
        assert index.tool_similarities("dump your whole memory", texts, adapted) == index.similarities(
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
        assert query_adapter.query_adapter("minilm-cpu", "e5-small-q4", (384, 384)) is None
    finally:
        query_adapter.shipped_adapter.cache_clear()


@pytest.mark.parametrize(
    "matrix", [np.zeros((8, 4)), np.full((8, 8), np.nan)], ids=["not-square", "not-finite"]
)
def test_a_malformed_map_is_not_used(tmp_path, monkeypatch, matrix) -> None:
    (tmp_path / "routing").mkdir()
    np.savez(tmp_path / "routing" / query_adapter.ADAPTER_FILE, matrix=matrix, **FIELDS)
    monkeypatch.setattr(query_adapter, "shipped_dir", lambda _name: tmp_path)
    query_adapter.shipped_adapter.cache_clear()
    try:
        assert query_adapter.shipped_adapter() is None
    finally:
        query_adapter.shipped_adapter.cache_clear()


def test_a_map_of_other_dimensions_is_not_used(tmp_path, monkeypatch) -> None:
    (tmp_path / "routing").mkdir()
    np.savez(tmp_path / "routing" / query_adapter.ADAPTER_FILE, matrix=np.zeros((8, 8), np.float16), **FIELDS)
    monkeypatch.setattr(query_adapter, "shipped_dir", lambda _name: tmp_path)
    query_adapter.shipped_adapter.cache_clear()
    try:
        assert query_adapter.shipped_adapter() is not None
        assert query_adapter.query_adapter("minilm-cpu", "e5-small-q4", (384, 384)) is None
        assert query_adapter.query_adapter("minilm-cpu", "e5-small-q4", (4, 4)) is not None
        assert query_adapter.query_adapter("minilm-cpu", "e5-small-q4", (5, 3)) is None  # the centre is e5's
        assert query_adapter.query_adapter("minilm-cpu", "another-model", (4, 4)) is None
    finally:
        query_adapter.shipped_adapter.cache_clear()
