"""Tool-call grammars: they parse in llama.cpp, and the 135M default model emits valid calls under them."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import pytest

from edgehost.agent._dialects import PROMPT_DIALECTS
from edgehost.agent.arguments import check_arguments
from edgehost.agent.detector import (
    ToolCallParsed,
    ToolCallStarted,
    detect_calls,
    dialect_example,
    opening_marker,
)
from edgehost.agent.grammar import GrammarUnavailable, gbnf_literal, pinned_tool_grammar, tool_call_grammar


@dataclass(frozen=True)
class Tool:
    name: str
    input_schema: dict[str, Any] = field(hash=False)


FORECAST = Tool(
    "weather__get_forecast",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "units": {"enum": ["metric", "imperial"]},
        },
        "required": ["city", "days"],
    },
)
ECHO = Tool(
    "everything__echo",
    {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
)
TAGS = Tool(
    "notes__tag",
    {
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}}, "pinned": {"type": "boolean"}},
    },
)
TOOLS = [FORECAST, ECHO, TAGS]
MARKER_DIALECTS = [d for d in PROMPT_DIALECTS if opening_marker(d)]


def test_building_a_grammar_without_llama_cpp_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    monkeypatch.setitem(sys.modules, "llama_cpp.llama_grammar", None)
    with pytest.raises(GrammarUnavailable, match="llama-cpp-python"):
        tool_call_grammar("bracket", TOOLS)


def test_an_unknown_dialect_or_no_tools_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tool-call dialect"):
        tool_call_grammar("yaml", TOOLS)
    with pytest.raises(ValueError, match="at least one tool"):
        tool_call_grammar("bracket", [])
    with pytest.raises(ValueError, match="never prompted"):
        tool_call_grammar("pythonic", TOOLS)


def test_a_pinned_grammar_is_the_opening_marker_then_the_call() -> None:
    pytest.importorskip("llama_cpp")
    grammar = pinned_tool_grammar("bracket", ECHO)
    assert grammar == tool_call_grammar("bracket", [ECHO], pinned=True)
    assert 'root ::= "[TOOL_CALL]" call-ws call-any call-ws "[END_TOOL_CALL]"' in grammar
    assert "root ::= call-ws call-any" in tool_call_grammar("bracket", [ECHO])


def test_gbnf_literals_escape_quotes_backslashes_and_newlines() -> None:
    assert gbnf_literal('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'


# -- with llama.cpp and the default model ---------------------------------------------------------


def grammar_parses(llama: Any, grammar: str) -> bool:
    import llama_cpp

    vocab = llama_cpp.llama_model_get_vocab(llama.model)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


@pytest.mark.slow
def test_llama_cpp_refuses_a_broken_grammar(llama: Any) -> None:
    assert not grammar_parses(llama, "root ::= undefined-rule")


@pytest.mark.slow
@pytest.mark.parametrize("dialect", PROMPT_DIALECTS)
def test_every_dialect_grammar_parses_in_llama_cpp(llama: Any, dialect: str) -> None:
    assert grammar_parses(llama, tool_call_grammar(dialect, TOOLS))
    for tool in TOOLS:
        assert grammar_parses(llama, pinned_tool_grammar(dialect, tool))


def chat_prompt(dialect: str, question: str) -> str:
    example = dialect_example(dialect, "everything__echo", {"message": "hello"})
    system = f"You can call tools: weather__get_forecast(city, days), everything__echo(message). To call one, reply exactly like this: {example}"
    return f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n"


def generate(llama: Any, prompt: str, grammar: str) -> str:
    from llama_cpp import LlamaGrammar

    result = llama.create_completion(
        prompt, max_tokens=96, temperature=0.0, grammar=LlamaGrammar.from_string(grammar, verbose=False)
    )
    return str(result["choices"][0]["text"])


@pytest.mark.slow
@pytest.mark.parametrize("dialect", PROMPT_DIALECTS)
def test_the_135m_model_under_a_pinned_grammar_emits_a_valid_call(llama: Any, dialect: str) -> None:
    reply = generate(
        llama,
        chat_prompt(dialect, "What is the weather in Paris for 3 days?"),
        pinned_tool_grammar(dialect, FORECAST),
    )
    calls = [e for e in detect_calls(reply, chunk_size=3) if isinstance(e, ToolCallParsed)]
    assert [(c.name, c.dialect) for c in calls] == [(FORECAST.name, dialect)], reply
    _arguments, errors = check_arguments(calls[0].arguments, FORECAST.input_schema)
    assert errors == [], reply


@pytest.mark.slow
@pytest.mark.parametrize("dialect", MARKER_DIALECTS)
def test_after_an_opening_marker_the_lazy_grammar_completes_a_valid_call(llama: Any, dialect: str) -> None:
    written = f"I will call a tool.\n{opening_marker(dialect)}"  # as if the model wrote it freely
    started = [
        e
        for e in detect_calls(written + dialect_example(dialect, "x", {})[len(opening_marker(dialect)) :])
        if isinstance(e, ToolCallStarted)
    ]
    assert started and started[0].resume_at == len(written)
    prompt = chat_prompt(dialect, "Please echo the word banana.") + written
    reply = written + generate(llama, prompt, tool_call_grammar(dialect, TOOLS))
    calls = [e for e in detect_calls(reply, chunk_size=1) if isinstance(e, ToolCallParsed)]
    assert len(calls) >= 1 and {c.dialect for c in calls} == {dialect}, reply
    for call in calls:
        tool = next(t for t in TOOLS if t.name == call.name)
        _arguments, errors = check_arguments(call.arguments, tool.input_schema)
        assert errors == [], reply
