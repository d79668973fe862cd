"""The tool-ranking process: the host's embedder in a process of its own (agent/ranking_process.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from edgehost.agent import ranking_process, selection
from edgehost.agent.ranking import BlendedRanker, EmbeddingRanker, LexicalRanker
from edgehost.agent.ranking_process import RankingProcess
from edgehost.agent.selection import ToolSelector
from edgehost.agent.tools import ToolSpec
from edgehost.agent.vector_index import open_index
from edgehost.errors import EmbeddingUnavailable

QUESTIONS = ["what time is it in Tokyo", "show me the last five commits", "thanks, that was helpful"]


@pytest.fixture
def tools(reference_tools: dict[str, ToolSpec]) -> list[ToolSpec]:
    return list(reference_tools.values())


@pytest.fixture
def process(tmp_path: Path):
    started, reasons = RankingProcess.start(cache_dir=tmp_path / "cache", log_file=tmp_path / "ranker.log")
    if started is None:
        pytest.skip("; ".join(reasons))
    yield started
    started.close()


def index_of(ranker: object) -> RankingProcess:
    assert isinstance(ranker, BlendedRanker) and isinstance(ranker.semantic, EmbeddingRanker)
    index = ranker.semantic.index
    assert isinstance(index, RankingProcess)
    return index


def test_the_process_ranks_exactly_as_the_same_model_in_this_process(process, tools, tmp_path) -> None:
    here, _reasons = open_index(cache_dir=tmp_path / "cache")  # the int8 copy the process wrote
    assert here is not None and here.name == process.name == "minilm-cpu-int8"
    texts = [t.description for t in tools]
    process.prepare(texts)
    for question in QUESTIONS:
        assert process.similarities(question, texts) == pytest.approx(
            here.similarities(question, texts), abs=1e-6
        )
        # Tool ranking's reading (both models, the query adapter: agent/query_adapter.py) crosses the pipe too.
        for adapted in (True, False):
            scores = process.tool_similarities(question, texts, adapted)
            assert scores == pytest.approx(here.tool_similarities(question, texts, adapted), abs=1e-5)
            assert scores != pytest.approx(here.similarities(question, texts), abs=1e-3)
    assert process.similarities("anything", []) == []
    directions = [[1.0] + [0.0] * 383, [0.5] * 384]  # a question probe's weights
    assert process.projections(QUESTIONS[0], directions) == pytest.approx(
        here.projections(QUESTIONS[0], directions), abs=1e-5
    )
    process.anticipate("what is the weather like")  # embedded ahead, the same vector when asked
    assert process.similarities("what is the weather like", texts) == pytest.approx(
        here.similarities("what is the weather like", texts), abs=1e-6
    )


def test_tool_vectors_embedded_by_one_process_are_read_by_the_next(tools, tmp_path) -> None:
    cache = tmp_path / "cache"
    first, _ = RankingProcess.start(cache_dir=cache)
    assert first is not None
    first.prepare([t.description for t in tools])
    first.close()
    assert (cache / "tool-vectors-minilm-cpu-int8.npz").is_file()
    assert (cache / "tool-vectors-e5-small-q4.npz").is_file()  # tool ranking's second model
    second, _ = RankingProcess.start(cache_dir=cache)
    assert second is not None
    try:
        scores = second.similarities("show me the commit history", [t.description for t in tools])
    finally:
        second.close()
    assert tools[max(range(len(tools)), key=scores.__getitem__)].name == "git__git_log"


def test_the_host_selector_ranks_in_the_process_and_its_own_process_never_loads_numpy(tmp_path) -> None:
    script = textwrap.dedent(
        """
        import asyncio, json, sys
        from pathlib import Path
        from edgehost.agent.selection import ToolSelector
        from tests.question_sets import reference_tools

        async def main():
            selector = ToolSelector(cache_dir=Path(sys.argv[1]))
            tools = reference_tools()
            route = await selector.route("show me the last five commits", tools)
            chat = await selector.route("thanks, that was helpful", tools)
            ranker = (await selector.ranker()).name
            await selector.aclose()
            print(json.dumps([route.needs_tool, [t.name for t in route.candidates], chat.needs_tool, ranker,
                              "numpy" in sys.modules]))

        asyncio.run(main())
        """
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=300,
        check=True,
    )
    needs_tool, candidates, chat_needs_tool, ranker, numpy_loaded = json.loads(done.stdout)
    assert needs_tool and candidates[0] == "git__git_log"
    assert not chat_needs_tool
    assert ranker == "embedding:minilm-cpu-int8+bm25"
    assert numpy_loaded is False


def _until(condition, seconds: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.02)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_an_unused_process_rests_and_the_next_request_wakes_it_with_the_same_scores(tools, tmp_path) -> None:
    texts = [t.description for t in tools]
    index, reasons = RankingProcess.start(cache_dir=tmp_path / "cache", rest_s=0.5)
    assert index is not None, reasons
    try:
        before = index.similarities(QUESTIONS[1], texts)
        resting_pid = index.pid
        assert resting_pid is not None
        _until(lambda: index.pid is None and _gone(resting_pid))  # ended, and reaped
        after = index.similarities(QUESTIONS[1], texts)
        assert after == pytest.approx(before, abs=1e-6)
        assert index.starts == 2 and index.pid not in (None, resting_pid)
    finally:
        index.close()
    assert index.pid is None


def test_requests_keep_the_process_awake(tools, tmp_path) -> None:
    texts = [t.description for t in tools[:4]]
    index, reasons = RankingProcess.start(cache_dir=tmp_path / "cache", rest_s=1.0)
    assert index is not None, reasons
    try:
        ends = time.monotonic() + 2.5  # two and a half rest periods of requests every 0.2 s
        while time.monotonic() < ends:
            index.similarities("what time is it", texts)
            time.sleep(0.2)
        assert index.starts == 1
    finally:
        index.close()


async def test_a_ranking_process_that_dies_leaves_ranking_by_words_and_the_turn_goes_on(
    tools, tmp_path
) -> None:
    selector = ToolSelector(cache_dir=tmp_path / "cache")
    await selector.prepare(tools)
    index = index_of(await selector.ranker())
    assert index.pid is not None
    os.kill(index.pid, signal.SIGKILL)
    route = await selector.route("what time is it in Tokyo", tools)
    assert route.needs_tool and route.candidates[0].name == "time__get_current_time"
    assert isinstance(await selector.ranker(), LexicalRanker)
    assert any("signal 9 (SIGKILL)" in reason for reason in selector.ranker_reasons)
    await selector.aclose()


async def test_a_ranking_process_that_hangs_is_killed_after_the_scaled_timeout(
    tools, tmp_path, monkeypatch
) -> None:
    selector = ToolSelector(cache_dir=tmp_path / "cache")
    await selector.prepare(tools)
    pid = index_of(await selector.ranker()).pid
    assert pid is not None
    # 0.5 s, times the slow machine's factor (as `make test-arm64` sets it under the emulator).
    monkeypatch.setattr(ranking_process, "REQUEST_TIMEOUT_S", 0.5)
    monkeypatch.setenv("EDGEHOST_WAIT_SCALE", "2")
    os.kill(pid, signal.SIGSTOP)
    try:
        selection = await selector.select("show me the last five commits", tools, budget_tokens=300)
    finally:
        with contextlib.suppress(ProcessLookupError):  # killed already, as it should be
            os.kill(pid, signal.SIGCONT)
    assert "git__git_log" in [t.name for t in selection.tools]
    assert any("did not answer within 1 s" in reason for reason in selector.ranker_reasons)
    await selector.aclose()
    with pytest.raises(ProcessLookupError):  # killed, and reaped
        os.kill(pid, 0)


async def test_after_a_stall_words_rank_for_a_while_then_a_new_process_ranks_by_meaning(
    tools, tmp_path, monkeypatch
) -> None:
    # A board busy for a minute must not cost the rest of the session its ranking by meaning.
    monkeypatch.setattr(selection, "RANKER_RETRY_S", 0.0)
    selector = ToolSelector(cache_dir=tmp_path / "cache")
    await selector.prepare(tools)
    stalled = index_of(await selector.ranker()).pid
    assert stalled is not None
    with monkeypatch.context() as brief:
        brief.setattr(ranking_process, "REQUEST_TIMEOUT_S", 0.5)
        os.kill(stalled, signal.SIGSTOP)
        try:
            route = await selector.route("show me the last five commits", tools)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(stalled, signal.SIGCONT)
    assert route.candidates[0].server == "git"  # that turn, by words
    # The next turn is still ranked by words, and starts the embedder again beside it.
    assert isinstance(await selector.ranker(), LexicalRanker)
    deadline = time.monotonic() + 120
    while not isinstance(ranker := await selector.ranker(), BlendedRanker):
        assert time.monotonic() < deadline, selector.ranker_reasons
        await asyncio.sleep(0.1)
    assert index_of(ranker).pid not in (None, stalled)
    route = await selector.route("show me the last five commits", tools)
    assert route.candidates[0].name == "git__git_log"  # by meaning again: by words it is git_show
    await selector.aclose()


async def test_closing_the_selector_ends_the_process(tools, tmp_path) -> None:
    selector = ToolSelector(cache_dir=tmp_path / "cache")
    await selector.prepare(tools[:3])
    index = index_of(await selector.ranker())
    pid = index.pid
    assert pid is not None
    await selector.aclose()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(EmbeddingUnavailable):
        index.similarities("hello", ["a text"])
    assert isinstance(await selector.ranker(), LexicalRanker)


async def test_without_an_embedding_model_the_process_says_why_and_words_rank(
    tools, tmp_path, monkeypatch, caplog
) -> None:
    monkeypatch.setenv("EDGEHOST_EMBEDDING_MODEL", str(tmp_path / "no-such-model"))
    selector = ToolSelector(cache_dir=tmp_path / "cache")
    route = await selector.route("show me the last five commits", tools)
    assert route.needs_tool and route.candidates[0].server == "git"  # by words: git_show, not git_log
    assert isinstance(await selector.ranker(), LexicalRanker)
    assert any("no-such-model, which does not exist" in reason for reason in selector.ranker_reasons)
    assert "no-such-model, which does not exist" in caplog.text  # in edgehost.log, for the user
    await selector.aclose()


def test_a_program_that_cannot_start_is_a_reason_not_an_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(ranking_process, "python_module_command", lambda *_a: [str(tmp_path / "missing")])
    started, reasons = RankingProcess.start(cache_dir=tmp_path / "cache")
    assert started is None and "could not start" in reasons[0]


def processes_for(cache: Path) -> list[int]:
    """The ranking processes running with ``cache`` as their cache folder."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"edgehost.agent.ranking_process" in words and f"--cache-dir={cache}".encode() in words:
            found.append(int(entry.name))
    return found


async def test_a_warm_up_cancelled_while_the_process_starts_leaves_no_process_behind(tools, tmp_path) -> None:
    cache = tmp_path / "cache"
    selector = ToolSelector(cache_dir=cache)
    warm_up = asyncio.create_task(selector.prepare(tools))
    for _ in range(500):  # until the process exists: the load is under way
        await asyncio.sleep(0.01)
        if processes_for(cache):
            break
    assert processes_for(cache)
    warm_up.cancel()  # as Host.aclose cancels its warm-up
    with contextlib.suppress(asyncio.CancelledError):
        await warm_up
    await selector.aclose()
    assert processes_for(cache) == []
