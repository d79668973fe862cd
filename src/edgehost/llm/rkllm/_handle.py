"""The loaded RKLLM runtime: owns the library, the model handle and the result-callback object.

One RkllmHandle per loaded model. The ctypes callback object lives as long as the handle (the
runtime keeps calling it); results are handed to the consumer of the current ``run`` only, so no
state is global. Used inside the inference worker process only.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from edgehost.llm.base import BackendError
from edgehost.llm.rkllm._abi import (
    LLMHandle,
    LLMResultCallback,
    RKLLMCallback,
    RKLLMInferMode,
    RKLLMInputType,
    RKLLMPromptCacheParam,
    RKLLMResult,
    RKLLMSamplingParam,
    abi_by_name,
)
from edgehost.llm.rkllm._library import LibraryInfo

__all__ = ["ResultConsumerFnT", "RkllmHandle", "RunResult", "Sampling"]

# (state, text bytes or b"", result) -> 0 continue, 1 pause. The result is valid during the call only.
ResultConsumerFnT = Callable[[int, bytes, RKLLMResult], int]


@dataclass(frozen=True)
class Sampling:
    top_k: int = 40
    top_p: float = 0.9
    temperature: float = 0.8
    repeat_penalty: float = 1.1
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0


@dataclass(frozen=True)
class RunResult:
    status: int  # rkllm_run's return code: 0 ok


class RkllmHandle:
    """A model loaded by librkllmrt.so. Methods raise BackendError when the runtime reports failure."""

    def __init__(self, library: LibraryInfo) -> None:
        self.library = library
        self.abi = abi_by_name(library.abi)
        try:
            self._lib = ctypes.CDLL(str(library.path))
        except OSError as exc:
            raise BackendError(f"cannot load {library.path}: {exc}") from None
        self._declare()
        self._handle = LLMHandle()
        self._consumer: ResultConsumerFnT | None = None
        self._callback = LLMResultCallback(self._dispatch)
        self._callback_struct: RKLLMCallback | None = None
        self._param: Any = None  # kept alive: the runtime may hold on to model_path

    def _declare(self) -> None:
        lib, abi = self._lib, self.abi
        handle_ptr = ctypes.POINTER(LLMHandle)
        lib.rkllm_createDefaultParam.restype = abi.param
        lib.rkllm_createDefaultParam.argtypes = []
        third = ctypes.POINTER(RKLLMCallback) if abi.init_takes_callback_struct else LLMResultCallback
        lib.rkllm_init.argtypes = [handle_ptr, ctypes.POINTER(abi.param), third]
        lib.rkllm_init.restype = ctypes.c_int
        lib.rkllm_run.argtypes = [
            LLMHandle,
            ctypes.POINTER(abi.input),
            ctypes.POINTER(abi.infer_param),
            ctypes.c_void_p,
        ]
        lib.rkllm_run.restype = ctypes.c_int
        for name in ("rkllm_abort", "rkllm_destroy"):
            getattr(lib, name).argtypes = [LLMHandle]
            getattr(lib, name).restype = ctypes.c_int
        int_ptr = ctypes.POINTER(ctypes.c_int)
        lib.rkllm_clear_kv_cache.argtypes = [LLMHandle, ctypes.c_int, int_ptr, int_ptr]
        lib.rkllm_clear_kv_cache.restype = ctypes.c_int
        lib.rkllm_set_chat_template.argtypes = [LLMHandle, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
        lib.rkllm_set_chat_template.restype = ctypes.c_int
        self.has_prompt_cache = hasattr(lib, "rkllm_load_prompt_cache") and hasattr(
            lib, "rkllm_release_prompt_cache"
        )
        if self.has_prompt_cache:
            lib.rkllm_load_prompt_cache.argtypes = [LLMHandle, ctypes.c_char_p]
            lib.rkllm_load_prompt_cache.restype = ctypes.c_int
            lib.rkllm_release_prompt_cache.argtypes = [LLMHandle]
            lib.rkllm_release_prompt_cache.restype = ctypes.c_int
        if hasattr(lib, "rkllm_get_kv_cache_size"):
            lib.rkllm_get_kv_cache_size.argtypes = [LLMHandle, int_ptr]
            lib.rkllm_get_kv_cache_size.restype = ctypes.c_int

    def _dispatch(self, result: Any, userdata: int | None, state: int) -> int:
        consumer = self._consumer
        if consumer is None or not result:
            return 0
        contents = result.contents
        text = ctypes.string_at(contents.text) if contents.text else b""
        try:
            return consumer(state, text, contents)
        except Exception:  # an exception cannot cross into C: pause, which makes rkllm_run return
            return 1

    def default_param(self) -> Any:
        """The runtime's defaults (rkllm_createDefaultParam), to be adjusted and passed to init()."""
        return self._lib.rkllm_createDefaultParam()

    def init(self, param: Any) -> None:
        """rkllm_init. Raises BackendError when the runtime refuses (bad model, context too long ...)."""
        self._param = param
        if self.abi.init_takes_callback_struct:
            self._callback_struct = RKLLMCallback(result_callback=self._callback)
            third: Any = ctypes.byref(self._callback_struct)
        else:
            third = self._callback
        status = self._lib.rkllm_init(ctypes.byref(self._handle), ctypes.byref(param), third)
        if status != 0 or not self._handle:
            self._handle = LLMHandle()
            path = param.model_path.decode() if param.model_path else "?"
            raise BackendError(
                f"rkllm_init failed ({status}) for {path}: the file may not be an RKLLM model for this "
                "runtime version, or max_context_len exceeds the model's limit (see the worker log)"
            )

    @property
    def loaded(self) -> bool:
        return bool(self._handle)

    def run_prompt(
        self,
        prompt: str,
        consumer: ResultConsumerFnT,
        *,
        keep_history: bool,
        role: str = "user",
        max_new_tokens: int = 0,
        sampling: Sampling | None = None,
        save_cache_to: str | None = None,
    ) -> RunResult:
        """rkllm_run with a text prompt; blocks while ``consumer`` receives every callback. With
        ``save_cache_to`` the runtime writes the prompt's cache to that file."""
        abi = self.abi
        encoded = prompt.encode("utf-8")
        inputs = abi.input()
        inputs.role = role.encode()
        inputs.enable_thinking = False
        inputs.input_type = RKLLMInputType.PROMPT
        inputs.prompt_input = encoded
        infer = abi.infer_param()
        infer.mode = RKLLMInferMode.GENERATE
        infer.keep_history = 1 if keep_history else 0
        sampling_struct = None
        if abi.has_sampling_params:
            infer.max_new_tokens = max_new_tokens
            if sampling is not None:
                sampling_struct = RKLLMSamplingParam(
                    top_k=sampling.top_k,
                    top_p=sampling.top_p,
                    temperature=sampling.temperature,
                    repeat_penalty=sampling.repeat_penalty,
                    frequency_penalty=sampling.frequency_penalty,
                    presence_penalty=sampling.presence_penalty,
                )
                infer.sampling_params = ctypes.pointer(sampling_struct)
        cache_struct = None
        if save_cache_to is not None:
            cache_struct = RKLLMPromptCacheParam(
                save_prompt_cache=1, prompt_cache_path=save_cache_to.encode()
            )
            infer.prompt_cache_params = ctypes.pointer(cache_struct)
        self._consumer = consumer
        try:
            status = self._lib.rkllm_run(self._handle, ctypes.byref(inputs), ctypes.byref(infer), None)
        finally:
            self._consumer = None
        return RunResult(status=status)

    def abort(self) -> None:
        if self._handle:
            self._lib.rkllm_abort(self._handle)

    def load_prompt_cache(self, path: str) -> bool:
        """rkllm_load_prompt_cache: the next run into an empty context reuses the longest prefix its
        prompt shares with the file's. False when the runtime refuses the file."""
        return self.has_prompt_cache and self._lib.rkllm_load_prompt_cache(self._handle, path.encode()) == 0

    def release_prompt_cache(self) -> None:
        if self.has_prompt_cache:
            self._lib.rkllm_release_prompt_cache(self._handle)

    def clear_kv_cache(self, keep_system_prompt: bool = False) -> None:
        status = self._lib.rkllm_clear_kv_cache(self._handle, 1 if keep_system_prompt else 0, None, None)
        if status != 0:
            raise BackendError(f"rkllm_clear_kv_cache failed ({status})")

    def kv_cache_size(self) -> int | None:
        """Tokens in the KV cache (first batch), or None when the runtime cannot tell."""
        if not hasattr(self._lib, "rkllm_get_kv_cache_size"):
            return None
        sizes = (ctypes.c_int * 16)()  # one entry per batch; n_batch is 1 here, room to spare
        if self._lib.rkllm_get_kv_cache_size(self._handle, sizes) != 0:
            return None
        return int(sizes[0])

    def set_chat_template(self, system: str, prefix: str, postfix: str) -> None:
        status = self._lib.rkllm_set_chat_template(
            self._handle, system.encode(), prefix.encode(), postfix.encode()
        )
        if status != 0:
            raise BackendError(f"rkllm_set_chat_template failed ({status})")

    def close(self) -> None:
        """rkllm_destroy; safe to call twice."""
        if self._handle:
            self._lib.rkllm_destroy(self._handle)
            self._handle = LLMHandle()
