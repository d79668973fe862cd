"""How the change rule's threshold (agent/routing.py, CHANGE_TASK_THRESHOLD) frees tool questions and
keeps chat from destructive candidates, on the calibration questions only.

A tool that may destroy something is a candidate only when the question asks for a change: by a listed
word, or by reading as a task to the question probe at the threshold or more. Each question's task
probability comes from a probe fitted without it (ten random folds of the probe's own inputs,
bench/fit_question_probe.py: the calibration sets and the small-talk examples), so that a question is
not read by a probe that learned it. The ranker and its query map are the shipped ones.

  RESULT change_rule_blocked_<t>              tool questions the rule alone still blocks, threshold t
                                              ("none": the listed words alone, as before stop 60)
  RESULT change_rule_chat_destructive_<t>     plain chat questions left with a destructive candidate
  RESULT change_rule_chat_blocked             plain chat questions the rule alone stopped (words alone)

Takes about five minutes: the questions' vectors, ten probe fits, and the routes.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from tests.question_sets import QuestionSet, calibration, calibration_more, evaluation, everyday  # noqa: E402

from edgehost.agent import routing  # noqa: E402
from edgehost.agent._e5_embedding import E5Embedder  # noqa: E402
from edgehost.agent._embedding import MiniLMEmbedder  # noqa: E402
from edgehost.agent.approval import tool_risk  # noqa: E402
from edgehost.agent.question_probe import PROBE_FILE  # noqa: E402
from edgehost.agent.ranking import BlendedRanker, EmbeddingRanker  # noqa: E402
from edgehost.agent.selection import ToolSelector  # noqa: E402
from edgehost.agent.vector_index import VectorIndex  # noqa: E402
from fit_question_probe import NO_FIT, joint_vectors, out_of_fold  # noqa: E402

THRESHOLDS = (None, 0.95, 0.9, 0.8, 0.7)
FOLDS = 10
BLOCKED = "does not ask for what"


class OutOfFoldTasks(EmbeddingRanker):
    """The embedding ranker, with each known question's task probability from a probe fitted without it."""

    def __init__(self, index: VectorIndex, probabilities: dict[str, float]) -> None:
        super().__init__(index)
        self.probabilities = probabilities

    def asks_for_a_task(self, query: str) -> float | None:
        known = self.probabilities.get(query)
        return known if known is not None else super().asks_for_a_task(query)


def task_probabilities(index: VectorIndex, sets: list[QuestionSet]) -> dict[str, float]:
    """Each calibration question's task probability by a probe fitted without its fold."""
    texts = [q.as_routed for s in sets for q in s.questions if q.text not in NO_FIT]
    labels = [bool(q.tools) for s in sets for q in s.questions if q.text not in NO_FIT]
    examples = list(routing.small_talk_examples())
    vectors = joint_vectors(index, texts + examples)
    y = np.array(labels + [False] * len(examples), dtype=np.float64)
    shipped = json.loads((REPO / "resources" / "routing" / PROBE_FILE).read_text(encoding="utf-8"))
    l2 = float(shipped["l2"])  # the shipped probe's strength
    folds = np.array_split(np.random.default_rng(60).permutation(len(y)), FOLDS)
    predicted = out_of_fold(vectors, y, folds, l2)
    return {text: float(p) for text, p in zip(texts, predicted[: len(texts)], strict=True)}


async def survey(selector: ToolSelector, sets: list[QuestionSet]) -> None:
    chat_blocked = 0
    for threshold in THRESHOLDS:
        routing.CHANGE_TASK_THRESHOLD = threshold if threshold is not None else float("inf")
        blocked = destructive = 0
        for questions in sets:
            for question in questions.questions:
                if question.text in NO_FIT:
                    continue
                decision = await selector.route(question.as_routed, questions.tools)
                if question.tools and not decision.needs_tool and BLOCKED in decision.reason:
                    blocked += 1
                if not question.tools:
                    destructive += any(tool_risk(t)[0] == "destructive" for t in decision.candidates)
                    chat_blocked += threshold is None and BLOCKED in decision.reason
        name = "none" if threshold is None else f"{threshold:g}"
        print(f"RESULT change_rule_blocked_{name} {blocked}", flush=True)
        print(f"RESULT change_rule_chat_destructive_{name} {destructive}", flush=True)
    print(f"RESULT change_rule_chat_blocked {chat_blocked}")


def main() -> int:
    index = VectorIndex(MiniLMEmbedder.load(), tool_model=E5Embedder.load())
    sets = [everyday("calibration"), calibration(), evaluation(), calibration_more()]
    selector = ToolSelector(BlendedRanker(OutOfFoldTasks(index, task_probabilities(index, sets))))
    asyncio.run(survey(selector, sets))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
