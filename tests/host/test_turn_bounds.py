"""The turn loop's bounds and hand-offs, through a Host with the real built-in servers: the call limit,
the stop after failed corrections, feedback on a malformed call, native calls, the lazy grammar (a
call the model starts is finished under a grammar) and switching the model between turns."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from tests.host.conftest import WAIT_S, call

from edgehost.agent.config import AgentConfig
from edgehost.host import events as ev
from edgehost.llm.base import (
    Capabilities,
    GenerationEvent,
    GenerationFinished,
    GenerationRequest,
    NativeToolCall,
)
from edgehost.llm.default_model import default_model_path
from edgehost.llm.scripted import ScriptedBackend

MODEL_ROUTES = AgentConfig(routing="model")  # the model decides the calls (these tests script them)


class GrammarBackend(ScriptedBackend):
    """A scripted backend that says it can constrain generation with a grammar, as llama.cpp can."""

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(backend="scripted", max_context=4096, supports_grammar=True)


class NativeCallingBackend(ScriptedBackend):
    """Answers its first request with a structured call, as an OpenAI-compatible server does."""

    async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationEvent]:
        if not self.requests:
            self.requests.append(request)
            yield NativeToolCall("board__cpu_status", "{}", id="call-1")
            yield GenerationFinished(reason="stop")
            return
        async for item in super().generate(request):
            yield item


def said_to_model(request: GenerationRequest) -> str:
    return "\n".join(m.content for m in request.messages)


async def test_the_call_limit_ends_the_turn_without_running_the_call_past_it(make_host):
    backend = ScriptedBackend(
        [call("board__cpu_status"), call("board__memory_status"), call("board__uptime"), "unused"]
    )
    host, _ = await make_host(
        backend, agent=AgentConfig(routing="model", max_calls_per_turn=2, max_correction_rounds=5)
    )
    result = await host.submit("check the board three ways")
    assert [e["tool"] for e in result.executions] == ["board__cpu_status", "board__memory_status"]
    assert len(backend.requests) == 3  # the third reply's call was refused; the model is not asked again
    stored = host.history.executions()
    assert sorted(e.tool for e in stored) == ["board__cpu_status", "board__memory_status"]


async def test_a_model_that_keeps_calling_unknown_tools_is_stopped_after_its_corrections(make_host):
    backend = ScriptedBackend([call("board__no_such_tool")] * 5)
    host, _ = await make_host(backend, agent=AgentConfig(routing="model", max_correction_rounds=1))
    result = await host.submit("how hot is it?")
    assert "did not produce a valid tool call after several corrections" in result.text
    assert len(backend.requests) == 2  # the first try and one correction
    assert "there is no tool named 'board__no_such_tool'" in said_to_model(backend.requests[1])


async def test_a_malformed_call_is_explained_to_the_model_which_then_answers(make_host):
    backend = ScriptedBackend(['[TOOL_CALL]{"arguments": {"zone": 1}}[END_TOOL_CALL]', "Fine."])
    host, recorder = await make_host(backend, agent=MODEL_ROUTES)
    result = await host.submit("how busy is the cpu")
    assert result.executions == ()
    assert 'your tool call could not be read: the call has no "name"' in said_to_model(backend.requests[1])
    assert not recorder.of(ev.ToolExecutionStarted)


async def test_a_native_tool_call_runs_like_a_detected_one(make_host):
    backend = NativeCallingBackend(["The board is fine."])
    host, _ = await make_host(backend, agent=MODEL_ROUTES)
    result = await host.submit("how is the board?")
    [execution] = result.executions
    assert (execution["tool"], execution["status"], execution["dialect"]) == (
        "board__cpu_status",
        "ok",
        "native",
    )
    assert "board__cpu_status" in said_to_model(backend.requests[1])  # its result went back


async def test_a_call_the_model_starts_is_finished_under_a_grammar(make_host):
    arguments = json.dumps({"name": "board__cpu_status", "arguments": {}})
    backend = GrammarBackend(["Let me look. [TOOL_CALL]", f"{arguments}[END_TOOL_CALL]", "All good."])
    host, _ = await make_host(backend, agent=MODEL_ROUTES)
    result = await host.submit("is the cpu ok?")
    first, finishing = backend.requests[:2]
    assert first.grammar is None  # the model writes freely ...
    assert finishing.grammar is not None and "board__cpu_status" in finishing.grammar  # ... then the call
    assert finishing.continuation.endswith("[TOOL_CALL]")
    assert [e["tool"] for e in result.executions] == ["board__cpu_status"]
    assert result.text.startswith("Let me look.")


@pytest.mark.usefixtures("data_dir_answered_once")  # not the first question: that is test_prompt_warm_up
async def test_switching_the_model_between_turns_keeps_the_conversation(make_host):
    backend = ScriptedBackend(["First answer."])
    host, recorder = await make_host(backend, agent=MODEL_ROUTES)
    first = await host.submit("hello")
    await host.switch_model("llamacpp", str(default_model_path()))
    ready = await recorder.wait_for(
        lambda e: isinstance(e, ev.ModelStatusChanged) and e.status == "ready" and e.backend == "llamacpp"
    )
    assert ready.model == default_model_path().stem
    backend_now: Any = await host.wait_model(WAIT_S * 4)
    assert backend_now is not backend and backend_now.capabilities.backend == "llamacpp"
    second = await host.submit("and now?", first.conversation_id)
    assert second is not None and second.text.strip()
    messages = host.conversation(first.conversation_id).messages
    assert [m.role for m in messages][:2] == ["user", "assistant"] and messages[0].content == "hello"
