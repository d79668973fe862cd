"""Rendering tool results for the model and the terminal (pure functions)."""

from __future__ import annotations

import base64
import json
from typing import Any

import mcp_types as types

__all__ = ["block_text", "content_json", "result_json", "result_text"]


def content_json(block: Any) -> dict[str, Any]:
    """A content block as its wire JSON (camelCase keys)."""
    dumped: dict[str, Any] = block.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


def result_json(result: types.CallToolResult) -> dict[str, Any]:
    """``{"content": [...], "structuredContent": ..., "isError": bool}``."""
    return {
        "content": [content_json(block) for block in result.content],
        "structuredContent": result.structured_content,
        "isError": bool(result.is_error),
    }


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except ValueError:
        return len(data)


def block_text(block: Any) -> str:
    """One content block as text for the model: text as is, binary content as a short description."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent | types.AudioContent):
        kind = "image" if isinstance(block, types.ImageContent) else "audio"
        return f"[{kind} {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, types.ResourceLink):
        described = f": {block.description}" if block.description else ""
        return f"[resource {block.uri} ({block.name}){described}]"
    if isinstance(block, types.EmbeddedResource):
        contents = block.resource
        if isinstance(contents, types.TextResourceContents):
            return contents.text
        if isinstance(contents, types.BlobResourceContents):
            return f"[resource {contents.uri}, {contents.mime_type or 'binary'}, {_decoded_size(contents.blob)} bytes]"
    return json.dumps(content_json(block), ensure_ascii=False)


def result_text(result: types.CallToolResult, budget_chars: int) -> str:
    """The result as text for the model, cut to ``budget_chars`` with a note saying so.

    Structured content is shown only when no content block carries text (servers usually send both).
    """
    parts = [block_text(block) for block in result.content]
    if result.structured_content is not None and not any(
        isinstance(b, types.TextContent) for b in result.content
    ):
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n".join(parts)
    if len(text) <= budget_chars:
        return text
    note = f"\n[result cut: showing {{shown}} of {len(text)} characters]"
    keep = max(0, budget_chars - len(note.format(shown=budget_chars)))
    return text[:keep] + note.format(shown=keep)
