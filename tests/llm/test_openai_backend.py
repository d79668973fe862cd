"""The OpenAI-compatible backend against llama-cpp-python's own server running the default model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx2
import pytest
from llm_helpers import collect

from edgehost.llm.base import (
    BackendError,
    ChatMessage,
    GenerationFinished,
    GenerationRequest,
    NativeToolCall,
    TokenText,
)
from edgehost.llm.openai_backend import OpenAIBackend
from edgehost.settings import OpenAISettings
from edgehost.slow_machine import scaled_wait

WAIT_S = scaled_wait(120.0)
QUESTION = [ChatMessage("user", "What is the capital of France? Answer in one sentence.")]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


@pytest.fixture
async def backend(llama_server: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[OpenAIBackend]:
    monkeypatch.setenv("EDGEHOST_TEST_KEY", "sk-test")
    backend = OpenAIBackend.from_settings(
        OpenAISettings(base_url=llama_server, api_key_env="EDGEHOST_TEST_KEY")
    )
    await asyncio.wait_for(backend.load(), WAIT_S)
    yield backend
    await backend.close()


async def test_a_reply_streams_from_the_server(backend: OpenAIBackend) -> None:
    assert backend.model_info is not None and backend.model_info.format == "remote"
    assert not backend.capabilities.supports_grammar
    pieces, finished = await asyncio.wait_for(
        collect(backend, GenerationRequest(QUESTION, max_tokens=30, temperature=0.0)), WAIT_S
    )
    assert len(pieces) > 1 and "Paris" in "".join(pieces)
    assert finished.reason == "stop"
    assert finished.perf.generated_tokens >= len(pieces) - 1 and finished.perf.tokens_per_second > 0


async def test_the_stop_sequence_that_ended_the_reply_is_reported(backend: OpenAIBackend) -> None:
    request = GenerationRequest(QUESTION, max_tokens=30, temperature=0.0, stop=["Paris", "never-said"])
    pieces, finished = await asyncio.wait_for(collect(backend, request), WAIT_S)
    assert (finished.reason, finished.stop_sequence) == ("stop_sequence", "Paris")
    assert "Paris" not in "".join(pieces)


async def test_a_length_limit_is_reported(backend: OpenAIBackend) -> None:
    request = GenerationRequest([ChatMessage("user", "Write a long poem.")], max_tokens=5, temperature=0.0)
    _, finished = await asyncio.wait_for(collect(backend, request), WAIT_S)
    assert finished.reason == "length"


async def test_structured_tool_calls_become_native_tool_call_events(backend: OpenAIBackend) -> None:
    request = GenerationRequest(
        [ChatMessage("user", "What is the weather in Lyon?")],
        max_tokens=60,
        temperature=0.0,
        tools=[WEATHER_TOOL],
        tool_choice="get_weather",
    )
    events = []
    async for event in backend.generate(request):
        events.append(event)
    calls = [e for e in events if isinstance(e, NativeToolCall)]
    assert len(calls) == 1
    assert calls[0].name == "get_weather"
    assert isinstance(calls[0].arguments, dict) and isinstance(calls[0].arguments.get("city"), str)
    assert isinstance(events[-1], GenerationFinished)


async def test_cancel_ends_the_stream_as_cancelled(backend: OpenAIBackend) -> None:
    request = GenerationRequest([ChatMessage("user", "Write a long story about a dragon.")], max_tokens=400)

    async def run() -> GenerationFinished:
        async for event in backend.generate(request):
            if isinstance(event, TokenText):
                await backend.cancel()
            elif isinstance(event, GenerationFinished):
                return event
        raise AssertionError("no GenerationFinished")

    assert (await asyncio.wait_for(run(), WAIT_S)).reason == "cancelled"


async def test_an_unreachable_server_is_a_clear_error() -> None:
    backend = OpenAIBackend("http://127.0.0.1:9/v1")
    try:
        with pytest.raises(BackendError, match="cannot reach"):
            await asyncio.wait_for(backend.load(), WAIT_S)
    finally:
        await backend.close()


async def test_the_api_key_from_the_environment_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str | None] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.headers.get("authorization"))
        return httpx2.Response(200, json={"data": [{"id": "m"}]})

    backend = OpenAIBackend("http://server/v1", api_key="sk-1", transport=httpx2.MockTransport(answer))
    try:
        info = await backend.load()
    finally:
        await backend.close()
    assert seen == ["Bearer sk-1"] and info.name == "m"
