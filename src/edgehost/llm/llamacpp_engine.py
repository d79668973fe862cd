"""The llama.cpp engine (extra ``llamacpp``): any GGUF file on the CPU, through llama-cpp-python.

Runs inside the worker process. The prompt is prefilled in small chunks after the prefix it shares
with the KV cache, so a new turn evaluates only its new tokens and a cancel is seen between chunks.
llama_cpp is imported only when an engine is created.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from edgehost.llm.base import BackendError, Capabilities, ChatMessage, ModelInfo, Perf
from edgehost.llm.chat_format import chatml, native_tool_dialect, template_has_tools
from edgehost.llm.gguf import GGUFError, gguf_context_length, read_gguf_metadata
from edgehost.llm.prompt_cache import PromptCache
from edgehost.llm.textstream import Utf8Assembler
from edgehost.settings import DEFAULT_CONTEXT_LENGTH

__all__ = ["LlamaCppEngine", "create_engine"]

# The prompt is evaluated in slices of about this duration, so a cancel during a long prefill is
# seen within ~0.1 s; the slice size in tokens follows the measured prefill speed.
PREFILL_SLICE_S = 0.1
PREFILL_FIRST_CHUNK = 32
PREFILL_MIN_CHUNK = 8
DEFAULT_CONTEXT = DEFAULT_CONTEXT_LENGTH
DEFAULT_TEMPERATURE = 0.7
# A prompt that needed this many tokens evaluated (a new system prompt, not a question) is kept on
# disk for the next start (llm/prompt_cache.py), written after its answer so no first token waits.
SAVE_AFTER_EVALUATED = 256


def create_engine(config: dict[str, Any]) -> LlamaCppEngine:
    """The ENGINE_FACTORIES entry for "llamacpp". Raises BackendError without llama-cpp-python."""
    return LlamaCppEngine(config)


class LlamaCppEngine:
    """Config keys: model_path, n_ctx, threads, temperature, top_k, top_p, min_p, repeat_penalty, seed."""

    def __init__(self, config: dict[str, Any]) -> None:
        try:
            import llama_cpp
        except ImportError as exc:
            raise BackendError(
                f"llama-cpp-python is not installed ({exc}): pip install 'edgehost[llamacpp]'"
            ) from exc
        self._llama_cpp = llama_cpp
        self._config = config
        self._llama: Any = None
        self._formatters: dict[bool, Any] = {}
        self._add_bos = True
        self._bos_text = ""
        self._abort = threading.Event()
        self._perf = Perf()
        self._prompt_cache: PromptCache | None = None
        self.capabilities = Capabilities(backend="llamacpp", max_context=int(config.get("n_ctx") or 0))

    def load(self) -> ModelInfo:
        path = Path(str(self._config.get("model_path") or ""))
        if not path.is_file():
            raise BackendError(f"model file not found: {path}")
        try:
            metadata = read_gguf_metadata(path)
        except (GGUFError, OSError) as exc:
            raise BackendError(f"cannot read {path}: {exc}") from exc
        wanted = int(self._config.get("n_ctx") or DEFAULT_CONTEXT)
        n_ctx = min(wanted, gguf_context_length(metadata) or wanted)
        threads = int(self._config.get("threads") or 0) or None
        try:
            self._llama = self._llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                # Flash attention: on this machine's CPU 20 % quicker prefill and decode with the default
                # model, and 6 MB less of compute buffers (issue 35; llama-cpp-python turns it off unless
                # asked, llama.cpp's own default is on where the backend has it).
                flash_attn=True,
                seed=int(self._config.get("seed", self._llama_cpp.LLAMA_DEFAULT_SEED)),
                # How far back the repetition penalties look (the profile's sampling.repeat_last_n).
                last_n_tokens_size=int(self._config.get("repeat_last_n", 64)),
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise BackendError(f"llama.cpp cannot load {path}: {exc}") from exc
        if self._config.get("prompt_cache_dir"):
            self._prompt_cache = PromptCache(
                Path(str(self._config["prompt_cache_dir"])), path, n_ctx, layout="flash-attn"
            )
        model = self._llama._model
        self._add_bos = bool(model.add_bos_token())
        self._bos_text = model.token_get_text(model.token_bos()) if model.token_bos() != -1 else ""
        eos_text = model.token_get_text(model.token_eos()) if model.token_eos() != -1 else ""
        template = metadata.get("tokenizer.chat_template")
        if isinstance(template, str) and template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            self._formatters = {
                flag: Jinja2ChatFormatter(
                    template=template,
                    eos_token=eos_text,
                    bos_token=self._bos_text,
                    add_generation_prompt=flag,
                )
                for flag in (True, False)
            }
        self.capabilities = Capabilities(
            backend="llamacpp",
            max_context=self._llama.n_ctx(),
            supports_grammar=True,
            supports_native_tools=template_has_tools(template),
            native_tool_dialect=native_tool_dialect(template),
            reuses_prompt_prefix=True,
        )
        return ModelInfo(
            path=str(path),
            # The file's name, as the user downloaded it and as RKLLM names its models; a GGUF's
            # general.name is often a training run's ("Smollm2 135M 8k Lc100K Mix1 Ep2").
            name=path.stem,
            format="gguf",
            context_length=self._llama.n_ctx(),
            chat_template=bool(template),
            parameters=int(model.n_params()) or None,
        )

    def format_chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        add_generation_prompt: bool = True,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> str:
        formatter = self._formatters.get(add_generation_prompt)
        if formatter is None:
            return chatml(messages, add_generation_prompt=add_generation_prompt)
        try:
            return str(formatter(messages=[_message_dict(m) for m in messages], tools=tools).prompt)
        except Exception as exc:  # jinja2 errors and the template's own raise_exception
            raise BackendError(f"the model's chat template failed: {exc}") from exc

    def tokenize(self, text: str) -> list[int]:
        llama = self._loaded()
        add_bos = self._add_bos and not (self._bos_text and text.startswith(self._bos_text))
        return list(llama.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True))

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
        llama = self._loaded()
        self._abort.clear()
        tokens = self.tokenize(prompt)
        n_ctx = llama.n_ctx()
        if len(tokens) >= n_ctx:
            raise BackendError(
                f"the conversation has {len(tokens)} tokens; the model's context holds {n_ctx}"
            )
        compiled = None
        if grammar:
            self._check_grammar(grammar)
            compiled = self._llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
        temp = self._config.get("temperature", DEFAULT_TEMPERATURE) if temperature is None else temperature
        penalties = (
            {
                "repeat_penalty": float(self._config.get("repeat_penalty", 1.0)),
                "frequency_penalty": float(self._config.get("frequency_penalty", 0.0)),
                "presence_penalty": float(self._config.get("presence_penalty", 0.0)),
            }
            if penalize_repetition
            else {}
        )
        return self._run(tokens, min(max_tokens, n_ctx - len(tokens)), compiled, float(temp), penalties)

    def abort(self) -> None:
        self._abort.set()

    def last_perf(self) -> Perf:
        return self._perf

    def reset(self) -> None:
        if self._llama is not None:
            self._llama.reset()

    def close(self) -> None:
        if self._llama is not None:
            self._llama.close()
            self._llama = None

    def _check_grammar(self, grammar: str) -> None:
        """Parse ``grammar`` once on its own: llama.cpp dereferences a grammar that failed to parse
        (a segfault). Raises BackendError."""
        native = self._llama_cpp.llama_cpp
        sampler = native.llama_sampler_init_grammar(
            self._llama._model.vocab, grammar.encode("utf-8"), b"root"
        )
        if not sampler:
            raise BackendError("invalid grammar: llama.cpp could not parse it (its log has the position)")
        native.llama_sampler_free(sampler)

    def _loaded(self) -> Any:
        if self._llama is None:
            raise BackendError("the model is not loaded")
        return self._llama

    def _run(
        self, tokens: list[int], budget: int, grammar: Any, temperature: float, penalties: dict[str, float]
    ) -> Iterator[str]:
        llama = self._llama
        started = time.perf_counter()
        cached = evaluated = generated = 0
        prefilled = started
        completed = False
        try:
            cached = self._prefill(tokens)
            evaluated = int(llama.n_tokens) - cached
            prefilled = time.perf_counter()
            if self._abort.is_set() or budget <= 0:
                return
            assembler = Utf8Assembler()
            for token in llama.generate(
                tokens,
                temp=temperature,
                top_k=int(self._config.get("top_k", 40)),
                top_p=float(self._config.get("top_p", 0.95)),
                min_p=float(self._config.get("min_p", 0.05)),
                grammar=grammar,
                **penalties,
            ):
                if self._llama_cpp.llama_vocab_is_eog(llama._model.vocab, token):
                    break
                generated += 1
                text = assembler.feed(llama.detokenize([token]))
                if text:
                    yield text
                if generated >= budget or self._abort.is_set():
                    break
            rest = assembler.flush()
            if rest:
                yield rest
            completed = not self._abort.is_set()
        finally:
            ended = time.perf_counter()
            self._perf = Perf(
                prompt_tokens=evaluated,
                cached_tokens=cached,
                generated_tokens=generated,
                prefill_ms=(prefilled - started) * 1000.0,
                decode_ms=(ended - prefilled) * 1000.0 if generated else 0.0,
                context_tokens=int(llama.n_tokens),
            )
            if completed and self._prompt_cache is not None and evaluated >= SAVE_AFTER_EVALUATED:
                # A long prefill happened (a new system prompt): keep it for the next start.
                self._prompt_cache.save(llama, self._llama_cpp)

    def _prefill(self, tokens: list[int]) -> int:
        """Evaluate what the KV cache lacks of ``tokens``; returns how many were reused.

        At least the last token is evaluated so the next sample comes from fresh logits. Afterwards
        llama.generate(tokens) finds the whole prompt cached and samples at once.
        """
        llama = self._llama
        if int(llama.n_tokens) == 0 and self._prompt_cache is not None:
            self._prompt_cache.load(llama, self._llama_cpp, tokens)  # the prompt kept by the last run
        cached_ids = llama._input_ids.tolist()
        reuse = 0
        for a, b in zip(cached_ids, tokens, strict=False):
            if a != b:
                break
            reuse += 1
        reuse = max(0, min(reuse, len(tokens) - 1))
        if reuse > 0 and not llama._ctx.kv_cache_seq_rm(-1, reuse, -1):
            reuse = 0  # this model's memory cannot be truncated (recurrent): start over
        llama.n_tokens = reuse
        start, chunk = reuse, PREFILL_FIRST_CHUNK
        while start < len(tokens) and not self._abort.is_set():
            batch = tokens[start : start + chunk]
            began = time.perf_counter()
            llama.eval(batch)
            start += len(batch)
            speed = len(batch) / max(time.perf_counter() - began, 1e-6)
            chunk = max(PREFILL_MIN_CHUNK, min(int(llama.n_batch), int(speed * PREFILL_SLICE_S)))
        return reuse


def _message_dict(message: ChatMessage) -> dict[str, Any]:
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.name is not None:
        data["name"] = message.name
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
    return data
