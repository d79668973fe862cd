"""The inference worker process with the real default model (SmolLM2-135M) and a scripted engine."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from llm_helpers import collect

from edgehost.llm.base import (
    Backend,
    BackendCrashed,
    BackendError,
    ChatMessage,
    GenerationFinished,
    GenerationRequest,
    TokenText,
)
from edgehost.llm.worker_backend import WorkerBackend, worker_command
from edgehost.slow_machine import scaled_wait

WAIT_S = scaled_wait(120.0)
QUESTION = [ChatMessage("user", "What is the capital of France? Answer in one sentence.")]


def ask(messages: Sequence[ChatMessage], **kwargs: object) -> GenerationRequest:
    return GenerationRequest(messages=messages, temperature=0.0, **kwargs)  # type: ignore[arg-type]


async def test_a_reply_streams_in_pieces_with_perf_figures(llama_backend: WorkerBackend) -> None:
    assert isinstance(llama_backend, Backend)
    pieces, finished = await asyncio.wait_for(collect(llama_backend, ask(QUESTION, max_tokens=40)), WAIT_S)
    assert len(pieces) > 1
    assert "Paris" in "".join(pieces)
    perf = finished.perf
    assert finished.reason == "stop"
    assert perf.prompt_tokens > 20 and perf.cached_tokens == 0
    assert perf.generated_tokens >= len(pieces)
    assert perf.prefill_ms > 0 and perf.decode_ms > 0 and perf.tokens_per_second > 0
    assert perf.context_tokens >= perf.prompt_tokens + perf.generated_tokens - 1
    assert perf.peak_memory_mb and perf.peak_memory_mb > 50
    assert llama_backend.capabilities.supports_grammar
    assert llama_backend.model_info is not None and llama_backend.model_info.chat_template


async def test_the_next_turn_prefills_only_its_new_tokens(llama_backend: WorkerBackend) -> None:
    pieces, first = await asyncio.wait_for(collect(llama_backend, ask(QUESTION, max_tokens=40)), WAIT_S)
    follow_up = "And of Italy?"
    messages = [*QUESTION, ChatMessage("assistant", "".join(pieces)), ChatMessage("user", follow_up)]
    _, second = await asyncio.wait_for(collect(llama_backend, ask(messages, max_tokens=20)), WAIT_S)
    # Turn two adds the end of the reply, the follow-up and the chat markup around it: about a dozen
    # tokens. Re-evaluating the history would be first.prompt_tokens + the reply again.
    added = await llama_backend.count_tokens(
        f"<|im_end|>\n<|im_start|>user\n{follow_up}<|im_end|>\n<|im_start|>assistant\n"
    )
    assert second.perf.cached_tokens >= first.perf.prompt_tokens
    assert second.perf.prompt_tokens <= added + 2


async def test_reset_forgets_the_cache(llama_backend: WorkerBackend) -> None:
    await asyncio.wait_for(collect(llama_backend, ask(QUESTION, max_tokens=5)), WAIT_S)
    await llama_backend.reset()
    _, finished = await asyncio.wait_for(collect(llama_backend, ask(QUESTION, max_tokens=5)), WAIT_S)
    assert finished.perf.cached_tokens == 0


async def test_cancel_ends_the_stream_as_cancelled(llama_backend: WorkerBackend) -> None:
    request = ask([ChatMessage("user", "Write a long story about a dragon.")], max_tokens=400)

    async def run() -> GenerationFinished:
        async for event in llama_backend.generate(request):
            if isinstance(event, TokenText):
                await llama_backend.cancel()
            elif isinstance(event, GenerationFinished):
                return event
        raise AssertionError("no GenerationFinished")

    finished = await asyncio.wait_for(run(), WAIT_S)
    assert finished.reason == "cancelled"
    assert finished.perf.generated_tokens < 400
    # The worker is free again at once.
    _, after = await asyncio.wait_for(collect(llama_backend, ask(QUESTION, max_tokens=5)), WAIT_S)
    assert after.reason in ("stop", "length")


async def test_a_grammar_constrains_the_output(llama_backend: WorkerBackend) -> None:
    grammar = 'root ::= "{\\"answer\\": \\"" ("yes" | "no") "\\"}"'
    request = ask([ChatMessage("user", "Is the sky green? Answer in JSON.")], max_tokens=30, grammar=grammar)
    pieces, _ = await asyncio.wait_for(collect(llama_backend, request), WAIT_S)
    assert "".join(pieces) in ('{"answer": "yes"}', '{"answer": "no"}')


async def test_generation_continues_after_the_given_continuation(llama_backend: WorkerBackend) -> None:
    request = ask(QUESTION, max_tokens=8, continuation="The capital of France is")
    pieces, _ = await asyncio.wait_for(collect(llama_backend, request), WAIT_S)
    assert "Paris" in "".join(pieces)


async def test_a_stop_sequence_split_across_tokens_is_reported(llama_backend: WorkerBackend) -> None:
    request = ask([ChatMessage("user", "List the days of the week.")], max_tokens=40)
    pieces, _ = await asyncio.wait_for(collect(llama_backend, request), WAIT_S)
    index = next((i for i in range(len(pieces) - 1) if len(pieces[i]) >= 2 and len(pieces[i + 1]) >= 2), None)
    assert index is not None, pieces
    stop = pieces[index][-2:] + pieces[index + 1][:2]
    full = "".join(pieces)
    await llama_backend.reset()  # the same greedy run again
    pieces2, finished = await asyncio.wait_for(
        collect(llama_backend, ask(request.messages, max_tokens=40, stop=[stop, "never-said"])), WAIT_S
    )
    assert finished.reason == "stop_sequence"
    assert finished.stop_sequence == stop
    assert "".join(pieces2) == full[: full.index(stop)]


async def test_a_reader_that_stops_early_leaves_the_worker_usable(llama_backend: WorkerBackend) -> None:
    async def first_piece() -> str:
        async for event in llama_backend.generate(ask(QUESTION, max_tokens=200)):
            if isinstance(event, TokenText):
                return event.text
        raise AssertionError("no text")

    await asyncio.wait_for(first_piece(), WAIT_S)
    _, finished = await asyncio.wait_for(collect(llama_backend, ask(QUESTION, max_tokens=5)), WAIT_S)
    assert finished.reason in ("stop", "length")


@pytest.mark.usefixtures("test_engines_on_path")
async def test_a_crashed_worker_names_the_signal_and_the_next_turn_starts_a_new_one(tmp_path) -> None:
    backend = WorkerBackend("scripted_engine:create_engine", {"pieces": ["Hel", "lo"]}, log_dir=tmp_path)
    try:
        await asyncio.wait_for(backend.load(), WAIT_S)
        first_pid = backend.worker_pid
        with pytest.raises(BackendCrashed, match="signal 11 .*: scripted engine: crashing on purpose"):
            await asyncio.wait_for(collect(backend, ask([ChatMessage("user", "CRASH now")])), WAIT_S)
        pieces, finished = await asyncio.wait_for(collect(backend, ask(QUESTION)), WAIT_S)
        assert "".join(pieces) == "Hello"
        assert finished.reason == "stop"
        assert backend.worker_pid not in (None, first_pid)
        assert backend.last_exit is not None
        assert backend.last_exit.startswith("the model process exited with signal 11 (SIGSEGV)")
    finally:
        await backend.close()


@pytest.mark.usefixtures("test_engines_on_path")
async def test_stop_sequences_are_matched_for_every_engine(tmp_path) -> None:
    backend = WorkerBackend(
        "scripted_engine:create_engine", {"pieces": ["Sure. [TO", "OL_CA", "LL] {}"]}, log_dir=tmp_path
    )
    try:
        pieces, finished = await asyncio.wait_for(
            collect(backend, ask(QUESTION, stop=["[TOOL_CALL]"])), WAIT_S
        )
        assert "".join(pieces) == "Sure. "
        assert (finished.reason, finished.stop_sequence) == ("stop_sequence", "[TOOL_CALL]")
    finally:
        await backend.close()


@pytest.mark.usefixtures("test_engines_on_path")
async def test_a_reply_that_loops_is_stopped_and_says_so(tmp_path) -> None:
    loop = ["This is a server, ", "which is why it's a web server. "] * 20
    backend = WorkerBackend("scripted_engine:create_engine", {"pieces": loop}, log_dir=tmp_path)
    try:
        pieces, finished = await asyncio.wait_for(collect(backend, ask(QUESTION)), WAIT_S)
        assert finished.reason == "repetition"
        assert "".join(pieces).count("which is why it's a web server.") == 3  # not 20
    finally:
        await backend.close()


async def test_a_missing_model_file_is_a_clear_error(tmp_path) -> None:
    backend = WorkerBackend("llamacpp", {"model_path": str(tmp_path / "nope.gguf")}, log_dir=tmp_path)
    try:
        with pytest.raises(Exception, match="model file not found"):
            await asyncio.wait_for(backend.load(), WAIT_S)
    finally:
        await backend.close()


async def test_closing_the_backend_during_a_reply_ends_the_stream_as_cancelled(model_path, tmp_path) -> None:
    backend = WorkerBackend("llamacpp", {"model_path": str(model_path), "threads": 1}, log_dir=tmp_path)

    async def run() -> GenerationFinished:
        async for event in backend.generate(
            ask([ChatMessage("user", "Write a long story.")], max_tokens=400)
        ):
            if isinstance(event, TokenText) and backend.worker_pid is not None:
                await backend.close()
            elif isinstance(event, GenerationFinished):
                return event
        raise AssertionError("no GenerationFinished")

    try:
        assert (await asyncio.wait_for(run(), WAIT_S)).reason == "cancelled"
        assert backend.last_exit is None
    finally:
        await backend.close()


def test_a_frozen_build_starts_its_worker_through_its_own_executable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert worker_command((5, 8)) == [sys.executable, "__worker__", "--fds=5,8"]
    monkeypatch.delattr(sys, "frozen")
    assert worker_command((5, 8)) == [sys.executable, "-m", "edgehost.llm.worker", "--fds=5,8"]


async def test_an_invalid_grammar_is_a_clear_error_and_the_worker_carries_on(
    llama_backend: WorkerBackend,
) -> None:
    with pytest.raises(BackendError, match="invalid grammar"):
        await asyncio.wait_for(collect(llama_backend, ask(QUESTION, grammar="root ::= (")), WAIT_S)
    _, finished = await asyncio.wait_for(collect(llama_backend, ask(QUESTION, max_tokens=3)), WAIT_S)
    assert finished.reason in ("stop", "length")


async def test_a_conversation_longer_than_the_context_is_refused(llama_backend: WorkerBackend) -> None:
    request = ask([ChatMessage("user", "word " * 2100)])
    with pytest.raises(BackendError, match="the model's context holds 2048"):
        await asyncio.wait_for(collect(llama_backend, request), WAIT_S)


@pytest.fixture
def truncated_model(model_path: Path, tmp_path: Path) -> Path:
    truncated = tmp_path / "truncated.gguf"
    with open(model_path, "rb") as source:
        truncated.write_bytes(source.read(5_000_000))
    return truncated


async def test_a_truncated_model_file_fails_to_load_with_a_clear_error(
    truncated_model: Path, tmp_path: Path
) -> None:
    truncated = truncated_model
    backend = WorkerBackend("llamacpp", {"model_path": str(truncated)}, log_dir=tmp_path)
    try:
        with pytest.raises(BackendError, match="cannot load .*truncated.gguf"):
            await asyncio.wait_for(backend.load(), WAIT_S)
        assert backend.last_exit is None
    finally:
        await backend.close()


async def test_a_worker_start_cancelled_while_its_log_opens_leaves_no_file_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen as a ResourceWarning for worker.log when a model was switched twice at once: the start was
    # cancelled while a thread opened the log, and the file it opened was left to the garbage collector.
    import threading

    from edgehost.llm import worker_backend

    gate, waiting = threading.Event(), threading.Event()
    real_open = worker_backend.open_child_log

    def open_when_let(*args: Any) -> Any:  # the real open, once the test has cancelled the start
        waiting.set()
        gate.wait(10)
        return real_open(*args)

    monkeypatch.setattr(worker_backend, "open_child_log", open_when_let)
    log = tmp_path / "worker.log"
    start = asyncio.ensure_future(
        worker_backend._Process.start(
            lambda _fds: [sys.executable, "-c", "pass"], lambda _m: None, lambda *_a: None, log
        )
    )
    assert await asyncio.to_thread(waiting.wait, 10)  # its thread now waits to open the log
    start.cancel()
    with pytest.raises(asyncio.CancelledError):
        await start
    gate.set()
    # The log opens now. Left open, it would be collected with a ResourceWarning while the loop runs
    # here; closed, it is gone from this process's descriptors once the thread has opened it.
    with anyio.fail_after(10):
        while not log.exists() or _descriptors_open_on(log):  # noqa: ASYNC110 - a thread closes it
            await asyncio.sleep(0.02)


def _descriptors_open_on(path: Path) -> list[str]:
    """This process's file descriptors open on ``path``."""
    import os

    return [fd.name for fd in Path("/proc/self/fd").iterdir() if os.path.realpath(fd) == str(path)]


def test_the_log_of_an_abandoned_start_is_closed_whichever_side_comes_second(tmp_path: Path) -> None:
    """A start cancelled while its thread opened the worker's log: the file was closed by a callback on
    the event loop, which never ran when the loop closed first (a ResourceWarning in a later test)."""
    from edgehost.llm.worker_backend import _LogOpening

    abandoned_first = _LogOpening(tmp_path / "first.log")
    abandoned_first.abandon()
    stderr, _start = abandoned_first.open()  # the thread finishes after the start gave up
    assert stderr.closed

    opened_first = _LogOpening(tmp_path / "second.log")
    stderr, _start = opened_first.open()
    assert not stderr.closed
    opened_first.abandon()  # given up after the thread opened it
    assert stderr.closed
