"""A question's form weighed against each tool's kind, by weights fitted on the calibration questions.

The cues of agent/_query_cues.py each say one thing ("the question asks for a change", "the tool may
change something") and their weights were set by hand, one at a time. What the unseen questions of
issue 33 showed is the way they combine: "Did I ever mention Ibrahim?" is a question (no change
asked) that asks what the asker recorded and names one person, which fits a tool that looks things
up by a text more than one that reads everything or one that creates; "Drop 'vegetarian' from
Pete's entry" asks for a change, quotes a text and speaks of something kept, which fits a tool that
deletes parts of what exists, not one that deletes whole things.

So a question is described by a few features of its form (question_features: is it a question,
does it ask for a change, to keep something, what the asker recorded, does it name one or two
things, quote a text, write a possessive, a number, a path; the tool verbs its words stand for),
a tool by a few features of its kind (tool_features: read-only, destructive, acts on what exists,
takes no arguments, names alone, two names, free text; the verbs of its name), and the bonus of
each tool is ``q · W · t`` less the mean over the tools offered. It moves tools against one another
and must leave alone the scale the routing gate reads: the ranker (agent/ranking.py) shifts the
weighed scores so that the best is what it was without them. ``W`` is fitted by bench/fit_cue_weights.py on
the calibration questions only (the held-out half is never read), on top of the ranker's whole score
with the query map (agent/query_adapter.py) as shipped, and ships in resources/routing/cue_weights.json.
No feature reads a question's topic words: every one is about the form of the question or the shape
of the tool, so what is learned carries over to servers no one fitted for.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from typing import Any

from edgehost.agent._bm25 import terms
from edgehost.agent._query_cues import (
    ACTIONS,
    acts_on_existing,
    asks_for_change,
    asks_for_words,
    asks_something,
    asks_to_keep,
    asks_what_i_recorded,
    deletes,
    speaks_of_kept,
    tool_verbs,
    verbs_asked,
)
from edgehost.agent.question_values import path_values, written_numbers
from edgehost.agent.tools import ToolSpec
from edgehost.agent.value_fit import TEXT_WORDS
from edgehost.paths import shipped_dir

__all__ = [
    "CUE_WEIGHTS_FILE",
    "QUESTION_FEATURES",
    "TOOL_FEATURES",
    "CueWeights",
    "cue_weights_from",
    "fitted_cue_bonus",
    "question_features",
    "shipped_cue_weights",
    "tool_features",
]

CUE_WEIGHTS_FILE = "cue_weights.json"
log = logging.getLogger(__name__)

_VERBS = tuple(ACTIONS)
QUESTION_FEATURES: tuple[str, ...] = (
    "any",  # 1 for every question: with a tool feature, what a kind of tool gains or loses at all
    "asks",
    "asks_change",
    "speaks_of_kept",
    "asks_to_keep",
    "asks_recorded",
    "asks_words",
    "one_name",
    "two_names",
    "quoted",
    "possessive",
    "number",
    "path",
    "short",
    *(f"verb_{verb}" for verb in _VERBS),
)
TOOL_FEATURES: tuple[str, ...] = (
    "read_only",
    "destructive",
    "changes_existing",
    "no_arguments",
    "names_only",
    "two_names",
    "texts",
    *(f"verb_{verb}" for verb in _VERBS),
)

# A sentence's words, and a capitalised one.
_SENTENCE = re.compile(r"[^.!?]+")
_CAPITALISED = re.compile(r"^[A-Z][\w-]*")
# A quoted text: quotes around words, not an apostrophe inside one ("don't", "Pete's").
_QUOTED = re.compile(r"(?:^|(?<=[\s(:]))[\"'“‘][^\"'“”‘’]{1,80}[\"'”’](?=$|[\s).,;:!?])")
_POSSESSIVE = re.compile(r"\b\w+'s\b(?!\s+(?:a|an|the|it|that|this|my|your)\b)", re.I)
_SHORT = 4  # words: "show the graph", "what time is it"
# Argument names that hold a thing's name.
_NAME_ARGUMENT = re.compile(r"name|^(?:from|to|source|target|destination|entity|branch|ref)s?$", re.I)


def question_features(query: str) -> list[float]:
    """The question's form, one value per QUESTION_FEATURES name."""
    names = _names(query)
    paired = any(len(_names(sentence)) >= 2 for sentence in _SENTENCE.findall(query))
    asked = verbs_asked(query)
    found = {
        "any": 1.0,
        "asks": float(asks_something(query)),
        "asks_change": float(asks_for_change(query)),
        "speaks_of_kept": float(speaks_of_kept(query)),
        "asks_to_keep": float(asks_to_keep(query)),
        "asks_recorded": float(asks_what_i_recorded(query)),
        "asks_words": float(asks_for_words(query)),
        "one_name": float(len(names) == 1),  # two in one sentence are a pair, in two are not
        "two_names": float(paired),
        "quoted": float(_QUOTED.search(query) is not None),
        "possessive": float(_POSSESSIVE.search(query) is not None),
        "number": float(bool(written_numbers(query))),
        "path": float(bool(path_values(query))),
        "short": float(len(query.split()) <= _SHORT),
        **{f"verb_{verb}": float(verb in asked) for verb in _VERBS},
    }
    return [found[name] for name in QUESTION_FEATURES]


def _names(query: str) -> set[str]:
    """The names the question gives a person or a thing: capitalised words that do not open a
    sentence ("Did I ever mention Ibrahim?", "link Anna to Acme"), "I" and its contractions aside."""
    found: set[str] = set()
    for sentence in _SENTENCE.findall(query):
        for word in sentence.split()[1:]:
            match = _CAPITALISED.match(word.strip("\"'“”‘’(),:;"))
            if match and match.group(0) != "I" and not match.group(0).startswith("I'"):
                found.add(match.group(0))
    return found


def _leaf_arguments(schema: Any) -> list[str]:
    """The names of a schema's arguments, those of the objects inside its lists included
    (create_relations' ``relations`` items hold ``from``, ``to`` and ``relationType``)."""
    if not isinstance(schema, Mapping):
        return []
    found: list[str] = []
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, inner in properties.items():
            nested = _leaf_arguments(inner.get("items") if isinstance(inner, Mapping) else None)
            nested += _leaf_arguments(inner) if isinstance(inner, Mapping) and "properties" in inner else []
            found += nested or [str(name)]
    return found


@lru_cache(maxsize=4096)
def tool_features(tool: ToolSpec) -> tuple[float, ...]:
    """The tool's kind, one value per TOOL_FEATURES name."""
    asked = {k: v for k, v in tool.input_schema.items() if k != "properties"}
    own = {n: s for n, s in tool.properties.items() if n not in tool.known_arguments}
    arguments = _leaf_arguments({**asked, "properties": own})
    named = [a for a in arguments if _NAME_ARGUMENT.search(a)]
    verbs = tool_verbs(tool)
    found = {
        "read_only": float(tool.hint("readOnlyHint") is True),
        "destructive": float(tool.hint("destructiveHint") is True or deletes(tool)),
        "changes_existing": float(acts_on_existing(tool)),
        "no_arguments": float(not arguments),
        "names_only": float(bool(arguments) and len(named) == len(arguments)),
        "two_names": float(len(named) >= 2),
        "texts": float(any(TEXT_WORDS & set(terms(a)) for a in arguments)),
        **{f"verb_{verb}": float(verb in verbs) for verb in _VERBS},
    }
    return tuple(found[name] for name in TOOL_FEATURES)


class CueWeights:
    """``W``: one row per question feature, one column per tool feature."""

    def __init__(self, weights: Sequence[Sequence[float]]) -> None:
        self.weights = [list(row) for row in weights]

    def bonus(self, query: str, tools: Sequence[ToolSpec]) -> list[float]:
        """``q · W · t`` for each tool, less its mean over ``tools``."""
        if not tools:
            return []
        q = question_features(query)
        row = [
            sum(q[i] * self.weights[i][j] for i in range(len(q)) if q[i]) for j in range(len(TOOL_FEATURES))
        ]
        raw = [sum(w * t for w, t in zip(row, tool_features(tool), strict=True)) for tool in tools]
        mean = sum(raw) / len(raw)
        return [r - mean for r in raw]


def cue_weights_from(data: Any) -> CueWeights:
    """The weights of a parsed cue_weights.json; ValueError when they were fitted for other features
    (the features changed since) or are not a finite matrix of the right shape."""
    if not isinstance(data, Mapping):
        raise ValueError("not an object")
    if tuple(data.get("question_features", ())) != QUESTION_FEATURES:
        raise ValueError("fitted for other question features: run bench/fit_cue_weights.py")
    if tuple(data.get("tool_features", ())) != TOOL_FEATURES:
        raise ValueError("fitted for other tool features: run bench/fit_cue_weights.py")
    weights = data.get("weights")
    if (
        not isinstance(weights, list)
        or len(weights) != len(QUESTION_FEATURES)
        or any(not isinstance(row, list) or len(row) != len(TOOL_FEATURES) for row in weights)
        or any(
            not isinstance(w, (int, float)) or w != w or abs(w) == float("inf")
            for row in weights
            for w in row
        )
    ):
        raise ValueError("weights are not a finite question-features x tool-features matrix")
    return CueWeights(weights)


@cache
def shipped_cue_weights() -> CueWeights | None:
    """The weights in resources/routing/; None (no bonus) when missing or unreadable."""
    path = shipped_dir("resources") / "routing" / CUE_WEIGHTS_FILE
    try:
        return cue_weights_from(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        log.warning("tool ranking weighs no fitted cues: %s: %s", path, exc)
        return None


def fitted_cue_bonus(query: str, tools: Sequence[ToolSpec]) -> list[float]:
    """What the question's form adds to each tool by the shipped weights (0 for all without them)."""
    weights = shipped_cue_weights()
    return weights.bonus(query, tools) if weights is not None else [0.0] * len(tools)
