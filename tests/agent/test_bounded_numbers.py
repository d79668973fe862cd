"""A number a tool bounds (``minimum``/``maximum``) is written within its bounds: llama.cpp's JSON-schema
converter ignores them, so the grammar writes a small range as its values, and a number the question
gives out of range is offered at the nearest bound. The real 135M default model under the grammar."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from edgehost.agent.arguments import check_arguments
from edgehost.agent.detector import ToolCallParsed, detect_calls
from edgehost.agent.grammar import bounded_range, tool_call_grammar
from edgehost.agent.grounded_arguments import grounded_schema


@dataclass(frozen=True)
class Tool:
    name: str
    input_schema: dict[str, Any] = field(hash=False)


# As the everything server declares get-resource-links.
LINKS = Tool(
    "everything__get-resource-links",
    {
        "type": "object",
        "properties": {
            "count": {"type": "number", "minimum": 1, "maximum": 10, "default": 3},
        },
    },
)
PAGES = Tool(
    "books__pages",
    {
        "type": "object",
        "properties": {"page": {"type": "integer", "minimum": 0, "exclusiveMaximum": 3}},
        "required": ["page"],
    },
)


def test_a_small_bounded_range_is_written_as_its_values() -> None:
    assert bounded_range({"type": "integer", "minimum": 0, "exclusiveMaximum": 3}) == (0, 2, True)
    assert bounded_range({"type": "number", "minimum": 1, "maximum": 10}) == (1, 10, False)
    assert bounded_range({"type": "integer", "minimum": 1, "maximum": 999999}) is None  # too many values
    assert bounded_range({"type": "number", "minimum": 0, "maximum": 2.5}) is None  # decimals at an end
    assert bounded_range({"type": "integer", "minimum": 1}) is None


@pytest.mark.parametrize("dialect", ["bracket", "qwen-xml"])
def test_the_grammar_of_a_bounded_integer_allows_only_its_range(dialect: str) -> None:
    pytest.importorskip("llama_cpp")
    grammar = tool_call_grammar(dialect, [PAGES], pinned=True)
    assert '("0" | "1" | "2")' in grammar and "__edgehost_bounded" not in grammar


def test_a_number_the_question_gives_out_of_range_is_offered_at_the_nearest_bound() -> None:
    grounded = grounded_schema(LINKS.input_schema, "give me 11 resource links")
    assert grounded["properties"]["count"]["enum"] == [10]
    grounded = grounded_schema(PAGES.input_schema, "open page 2 of 7")
    assert grounded["properties"]["page"]["enum"] == [2]  # 7 is past an open bound: not offered


def generate(llama: Any, question: str, grammar: str) -> str:
    from llama_cpp import LlamaGrammar

    prompt = (
        "<|im_start|>system\nYou can call tools: everything__get-resource-links(count?: number).<|im_end|>\n"
        f"<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n"
    )
    result = llama.create_completion(
        prompt, max_tokens=64, temperature=0.0, grammar=LlamaGrammar.from_string(grammar, verbose=False)
    )
    return str(result["choices"][0]["text"])


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["bracket", "hermes", "qwen-xml"])
def test_the_135m_model_routed_to_a_bounded_tool_writes_a_count_within_its_bounds(
    llama: Any, dialect: str
) -> None:
    question = "give me 11 resource links"
    reply = generate(llama, question, tool_call_grammar(dialect, [LINKS], pinned=True, grounded_in=question))
    calls = [e for e in detect_calls(reply, chunk_size=3) if isinstance(e, ToolCallParsed)]
    assert [c.name for c in calls] == [LINKS.name], reply
    _arguments, errors = check_arguments(calls[0].arguments, LINKS.input_schema)
    assert errors == [], reply
