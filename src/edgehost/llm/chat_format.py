"""Chat formatting that needs no model runtime: the ChatML fallback and what a template says about tools."""

from __future__ import annotations

from collections.abc import Sequence

from edgehost.llm.base import ChatMessage

__all__ = ["chatml", "native_tool_dialect", "template_has_tools"]


def chatml(messages: Sequence[ChatMessage], *, add_generation_prompt: bool = True) -> str:
    """ChatML (``<|im_start|>role\\n...<|im_end|>``), for models whose file has no chat template."""
    parts = [f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages]
    if add_generation_prompt:
        parts.append("<|im_start|>assistant\n")
    return "".join(parts)


def template_has_tools(template: str | None) -> bool:
    """Whether a Jinja chat template renders a ``tools`` list (the model was trained on tool calls)."""
    return bool(template) and "tools" in (template or "")


def native_tool_dialect(template: str | None) -> str | None:
    """The marker dialect a tool-aware template teaches (see ARCHITECTURE, tool-call dialects)."""
    if not template_has_tools(template):
        return None
    assert template is not None
    if "<function=" in template:
        return "qwen-xml"
    if "<tool_call>" in template:
        return "hermes"
    if "[TOOL_CALLS]" in template:
        return "mistral"
    return "bare-json"
