"""Chat templates for .rkllm models: family from the file name, sidecar overrides, append-only renderings."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgehost.errors import ConfigError
from edgehost.llm.base import ChatMessage
from edgehost.llm.rkllm.chat_templates import FAMILIES, family_from_filename, load_template


@pytest.mark.parametrize(
    ("filename", "family"),
    [
        ("DeepSeek-R1-Distill-Qwen-1.5B_W8A8_RK3588.rkllm", "deepseek"),
        ("Qwen3-1.7B-w8a8-rk3588.rkllm", "qwen3"),
        ("Qwen2.5-1.5B-Instruct_W8A8_RK3588.rkllm", "qwen2.5"),
        ("qwen2_5-3b-instruct.rkllm", "qwen2.5"),
        ("Qwen2-0.5B-Instruct.rkllm", "qwen2"),
        ("TinyLlama-1.1B-Chat-v1.0.rkllm", "zephyr"),
        ("Llama-3.2-1B-Instruct_w8a8.rkllm", "llama3"),
        ("gemma-2-2b-it.rkllm", "gemma"),
        ("Phi-3-mini-4k-instruct.rkllm", "phi3"),
        ("MiniCPM3-4B.rkllm", "chatml"),
        ("MiniCPM-2B-sft.rkllm", "minicpm"),
        ("internlm2-chat-1_8b.rkllm", "chatml"),
    ],
)
def test_family_comes_from_the_file_name(filename: str, family: str) -> None:
    assert family_from_filename(filename) == family


CONVERSATION = [
    ChatMessage("system", "You are terse."),
    ChatMessage("user", "Hi"),
    ChatMessage("assistant", "Hello."),
    ChatMessage("user", "Temperature?"),
    ChatMessage("assistant", '<tool_call>{"name": "board__temperatures", "arguments": {}}</tool_call>'),
    ChatMessage("tool", '{"zones": []}', name="board__temperatures"),
]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_rendering_is_append_only(family: str) -> None:
    template = FAMILIES[family]
    for end in range(2, len(CONVERSATION)):
        if CONVERSATION[end].role != "assistant":
            continue
        before = template.render(CONVERSATION[:end])
        after = template.render(CONVERSATION[: end + 1], add_generation_prompt=False)
        assert after.startswith(before + CONVERSATION[end].content), (family, end)


def test_qwen25_renders_chatml_with_hermes_tools() -> None:
    tool = {"name": "board__temps", "description": "temps", "parameters": {"type": "object"}}
    text = FAMILIES["qwen2.5"].render([ChatMessage("user", "Hot?")], tools=[tool])
    assert text.startswith("<|im_start|>system\n# Tools\n")
    assert '{"type": "function", "function": {"name": "board__temps"' in text
    assert text.endswith("<|im_start|>user\nHot?<|im_end|>\n<|im_start|>assistant\n")
    plain = FAMILIES["qwen2.5"].render([ChatMessage("system", "S"), ChatMessage("user", "U")])
    assert plain == "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"


def test_llama3_and_gemma_layouts() -> None:
    llama = FAMILIES["llama3"].render([ChatMessage("system", "S"), ChatMessage("user", "U")])
    assert llama == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nU<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
    )
    gemma = FAMILIES["gemma"].render([ChatMessage("system", "S"), ChatMessage("user", "U")])
    assert gemma == "<bos><start_of_turn>user\nS\n\nU<end_of_turn>\n<start_of_turn>model\n"


def test_a_sidecar_file_overrides_the_family_and_parts(tmp_path: Path) -> None:
    model = tmp_path / "Qwen2.5-1.5B.rkllm"
    assert load_template(model).family == "qwen2.5"
    sidecar = tmp_path / "Qwen2.5-1.5B.rkllm.template.json"
    sidecar.write_text('{"family": "llama3", "max_context_len": 8192, "stop": ["<|eot_id|>"]}')
    template = load_template(model)
    assert (template.family, template.max_context_len, template.stop) == ("llama3", 8192, ("<|eot_id|>",))
    sidecar.write_text('{"tools": null}')
    assert load_template(model).tools is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", r"template\.json:1:2"),
        ('{"family": "mistral"}', "unknown family"),
        ('{"colour": 1}', "unknown keys"),
    ],
)
def test_a_broken_sidecar_names_the_file(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "m.rkllm.template.json").write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_template(tmp_path / "m.rkllm")
