"""Chat formatting with the model's own template: golden output, append-only turns, the ChatML fallback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from edgehost.llm.base import ChatMessage, ModelInfo
from edgehost.llm.chat_format import chatml, native_tool_dialect
from edgehost.llm.llamacpp_engine import LlamaCppEngine

SYSTEM = ChatMessage("system", "You are terse.")
TURNS = [
    ChatMessage("user", "What is 2+2?"),
    ChatMessage("assistant", "4."),
    ChatMessage("user", "And 3+3?"),
    ChatMessage("assistant", "6."),
]


@pytest.fixture(scope="module")
def loaded(model_path: Path) -> Iterator[tuple[LlamaCppEngine, ModelInfo]]:
    engine = LlamaCppEngine({"model_path": str(model_path), "n_ctx": 512, "threads": 1})
    info = engine.load()
    yield engine, info
    engine.close()


@pytest.fixture(scope="module")
def engine(loaded: tuple[LlamaCppEngine, ModelInfo]) -> LlamaCppEngine:
    return loaded[0]


def test_a_model_is_named_by_its_file_not_by_its_training_run(
    loaded: tuple[LlamaCppEngine, ModelInfo], model_path: Path
) -> None:
    # The embedded model's general.name is "Smollm2 135M 8k Lc100K Mix1 Ep2".
    assert loaded[1].name == model_path.stem == "SmolLM2-135M-Instruct.Q4_1"


def test_the_gguf_template_renders_chatml_with_its_default_system_prompt(engine: LlamaCppEngine) -> None:
    assert engine.format_chat(TURNS[:1]) == (
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
        "<|im_start|>user\nWhat is 2+2?<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_each_turn_extends_the_previous_prompt_so_the_kv_cache_stays_valid(engine: LlamaCppEngine) -> None:
    for end in (1, 3):
        prompt = engine.format_chat([SYSTEM, *TURNS[:end]])
        reply = TURNS[end].content
        assert engine.format_chat([SYSTEM, *TURNS[: end + 2]]).startswith(prompt + reply)


def test_the_chatml_fallback_matches_a_chatml_models_own_template(engine: LlamaCppEngine) -> None:
    for add_generation_prompt in (True, False):
        assert chatml([SYSTEM, *TURNS], add_generation_prompt=add_generation_prompt) == engine.format_chat(
            [SYSTEM, *TURNS], add_generation_prompt=add_generation_prompt
        )


@pytest.mark.parametrize(
    ("template", "dialect"),
    [
        ("{% for m in messages %}{{ m.content }}{% endfor %}", None),
        ("{% if tools %}<tools>{{ tools | tojson }}</tools> use <tool_call>{% endif %}", "hermes"),
        ("{% if tools %}<tool_call><function=name>{% endif %}", "qwen-xml"),
        ("{% if tools %}[AVAILABLE_TOOLS]{{ tools }}[TOOL_CALLS]{% endif %}", "mistral"),
        ("{% if tools %}{{ tools | tojson }}{% endif %}", "bare-json"),
    ],
)
def test_the_native_tool_dialect_is_read_from_the_template(template: str, dialect: str | None) -> None:
    assert native_tool_dialect(template) == dialect
