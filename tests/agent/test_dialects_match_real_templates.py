"""Golden tests: our tool-call dialects read the calls the model families' own chat templates write.

Each published template (tests/fixtures/chat_templates, copied verbatim from llama.cpp) renders a
conversation in which the assistant called tools and got a result, as transformers'
``apply_chat_template`` renders it. The assistant turn, as the template writes it, is what the
model was trained to generate; streamed into the detector it must give back exactly those calls,
in the dialect ``native_tool_dialect`` picks for the template. A template that drifts from our
formats (or a format that drifts from the template) fails here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import jinja2.ext
import pytest
from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from edgehost.agent._dialects import DIALECTS
from edgehost.agent.arguments import coerce_arguments
from edgehost.agent.detector import (
    ALL_DIALECTS,
    DetectorEvent,
    ProseDelta,
    ToolCallDetector,
    ToolCallIncomplete,
    ToolCallMalformed,
    ToolCallParsed,
)
from edgehost.llm.chat_format import native_tool_dialect

TEMPLATES = Path(__file__).parents[1] / "fixtures" / "chat_templates"

FORECAST_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "The city"},
        "days": {"type": "integer", "description": "How many days ahead"},
        "units": {"type": "string", "enum": ["metric", "imperial"], "description": "Units"},
        "include": {"type": "array", "items": {"type": "string"}, "description": "What to include"},
        "alerts": {"type": "boolean", "description": "Whether to add weather alerts"},
    },
    "required": ["city"],
}
SEARCH_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "What to look for"}},
    "required": ["query"],
}
SCHEMAS = {
    "weather__get_forecast": FORECAST_SCHEMA,
    "notes__search": SEARCH_SCHEMA,
    "brave_search": SEARCH_SCHEMA,
}
TOOLS = [
    {"type": "function", "function": {"name": name, "description": f"The {name} tool", "parameters": schema}}
    for name, schema in SCHEMAS.items()
]

FORECAST = (
    "weather__get_forecast",
    # Text that JSON must escape, non-ASCII, XML-ish characters, and every JSON type.
    {
        "city": 'Zürich "Altstadt" & <Kreis 1>',
        "days": 3,
        "units": "metric",
        "include": ["rain", "wind"],
        "alerts": True,
    },
)
SEARCH = ("notes__search", {"query": "umbrella"})


@dataclass(frozen=True)
class Case:
    """A template, the calls its assistant turn holds, and how that turn is delimited."""

    template: str
    dialect: str  # what native_tool_dialect picks for the template
    calls: tuple[tuple[str, dict[str, Any]], ...]
    turn: tuple[str, str]  # what starts the assistant turn (up to where generation begins), what ends it
    content: str = ""  # the assistant's text before its calls
    variables: Mapping[str, Any] = field(default_factory=dict)  # extra template variables
    detected_as: str = ""  # the dialect the reply is read in, when not the one picked
    special: Mapping[str, str] = field(default_factory=dict)  # bos_token, eos_token


CHATML = ("<|im_start|>assistant\n", "<|im_end|>")
LLAMA = ("<|start_header_id|>assistant<|end_header_id|>\n\n", "<|eot_id|>")
LLAMA_SPECIAL = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
MISTRAL = ("[/INST]", "</s>")
MISTRAL_SPECIAL = {"bos_token": "<s>", "eos_token": "</s>"}

CASES = [
    Case("Qwen-Qwen2.5-7B-Instruct.jinja", "hermes", (FORECAST, SEARCH), CHATML),
    Case("Qwen-Qwen2.5-7B-Instruct.jinja", "hermes", (FORECAST,), CHATML, content="Let me look that up."),
    Case("Qwen-Qwen3-0.6B.jinja", "hermes", (FORECAST, SEARCH), CHATML),
    Case(
        "Qwen-Qwen3-0.6B.jinja",
        "hermes",
        (FORECAST,),
        CHATML,
        content="<think>\nThe user wants a forecast.\n</think>\n\nChecking.",
    ),
    Case(
        "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
        "hermes",
        (FORECAST, SEARCH),
        CHATML,
        special=LLAMA_SPECIAL,
    ),
    Case("Qwen3-Coder.jinja", "qwen-xml", (FORECAST, SEARCH), CHATML),
    Case("Qwen3.5-4B.jinja", "qwen-xml", (FORECAST, SEARCH), CHATML),
    Case("meta-llama-Llama-3.1-8B-Instruct.jinja", "bare-json", (FORECAST,), LLAMA, special=LLAMA_SPECIAL),
    Case("meta-llama-Llama-3.2-3B-Instruct.jinja", "bare-json", (FORECAST,), LLAMA, special=LLAMA_SPECIAL),
    Case(
        "mistralai-Mistral-Nemo-Instruct-2407.jinja",
        "mistral",
        (FORECAST, SEARCH),
        MISTRAL,
        special=MISTRAL_SPECIAL,
    ),
    Case(
        "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
        "mistral",
        (FORECAST, SEARCH),
        MISTRAL,
        special=MISTRAL_SPECIAL,
    ),
    Case(
        "Mistral-Small-3.2-24B-Instruct-2506.jinja",
        "mistral",
        (FORECAST, SEARCH),
        MISTRAL,
        special=MISTRAL_SPECIAL,
    ),
]
LLAMA_BUILTIN = Case(
    "meta-llama-Llama-3.1-8B-Instruct.jinja",
    "bare-json",
    (("brave_search", {"query": "weather in Zürich"}),),
    (LLAMA[0], "<|eom_id|>"),
    variables={"builtin_tools": ["brave_search", "wolfram_alpha"]},
    detected_as="python-tag",
    special=LLAMA_SPECIAL,
)


def case_id(case: Case) -> str:
    extra = "+content" if case.content else "+builtin" if case.variables else ""
    return f"{case.template.removesuffix('.jinja')}{extra}"


def render(case: Case, messages: list[dict[str, Any]]) -> str:
    """``messages`` through the template as transformers' apply_chat_template renders it."""

    def raise_exception(message: str) -> None:
        raise TemplateError(message)

    def tojson(
        value: Any,
        ensure_ascii: bool = False,
        indent: Any = None,
        separators: Any = None,
        sort_keys: bool = False,
    ) -> str:
        return json.dumps(
            value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
        )

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    template = env.from_string((TEMPLATES / case.template).read_text(encoding="utf-8"))
    return template.render(
        messages=messages, tools=TOOLS, add_generation_prompt=False, **case.special, **case.variables
    )


def conversation(case: Case) -> list[dict[str, Any]]:
    """A question, the assistant's calls (OpenAI shape, as HF templates take them), their results."""
    calls = [
        {"id": f"call{n:05d}", "type": "function", "function": {"name": name, "arguments": arguments}}
        for n, (name, arguments) in enumerate(case.calls)
    ]
    results = [
        {"role": "tool", "tool_call_id": f"call{n:05d}", "name": name, "content": '{"ok": true}'}
        for n, (name, _) in enumerate(case.calls)
    ]
    return [
        {"role": "user", "content": "Will I need an umbrella in Zürich this week?"},
        {"role": "assistant", "content": case.content, "tool_calls": calls},
        *results,
    ]


def assistant_turn(case: Case, rendered: str) -> str:
    """The assistant's turn as the template writes it: what the model generates after the
    generation prompt, up to (not including) its end-of-turn token."""
    opener, end = case.turn
    head = opener.rstrip("\n")  # some templates write the newline only before content
    start = rendered.index(head, rendered.index("Will I need an umbrella")) + len(head)
    stop = rendered.index(end, start)
    text = rendered[start:stop]
    gap = opener[len(head) :]
    return text[len(gap) :] if text.startswith(gap) else text.lstrip("\n")


def stream(text: str, dialects: tuple[str, ...], chunk_size: int) -> list[DetectorEvent]:
    """The detector's events for ``text`` fed ``chunk_size`` characters at a time, as a backend streams."""
    detector = ToolCallDetector(dialects)
    events: list[DetectorEvent] = []
    for start in range(0, len(text), chunk_size):
        events.extend(detector.feed(text[start : start + chunk_size]))
    return events + detector.finish()


def assert_reads_back(case: Case, dialects: tuple[str, ...]) -> None:
    expected_dialect = case.detected_as or case.dialect
    text = assistant_turn(case, render(case, conversation(case)))
    for chunk_size in (1, 3, len(text)):
        events = stream(text, dialects, chunk_size)
        failed = [e for e in events if isinstance(e, (ToolCallIncomplete, ToolCallMalformed))]
        assert failed == [], (text, chunk_size)
        found = [e for e in events if isinstance(e, ToolCallParsed)]
        assert [(c.name, c.dialect, c.index) for c in found] == [
            (name, expected_dialect, n) for n, (name, _) in enumerate(case.calls)
        ], (text, chunk_size)
        for call, (name, arguments) in zip(found, case.calls, strict=True):
            if DIALECTS[expected_dialect].json_body:
                assert call.arguments == arguments, (text, chunk_size)
            else:  # text values, typed by the tool's schema as the agent loop does
                assert coerce_arguments(call.arguments, SCHEMAS[name]) == arguments, (text, chunk_size)
        prose = "".join(e.text for e in events if isinstance(e, ProseDelta))
        assert unthought(prose) == unthought(case.content), (text, chunk_size)  # no call text shown as prose


def unthought(text: str) -> str:
    """``text`` without its reasoning block (Qwen3 templates write an empty one before calls)."""
    return re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL).strip()


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_native_tool_dialect_picks_the_format_the_template_teaches(case: Case) -> None:
    assert native_tool_dialect((TEMPLATES / case.template).read_text(encoding="utf-8")) == case.dialect


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_picked_dialect_reads_back_exactly_the_calls_the_template_wrote(case: Case) -> None:
    assert_reads_back(case, (case.dialect,))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_detector_of_the_agent_loop_reads_them_in_the_picked_dialect(case: Case) -> None:
    assert_reads_back(case, ALL_DIALECTS)


def test_a_llama_built_in_tool_call_reads_back_under_the_tools_own_name() -> None:
    assert_reads_back(LLAMA_BUILTIN, ALL_DIALECTS)


def test_the_llama_built_in_tool_call_is_a_python_tag_call_the_agent_loop_sees() -> None:
    text = assistant_turn(LLAMA_BUILTIN, render(LLAMA_BUILTIN, conversation(LLAMA_BUILTIN)))
    assert text == '<|python_tag|>brave_search.call(query="weather in Zürich")'
    [call] = [e for e in stream(text, ALL_DIALECTS, 2) if isinstance(e, ToolCallParsed)]
    assert (call.dialect, call.arguments) == ("python-tag", {"query": "weather in Zürich"})
