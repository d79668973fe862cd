"""How the values of base.py travel between the host and the worker process (plain JSON dicts)."""

from __future__ import annotations

import dataclasses
from typing import Any

from edgehost.llm.base import Capabilities, ChatMessage, GenerationRequest, ModelInfo, Perf

__all__ = [
    "capabilities_from_wire",
    "model_info_from_wire",
    "perf_from_wire",
    "request_from_wire",
    "request_to_wire",
    "to_wire",
]


def to_wire(value: Any) -> dict[str, Any]:
    """A frozen dataclass of base.py as a dict of its fields."""
    return dataclasses.asdict(value)


def request_to_wire(request: GenerationRequest) -> dict[str, Any]:
    return {
        "messages": [to_wire(m) for m in request.messages],
        "continuation": request.continuation,
        "max_tokens": request.max_tokens,
        "stop": list(request.stop),
        "grammar": request.grammar,
        "tools": list(request.tools) if request.tools is not None else None,
        "temperature": request.temperature,
        "tool_choice": request.tool_choice,
    }


def request_from_wire(data: dict[str, Any]) -> GenerationRequest:
    return GenerationRequest(
        messages=[ChatMessage(**m) for m in data["messages"]],
        continuation=data.get("continuation", ""),
        max_tokens=int(data.get("max_tokens", 512)),
        stop=tuple(data.get("stop") or ()),
        grammar=data.get("grammar"),
        tools=data.get("tools"),
        temperature=data.get("temperature"),
        tool_choice=data.get("tool_choice"),
    )


def perf_from_wire(data: dict[str, Any]) -> Perf:
    return Perf.from_dict(data)


def model_info_from_wire(data: dict[str, Any]) -> ModelInfo:
    return ModelInfo(**_known_fields(ModelInfo, data))


def capabilities_from_wire(data: dict[str, Any]) -> Capabilities:
    return Capabilities(**_known_fields(Capabilities, data))


def _known_fields(cls: Any, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in data.items() if k in names}
