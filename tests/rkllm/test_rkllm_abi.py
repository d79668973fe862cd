"""The ctypes structs match the header layouts (RKLLM_FACTS.md tables, LP64)."""

from __future__ import annotations

import ctypes

import pytest

from edgehost.llm.rkllm import _abi

OFFSETS = [
    (_abi.RKLLMExtendParam, "enabled_cpus_num", 5),
    (_abi.RKLLMExtendParam, "enabled_cpus_mask", 8),
    (_abi.RKLLMExtendParam, "n_batch", 12),
    (_abi.RKLLMExtendParam, "use_cross_attn", 13),
    (_abi.RKLLMExtendParam, "reserved", 14),
    (_abi.RKLLMParam13, "max_context_len", 8),
    (_abi.RKLLMParam13, "n_keep", 20),
    (_abi.RKLLMParam13, "top_p", 24),
    (_abi.RKLLMParam13, "mirostat", 44),
    (_abi.RKLLMParam13, "mirostat_eta", 52),
    (_abi.RKLLMParam13, "skip_special_token", 56),
    (_abi.RKLLMParam13, "ignore_eos_token", 57),
    (_abi.RKLLMParam13, "is_async", 58),
    (_abi.RKLLMParam13, "extend_param", 60),
    (_abi.RKLLMParam12, "is_async", 57),
    (_abi.RKLLMParam12, "img_start", 64),
    (_abi.RKLLMParam12, "img_end", 72),
    (_abi.RKLLMParam12, "img_content", 80),
    (_abi.RKLLMParam12, "extend_param", 88),
    (_abi.RKLLMInput13, "enable_thinking", 8),
    (_abi.RKLLMInput13, "input_type", 12),
    (_abi.RKLLMInput13, "u", 16),
    (_abi.RKLLMInput12, "u", 16),
    (_abi.RKLLMInferParam13, "lora_params", 8),
    (_abi.RKLLMInferParam13, "prompt_cache_params", 16),
    (_abi.RKLLMInferParam13, "sampling_params", 24),
    (_abi.RKLLMInferParam13, "keep_history", 32),
    (_abi.RKLLMInferParam13, "max_new_tokens", 36),
    (_abi.RKLLMInferParam12, "keep_history", 24),
    (_abi.RKLLMResult, "token_id", 8),
    (_abi.RKLLMResult, "last_hidden_layer", 16),
    (_abi.RKLLMResult, "logits", 32),
    (_abi.RKLLMResult, "perf", 48),
]

SIZES = [
    (_abi.RKLLMExtendParam, 120),
    (_abi.RKLLMParam13, 184),
    (_abi.RKLLMParam12, 208),
    (_abi.RKLLMInput13, 160),
    (_abi.RKLLMInput12, 64),
    (_abi.RKLLMSamplingParam, 36),
    (_abi.RKLLMInferParam13, 40),
    (_abi.RKLLMInferParam12, 32),
    (_abi.RKLLMResult, 72),
    (_abi.RKLLMCallback, 48),
]


@pytest.mark.parametrize(("struct", "size"), SIZES, ids=[f"{s.__name__}" for s, _ in SIZES])
def test_struct_has_the_header_size(struct: type[ctypes.Structure], size: int) -> None:
    assert ctypes.sizeof(struct) == size


@pytest.mark.parametrize(
    ("struct", "name", "offset"), OFFSETS, ids=[f"{s.__name__}.{n}" for s, n, _ in OFFSETS]
)
def test_field_sits_at_the_header_offset(struct: type[ctypes.Structure], name: str, offset: int) -> None:
    assert getattr(struct, name).offset == offset


@pytest.mark.parametrize("abi", ["1.2", "1.3"])
def test_abi_sizes_are_what_the_abi_declares(abi: str) -> None:
    spec = _abi.abi_by_name(abi)
    assert spec.sizes() == spec.expected_sizes()
