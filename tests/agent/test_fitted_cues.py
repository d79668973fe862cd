"""The fitted weighing of a question's form against each tool's kind (agent/fitted_cues.py)."""

from __future__ import annotations

import math

import pytest

from edgehost.agent import ranking
from edgehost.agent.fitted_cues import (
    QUESTION_FEATURES,
    TOOL_FEATURES,
    cue_weights_from,
    question_features,
    shipped_cue_weights,
    tool_features,
)
from edgehost.agent.ranking import BlendedRanker, EmbeddingRanker
from edgehost.agent.tools import ToolSpec
from edgehost.agent.vector_index import VectorIndex


def _on(features: list[float] | tuple[float, ...], names: tuple[str, ...]) -> set[str]:
    return {name for name, value in zip(names, features, strict=True) if value}


def _asked(query: str) -> set[str]:
    return _on(question_features(query), QUESTION_FEATURES)


def _kind(tool: ToolSpec) -> set[str]:
    return _on(tool_features(tool), TOOL_FEATURES)


def _weights(value: float = 0.0) -> list[list[float]]:
    return [[value] * len(TOOL_FEATURES) for _ in QUESTION_FEATURES]


def _data(weights: list[list[float]]) -> dict[str, object]:
    return {
        "question_features": list(QUESTION_FEATURES),
        "tool_features": list(TOOL_FEATURES),
        "weights": weights,
    }


def test_apostrophes_inside_words_are_no_quoted_text() -> None:
    assert "quoted" not in _asked("Don't forget Pete's birthday")
    assert "possessive" in _asked("Don't forget Pete's birthday")
    assert "quoted" in _asked("Drop 'vegetarian' from Pete's entry")
    assert "quoted" in _asked('Search my notes for "wifi password"')


def test_a_capitalised_word_inside_a_sentence_is_a_name_but_i_is_not() -> None:
    assert {"one_name", "asks", "asks_recorded"} <= _asked("Did I ever mention Ibrahim?")
    assert "two_names" in _asked("Link Anna to Acme please")
    assert not {"one_name", "two_names"} & _asked("What time is it? I need to go.")


def test_two_names_are_a_pair_only_within_one_sentence() -> None:
    # A follow-up read with the previous question: Max and Oslo are in two sentences, no pair to link.
    assert "two_names" not in _asked("Lena is Max's sister, record that. She lives in Oslo.")
    assert "two_names" in _asked("Remember this. My boss Anna works at Acme.")


def test_arguments_inside_a_list_of_objects_count_as_the_tools_own() -> None:
    relations = ToolSpec(
        name="memory__create_relations",
        server="memory",
        description="Create relations between entities",
        input_schema={
            "type": "object",
            "properties": {
                "relations": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "from": {"type": "string"},
                            "to": {"type": "string"},
                            "relationType": {"type": "string"},
                        },
                    },
                }
            },
        },
    )
    assert {"two_names", "verb_create"} <= _kind(relations)
    assert "no_arguments" not in _kind(relations)


def test_an_argument_edgehost_fills_itself_leaves_a_tool_without_arguments() -> None:
    status = ToolSpec(
        name="git__git_status",
        server="git",
        description="Shows the working tree status",
        input_schema={
            "type": "object",
            "properties": {"repo_path": {"type": "string"}},
            "required": ["repo_path"],
        },
        annotations={"readOnlyHint": True},
        known_arguments={"repo_path": "/srv/repo"},
    )
    assert {"read_only", "no_arguments"} <= _kind(status)


def test_the_bonus_moves_tools_against_one_another_and_not_the_scale() -> None:
    tools = [
        ToolSpec(name="m__read_graph", server="m", annotations={"readOnlyHint": True}),
        ToolSpec(name="m__delete_entities", server="m", annotations={"destructiveHint": True}),
        ToolSpec(name="m__search_nodes", server="m"),
    ]
    weights = _weights()
    weights[QUESTION_FEATURES.index("any")][TOOL_FEATURES.index("destructive")] = -1.0
    bonus = cue_weights_from(_data(weights)).bonus("show me everything", tools)
    assert math.isclose(sum(bonus), 0.0, abs_tol=1e-12)
    assert bonus[1] < bonus[0] == bonus[2]


def test_weights_fitted_for_other_features_or_not_finite_are_refused() -> None:
    with pytest.raises(ValueError, match="other question features"):
        cue_weights_from({**_data(_weights()), "question_features": ["any"]})
    with pytest.raises(ValueError, match="other tool features"):
        cue_weights_from({**_data(_weights()), "tool_features": ["read_only"]})
    with pytest.raises(ValueError, match="finite"):
        cue_weights_from(_data(_weights(float("nan"))))
    with pytest.raises(ValueError, match="finite"):
        cue_weights_from(_data(_weights()[:-1]))


def test_the_shipped_weights_were_fitted_for_todays_features() -> None:
    # A feature added or renamed without running bench/fit_cue_weights.py would silently rank without
    # the bonus (shipped_cue_weights logs and returns None).
    shipped_cue_weights.cache_clear()
    assert shipped_cue_weights() is not None


def test_the_weighing_reorders_tools_but_keeps_the_best_score_the_gate_reads(
    ranking_index: VectorIndex, reference_tools: dict[str, ToolSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = [t for t in reference_tools.values() if t.server == "memory"]
    question = "Drop 'vegetarian' from Pete's entry"
    weighed = BlendedRanker(EmbeddingRanker(ranking_index)).scores(question, tools)
    monkeypatch.setattr(ranking, "fitted_cue_bonus", lambda query, offered: [0.0] * len(offered))
    plain = BlendedRanker(EmbeddingRanker(ranking_index)).scores(question, tools)
    assert max(weighed) == pytest.approx(max(plain))
    assert [w - p for w, p in zip(weighed, plain, strict=True)] != pytest.approx([0.0] * len(tools))
