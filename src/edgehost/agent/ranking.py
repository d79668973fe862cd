"""Ranking tools for a question: BM25 (always available), sentence embeddings (all-MiniLM-L6-v2 on
the CPU or the NPU) blended with BM25, and the question's cues (agent/_query_cues.py) with their
fitted weighing against each tool's kind (agent/fitted_cues.py).

For the host the embedder runs in a process of its own (agent/ranking_process.py), so this module and
the GUI process need no numpy. agent/selection.py decides from these scores which tools a turn shows.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from edgehost.agent._bm25 import Bm25Index, terms
from edgehost.agent._query_cues import (
    acts_on_existing,
    argument_fit,
    asks_for_change,
    asks_something,
    deletes,
    expanded_terms,
    question_cues,
    speaks_of_kept,
)
from edgehost.agent.fitted_cues import fitted_cue_bonus
from edgehost.agent.question_probe import task_probe
from edgehost.agent.tools import ToolSpec
from edgehost.agent.typed_words import as_meant
from edgehost.agent.typed_words import prepare as prepare_reading

__all__ = [
    "ARGUMENT_WEIGHT",
    "CAUTION_WEIGHT",
    "LEXICAL_SATURATION",
    "LEXICAL_WEIGHT",
    "BlendedRanker",
    "EmbeddingRanker",
    "LexicalRanker",
    "RankerChoice",
    "SimilarityIndex",
    "ToolRanker",
    "described_text",
    "kept_bonus",
    "lexical_document",
    "load_ranker",
    "ordered",
    "rank_tools",
    "semantic_text",
]

# BM25 is added as a bounded bonus: score / (score + K) * WEIGHT. Meaning decides, an exact word
# (a tool's own name in the question) tips the balance. Chosen a priori, checked on the question set.
LEXICAL_SATURATION = 5.0
LEXICAL_WEIGHT = 0.15
# The question's cues (agent/_query_cues.py), per typed argument it can fill or lacks, and against a
# tool that may change something when the question asks for no change. Chosen on the calibration
# questions (tests/fixtures/tool_queries/), for the best recall@1 there.
ARGUMENT_WEIGHT = 0.05
CAUTION_WEIGHT = 0.05
# A request that speaks of something already kept, for a tool that changes what exists ("add to her
# entry" is add_observations, not create_entities). Chosen with the query map fitted without each
# calibration set in turn (bench/fit_query_adapter.py's blocks): 0.2 ranked 6 more of the 491 tool
# questions of calibration_more first than 0.05 did (memory's 148 questions over every set: 100
# against 95) and none fewer on any set; 0.3 lost one of the earlier set's.
KEPT_WEIGHT = 0.2


class ToolRanker(Protocol):
    name: str

    def scores(self, query: str, tools: Sequence[ToolSpec]) -> list[float]:
        """One relevance score per tool, in order; higher is better."""
        ...

    def prepare(self, tools: Sequence[ToolSpec]) -> None:
        """Do the per-tool work ahead of the first question (embed the tools); blocking."""
        ...


@functools.lru_cache(maxsize=4096)
def lexical_document(tool: ToolSpec) -> tuple[str, ...]:
    """What BM25 indexes of a tool: its name, title, description and argument names as terms."""
    return (
        *terms(tool.name),
        *terms(tool.title or ""),
        *terms(tool.description),
        *(w for a in tool.properties for w in terms(a)),
    )


@functools.lru_cache(maxsize=4096)
def semantic_text(tool: ToolSpec) -> str:
    """What the embedding model reads for a tool: its name as words, then its description."""
    words = " ".join(terms(tool.name.replace("__", " ")))
    return f"{words}: {tool.title + '. ' if tool.title else ''}{tool.description}"


@functools.lru_cache(maxsize=4096)
def described_text(tool: ToolSpec) -> str:
    """A second view of a tool for the embedding model: its server, name, description and arguments
    with their descriptions (what a question's details match)."""
    words = " ".join(terms(tool.tool_name))
    arguments = "; ".join(
        f"{name}: {schema.get('description', '')}" if isinstance(schema, Mapping) else name
        for name, schema in tool.properties.items()
    )
    title = f"{tool.title}. " if tool.title else ""
    return f"{tool.server}: {words}. {title}{tool.description} Arguments: {arguments}"


def cue_bonus(query: str, tools: Sequence[ToolSpec]) -> list[float]:
    """What the question's argument values and verbs add to each tool's score (agent/_query_cues.py)."""
    change = asks_for_change(query)
    kept = change and speaks_of_kept(query)
    cues = question_cues(query)
    return [
        ARGUMENT_WEIGHT * argument_fit(cues, tool)
        - (CAUTION_WEIGHT if not change and tool.hint("readOnlyHint") is not True else 0.0)
        + (KEPT_WEIGHT if kept and acts_on_existing(tool) else 0.0)
        for tool in tools
    ]


def kept_bonus(query: str, tools: Sequence[ToolSpec], keeping: frozenset[str]) -> list[float]:
    """What naming a thing a server keeps (``keeping``: those servers, agent/kept_names.py) adds to
    each tool: KEPT_WEIGHT to their tools that act on what exists, where the question states
    something or asks for a change ("Alice also has a cat named Miso" of a kept Alice is
    add_observations, not create_entities, which would skip Alice and lose the fact), and cue_bonus
    has not given it already. A statement that asks for no change adds, it does not delete; a question
    of it ("What do you know about Alice?") looks it up."""
    if not keeping:
        return [0.0] * len(tools)
    change = asks_for_change(query)
    if (change and speaks_of_kept(query)) or (asks_something(query) and not change):
        return [0.0] * len(tools)
    return [
        KEPT_WEIGHT if t.server in keeping and acts_on_existing(t) and (change or not deletes(t)) else 0.0
        for t in tools
    ]


class LexicalRanker:
    """BM25 over the question's words and the tool verbs they stand for, saturated to [0, 1), plus the
    question's cues (cue_bonus)."""

    name = "bm25"

    def __init__(self) -> None:
        self._index: tuple[tuple[ToolSpec, ...], Bm25Index] | None = None  # the last tool set's

    def scores(self, query: str, tools: Sequence[ToolSpec]) -> list[float]:
        query = as_meant(query, tools)
        return [s + bonus for s, bonus in zip(self.words(query, tools), cue_bonus(query, tools), strict=True)]

    def words(self, query: str, tools: Sequence[ToolSpec]) -> list[float]:
        """BM25 alone, saturated: a question sharing no word (or verb) with a tool scores 0."""
        raw = self.index(tools).scores(expanded_terms(query))
        return [s / (s + LEXICAL_SATURATION) for s in raw]

    def index(self, tools: Sequence[ToolSpec]) -> Bm25Index:
        """The BM25 index of ``tools``, built again only when the tool set changed."""
        key = tuple(tools)
        if self._index is None or self._index[0] != key:
            self._index = (key, Bm25Index([lexical_document(t) for t in tools]))
        return self._index[1]

    def prepare(self, tools: Sequence[ToolSpec]) -> None:
        self.index(tools)
        prepare_reading(tools)


class SimilarityIndex(Protocol):
    """Sentence-embedding similarity of texts to a question: agent/vector_index.VectorIndex here, or the
    same in the ranking process (agent/ranking_process.RankingProcess). Raise EmbeddingUnavailable when
    the embedder stops working."""

    name: str

    @property
    def tool_model_name(self) -> str:
        """The second model tool ranking reads (agent/_e5_embedding.py); "" when there is none."""
        ...

    def prepare(self, texts: Sequence[str]) -> None: ...

    def anticipate(self, query: str) -> None: ...

    def similarities(self, query: str, texts: Sequence[str], keep: bool = True) -> list[float]: ...

    def tool_similarities(self, query: str, texts: Sequence[str], adapted: bool = True) -> list[float]: ...

    def projections(
        self, query: str, directions: Sequence[Sequence[float]], joint: bool = False
    ) -> list[float]: ...

    def close(self) -> None: ...


class EmbeddingRanker:
    """Sentence-embedding similarity, the mean over two views of each tool (semantic_text,
    described_text), by both models with the question read through the query adapter
    (agent/query_adapter.py)."""

    def __init__(self, index: SimilarityIndex, adapted: bool = True) -> None:
        """``adapted=False`` reads questions as they are, without the map (to measure what it does)."""
        self.index = index
        self.name = f"embedding:{index.name}"
        self.adapted = adapted

    @staticmethod
    def _texts(tools: Sequence[ToolSpec]) -> list[str]:
        return [semantic_text(t) for t in tools] + [described_text(t) for t in tools]

    def prepare(self, tools: Sequence[ToolSpec]) -> None:
        self.index.prepare(self._texts(tools))

    def scores(self, query: str, tools: Sequence[ToolSpec]) -> list[float]:
        if not tools:
            return []
        both = self.index.tool_similarities(query, self._texts(tools), adapted=self.adapted)
        return [
            (named + described) / 2
            for named, described in zip(both[: len(tools)], both[len(tools) :], strict=True)
        ]

    def best_similarity(self, query: str, texts: Sequence[str]) -> float:
        """The closest of ``texts`` to ``query`` (the small-talk examples' gate)."""
        return max(self.index.similarities(query, texts), default=0.0)

    def asks_for_a_task(self, query: str) -> float | None:
        """How likely ``query`` asks for something done or looked up rather than for a chat
        (agent/question_probe.py), 0 to 1; None when no probe fits this embedding model."""
        probe = task_probe(self.index.name)
        if probe is None or probe.tool_model not in ("", self.index.tool_model_name):
            return None
        try:
            [projection] = self.index.projections(query, [probe.weights], joint=bool(probe.tool_model))
        except ValueError:  # weights of another length than this model's vectors: no probe
            return None
        return probe.probability(projection)


class BlendedRanker:
    """Embedding similarity plus a bounded BM25 bonus, the question's cues and their fitted weighing
    (agent/fitted_cues.py)."""

    def __init__(
        self,
        semantic: EmbeddingRanker,
        lexical: LexicalRanker | None = None,
        lexical_weight: float = LEXICAL_WEIGHT,
    ) -> None:
        self.semantic = semantic
        self.lexical = lexical or LexicalRanker()
        self.lexical_weight = lexical_weight
        self.name = f"{semantic.name}+{self.lexical.name}"
        # The last question's scores: routing and selecting a turn rank the same tools once.
        self._last: tuple[str, tuple[tuple[ToolSpec, ...], str | None], list[float]] | None = None

    def prepare(self, tools: Sequence[ToolSpec]) -> None:
        self.semantic.prepare(tools)
        self.lexical.prepare(tools)

    def scores(self, query: str, tools: Sequence[ToolSpec], form: str | None = None) -> list[float]:
        """``form``: the text whose form the fitted cues weigh when it is not ``query``. A follow-up
        read with the previous question ("Lena is Max's sister, record that. She lives in Oslo.")
        takes its meaning from both and its form from what is asked now: the possessive and the pair
        of names belong to the turn already answered, and weighed again they send "She lives in Oslo"
        to create_relations instead of add_observations."""
        form = None if form == query else form
        key = (tuple(tools), form)
        if self._last is not None and self._last[0] == query and self._last[1] == key:
            return list(self._last[2])
        # Misspelt words read as the words they stand for (agent/typed_words.py).
        meant = as_meant(query, tools)
        base = [
            s + self.lexical_weight * lex + bonus
            for s, lex, bonus in zip(
                self.semantic.scores(meant, tools),
                self.lexical.words(meant, tools),
                cue_bonus(meant, tools),
                strict=True,
            )
        ]
        weighed = [
            b + f
            for b, f in zip(
                base, fitted_cue_bonus(meant if form is None else as_meant(form, tools), tools), strict=True
            )
        ]
        # The fitted cues choose among the tools; how well the best one fits is not theirs to say. The
        # routing gate reads the best score, so it stays the best of ``base``: less the mean, the bonus
        # still raised the best tool's score and let plain chat through the gate.
        shift = max(base, default=0.0) - max(weighed, default=0.0)
        scores = [w + shift for w in weighed]
        self._last = (query, key, scores)
        return list(scores)


@dataclass(frozen=True)
class RankerChoice:
    ranker: ToolRanker
    # Why this ranker and not a better one ("unavailable: rknn-toolkit-lite2 is not installed ..."),
    # empty when the preferred one loaded.
    reasons: tuple[str, ...] = ()


def load_ranker(
    *,
    npu_model: Path | None = None,
    npu_core_mask: str = "core2",
    embeddings: bool = True,
    cache_dir: Path | None = None,
    own_process: bool = False,
    log_file: Path | None = None,
) -> RankerChoice:
    """The best ranker this machine can run: the embedding model on the NPU when `npu_model` is given
    and works, else on the CPU, each blended with BM25; else BM25 alone. Never raises; what was skipped
    is in `reasons`. With `cache_dir`, tool embeddings are kept there across restarts (one file per
    embedding model), and the CPU model is the int8 one (_embedding.int8_source).

    `own_process` (needs `cache_dir`) runs the embedder in the ranking process (agent/ranking_process.py,
    its stderr to `log_file`), as the host does; else it is loaded here, which imports numpy. Either takes
    0.1-1 s: do it once and keep the ranker.
    """
    if not embeddings:
        return RankerChoice(LexicalRanker(), ("embeddings are turned off",))
    index: SimilarityIndex | None
    if own_process and cache_dir is not None:
        from edgehost.agent.ranking_process import RankingProcess

        index, reasons = RankingProcess.start(
            cache_dir=cache_dir, npu_model=npu_model, npu_core_mask=npu_core_mask, log_file=log_file
        )
    else:
        from edgehost.agent.vector_index import open_index

        index, reasons = open_index(npu_model=npu_model, npu_core_mask=npu_core_mask, cache_dir=cache_dir)
    if index is None:
        return RankerChoice(LexicalRanker(), reasons)
    return RankerChoice(BlendedRanker(EmbeddingRanker(index)), reasons)


def ordered(tools: Sequence[ToolSpec], scores: Sequence[float]) -> list[int]:
    # Stable: equal scores keep the catalog's order.
    return sorted(range(len(tools)), key=lambda i: -scores[i])


def rank_tools(
    query: str, tools: Sequence[ToolSpec], top: int | None = None, *, ranker: ToolRanker | None = None
) -> list[ToolSpec]:
    """The tools best first for `query` (the first `top` when given).

    Without `ranker`, loads the best one available (see load_ranker), which takes about a second.
    """
    if not tools:
        return []
    chosen = ranker or load_ranker().ranker
    order = ordered(tools, chosen.scores(query, tools))
    if top is not None:
        order = order[: max(top, 0)]
    return [tools[i] for i in order]
