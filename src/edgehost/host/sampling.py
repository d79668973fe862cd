"""Sampling requests from MCP servers: our own model drafts the answer, the user approves it.

Nothing goes back to the server unless the approver allows it; the approver may edit the draft
(the "draft" argument of the request). Timeout, cancel and shutdown mean a declined request. Every
face answers through this one handler: the window shows the request as a draft dialog, the CLI and
the web as any approval.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types

from edgehost.agent.approval import ApprovalDecision, ApprovalRequest, Approver
from edgehost.agent.events import ApprovalResolved
from edgehost.llm.base import (
    Backend,
    BackendError,
    ChatMessage,
    GenerationFinished,
    GenerationRequest,
    TokenText,
)

SAMPLING_TOOL = "sampling/createMessage"
MAX_SAMPLING_TOKENS = 1024  # a server may ask for more; an edge model should not write that long unasked

EmitFn = Callable[[Any], None]


def _text_of(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(getattr(b, "text", None) or f"[{getattr(b, 'type', 'content')}]" for b in blocks)


def sampling_messages(params: types.CreateMessageRequestParams) -> list[ChatMessage]:
    messages = [ChatMessage("system", params.system_prompt)] if params.system_prompt else []
    for message in params.messages:
        text = _text_of(message.content)
        messages.append(
            ChatMessage("assistant", text) if message.role == "assistant" else ChatMessage("user", text)
        )
    return messages


async def draft_answer(backend: Backend, params: types.CreateMessageRequestParams) -> tuple[str, str]:
    """Our model's answer to a sampling request: (text, MCP stop reason)."""
    request = GenerationRequest(
        messages=sampling_messages(params),
        max_tokens=min(params.max_tokens, MAX_SAMPLING_TOKENS),
        stop=params.stop_sequences or (),
        temperature=params.temperature,
    )
    parts: list[str] = []
    reason = "endTurn"
    async for item in backend.generate(request):
        if isinstance(item, TokenText):
            parts.append(item.text)
        elif isinstance(item, GenerationFinished):
            reason = {"length": "maxTokens", "stop_sequence": "stopSequence"}.get(item.reason, "endTurn")
    return "".join(parts).strip(), reason


async def decline_without_model(server: str, params: types.CreateMessageRequestParams) -> types.ErrorData:
    """The answer of a host that runs no model (`edgehost call`, `probe`), at once: it used to load the
    model, then wait for an approval nobody could give until the server gave up (60 s)."""
    return types.ErrorData(
        code=-1,
        message=(
            f"EdgeHost declined the sampling request from {server!r}: this command runs no model."
            " The window and `edgehost chat` answer sampling requests (with your approval)"
        ),
    )


def sampling_handler(
    model: Callable[[], Awaitable[Backend]],
    approver: Callable[[], Approver],
    emit: EmitFn = lambda _event: None,
) -> Callable[
    [str, types.CreateMessageRequestParams], Awaitable[types.CreateMessageResult | types.ErrorData]
]:
    """The ClientFeatures.sampling handler: draft with our model, then ask the approver (the request's
    tool is SAMPLING_TOOL); ``emit`` is told how it was resolved (ApprovalResolved), as for a tool call."""

    async def handle(
        server: str, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        try:
            backend = await model()
            draft, stop_reason = await draft_answer(backend, params)
        except BackendError as exc:
            return types.ErrorData(code=-1, message=f"EdgeHost's model could not answer: {exc}")
        request = ApprovalRequest(
            id=uuid.uuid4().hex,
            conversation_id=None,
            server=server,
            tool=SAMPLING_TOOL,
            arguments={
                "request": [{"role": m.role, "content": m.content} for m in sampling_messages(params)],
                "draft": draft,
            },
            risk="caution",
            reasons=(
                f"{server} asks EdgeHost's model to write a message; the draft is sent only if you allow it",
            ),
            allowed_scopes=("once",),
            description="A sampling request from an MCP server",
        )
        decision: ApprovalDecision = await approver()(request)
        emit(ApprovalResolved(request.id, decision.allow, decision.decided_by))
        if not decision.allow:
            reason = f": {decision.reason}" if decision.reason else ""
            return types.ErrorData(code=-1, message=f"the user declined the sampling request{reason}")
        text = str((decision.arguments or {}).get("draft", draft))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=text),
            model=backend.model_info.name if backend.model_info else backend.capabilities.backend,
            stop_reason=stop_reason,
        )

    return handle
