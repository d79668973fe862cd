"""The RKLLM Engine run by the inference worker (edgehost.llm.worker).

Prompts are rendered by us (chat_templates) and sent raw: the runtime's built-in template is turned
off with ``rkllm_set_chat_template(h, "", "", "")``. That keeps every rendering append-only, so with
``keep_history=1`` only the new part of a prompt is sent and prefilled. Because the built-in
template is off, tools are not injected with ``rkllm_set_function_tools`` (which only works through
that template) but rendered by our template in the model's own format (Qwen's ``<tool_call>``),
which is what the runtime would have injected.

A new conversation's prompt shares its system prompt and tools section with the last one: the
runtime saves that prompt's cache (``RKLLMPromptCacheParam``) into the data folder, and the next
prompt sent into an empty context (a new conversation, or after a restart) loads it with
``rkllm_load_prompt_cache`` so only what differs is prefilled (llm/prompt_cache.py).

``rkllm_run`` blocks and calls back once per token, so it runs in a thread; pieces reach the
generator through a queue. RKLLM has no tokenizer API: ``tokenize`` is an approximation good for
budgets and meters, not real token ids.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from edgehost.llm.base import BackendError, Capabilities, ChatMessage, ModelInfo, Perf
from edgehost.llm.prompt_cache import MIN_SHARED_TOKENS, RkllmPromptCache
from edgehost.llm.rkllm._abi import LLMCallState, RKLLMResult
from edgehost.llm.rkllm._handle import RkllmHandle, Sampling
from edgehost.llm.rkllm._library import locate_library
from edgehost.llm.rkllm.chat_templates import ChatTemplate, load_template
from edgehost.llm.textstream import Utf8Assembler
from edgehost.settings import DEFAULT_CONTEXT_LENGTH

__all__ = ["RkllmEngine", "approximate_tokens", "create_engine"]

log = logging.getLogger(__name__)

# A prompt cache is saved and loaded for prompts sharing at least this much (about 64 tokens; below it
# the prefill is quick anyway).
MIN_CACHED_CHARS = MIN_SHARED_TOKENS * 4
_TOKEN_RE = re.compile(r"[A-Za-z]{1,5}|\d|[^\sA-Za-z\d]|\s+")
_END = object()


def approximate_tokens(text: str) -> list[int]:
    """A stand-in tokenization: about one piece per English sub-word, digit, symbol or CJK character.

    The ids are not the model's (the first code point of each piece); only the count is meaningful.
    """
    return [ord(piece[0]) for piece in _TOKEN_RE.findall(text)]


class RkllmEngine:
    """Engine protocol implementation for librkllmrt.so (both ABIs)."""

    def __init__(self, config: dict[str, Any]) -> None:
        self._config = config
        self._model_path = Path(str(config.get("model_path") or "")).expanduser()
        self._handle: RkllmHandle | None = None
        self._template: ChatTemplate | None = None
        self._sent = ""  # text the runtime's KV cache holds (prompts sent plus replies received)
        self._context_known = True  # False after an interrupted run: the KV tail is uncertain
        self._abort_requested = threading.Event()
        self._perf = Perf()
        self._n_ctx = 0
        self._prompt_cache: RkllmPromptCache | None = None
        self.capabilities = Capabilities(
            backend="rkllm", max_context=int(config.get("n_ctx") or DEFAULT_CONTEXT_LENGTH)
        )

    # -- loading ---------------------------------------------------------------------------------
    def load(self) -> ModelInfo:
        """Load the library and the model. Raises BackendError (missing file, unsupported runtime,
        rkllm_init refusing the model) or ConfigError for a broken template sidecar."""
        if not self._model_path.is_file():
            raise BackendError(f"the RKLLM model {self._model_path} does not exist")
        library = locate_library(self._config.get("rkllm_lib"), None, self._config.get("rkllm_abi"))
        template = load_template(self._model_path)
        requested = int(self._config.get("n_ctx") or template.max_context_len)
        n_ctx = min(requested, template.max_context_len)
        handle = RkllmHandle(library)
        param = handle.default_param()
        param.model_path = str(self._model_path).encode()
        param.max_context_len = n_ctx
        param.max_new_tokens = n_ctx
        # The system prompt (instructions + tools, at most a quarter of the context by the tool
        # budget) must survive a context shift; half the context covers it with room to spare.
        param.n_keep = int(self._config.get("n_keep", n_ctx // 2))
        sampling = self._sampling(param)
        param.top_k, param.top_p, param.temperature = sampling.top_k, sampling.top_p, sampling.temperature
        param.repeat_penalty = sampling.repeat_penalty
        param.skip_special_token = True
        param.is_async = False
        cpu_mask = int(self._config.get("cpu_mask") or 0)
        cpu_count = int(self._config.get("cpu_count") or 0)
        if cpu_mask:
            param.extend_param.enabled_cpus_mask = cpu_mask
            param.extend_param.enabled_cpus_num = cpu_count or bin(cpu_mask).count("1")
        handle.init(param)
        try:
            handle.set_chat_template("", "", "")
        except BackendError:
            handle.close()
            raise
        self._handle, self._template, self._n_ctx = handle, template, n_ctx
        if self._config.get("prompt_cache_dir") and handle.has_prompt_cache:
            cache = RkllmPromptCache(Path(str(self._config["prompt_cache_dir"])), self._model_path, n_ctx)
            if cache.disabled:
                log.warning(
                    "prompt caching is off for %s: saving its cache did not finish last time (%s)",
                    self._model_path.name,
                    cache.marker,
                )
            self._prompt_cache = cache
        self.capabilities = Capabilities(
            backend="rkllm",
            max_context=n_ctx,
            supports_grammar=False,
            supports_native_tools=template.tools is not None,
            native_tool_dialect=template.tools,
        )
        return ModelInfo(
            path=str(self._model_path),
            name=self._model_path.stem,
            format="rkllm",
            context_length=n_ctx,
            chat_template=True,
        )

    def _sampling(self, defaults: Any) -> Sampling:
        config = self._config
        return Sampling(
            top_k=int(config.get("top_k", defaults.top_k)),
            top_p=float(config.get("top_p", defaults.top_p)),
            temperature=float(config.get("temperature", defaults.temperature)),
            repeat_penalty=float(config.get("repeat_penalty", defaults.repeat_penalty)),
        )

    def _loaded(self) -> tuple[RkllmHandle, ChatTemplate]:
        if self._handle is None or self._template is None:
            raise BackendError("the RKLLM model is not loaded")
        return self._handle, self._template

    # -- text ------------------------------------------------------------------------------------
    @property
    def template(self) -> ChatTemplate:
        return self._loaded()[1]

    def format_chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        add_generation_prompt: bool = True,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> str:
        template = self._template or load_template(self._model_path)
        return template.render(messages, add_generation_prompt=add_generation_prompt, tools=tools)

    def tokenize(self, text: str) -> list[int]:
        return approximate_tokens(text)

    # -- generation ------------------------------------------------------------------------------
    def generate(
        self,
        prompt: str,
        *,
        max_tokens: int,
        stop: Sequence[str],
        grammar: str | None,
        temperature: float | None,
        penalize_repetition: bool = True,
    ) -> Iterator[str]:
        """Stream the reply to ``prompt``. ``stop`` is matched by the worker; ``grammar`` is not
        supported by RKLLM and ignored; ``temperature`` applies per run on the 1.3 ABI only (1.2 takes
        it and the repeat penalty at load, so ``penalize_repetition`` cannot switch it off per run).
        Raises BackendError when the runtime reports an error."""
        handle, _ = self._loaded()
        self._abort_requested.clear()
        delta, cached = self._context_delta(handle, prompt)
        reuse, save_to = self._prompt_cache_for(handle, prompt) if not cached else ("", None)
        cached = cached or reuse
        self._sent = prompt  # the reply is appended as it arrives
        self._context_known = False  # until the run finishes normally
        pieces: queue.Queue[object] = queue.Queue()
        assembler = Utf8Assembler()
        state: dict[str, Any] = {"generated": 0, "finish": None, "error": None}
        sampling = self._run_sampling(handle, temperature)

        consume = self._consumer(state, pieces, assembler, max_tokens)

        def run() -> None:
            try:
                if self._abort_requested.is_set():
                    return
                status = handle.run_prompt(
                    delta,
                    consume,
                    keep_history=True,
                    max_new_tokens=max_tokens,
                    sampling=sampling,
                    save_cache_to=save_to,
                ).status
                if status != 0:
                    state["error"] = f"rkllm_run failed ({status})"
            except Exception as exc:  # reported by the generator, not lost in this thread
                state["error"] = f"rkllm_run failed: {exc}"
            finally:
                pieces.put(_END)

        thread = threading.Thread(target=run, name="rkllm-run", daemon=True)
        thread.start()
        finished = False
        try:
            while True:
                item = pieces.get()
                if item is _END:
                    break
                yield str(item)
            rest = assembler.flush()
            if rest:
                self._sent += rest
                yield rest
            finished = True
        finally:
            if thread.is_alive():
                self.abort()
            thread.join()
            self._record_perf(handle, state, cached, delta)
            clean_end = finished and state["finish"] is not None and not self._abort_requested.is_set()
            self._end_prompt_cache(handle, prompt, reuse, save_to, clean_end and not state["error"])
            self._context_known = clean_end and (max_tokens <= 0 or state["generated"] < max_tokens)
        if state["error"]:
            raise BackendError(state["error"])

    def _consumer(
        self, state: dict[str, Any], pieces: queue.Queue[object], assembler: Utf8Assembler, max_tokens: int
    ) -> Callable[[int, bytes, RKLLMResult], int]:
        """The runtime's callback for one run: text into ``pieces``, the counts and the end into
        ``state``; it pauses the run on an abort or at ``max_tokens``."""

        def consume(call_state: int, data: bytes, result: RKLLMResult) -> int:
            if call_state == LLMCallState.NORMAL:
                text = assembler.feed(data)
                state["generated"] += 1
                if text:
                    self._sent += text
                    pieces.put(text)
            elif call_state == LLMCallState.FINISH:
                state["finish"] = (
                    result.perf.prefill_time_ms,
                    result.perf.prefill_tokens,
                    result.perf.generate_time_ms,
                    result.perf.generate_tokens,
                    result.perf.memory_usage_mb,
                )
            elif call_state == LLMCallState.ERROR:
                state["error"] = "the RKLLM runtime reported an error during generation"
            # WAITING: the runtime holds an unfinished character and sends it whole later.
            if self._abort_requested.is_set() or (max_tokens > 0 and state["generated"] >= max_tokens):
                return 1  # pause: rkllm_run returns; the KV tail is then treated as unknown
            return 0

        return consume

    def _context_delta(self, handle: RkllmHandle, prompt: str) -> tuple[str, str]:
        """(what of ``prompt`` the runtime must still read, what its KV cache already holds): the part
        after what was sent when the context is known to hold it, else all of it into a cleared cache."""
        if self._sent and self._context_known and prompt.startswith(self._sent):
            return prompt[len(self._sent) :], self._sent
        if self._sent:
            handle.clear_kv_cache(keep_system_prompt=False)
        return prompt, ""

    def _run_sampling(self, handle: RkllmHandle, temperature: float | None) -> Sampling | None:
        """Per-run sampling for the 1.3 ABI when a temperature is asked: the loaded model's, at that
        temperature (None: the load-time sampling applies)."""
        if temperature is None or not handle.abi.has_sampling_params:
            return None
        return dataclasses.replace(self._sampling(Sampling()), temperature=float(temperature))

    def _end_prompt_cache(
        self, handle: RkllmHandle, prompt: str, reuse: str, save_to: str | None, complete: bool
    ) -> None:
        """After a run: the loaded prompt cache released, and the one being saved kept or dropped."""
        if reuse:
            handle.release_prompt_cache()
        if save_to is not None and self._prompt_cache is not None:
            self._prompt_cache.end_save(save_to, prompt, complete)

    def _prompt_cache_for(self, handle: RkllmHandle, prompt: str) -> tuple[str, str | None]:
        """For a prompt sent into an empty context: (the prefix a loaded prompt cache covers, or "";
        the file the runtime should save this prompt's cache to, or None)."""
        cache = self._prompt_cache
        if cache is None or len(prompt) < MIN_CACHED_CHARS:
            return "", None
        shared = cache.shared_prefix(prompt)
        if len(shared) >= MIN_CACHED_CHARS:
            if handle.load_prompt_cache(str(cache.cache_file)):
                cache.used()
                return shared, None
            log.warning("the RKLLM runtime refused the prompt cache %s; saving it again", cache.cache_file)
        return "", cache.begin_save()

    def _record_perf(self, handle: RkllmHandle, state: dict[str, Any], cached: str, delta: str) -> None:
        finish = state["finish"]
        context = handle.kv_cache_size()
        if finish is None:
            self._perf = Perf(
                prompt_tokens=len(approximate_tokens(delta)),
                cached_tokens=len(approximate_tokens(cached)),
                generated_tokens=state["generated"],
                context_tokens=context if context is not None else len(approximate_tokens(self._sent)),
            )
            return
        prefill_ms, prefill_tokens, decode_ms, generated, memory_mb = finish
        self._perf = Perf(
            prompt_tokens=int(prefill_tokens),
            cached_tokens=len(approximate_tokens(cached)),
            generated_tokens=int(generated) or state["generated"],
            prefill_ms=float(prefill_ms),
            decode_ms=float(decode_ms),
            context_tokens=context if context is not None else len(approximate_tokens(self._sent)),
            peak_memory_mb=float(memory_mb) or None,
        )

    def abort(self) -> None:
        self._abort_requested.set()
        if self._handle is not None:
            self._handle.abort()

    def last_perf(self) -> Perf:
        return self._perf

    def reset(self) -> None:
        if self._handle is not None and self._sent:
            self._handle.clear_kv_cache(keep_system_prompt=False)
        self._sent = ""
        self._context_known = True

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def create_engine(config: dict[str, Any]) -> RkllmEngine:
    """The engine factory named in edgehost.llm.engine.ENGINE_FACTORIES (unloaded; call load())."""
    return RkllmEngine(config)
