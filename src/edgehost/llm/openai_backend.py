"""A Backend for any OpenAI-compatible ``/v1/chat/completions`` server (llama.cpp server, Ollama, vLLM ...).

For when one board is not enough. Streams Server-Sent Events with httpx2; structured tool calls the
server returns become NativeToolCall events, anything else is text. Stop sequences are matched here
(not sent to the server), so the stream can say which one ended it; closing the response stops the
server's generation.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx2

from edgehost.llm.base import (
    BackendError,
    Capabilities,
    GenerationEvent,
    GenerationFinished,
    GenerationRequest,
    ModelInfo,
    NativeToolCall,
    Perf,
    TokenText,
    estimate_tokens,
)
from edgehost.llm.textstream import StopMatch, StopMatcher
from edgehost.settings import DEFAULT_CONTEXT_LENGTH, OpenAISettings

__all__ = ["OpenAIBackend"]

# Connecting to a server on the LAN is quick; a long first token is normal (prefill), so reads wait.
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 300.0
DEFAULT_CONTEXT = DEFAULT_CONTEXT_LENGTH


@dataclass
class _ToolCallParts:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def event(self) -> NativeToolCall:
        text = "".join(self.arguments)
        arguments: dict[str, Any] | str = text
        with contextlib.suppress(json.JSONDecodeError):
            parsed = json.loads(text) if text.strip() else {}
            if isinstance(parsed, dict):
                arguments = parsed
        return NativeToolCall(name=self.name, arguments=arguments, id=self.id)


class OpenAIBackend:
    """Streams from ``{base_url}/chat/completions``.

    ``assistant_prefill``: the server continues a trailing assistant message (llama.cpp server with
    a prefill-capable template, vLLM's continue_final_message); otherwise a request's
    ``continuation`` is not sent.
    """

    def __init__(
        self,
        base_url: str,
        model: str = "",
        *,
        api_key: str | None = None,
        context_length: int = DEFAULT_CONTEXT,
        assistant_prefill: bool = False,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._assistant_prefill = assistant_prefill
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx2.AsyncClient(
            base_url=self._base_url,
            headers=headers,
            timeout=httpx2.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
            transport=transport,
        )
        self._capabilities = Capabilities(
            backend="openai", max_context=context_length, supports_grammar=False, supports_native_tools=True
        )
        self._model_info: ModelInfo | None = None
        self._cancel: asyncio.Event | None = None

    @classmethod
    def from_settings(
        cls, settings: OpenAISettings, *, context_length: int = DEFAULT_CONTEXT
    ) -> OpenAIBackend:
        """The API key comes from the environment variable the settings name, never from a file."""
        key = os.environ.get(settings.api_key_env) if settings.api_key_env else None
        return cls(settings.base_url, settings.model, api_key=key, context_length=context_length)

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    @property
    def model_info(self) -> ModelInfo | None:
        return self._model_info

    async def load(self) -> ModelInfo:
        """Ask the server for its models; without a configured model, use the first.

        Raises BackendError when the server cannot be reached or lists no model.
        """
        try:
            response = await self._client.get("/models")
        except httpx2.HTTPError as exc:
            raise BackendError(
                f"cannot reach the OpenAI-compatible server at {self._base_url}: {exc}"
            ) from exc
        if response.status_code != 200:
            raise BackendError(
                f"{self._base_url}/models answered HTTP {response.status_code}: {response.text[:200]}"
            )
        ids = [str(m.get("id")) for m in response.json().get("data", []) if isinstance(m, dict)]
        if not self._model:
            if not ids:
                raise BackendError(f"the server at {self._base_url} lists no model; set openai.model")
            self._model = ids[0]
        self._model_info = ModelInfo(
            path=self._base_url,
            name=self._model,
            format="remote",
            context_length=self._capabilities.max_context,
            chat_template=True,
        )
        return self._model_info

    async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationEvent]:
        cancel = self._cancel = asyncio.Event()
        events: asyncio.Queue[GenerationEvent | BaseException] = asyncio.Queue()
        reader = asyncio.create_task(self._read_stream(request, events))
        cancelled = asyncio.create_task(cancel.wait())
        try:
            while True:
                getter = asyncio.create_task(events.get())
                await asyncio.wait({getter, cancelled}, return_when=asyncio.FIRST_COMPLETED)
                if not getter.done():
                    getter.cancel()
                    yield GenerationFinished(reason="cancelled")
                    return
                event = getter.result()
                if isinstance(event, BaseException):
                    raise event
                yield event
                if isinstance(event, GenerationFinished):
                    return
        finally:
            cancelled.cancel()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
            if self._cancel is cancel:
                self._cancel = None

    async def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    async def count_tokens(self, text: str) -> int:
        """An estimate: OpenAI-compatible servers have no standard tokenizer endpoint."""
        return estimate_tokens(text)

    async def reset(self) -> None:
        """Nothing to do: the server keeps (or drops) its own cache."""

    async def close(self) -> None:
        await self._client.aclose()

    def _body(self, request: GenerationRequest) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        for message in request.messages:
            item: dict[str, Any] = {"role": message.role, "content": message.content}
            if message.tool_call_id is not None:
                item["tool_call_id"] = message.tool_call_id
            if message.name is not None and message.role == "tool":
                item["name"] = message.name
            messages.append(item)
        if request.continuation and self._assistant_prefill:
            messages.append({"role": "assistant", "content": request.continuation})
        body: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "max_tokens": request.max_tokens,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = list(request.tools)
            if request.tool_choice:
                body["tool_choice"] = {"type": "function", "function": {"name": request.tool_choice}}
        return body

    async def _read_stream(
        self, request: GenerationRequest, events: asyncio.Queue[GenerationEvent | BaseException]
    ) -> None:
        try:
            await self._stream_into(request, events)
        except httpx2.HTTPError as exc:
            events.put_nowait(BackendError(f"the OpenAI-compatible server at {self._base_url} failed: {exc}"))
        except BackendError as exc:
            events.put_nowait(exc)

    async def _stream_into(
        self, request: GenerationRequest, events: asyncio.Queue[GenerationEvent | BaseException]
    ) -> None:
        matcher = StopMatcher(request.stop)
        calls: dict[int, _ToolCallParts] = {}
        usage: dict[str, Any] = {}
        finish_reason: str | None = None
        started = time.perf_counter()
        first_token: float | None = None
        chunks = 0  # content chunks: the generated token count when the server sends no usage
        async with self._client.stream("POST", "/chat/completions", json=self._body(request)) as response:
            if response.status_code != 200:
                body = (await response.aread()).decode("utf-8", errors="replace")
                raise BackendError(
                    f"{self._base_url}/chat/completions answered HTTP {response.status_code}: {body[:300]}"
                )
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                chunk = json.loads(data)
                usage = chunk.get("usage") or usage
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    finish_reason = choice.get("finish_reason") or finish_reason
                    for call in delta.get("tool_calls") or []:
                        parts = calls.setdefault(int(call.get("index", 0)), _ToolCallParts())
                        parts.id = call.get("id") or parts.id
                        function = call.get("function") or {}
                        name = function.get("name") or ""
                        if name != parts.name:  # some servers repeat the whole name in every chunk
                            parts.name += name
                        parts.arguments.append(function.get("arguments") or "")
                    content = delta.get("content")
                    if not content:
                        continue
                    if first_token is None:
                        first_token = time.perf_counter()
                    chunks += 1
                    shown = matcher.feed(content)
                    if isinstance(shown, StopMatch):
                        if shown.text:
                            events.put_nowait(TokenText(shown.text))
                        perf = _perf(usage, started, first_token, chunks)
                        events.put_nowait(
                            GenerationFinished("stop_sequence", perf=perf, stop_sequence=shown.stop_sequence)
                        )
                        return
                    if shown:
                        events.put_nowait(TokenText(shown))
        rest = matcher.flush()
        if rest:
            events.put_nowait(TokenText(rest))
        for index in sorted(calls):
            events.put_nowait(calls[index].event())
        perf = _perf(usage, started, first_token, chunks)
        events.put_nowait(GenerationFinished("length" if finish_reason == "length" else "stop", perf=perf))


def _perf(usage: dict[str, Any], started: float, first_token: float | None, chunks: int) -> Perf:
    ended = time.perf_counter()
    details = usage.get("prompt_tokens_details") or {}
    return Perf(
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        cached_tokens=int(details.get("cached_tokens") or 0),
        generated_tokens=int(usage.get("completion_tokens") or chunks),
        prefill_ms=((first_token or ended) - started) * 1000.0,
        decode_ms=(ended - first_token) * 1000.0 if first_token is not None else 0.0,
        context_tokens=int(usage.get("total_tokens") or 0),
    )
