"""Host routing (decision 11): who decides a turn's tool calls, whether it needs one, and which.

Who decides (resolve_routing): the routing setting or the conversation's choice; `auto` lets the host
decide for models under HOST_ROUTING_BELOW_PARAMETERS parameters (the count the runtime reports, or
the one in the model's name), the model for larger or unknown ones.

For a model too small to decide, the host decides from the ranker's scores (agent/ranking.py):

- The gate. A question needs a tool when its best tool score is at least MIN_TOOL_SCORE and that
  score, less SMALL_TALK_WEIGHT times its
  similarity to the small-talk examples (resources/routing/small_talk.txt: greetings, jokes, poems,
  general knowledge ...), still reaches ROUTE_THRESHOLD. A question that reads like small talk must match
  a tool clearly better to call one: "Explain what a CPU is" is near "cpu_status" by meaning, and
  nearer still to "Explain what machine learning is". The numbers were chosen on the calibration
  questions (tests/fixtures/tool_queries/: everyday tool questions and plain chat), not on the
  evaluation set (tests/fixtures/agent_questions/); bench/selection_recall.py prints the figures.
- Follow-ups. A short question that brings a new value ("and in Lyon?", "what about notes.txt?": a
  name, a number or a file name) is read with the conversation's previous question in front of it
  (alone, "and in Lyon?" is nearest a weather tool); "thanks!" or "ok" bring none and are read alone.
- Candidates. The best tool, and those within CANDIDATE_MARGIN of it (at most ``max_candidates``):
  the model then chooses among them under a grammar; a clear winner is the only candidate.

Without the embedding model (BM25 alone) there is no meaning to compare, and the gate is a threshold
on the lexical score.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from edgehost.agent.tools import ToolSpec
from edgehost.paths import shipped_dir

__all__ = [
    "CANDIDATE_MARGIN",
    "HOST_ROUTING_BELOW_PARAMETERS",
    "ROUTING_MODES",
    "LEXICAL_ROUTE_THRESHOLD",
    "MIN_TOOL_SCORE",
    "ROUTE_THRESHOLD",
    "SMALL_TALK_WEIGHT",
    "RouteDecision",
    "decide_route",
    "is_follow_up",
    "parameters_from_name",
    "resolve_routing",
    "small_talk_examples",
]

ROUTING_MODES = ("auto", "host", "model")
# Decision 11's size rule for `auto` routing: below this many parameters a model does not decide
# reliably whether and which tool to call (SmolLM2-135M/360M, Qwen2.5-0.5B, Qwen3-0.6B, Llama 3.2 1B),
# so the host decides; Qwen2.5-1.5B, Qwen3-1.7B and larger choose their own tools.
HOST_ROUTING_BELOW_PARAMETERS = 1_500_000_000

ROUTE_THRESHOLD = -0.06
SMALL_TALK_WEIGHT = 0.7
MIN_TOOL_SCORE = 0.06
LEXICAL_ROUTE_THRESHOLD = 0.04  # BM25 alone: any word or verb shared with a tool
# Only near-ties are left to the model: in the evaluation runs SmolLM2-135M, given a wider choice,
# overturned the ranker's best more often wrongly (3 times) than rightly (2).
CANDIDATE_MARGIN = 0.02
FOLLOW_UP_MAX_WORDS = 5
# A value a follow-up brings: a digit, a file name, or a capitalised word after the first.
_NEW_VALUE = re.compile(r"\d|\w\.\w|(?<=\s)[A-Z]")


def parameters_from_name(name: str) -> int | None:
    """A parameter count from a model's name ("Qwen2.5-0.5B-Instruct", "SmolLM2 135M"), for runtimes
    that do not report one (RKLLM, remote servers). None when the name has no size."""
    match = re.search(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([MB])(?![a-z])", name, re.IGNORECASE)
    if match is None:
        return None
    return int(float(match.group(1)) * (1e6 if match.group(2).upper() == "M" else 1e9))


def resolve_routing(mode: str, parameters: int | None) -> str:
    """`host` or `model` for a routing setting (`auto`, `host`, `model`) and the model's parameter
    count (None when unknown: a remote model, which is left to decide). Raises ValueError for an
    unknown mode."""
    if mode not in ROUTING_MODES:
        raise ValueError(f"routing is one of {', '.join(ROUTING_MODES)}, got {mode!r}")
    if mode != "auto":
        return mode
    return "host" if parameters is not None and parameters < HOST_ROUTING_BELOW_PARAMETERS else "model"


@dataclass(frozen=True)
class RouteDecision:
    needs_tool: bool
    candidates: tuple[ToolSpec, ...]  # best first; empty when needs_tool is False
    best_score: float
    reason: str  # one line a user could read in a log


@cache
def small_talk_examples() -> tuple[str, ...]:
    """The shipped small-talk examples. Raises FileNotFoundError when they are missing."""
    path = shipped_dir("resources") / "routing" / "small_talk.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def route_score(best: float, small_talk: float | None) -> float:
    """How clearly a question calls for its best tool; None for small_talk means BM25 alone."""
    return best - SMALL_TALK_WEIGHT * small_talk if small_talk is not None else best


def passes(best: float, small_talk: float | None) -> bool:
    if small_talk is None:
        return best >= LEXICAL_ROUTE_THRESHOLD
    return best >= MIN_TOOL_SCORE and route_score(best, small_talk) >= ROUTE_THRESHOLD


def is_follow_up(query: str) -> bool:
    """A short question that brings a new value for the previous one (module docstring)."""
    return len(query.split()) <= FOLLOW_UP_MAX_WORDS and bool(_NEW_VALUE.search(query))


def decide_route(
    tools: Sequence[ToolSpec],
    scores: Sequence[float],
    small_talk: float | None,
    *,
    max_candidates: int = 3,
    follow_up: tuple[Sequence[float], float | None] | None = None,
) -> RouteDecision:
    """The decision from the ranker's ``scores`` for ``tools`` and the question's similarity to small
    talk (None without embeddings). ``follow_up``: the scores and small-talk similarity of a short
    follow-up read with the previous question (module docstring); when that calls for a tool, it wins."""
    if not tools:
        return RouteDecision(False, (), 0.0, "no tools are enabled")
    if follow_up is not None:
        decision = decide_route(tools, follow_up[0], follow_up[1], max_candidates=max_candidates)
        if decision.needs_tool:
            return RouteDecision(
                True, decision.candidates, decision.best_score, f"a follow-up: {decision.reason}"
            )
    order = sorted(range(len(tools)), key=lambda i: -scores[i])
    best = scores[order[0]]
    reason = f"best {tools[order[0]].name} {best:.2f}" + (
        f", small talk {small_talk:.2f}" if small_talk is not None else ""
    )
    if not passes(best, small_talk):
        return RouteDecision(False, (), best, f"no tool is needed ({reason})")
    candidates = tuple(
        tools[i] for i in order[: max(max_candidates, 1)] if scores[i] >= best - CANDIDATE_MARGIN
    )
    return RouteDecision(True, candidates, best, reason)
