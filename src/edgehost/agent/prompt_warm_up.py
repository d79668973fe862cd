"""Prefilling the prompt a new conversation starts with while nobody waits (the system prompt and its
tools), for a backend that reuses a prompt's prefix: the first question then reads only itself. For the
embedded model that is ~800 tokens, 13 s on a 2-core PC, the first time in a data folder (the engine
keeps the prefilled prompt on disk for the next start)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from edgehost.agent.prompting import build_system_prompt, choose_dialect, prompt_messages
from edgehost.agent.selection import ToolSelector
from edgehost.agent.tools import ToolSpec
from edgehost.llm.base import Backend, ChatMessage, GenerationFinished, GenerationRequest, Perf

__all__ = ["warm_up_prompt"]


async def warm_up_prompt(
    backend: Backend,
    selector: ToolSelector,
    tools: Sequence[ToolSpec],
    *,
    tool_budget_fraction: float,
    extra_instructions: str = "",
    server_instructions: Mapping[str, str] | None = None,
) -> Perf | None:
    """Prefill the system prompt TurnRunner.run gives a new conversation; its figures, or None when
    nothing was done: the backend keeps no prefix, or the tools do not all fit (the first question's
    ranking picks them then)."""
    caps = backend.capabilities
    if not caps.reuses_prompt_prefix:
        return None
    enabled = [t for t in tools if t.enabled]
    budget = int(caps.max_context * tool_budget_fraction)
    selection = await selector.select("", enabled, budget_tokens=budget, count_tokens=backend.count_tokens)
    if len(selection.tools) < len(enabled):
        return None
    system = build_system_prompt(
        selection.tools, choose_dialect(caps), dict(server_instructions or {}), extra=extra_instructions
    )
    # Any question shares the prompt up to its own text; one token ends the run.
    messages = prompt_messages([ChatMessage("system", system), ChatMessage("user", "Hello")], caps)
    perf = None
    async for event in backend.generate(GenerationRequest(messages, max_tokens=1, temperature=0.0)):
        if isinstance(event, GenerationFinished):
            perf = event.perf
    return perf
