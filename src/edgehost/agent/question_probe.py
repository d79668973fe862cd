"""Whether a question asks for a task or for a chat: a linear probe on its sentence embedding (issue 33).

The routing gate (agent/routing.py) must tell "How much RAM is free?" (a tool's job) from "What does
RAM stand for?" (the model's), though both sit next to the memory tool by meaning. Similarity to
small-talk examples did not carry over to questions no one tuned for: on the held-out half of the
everyday set it let two thirds of the plain chat through to a tool.

A question's embedding holds more than its subject: whether it asks about the state of things here
and now, or about the user's own files, notes and repository, or for something to be done; or for
knowledge, an explanation, advice or a joke. A logistic regression on the unit vector (one weight per
dimension and a bias) reads that direction. It is trained by bench/fit_question_probe.py on the
calibration questions only (the calibration half of tests/fixtures/everyday_questions/, the
earlier sets, all tuned on before, and tests/fixtures/tool_queries/calibration_more.json, 1,228 more
questions written from the tool lists alone): a question that has tools is a task, plain chat is not; a task
that no tool of the set fits ("Convert 100 Fahrenheit to Celsius") is left out of the training, so
that the probe reads the kind of question and the ranker's score whether a tool fits it. The probe reads
the question's MiniLM and e5 unit vectors side by side (agent/_e5_embedding.py): in the bench's
cross-validation that raised the gate's accuracy on our calibration sets from 0.852 to 0.913. The weights
are shipped in resources/routing/task_probe.json with the embedders they fit: the MiniLM of the CPU
in fp32 and int8 and the NPU's share one vector space (the bench's static distillation does not).
Without e5 the probe is not used, and the gate keeps its small-talk rule.

No words are listed here and no tool is named: the probe knows questions, not servers.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from functools import cache

from edgehost.paths import shipped_dir

__all__ = ["PROBE_FILE", "TASK_THRESHOLD", "TaskProbe", "shipped_probe", "task_probe"]

PROBE_FILE = "task_probe.json"
TASK_THRESHOLD = 0.5
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TaskProbe:
    embedders: tuple[str, ...]  # the embedders whose vector space it was fitted in (their names)
    weights: tuple[float, ...]  # one per dimension of the embedding
    bias: float  # fitted so that a question asks for a task at a probability of 0.5 or more
    # With the probe, a question calls a tool when it asks for a task and its best tool scores this
    # much (the ranker's blended score): whether a tool fits is the ranker's to say.
    min_tool_score: float
    # ... and passes the small-talk rule (agent/routing.py's route_score) with these constants.
    small_talk_weight: float
    route_threshold: float
    # A tool that scores this much fits the question though the probe reads it as chat, if with at
    # least clear_fit_task of a task: "Who invented the theory of relativity?" reads like chat, and a
    # tool made to look up inventions answers it; "What is gzip?" is chat beside a tool that gzips.
    clear_fit: float = math.inf
    clear_fit_task: float = 0.0
    # The second model (agent/_e5_embedding.py) whose unit vector follows MiniLM's in the probe's input;
    # "" when the probe reads MiniLM's alone.
    tool_model: str = ""

    def probability(self, projection: float) -> float:
        """The probability of a task for a question whose unit vector projects to ``projection``."""
        logit = projection + self.bias
        if logit >= 0:
            return 1.0 / (1.0 + math.exp(-logit))
        return math.exp(logit) / (1.0 + math.exp(logit))  # no overflow for a very negative one

    def fits(self, embedder_name: str) -> bool:
        return embedder_name in self.embedders


@cache
def shipped_probe() -> TaskProbe | None:
    """The probe in resources/routing/; None when it is missing or unreadable, or its weights are not
    one finite number per dimension (the gate then keeps its small-talk rule)."""
    try:
        path = shipped_dir("resources") / "routing" / PROBE_FILE
        document = json.loads(path.read_text(encoding="utf-8"))
        probe = TaskProbe(
            tuple(str(name) for name in document["embedders"]),
            tuple(float(w) for w in document["weights"]),
            float(document["bias"]),
            float(document["min_tool_score"]),
            float(document["small_talk_weight"]),
            float(document["route_threshold"]),
            float(document.get("clear_fit", math.inf)),
            float(document.get("clear_fit_task", 0.0)),
            str(document.get("tool_model", "")),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("the routing gate's question probe is not used: %s", exc)
        return None
    numbers = (
        *probe.weights,
        probe.bias,
        probe.min_tool_score,
        probe.small_talk_weight,
        probe.route_threshold,
        min(probe.clear_fit, 1e9),
        probe.clear_fit_task,
    )
    if len(probe.weights) != int(document.get("dimensions", -1)) or not all(map(math.isfinite, numbers)):
        log.warning("the routing gate's question probe is not used: its weights do not fit its dimensions")
        return None
    return probe


def task_probe(embedder_name: str) -> TaskProbe | None:
    """The shipped probe, if it fits the embedder named ``embedder_name``; None otherwise."""
    probe = shipped_probe()
    return probe if probe is not None and probe.fits(embedder_name) else None
