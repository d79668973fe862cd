"""The Engine protocol: a synchronous model runtime that lives inside the inference worker process.

An engine knows one runtime (llama.cpp, RKLLM ...). It renders chat messages with the model's own
template, tokenizes, and streams text pieces for a prompt while reusing its KV cache for the prefix
shared with the previous prompt. Everything else is done once for every engine by the worker
(edgehost.llm.worker): stop-sequence matching, cancellation, framing, crash reporting.

Engines are found by name through ``ENGINE_FACTORIES`` so the worker imports only the one it runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, cast

from edgehost.llm.base import BackendError, Capabilities, ChatMessage, ModelInfo, Perf

__all__ = ["ENGINE_FACTORIES", "Engine", "EngineFactoryFnT", "engine_from_registry", "resolve_factory"]


class Engine(Protocol):
    """A synchronous runtime, used by exactly one worker thread (``abort`` excepted).

    ``generate`` yields decoded text pieces (UTF-8 already assembled: use
    edgehost.llm.textstream.Utf8Assembler for runtimes that hand out bytes). The worker matches stop
    sequences itself and stops iterating when one matched; an engine may also use ``stop`` as a hint
    but must not swallow stop text it yields. When the consumer stops early it calls ``close()`` on
    the iterator; the engine must have stopped its runtime when ``close()`` returns.
    """

    capabilities: Capabilities  # valid after load()

    def load(self) -> ModelInfo:
        """Load the model. Raises BackendError with a message a user can act on."""
        ...

    def format_chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        add_generation_prompt: bool = True,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> str:
        """Render messages with the model's chat template (append-only across turns)."""
        ...

    def tokenize(self, text: str) -> list[int]: ...

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
        """Yield text pieces for ``prompt``, reusing the KV cache of the common prefix. Without
        ``penalize_repetition`` the configured repetition penalties are not applied.

        Raises BackendError when the prompt does not fit the context or the grammar is invalid.
        """
        ...

    def abort(self) -> None:
        """Stop the running ``generate`` soon; called from another thread of the worker."""
        ...

    def last_perf(self) -> Perf:
        """Figures of the last finished (or aborted) ``generate``."""
        ...

    def reset(self) -> None:
        """Forget the KV cache (a new conversation)."""
        ...

    def close(self) -> None: ...


EngineFactoryFnT = Callable[[dict[str, Any]], Engine]

# Backend name -> "module:factory"; the factory takes the plain JSON-able engine config (model path,
# n_ctx, threads, affinity, rkllm library path and ABI, sampling ...) and returns an unloaded Engine.
ENGINE_FACTORIES: dict[str, str] = {
    "llamacpp": "edgehost.llm.llamacpp_engine:create_engine",
    "rkllm": "edgehost.llm.rkllm.engine:create_engine",
}


def resolve_factory(spec: str) -> EngineFactoryFnT:
    """Import ``"module:function"``. Raises BackendError when it cannot be imported."""
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BackendError(f"cannot import the engine module {module_name}: {exc}") from exc
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise BackendError(f"{module_name} has no engine factory {attr!r}")
    return cast(EngineFactoryFnT, factory)


def engine_from_registry(engine: str, config: dict[str, Any]) -> Engine:
    """Create an engine from a registered name or a ``"module:factory"`` spec (tests use the latter).

    Raises BackendError for an unknown name or an import failure.
    """
    spec = ENGINE_FACTORIES.get(engine, engine if ":" in engine else None)
    if spec is None:
        raise BackendError(f"unknown engine {engine!r}; known: {', '.join(sorted(ENGINE_FACTORIES))}")
    return resolve_factory(spec)(config)
