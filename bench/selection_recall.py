"""How well the ranker finds a question's tool, and how well the router tells tool questions from chat
(issue 9's ``selection_recall_at_1`` / ``_at_5``, decision 7 and 11).

On the held-out half of the everyday set (tests/question_sets.py: 105 questions, 73 for a tool and 32
plain chat, over the built-in board and files servers and the reference everything, filesystem,
memory, time and git servers; 66 tools), the same run, the same embedding model:

  RESULT selection_recall_at_1 / _at_5          today's ranker
  RESULT selection_recall_at_1_<server>         the same, for the questions of one server's tools
  RESULT selection_recall_at_1_baseline / _at_5_baseline   the blend before issue 9 (one view of each
                                                 tool, BM25 on the question's words, no cues)
  RESULT routing_gate_accuracy                  needs_tool right on all held-out questions
  RESULT routing_gate_accuracy_tools / _chat    the same, tool questions / plain chat alone
  RESULT routing_chat_destructive_candidates    plain-chat questions routed to a tool that may
                                                 destroy something (must be 0)
  RESULT routing_candidates_recall              the right tool among the candidates, tool questions
  RESULT query_embedding_ms                     median of one question's embedding (MiniLM)
  RESULT query_embedding_e5_ms                  the same by e5, which tool ranking reads beside it
  RESULT ranking_ms                             median route() over the 66 tools, vectors warm,
                                                 without the question's embedding
  RESULT tools_embedding_ms                     embedding the 66 tools' two texts at a first start
  RESULT tools_embedding_minilm_alone_ms        the same by MiniLM alone (without e5)

and each figure with the suffix _calibration for the calibration half, the only one tuned on. One
line per calibration question follows (``--show heldout`` prints the held-out ones instead: to read,
never to tune on).

``--int8`` measures the model as the bundle ships it (every matrix int8 with a scale per row, see
agent/_embedding.py) instead of the fp32 weights of the installed package.

``--static`` measures the faster path issue 12 asks about instead: a static embedding (one vector per
token, averaged: ~0.2 ms a question instead of ~9) distilled from the same MiniLM the way model2vec does
it (each vocabulary token run through the model alone, its output mean-pooled), cached in build/bench/.

``--calibrate`` searches SMALL_TALK_WEIGHT and ROUTE_THRESHOLD on the calibration questions only and
prints the best pair (how agent/routing.py's constants were chosen).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.question_sets import QuestionSet, everyday  # noqa: E402

from edgehost.agent._bm25 import Bm25Index, terms  # noqa: E402
from edgehost.agent._e5_embedding import E5Embedder  # noqa: E402
from edgehost.agent._embedding import Embedder, MiniLMEmbedder  # noqa: E402
from edgehost.agent.approval import tool_risk  # noqa: E402
from edgehost.agent.ranking import (  # noqa: E402
    LEXICAL_SATURATION,
    LEXICAL_WEIGHT,
    BlendedRanker,
    EmbeddingRanker,
    LexicalRanker,
    described_text,
    lexical_document,
    semantic_text,
)
from edgehost.agent.routing import small_talk_examples  # noqa: E402
from edgehost.agent.selection import ToolSelector  # noqa: E402
from edgehost.agent.tools import ToolSpec  # noqa: E402
from edgehost.agent.vector_index import VectorIndex  # noqa: E402

REPEATS = 30


class BaselineBlend:
    """The ranker before issue 9: cosine with one view of each tool, plus the bounded BM25 bonus."""

    name = "baseline"

    def __init__(self, embedder: Embedder) -> None:
        self.index = VectorIndex(embedder)

    def scores(self, query: str, tools: Sequence[ToolSpec]) -> list[float]:
        meaning = self.index.similarities(query, [semantic_text(t) for t in tools])
        raw = Bm25Index([lexical_document(t) for t in tools]).scores(terms(query))
        return [
            float(m) + LEXICAL_WEIGHT * s / (s + LEXICAL_SATURATION)
            for m, s in zip(meaning, raw, strict=True)
        ]


def recall(ranker: object, questions: QuestionSet, k: int, server: str | None = None) -> float:
    """Share of the tool questions (of ``server``'s tools only, if given) with a right tool in the top k;
    a short follow-up that brings a new value is ranked with its previous question in front of it, as
    the router reads it first (``Question.as_routed``)."""
    asked = [q for q in questions.tool_questions if server is None or q.server == server]
    hits = 0
    for question in asked:
        scores = ranker.scores(question.as_routed, questions.tools)  # type: ignore[attr-defined]
        order = np.argsort(-np.asarray(scores), kind="stable")[:k]
        hits += any(questions.tools[i].name in question.tools for i in order)
    return hits / max(len(asked), 1)


def route_all(selector: ToolSelector, questions: QuestionSet) -> list[tuple[bool, tuple[str, ...]]]:
    async def run() -> list[tuple[bool, tuple[str, ...]]]:
        out = []
        for question in questions.questions:
            context = [question.previous] if question.previous else []
            decision = await selector.route(question.text, questions.tools, context=context)
            out.append((decision.needs_tool, tuple(t.name for t in decision.candidates)))
        return out

    return asyncio.run(run())


def gate_accuracy(
    decisions: list[tuple[bool, tuple[str, ...]]], questions: QuestionSet, kind: str = "all"
) -> float:
    pairs = [
        (needs, q)
        for (needs, _c), q in zip(decisions, questions.questions, strict=True)
        if kind == "all" or (kind == "tools") == bool(q.tools)
    ]
    return sum(needs == bool(q.tools) for needs, q in pairs) / max(len(pairs), 1)


def destructive_for_chat(decisions: list[tuple[bool, tuple[str, ...]]], questions: QuestionSet) -> int:
    """Plain-chat questions routed to a tool that may destroy something."""
    by_name = {t.name: t for t in questions.tools}
    return sum(
        any(tool_risk(by_name[name])[0] == "destructive" for name in candidates)
        for (_needs, candidates), q in zip(decisions, questions.questions, strict=True)
        if not q.tools
    )


def calibrate(ranker: BlendedRanker, questions: QuestionSet) -> None:
    """Grid search of the gate's constants for the best accuracy on ``questions`` (the calibration set)."""
    features = []
    for question in questions.questions:
        best = max(ranker.scores(question.text, questions.tools))
        chat = ranker.semantic.best_similarity(question.text, small_talk_examples())
        lexical = max(LexicalRanker().scores(question.text, questions.tools))
        features.append((best, chat, lexical, bool(question.tools)))
    found = (0.0, 0.0, 0.0, 0.0)
    for floor in np.arange(0.0, 0.3, 0.02):
        for weight in np.arange(0.0, 1.01, 0.1):
            for threshold in np.arange(-0.4, 0.6, 0.01):
                right = sum(
                    (b >= floor and b - weight * c >= threshold) == needs for b, c, _l, needs in features
                )
                if right / len(features) > found[0] + 1e-9:
                    found = (right / len(features), float(floor), float(weight), float(threshold))
    print(
        f"calibration: accuracy {found[0]:.3f} with MIN_TOOL_SCORE {found[1]:.2f},"
        f" SMALL_TALK_WEIGHT {found[2]:.1f} and ROUTE_THRESHOLD {found[3]:.2f}"
    )
    lexical = max(
        (sum((lx >= t) == needs for _b, _c, lx, needs in features) / len(features), float(t))
        for t in np.arange(0.0, 1.0, 0.02)
    )
    print(f"calibration, BM25 alone: accuracy {lexical[0]:.3f} with LEXICAL_ROUTE_THRESHOLD {lexical[1]:.2f}")


class StaticEmbedder:
    """Token vectors distilled from MiniLM (model2vec's method), averaged over a text's tokens."""

    name = "minilm-static"
    CACHE = REPO / "build" / "bench" / "minilm-static.npy"

    def __init__(self, model: MiniLMEmbedder) -> None:
        self._tokenizer = model._tokenizer
        if self.CACHE.exists():
            self._table = np.load(self.CACHE)
            return
        tokenizer, vocabulary = model._tokenizer, model._tokenizer.get_vocab_size()
        start, end = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        table = np.zeros((vocabulary, model.embed(["x"]).shape[1]), np.float32)
        for first in range(0, vocabulary, 1024):  # [CLS] token [SEP], 1024 tokens at a time (~80 s)
            ids = np.arange(first, min(vocabulary, first + 1024))
            batch = np.stack([np.full_like(ids, start), ids, np.full_like(ids, end)], axis=1)
            table[first : first + len(ids)] = model._forward(batch, np.ones_like(batch)).mean(axis=1)
        self.CACHE.parent.mkdir(parents=True, exist_ok=True)
        np.save(self.CACHE, table)
        self._table = table

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self._table.shape[1]), np.float32)
        for row, encoding in enumerate(self._tokenizer.encode_batch(list(texts), add_special_tokens=False)):
            if encoding.ids:
                rows[row] = self._table[encoding.ids].mean(axis=0)
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--calibrate", action="store_true", help="search the gate's constants on the calibration set"
    )
    parser.add_argument("--int8", action="store_true", help="the int8 model the bundle ships, not fp32")
    parser.add_argument("--static", action="store_true", help="token vectors distilled from the model")
    parser.add_argument("--minilm-alone", action="store_true", help="rank tools without e5 beside MiniLM")
    parser.add_argument("--show", choices=("calibration", "heldout"), default="calibration")
    args = parser.parse_args()
    model = MiniLMEmbedder.load(quantise=args.int8)
    embedder: Embedder = StaticEmbedder(model) if args.static else model
    print(f"embedding model: {embedder.name}")
    tool_model = None if args.minilm_alone else E5Embedder.load()
    ranker = BlendedRanker(EmbeddingRanker(VectorIndex(embedder, tool_model=tool_model)))
    held, calib = everyday("heldout"), everyday("calibration")
    if args.calibrate:
        calibrate(ranker, calib)
        return 0
    baseline = BaselineBlend(embedder)
    selector = ToolSelector(ranker)
    decided = {}
    for suffix, questions in (("", held), ("_calibration", calib)):
        print(f"RESULT selection_recall_at_1{suffix} {recall(ranker, questions, 1):.3f}")
        print(f"RESULT selection_recall_at_5{suffix} {recall(ranker, questions, 5):.3f}")
        for server in sorted({q.server for q in questions.tool_questions}):
            print(f"RESULT selection_recall_at_1_{server}{suffix} {recall(ranker, questions, 1, server):.3f}")
        print(f"RESULT selection_recall_at_1_baseline{suffix} {recall(baseline, questions, 1):.3f}")
        print(f"RESULT selection_recall_at_5_baseline{suffix} {recall(baseline, questions, 5):.3f}")
        decisions = decided[suffix] = route_all(selector, questions)
        for kind in ("all", "tools", "chat"):
            name = "routing_gate_accuracy" + ("" if kind == "all" else f"_{kind}")
            print(f"RESULT {name}{suffix} {gate_accuracy(decisions, questions, kind):.3f}")
        print(
            f"RESULT routing_chat_destructive_candidates{suffix} {destructive_for_chat(decisions, questions)}"
        )
        found = [
            any(name in q.tools for name in candidates)
            for (_needs, candidates), q in zip(decisions, questions.questions, strict=True)
            if q.tools
        ]
        print(f"RESULT routing_candidates_recall{suffix} {sum(found) / len(found):.3f}")

    embeds, e5_embeds, routes = [], [], []
    for index in range(REPEATS):
        text = f"{held.questions[index % len(held.questions)].text} ({index})"  # never the cached vector
        started = time.perf_counter()
        embedder.embed([text])
        embeds.append((time.perf_counter() - started) * 1000)
        if tool_model is not None:
            started = time.perf_counter()
            tool_model.embed_queries([text])
            e5_embeds.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        asyncio.run(selector.route(text, held.tools))
        routes.append((time.perf_counter() - started) * 1000)
    embed_ms = statistics.median(embeds)
    e5_ms = statistics.median(e5_embeds) if e5_embeds else 0.0
    # A first start embeds every tool's two texts (then they are read from the cache file).
    texts = [text for tool in held.tools for text in (semantic_text(tool), described_text(tool))]
    started = time.perf_counter()
    VectorIndex(embedder).prepare(texts)
    alone_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    VectorIndex(embedder, tool_model=tool_model).prepare(texts)
    print(f"RESULT tools_embedding_ms {(time.perf_counter() - started) * 1000:.0f}")
    print(f"RESULT tools_embedding_minilm_alone_ms {alone_ms:.0f}")
    print(f"RESULT query_embedding_ms {embed_ms:.2f}")
    print(f"RESULT query_embedding_e5_ms {e5_ms:.2f}")
    print(f"RESULT ranking_ms {max(statistics.median(routes) - embed_ms - e5_ms, 0.0):.2f}")
    shown = held if args.show == "heldout" else calib
    for (needs, candidates), q in zip(
        decided["" if args.show == "heldout" else "_calibration"], shown.questions, strict=True
    ):
        right = needs == bool(q.tools) and (not q.tools or candidates[0] in q.tools)
        expected = ", ".join(q.tools) or "no tool"
        print(f"{'ok ' if right else 'BAD'} {q.text!r} -> {', '.join(candidates) or 'no tool'}  [{expected}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
