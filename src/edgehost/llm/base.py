"""The Backend protocol every model runtime implements, and the values that cross it.

A backend renders the conversation with the model's own chat template (append-only, so the KV cache
of the previous turn stays valid), streams a generation as events, and can be cancelled.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from edgehost.errors import EdgeHostError
from edgehost.roles import Role

CHARS_PER_TOKEN = 4  # English text and JSON average about 4 characters per token


def estimate_tokens(text: str) -> int:
    """A tokenizer-free token count, for budgets where no tokenizer is at hand."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str
    name: str | None = None  # the tool's name on a role="tool" message
    tool_call_id: str | None = None  # on a role="tool" message: the call it answers
    # On a role="tool" message for a call the host chose: the user's question, which the result asks
    # the model to answer (agent.prompting.prompt_messages renders it).
    question: str | None = None


@dataclass(frozen=True)
class Capabilities:
    backend: str  # "llamacpp" | "rkllm" | "openai" | "scripted"
    max_context: int
    supports_grammar: bool = False
    supports_native_tools: bool = False  # the model's template has a tools section
    native_tool_dialect: str | None = None  # e.g. "hermes" for Qwen's <tool_call>{json}</tool_call>
    # The next prompt reuses the KV cache of this one's common prefix (llama.cpp here, and its disk copy
    # across starts): prefilling a prompt ahead of a question saves that question the time.
    reuses_prompt_prefix: bool = False


@dataclass(frozen=True)
class GenerationRequest:
    messages: Sequence[ChatMessage]
    # Assistant text already produced in this reply: rendered after the generation prompt, so a
    # generation can be continued (e.g. under a grammar once an opening tool marker appeared).
    continuation: str = ""
    max_tokens: int = 512
    stop: Sequence[str] = ()
    grammar: str | None = None  # GBNF; honoured only when capabilities.supports_grammar
    tools: Sequence[dict[str, Any]] | None = None  # OpenAI-style tool specs, for native tool calling
    temperature: float | None = None
    # A tool the reply must call (the user pinned it); sent as tool_choice by native-tool backends.
    tool_choice: str | None = None
    # The repetition penalty of the board profile's sampling; off for a call written under a grammar,
    # whose values are copied from the question on purpose.
    penalize_repetition: bool = True


@dataclass(frozen=True)
class Perf:
    prompt_tokens: int = 0  # prompt tokens evaluated by this run (after reusing the cached prefix)
    cached_tokens: int = 0  # prompt tokens reused from the KV cache
    generated_tokens: int = 0
    prefill_ms: float = 0.0
    decode_ms: float = 0.0
    context_tokens: int = 0  # tokens in the context after the run (for the context meter)
    peak_memory_mb: float | None = None

    @property
    def tokens_per_second(self) -> float:
        return self.generated_tokens / (self.decode_ms / 1000.0) if self.decode_ms > 0 else 0.0

    def __add__(self, later: Perf) -> Perf:
        """Two runs of one turn together: counts and times add up, the context is the later's."""
        return Perf(
            prompt_tokens=self.prompt_tokens + later.prompt_tokens,
            cached_tokens=self.cached_tokens + later.cached_tokens,
            generated_tokens=self.generated_tokens + later.generated_tokens,
            prefill_ms=self.prefill_ms + later.prefill_ms,
            decode_ms=self.decode_ms + later.decode_ms,
            context_tokens=later.context_tokens or self.context_tokens,
            peak_memory_mb=max(filter(None, [self.peak_memory_mb, later.peak_memory_mb]), default=None),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Perf:
        """The Perf ``as_dict`` wrote (derived and unknown keys are ignored); empty for None."""
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in (data or {}).items() if k in known})

    def as_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached_tokens,
            "generated_tokens": self.generated_tokens,
            "prefill_ms": round(self.prefill_ms, 2),
            "decode_ms": round(self.decode_ms, 2),
            "tokens_per_second": round(self.tokens_per_second, 2),
            "context_tokens": self.context_tokens,
            "peak_memory_mb": self.peak_memory_mb,
        }


@dataclass(frozen=True)
class TokenText:
    text: str


@dataclass(frozen=True)
class NativeToolCall:
    """A tool call the runtime returned in structured form (OpenAI-compatible servers)."""

    name: str
    arguments: dict[str, Any] | str
    id: str | None = None


@dataclass(frozen=True)
class GenerationFinished:
    # repetition: the reply began to repeat itself and was stopped (llm.textstream.LoopDetector)
    reason: Literal["stop", "length", "stop_sequence", "cancelled", "repetition"]
    perf: Perf = field(default_factory=Perf)
    stop_sequence: str | None = None  # which of request.stop ended the generation


GenerationEvent = TokenText | NativeToolCall | GenerationFinished


class BackendError(EdgeHostError):
    """A backend could not load or run (missing model, unknown RKLLM ABI, server unreachable ...)."""


class BackendCrashed(BackendError):
    """The inference worker process died; the message names the cause ("... signal 11")."""


@dataclass(frozen=True)
class ModelInfo:
    path: str
    name: str
    format: str  # "gguf" | "rkllm" | "remote"
    context_length: int
    chat_template: bool
    parameters: int | None = None  # the model's parameter count, when the runtime or file says


@runtime_checkable
class Backend(Protocol):
    """One model runtime. All methods are called from the asyncio loop and must not block it."""

    @property
    def capabilities(self) -> Capabilities: ...

    @property
    def model_info(self) -> ModelInfo | None: ...

    async def load(self) -> ModelInfo:
        """Load the model. Raises BackendError with a message a user can act on."""
        ...

    def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationEvent]:
        """Stream a reply; the last event is always GenerationFinished.

        Raises BackendCrashed if the worker dies during the stream.
        """
        ...

    async def cancel(self) -> None:
        """End the running generation; its stream then finishes with reason "cancelled"."""
        ...

    async def count_tokens(self, text: str) -> int: ...

    async def reset(self) -> None:
        """Forget the KV cache (a new conversation)."""
        ...

    async def close(self) -> None: ...
