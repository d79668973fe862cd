"""Chat templates for .rkllm models, which (unlike GGUF) carry no template we can read.

The family is guessed from the file name (``DeepSeek-R1-Distill-Qwen`` before ``Qwen``) and can be
overridden by a sidecar JSON file next to the model, ``<model file>.template.json`` (for example
``Qwen3-1.7B-w8a8.rkllm.template.json``)::

    {"family": "llama3"}                                  # just pick another family, or
    {"family": "chatml", "max_context_len": 8192,         # a family with some parts replaced:
     "system": "<|im_start|>system\\n{content}<|im_end|>\\n", "user": "...", "tool": "...",
     "assistant_prefix": "<|im_start|>assistant\\n", "assistant_suffix": "<|im_end|>\\n",
     "bos": "", "stop": ["<|im_end|>"], "tools": "hermes" | null,
     "system_in_first_user": false, "default_system": null}

``{content}`` marks where a message's text goes. ``max_context_len`` is the limit the model was
converted with (the runtime rejects more); without it 4096 is assumed, the usual conversion value.
Renderings are append-only: an assistant turn is the generation prompt, the reply and a suffix, so
the next prompt extends the previous prompt plus the reply and only the new part is prefilled.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgehost.errors import ConfigError
from edgehost.llm.base import ChatMessage

__all__ = [
    "DEFAULT_MODEL_CONTEXT",
    "FAMILIES",
    "ChatTemplate",
    "family_from_filename",
    "hermes_tools_section",
    "load_template",
    "sidecar_path",
]

DEFAULT_MODEL_CONTEXT = 4096


@dataclass(frozen=True)
class ChatTemplate:
    family: str
    system: str
    user: str
    assistant_prefix: str  # also the generation prompt
    assistant_suffix: str
    tool: str
    bos: str = ""
    stop: tuple[str, ...] = ()
    tools: str | None = None  # "hermes" when the family's own template has a tools section
    system_in_first_user: bool = False  # no system role (Gemma): system text opens the first user turn
    default_system: str | None = None
    max_context_len: int = DEFAULT_MODEL_CONTEXT

    def render(
        self,
        messages: Sequence[ChatMessage],
        *,
        add_generation_prompt: bool = True,
        tools: Sequence[dict[str, Any]] | None = None,
    ) -> str:
        system_parts = [m.content for m in messages if m.role == "system"]
        system = "\n\n".join(system_parts) if system_parts else (self.default_system or "")
        if tools and self.tools == "hermes":
            system = (system + "\n\n" if system else "") + hermes_tools_section(tools)
        out = [self.bos]
        pending_system = system if self.system_in_first_user else ""
        if system and not self.system_in_first_user:
            out.append(self.system.replace("{content}", system))
        for message in messages:
            if message.role == "system":
                continue
            if message.role == "assistant":
                out.append(self.assistant_prefix + message.content + self.assistant_suffix)
                continue
            content = message.content
            if pending_system:
                content, pending_system = pending_system + "\n\n" + content, ""
            out.append((self.tool if message.role == "tool" else self.user).replace("{content}", content))
        if add_generation_prompt:
            out.append(self.assistant_prefix)
        return "".join(out)


def hermes_tools_section(tools: Sequence[dict[str, Any]]) -> str:
    """The tools block of Qwen2.5/Qwen3's own template (their model answers in ``<tool_call>``)."""
    specs = "\n".join(
        json.dumps(t if "function" in t else {"type": "function", "function": t}) for t in tools
    )
    return (
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
        f"{specs}\n</tools>\n\n"
        "For each function call, return a json object with function name and arguments within "
        "<tool_call></tool_call> XML tags:\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )


_CHATML = ChatTemplate(
    family="chatml",
    system="<|im_start|>system\n{content}<|im_end|>\n",
    user="<|im_start|>user\n{content}<|im_end|>\n",
    assistant_prefix="<|im_start|>assistant\n",
    assistant_suffix="<|im_end|>\n",
    tool="<|im_start|>user\n<tool_response>\n{content}\n</tool_response><|im_end|>\n",
    stop=("<|im_end|>", "<|endoftext|>"),
)

FAMILIES: dict[str, ChatTemplate] = {
    "chatml": _CHATML,
    "qwen2": dataclasses.replace(_CHATML, family="qwen2", default_system="You are a helpful assistant."),
    "qwen2.5": dataclasses.replace(_CHATML, family="qwen2.5", tools="hermes"),
    # Qwen3 with thinking off: its template puts an empty think block after the generation prompt.
    "qwen3": dataclasses.replace(
        _CHATML,
        family="qwen3",
        tools="hermes",
        assistant_prefix="<|im_start|>assistant\n<think>\n\n</think>\n\n",
    ),
    "llama3": ChatTemplate(
        family="llama3",
        bos="<|begin_of_text|>",
        system="<|start_header_id|>system<|end_header_id|>\n\n{content}<|eot_id|>",
        user="<|start_header_id|>user<|end_header_id|>\n\n{content}<|eot_id|>",
        assistant_prefix="<|start_header_id|>assistant<|end_header_id|>\n\n",
        assistant_suffix="<|eot_id|>",
        tool="<|start_header_id|>ipython<|end_header_id|>\n\n{content}<|eot_id|>",
        stop=("<|eot_id|>", "<|end_of_text|>"),
    ),
    "gemma": ChatTemplate(
        family="gemma",
        bos="<bos>",
        system="",
        user="<start_of_turn>user\n{content}<end_of_turn>\n",
        assistant_prefix="<start_of_turn>model\n",
        assistant_suffix="<end_of_turn>\n",
        tool="<start_of_turn>user\n{content}<end_of_turn>\n",
        stop=("<end_of_turn>",),
        system_in_first_user=True,
    ),
    "phi3": ChatTemplate(
        family="phi3",
        system="<|system|>\n{content}<|end|>\n",
        user="<|user|>\n{content}<|end|>\n",
        assistant_prefix="<|assistant|>\n",
        assistant_suffix="<|end|>\n",
        tool="<|user|>\n{content}<|end|>\n",
        stop=("<|end|>", "<|endoftext|>"),
    ),
    "deepseek": ChatTemplate(
        family="deepseek",
        bos="<｜begin▁of▁sentence｜>",
        system="{content}",
        user="<｜User｜>{content}",
        assistant_prefix="<｜Assistant｜>",
        assistant_suffix="<｜end▁of▁sentence｜>",
        tool="<｜User｜>{content}",
        stop=("<｜end▁of▁sentence｜>",),
    ),
    "minicpm": ChatTemplate(
        family="minicpm",
        bos="<s>",
        system="{content}",
        user="<用户>{content}",
        assistant_prefix="<AI>",
        assistant_suffix="</s>",
        tool="<用户>{content}",
        stop=("</s>",),
    ),
    "zephyr": ChatTemplate(  # TinyLlama-1.1B-Chat
        family="zephyr",
        system="<|system|>\n{content}</s>\n",
        user="<|user|>\n{content}</s>\n",
        assistant_prefix="<|assistant|>\n",
        assistant_suffix="</s>\n",
        tool="<|user|>\n{content}</s>\n",
        stop=("</s>",),
    ),
}

# Checked in order against the lower-cased file name; the first hit wins. Unknown names get ChatML,
# the format of most models converted for RKLLM (Qwen, InternLM, SmolLM, MiniCPM3).
_NAME_RULES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("deepseek",), "deepseek"),
    (("qwen3",), "qwen3"),
    (("qwen2.5", "qwen2_5", "qwen25"), "qwen2.5"),
    (("qwen",), "qwen2"),
    (("tinyllama",), "zephyr"),
    (("llama-3", "llama3", "llama_3"), "llama3"),
    (("gemma",), "gemma"),
    (("phi-3", "phi3", "phi_3"), "phi3"),
    (("minicpm3", "minicpm-3", "minicpm4"), "chatml"),
    (("minicpm",), "minicpm"),
)


def family_from_filename(name: str) -> str:
    lowered = name.lower()
    for needles, family in _NAME_RULES:
        if any(n in lowered for n in needles):
            return family
    return "chatml"


def sidecar_path(model_path: Path) -> Path:
    return model_path.with_name(model_path.name + ".template.json")


_OVERRIDABLE = {f.name for f in dataclasses.fields(ChatTemplate)} - {"family"}


def load_template(model_path: Path) -> ChatTemplate:
    """The template for a .rkllm model: its sidecar file if present, else the family of its name.

    Raises ConfigError naming the sidecar file when it is broken or names an unknown family.
    """
    sidecar = sidecar_path(model_path)
    if not sidecar.is_file():
        return FAMILIES[family_from_filename(model_path.name)]
    try:
        data = json.loads(sidecar.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(exc.msg, path=str(sidecar), line=exc.lineno, column=exc.colno) from None
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object", path=str(sidecar))
    family = data.get("family") or family_from_filename(model_path.name)
    if family not in FAMILIES:
        raise ConfigError(
            f"unknown family {family!r}; known: {', '.join(FAMILIES)}", path=str(sidecar), field="family"
        )
    unknown = set(data) - _OVERRIDABLE - {"family"}
    if unknown:
        raise ConfigError(f"unknown keys {sorted(unknown)}", path=str(sidecar))
    overrides: dict[str, Any] = dict(data)
    overrides.pop("family", None)
    if "stop" in overrides:
        overrides["stop"] = tuple(overrides["stop"])
    try:
        return dataclasses.replace(FAMILIES[family], **overrides)
    except TypeError as exc:
        raise ConfigError(str(exc), path=str(sidecar)) from None
