"""ctypes mirrors of the RKLLM runtime's C structs, one set per ABI (1.2.1-1.2.3 and 1.3.0).

Layouts follow the headers of airockchip/rknn-llm (tables in shared/RKLLM_FACTS.md); they are the
same on aarch64 and x86_64 (both LP64), and tests assert every size. Only fields we set or read
have meaning to us; the rest keep the runtime's defaults or zero.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ABI_12",
    "ABI_13",
    "ABIS",
    "Abi",
    "LLMCallState",
    "RKLLMCallback",
    "RKLLMExtendParam",
    "RKLLMInferMode",
    "RKLLMInputType",
    "RKLLMLoraParam",
    "RKLLMPerf",
    "RKLLMPromptCacheParam",
    "RKLLMResult",
    "RKLLMSamplingParam",
    "abi_by_name",
]

LLMHandle = ctypes.c_void_p


class LLMCallState:
    NORMAL = 0
    WAITING = 1  # the bytes so far are not a whole UTF-8 character; the text comes later
    FINISH = 2  # perf figures arrive here
    ERROR = 3


class RKLLMInputType:
    PROMPT = 0
    TOKEN = 1
    EMBED = 2
    MULTIMODAL = 3


class RKLLMInferMode:
    GENERATE = 0
    GET_LAST_HIDDEN_LAYER = 1
    GET_LOGITS = 2


class RKLLMExtendParam(ctypes.Structure):
    _fields_ = [
        ("base_domain_id", ctypes.c_int32),
        ("embed_flash", ctypes.c_int8),
        ("enabled_cpus_num", ctypes.c_int8),
        ("enabled_cpus_mask", ctypes.c_uint32),
        ("n_batch", ctypes.c_uint8),
        ("use_cross_attn", ctypes.c_int8),
        ("reserved", ctypes.c_uint8 * 104),
    ]


_PARAM_HEAD: list[tuple[str, Any]] = [
    ("model_path", ctypes.c_char_p),
    ("max_context_len", ctypes.c_int32),
    ("max_new_tokens", ctypes.c_int32),
    ("top_k", ctypes.c_int32),
    ("n_keep", ctypes.c_int32),
    ("top_p", ctypes.c_float),
    ("temperature", ctypes.c_float),
    ("repeat_penalty", ctypes.c_float),
    ("frequency_penalty", ctypes.c_float),
    ("presence_penalty", ctypes.c_float),
    ("mirostat", ctypes.c_int32),
    ("mirostat_tau", ctypes.c_float),
    ("mirostat_eta", ctypes.c_float),
    ("skip_special_token", ctypes.c_bool),
]


class RKLLMParam12(ctypes.Structure):
    _fields_ = [
        *_PARAM_HEAD,
        ("is_async", ctypes.c_bool),
        ("img_start", ctypes.c_char_p),
        ("img_end", ctypes.c_char_p),
        ("img_content", ctypes.c_char_p),
        ("extend_param", RKLLMExtendParam),
    ]


class RKLLMParam13(ctypes.Structure):
    _fields_ = [
        *_PARAM_HEAD,
        ("ignore_eos_token", ctypes.c_bool),
        ("is_async", ctypes.c_bool),
        ("extend_param", RKLLMExtendParam),
    ]


class RKLLMEmbedInput(ctypes.Structure):
    _fields_ = [("embed", ctypes.POINTER(ctypes.c_float)), ("n_tokens", ctypes.c_size_t)]


class RKLLMTokenInput(ctypes.Structure):
    _fields_ = [("input_ids", ctypes.POINTER(ctypes.c_int32)), ("n_tokens", ctypes.c_size_t)]


class RKLLMMultiModalInput12(ctypes.Structure):
    _fields_ = [
        ("prompt", ctypes.c_char_p),
        ("image_embed", ctypes.POINTER(ctypes.c_float)),
        ("n_image_tokens", ctypes.c_size_t),
        ("n_image", ctypes.c_size_t),
        ("image_width", ctypes.c_size_t),
        ("image_height", ctypes.c_size_t),
    ]


class _InputUnion12(ctypes.Union):
    _fields_ = [
        ("prompt_input", ctypes.c_char_p),
        ("embed_input", RKLLMEmbedInput),
        ("token_input", RKLLMTokenInput),
        ("multimodal_input", RKLLMMultiModalInput12),
    ]


class _InputUnion13(ctypes.Union):
    # The 1.3.0 multimodal member is 144 bytes; we never send images, so it is kept opaque.
    _fields_ = [
        ("prompt_input", ctypes.c_char_p),
        ("embed_input", RKLLMEmbedInput),
        ("token_input", RKLLMTokenInput),
        ("multimodal_input", ctypes.c_uint8 * 144),
    ]


_INPUT_HEAD: list[tuple[str, Any]] = [
    ("role", ctypes.c_char_p),
    ("enable_thinking", ctypes.c_bool),
    ("input_type", ctypes.c_int),
]


class RKLLMInput12(ctypes.Structure):
    _anonymous_ = ("u",)
    _fields_ = [*_INPUT_HEAD, ("u", _InputUnion12)]


class RKLLMInput13(ctypes.Structure):
    _anonymous_ = ("u",)
    _fields_ = [*_INPUT_HEAD, ("u", _InputUnion13)]


class RKLLMLoraParam(ctypes.Structure):
    _fields_ = [("lora_adapter_name", ctypes.c_char_p)]


class RKLLMPromptCacheParam(ctypes.Structure):
    _fields_ = [("save_prompt_cache", ctypes.c_int32), ("prompt_cache_path", ctypes.c_char_p)]


class RKLLMSamplingParam(ctypes.Structure):
    _fields_ = [
        ("top_k", ctypes.c_int32),
        ("top_p", ctypes.c_float),
        ("temperature", ctypes.c_float),
        ("repeat_penalty", ctypes.c_float),
        ("frequency_penalty", ctypes.c_float),
        ("presence_penalty", ctypes.c_float),
        ("mirostat", ctypes.c_int32),
        ("mirostat_tau", ctypes.c_float),
        ("mirostat_eta", ctypes.c_float),
    ]


class RKLLMInferParam12(ctypes.Structure):
    _fields_ = [
        ("mode", ctypes.c_int),
        ("lora_params", ctypes.POINTER(RKLLMLoraParam)),
        ("prompt_cache_params", ctypes.POINTER(RKLLMPromptCacheParam)),
        ("keep_history", ctypes.c_int32),
    ]


class RKLLMInferParam13(ctypes.Structure):
    _fields_ = [
        ("mode", ctypes.c_int),
        ("lora_params", ctypes.POINTER(RKLLMLoraParam)),
        ("prompt_cache_params", ctypes.POINTER(RKLLMPromptCacheParam)),
        ("sampling_params", ctypes.POINTER(RKLLMSamplingParam)),
        ("keep_history", ctypes.c_int32),
        ("max_new_tokens", ctypes.c_int32),
    ]


class RKLLMResultLastHiddenLayer(ctypes.Structure):
    _fields_ = [
        ("hidden_states", ctypes.POINTER(ctypes.c_float)),
        ("embd_size", ctypes.c_int),
        ("num_tokens", ctypes.c_int),
    ]


class RKLLMResultLogits(ctypes.Structure):
    _fields_ = [
        ("logits", ctypes.POINTER(ctypes.c_float)),
        ("vocab_size", ctypes.c_int),
        ("num_tokens", ctypes.c_int),
    ]


class RKLLMPerf(ctypes.Structure):
    _fields_ = [
        ("prefill_time_ms", ctypes.c_float),
        ("prefill_tokens", ctypes.c_int),
        ("generate_time_ms", ctypes.c_float),
        ("generate_tokens", ctypes.c_int),
        ("memory_usage_mb", ctypes.c_float),
    ]


class RKLLMResult(ctypes.Structure):
    _fields_ = [
        # c_void_p, not c_char_p: the bytes may end inside a UTF-8 character and are read with
        # ctypes.string_at while the callback runs (the pointer is only valid then).
        ("text", ctypes.c_void_p),
        ("token_id", ctypes.c_int32),
        ("last_hidden_layer", RKLLMResultLastHiddenLayer),
        ("logits", RKLLMResultLogits),
        ("perf", RKLLMPerf),
    ]


# int callback(RKLLMResult*, void* userdata, LLMCallState) since 1.2.1 (void before).
LLMResultCallback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(RKLLMResult), ctypes.c_void_p, ctypes.c_int)


class RKLLMCallback(ctypes.Structure):
    """1.3.0 only: rkllm_init takes a pointer to this instead of the bare result callback."""

    _fields_ = [
        ("result_callback", LLMResultCallback),
        ("result_userdata", ctypes.c_void_p),
        ("tokenizer_callback", ctypes.c_void_p),  # unused by us: NULL keeps the model's tokenizer
        ("tokenizer_userdata", ctypes.c_void_p),
        ("embed_callback", ctypes.c_void_p),
        ("embed_userdata", ctypes.c_void_p),
    ]


@dataclass(frozen=True)
class Abi:
    """The struct types and calling conventions of one runtime ABI."""

    name: str  # "1.2" | "1.3"
    param: type[ctypes.Structure]
    input: type[ctypes.Structure]
    infer_param: type[ctypes.Structure]
    init_takes_callback_struct: bool
    has_sampling_params: bool

    def expected_sizes(self) -> dict[str, int]:
        """Sizes from the headers on LP64 (aarch64, x86_64): what the tests check sizeof against."""
        if self.name == "1.3":
            return {"param": 184, "input": 160, "infer_param": 40}
        return {"param": 208, "input": 64, "infer_param": 32}

    def sizes(self) -> dict[str, Any]:
        return {
            "param": ctypes.sizeof(self.param),
            "input": ctypes.sizeof(self.input),
            "infer_param": ctypes.sizeof(self.infer_param),
        }


ABI_12 = Abi("1.2", RKLLMParam12, RKLLMInput12, RKLLMInferParam12, False, False)
ABI_13 = Abi("1.3", RKLLMParam13, RKLLMInput13, RKLLMInferParam13, True, True)
ABIS = {"1.2": ABI_12, "1.3": ABI_13}


def abi_by_name(name: str) -> Abi:
    """Raises KeyError for a name other than "1.2" or "1.3" (checked earlier by _library)."""
    return ABIS[name]
