"""Fit the weighing of a question's form against each tool's kind (agent/fitted_cues.py) on the
calibration questions only.

Writes resources/routing/cue_weights.json: a matrix ``W`` (question features x tool features) such
that a tool's score gains ``q · W · t`` less the mean over the tools offered. ``W`` minimises, over the
calibration tool questions (the same as bench/fit_query_adapter.py's: the calibration half of the
everyday set, the earlier sets and calibration_more.json, each ranked over its own set's tools), the
softmax loss of the right tool on the ranker's whole score (the embedding part read through the
shipped query map, the lexical part, the hand-set cues) plus the bonus, with an L2 penalty. The
held-out half of tests/fixtures/everyday_questions/ is never read.

  RESULT cue_weights_cv_recall_at_1_all_sets      every calibration question, ranked by a query map
                                                  and weights both fitted without its fold
                                                  (fit_query_adapter's folds)
  RESULT cue_weights_cv_recall_at_1_without       the same questions by that map without the bonus
  RESULT cue_weights_cv_recall_at_1_<server>      / _without_<server>: the questions of one server's
                                                  tools (memory, git, files ...)

Run it after bench/fit_query_adapter.py writes a new map: the weights are fitted on top of it. Takes
about six minutes.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from tests.question_sets import QuestionSet, calibration, calibration_more, evaluation, everyday  # noqa: E402

from edgehost.agent._e5_embedding import E5Embedder  # noqa: E402
from edgehost.agent._embedding import MiniLMEmbedder  # noqa: E402
from edgehost.agent.fitted_cues import (  # noqa: E402
    CUE_WEIGHTS_FILE,
    QUESTION_FEATURES,
    TOOL_FEATURES,
    question_features,
    tool_features,
)
from edgehost.agent.query_adapter import ADAPTER_FILE  # noqa: E402
from edgehost.agent.typed_words import as_meant  # noqa: E402
from fit_query_adapter import (  # noqa: E402
    SHARPNESS,
    Block,
    block,
    fitted_without_each_fold,
    ranked_questions,
    scores,
    split_in_folds,
)

OUTPUT = REPO / "resources" / "routing" / CUE_WEIGHTS_FILE
ADAPTER = REPO / "resources" / "routing" / ADAPTER_FILE
STEPS = 300
LEARNING_RATE = 0.05
L2 = 0.01


@dataclass
class Part:
    """One set's tool questions: the ranker's score without the bonus, and both sides' features."""

    base: np.ndarray  # n x m
    questions: np.ndarray  # n x a: question_features
    tools: np.ndarray  # m x b: tool_features less their mean over the set's tools
    right: np.ndarray  # n x m
    servers: list[str]  # n: the server of each question's right tool

    def take(self, rows: np.ndarray) -> Part:
        return Part(
            self.base[rows],
            self.questions[rows],
            self.tools,
            self.right[rows],
            [self.servers[i] for i in rows],
        )

    def totals(self, weights: np.ndarray) -> np.ndarray:
        return self.base + self.questions @ weights @ self.tools.T

    def hits(self, weights: np.ndarray) -> np.ndarray:
        total = self.totals(weights)
        return self.right[np.arange(len(total)), total.argmax(axis=1)] > 0


def part(base: np.ndarray, plain: Block, questions: QuestionSet) -> Part:
    """``questions``' tool questions, scored ``base`` without the bonus."""
    tools = questions.tools
    features = np.array([tool_features(t) for t in tools])
    asked = ranked_questions(questions)
    by_name = {t.name: t.server for t in tools}
    return Part(
        base,
        np.array([question_features(as_meant(q.as_routed, tools)) for q in asked]),
        features - features.mean(axis=0),
        plain.right,
        [by_name.get(next(iter(sorted(q.tools)), ""), "") for q in asked],
    )


def fit(parts: list[Part]) -> np.ndarray:
    """The weights minimising the softmax loss of the right tools over ``parts``, with L2."""
    weights = np.zeros((parts[0].questions.shape[1], len(TOOL_FEATURES)))
    count = sum(len(p.base) for p in parts)
    for _ in range(STEPS):
        gradient = np.zeros_like(weights)
        for p in parts:
            logits = SHARPNESS * p.totals(weights)
            e = np.exp(logits - logits.max(axis=1, keepdims=True))
            e /= e.sum(axis=1, keepdims=True)
            on_right = e * p.right
            d_logits = SHARPNESS * (e - on_right / on_right.sum(axis=1, keepdims=True))
            gradient += p.questions.T @ d_logits @ p.tools
        weights -= LEARNING_RATE * (gradient / count + L2 * weights)
    return weights


def cross_validated(
    by_fold: list[list[Part]], folds: list[list[np.ndarray]]
) -> tuple[np.ndarray, np.ndarray]:
    """Whether each question's right tool ranks first with weights fitted without its fold, and
    without weights. For fold k every part's scores are those of the query map fitted without fold k
    (``by_fold[k]``): the weights are fitted, as in use, on the scores of questions the map was fitted
    on, and judged on questions neither saw."""
    found = [np.zeros(len(p.base), bool) for p in by_fold[0]]
    without = [np.zeros(len(p.base), bool) for p in by_fold[0]]
    zero = np.zeros((len(QUESTION_FEATURES), len(TOOL_FEATURES)))
    for k, parts in enumerate(by_fold):
        rows = [f[k] for f in folds]
        kept = [np.setdiff1d(np.arange(len(p.base)), r) for p, r in zip(parts, rows, strict=True)]
        weights = fit([p.take(keep) for p, keep in zip(parts, kept, strict=True)])
        for p, r, out, plain in zip(parts, rows, found, without, strict=True):
            out[r] = p.take(r).hits(weights)
            plain[r] = p.take(r).hits(zero)
    return np.concatenate(found), np.concatenate(without)


def load_parts() -> tuple[list[Part], list[list[Part]], list[list[np.ndarray]]]:
    """Each calibration set's part scored by the shipped map, the same scored by the map fitted without
    each of bench/fit_query_adapter.py's folds, and the sets' rows cut in those folds."""
    model, e5 = MiniLMEmbedder.load(), E5Embedder.load()
    sets = [everyday("calibration"), calibration(), evaluation(), calibration_more()]
    blocks = [block(model, e5, s, own=i == 0) for i, s in enumerate(sets)]
    folds = split_in_folds(blocks)
    with np.load(ADAPTER, allow_pickle=False) as shipped:
        weight, l2, matrix = float(shipped["e5_weight"]), float(shipped["l2"]), shipped["matrix"]
    weighted = [b.weighted(weight) for b in blocks]
    maps = [m for _rows, m in fitted_without_each_fold(weighted, folds, l2)]

    def parts(matrix: np.ndarray) -> list[Part]:
        return [part(scores(matrix, b)[0], b, s) for b, s in zip(weighted, sets, strict=True)]

    return parts(matrix.astype(np.float64)), [parts(m) for m in maps], folds


def main() -> int:
    parts, by_fold, folds = load_parts()
    cv, without = cross_validated(by_fold, folds)
    servers = [s for p in parts for s in p.servers]
    print(f"RESULT cue_weights_cv_recall_at_1_all_sets {cv.mean():.3f}")
    print(f"RESULT cue_weights_cv_recall_at_1_without {without.mean():.3f}")
    by_server: dict[str, list[int]] = defaultdict(list)
    for i, server in enumerate(servers):
        by_server[server].append(i)
    for server, rows in sorted(by_server.items()):
        print(f"RESULT cue_weights_cv_recall_at_1_{server} {cv[rows].mean():.3f} ({len(rows)} questions)")
        print(f"RESULT cue_weights_cv_recall_at_1_without_{server} {without[rows].mean():.3f}")
    weights = fit(parts)
    OUTPUT.write_text(
        json.dumps(
            {
                "question_features": list(QUESTION_FEATURES),
                "tool_features": list(TOOL_FEATURES),
                "weights": [[round(float(w), 4) for w in row] for row in weights],
                "l2": L2,
                "trained_on": len(servers),
                "cv_recall_at_1_all_sets": round(float(cv.mean()), 3),
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {OUTPUT.relative_to(REPO)} ({len(servers)} questions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
