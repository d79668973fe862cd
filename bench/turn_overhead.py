"""Host time per turn outside the model and the tool (issue 4's ``turn_overhead_ms``, target <= 5 ms).

A real Host (real SQLite history in a temporary --data-dir) is connected over stdio to a server this
script also is (``--serve``): 50 read-only tools of a trusted server whose handlers return at once.
The scripted model makes one tool call and then answers. For each turn the wall time of
``Host.submit`` is measured, minus the time spent inside the backend's ``generate`` (a thin
ScriptedBackend subclass times its own steps) and minus the tool call (the loop's own measure,
``ToolExecutionFinished.duration_ms``, which covers the MCP round trip). Prints the medians:

  RESULT turn_overhead_ms <host time per turn outside the backend and the tool, for a question that
         arrives whole (the CLI, the web page, a paste sent at once)>
  RESULT turn_overhead_typed_ms <the same for a question typed in the window: the composer handed it to
         the host when typing paused (Host.anticipate), so its embedding was made before Enter>
  RESULT turn_backend_ms <the scripted backend alone: the turn's two replies, same requests>
  RESULT turn_tool_ms <the tool call alone through the ServerManager>
  RESULT turn_overhead_ratio <turn_overhead_ms / turn_tool_ms> (the same run's baseline)
  RESULT turn_selection_ms <of the overhead: ToolSelector.select, whose ranking runs in a thread>
  RESULT turn_overhead_without_selection_ms <turn_overhead_ms minus the selection, per turn>
  RESULT turn_history_behind_ms <after a turn returned, until its history was in (the writer thread's
         lag, waited for between turns as a user reads the answer; not part of the overhead)>
  RESULT turn_overhead_excluding_embedding_ms <turn_overhead_ms minus the turn's waits for the ranking
         process (the question's embedding there, and the pipe), per turn>
  RESULT query_embedding_ms <one new question's embedding in the ranking process, with the pipe>
  RESULT turn_routing_ms <what host routing adds: route() over the 50 tools, less the embedding>

then two cProfiles (top 15 by cumulative time): further whole turns on the event loop's thread, and
the selection's ranking alone (cProfile cannot see the worker thread the host ranks in).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

SERVER_SCRIPT = str(Path(__file__).resolve())
TOOLS = 50
WARM_UP_TURNS = 5
TURNS = 60
PROFILED_TURNS = 30
SERVER_READY_S = 60.0
# A typist's pause between the last key and Enter (the window hands the draft over after 120 ms of it).
TYPED_PAUSE_S = 0.3  # a cold Python start of the server on a loaded 2-core machine


def build_bench_server() -> Any:
    """An MCPServer with TOOLS read-only tools; each returns at once."""
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    server = MCPServer("bench", instructions="Gauges for the turn overhead benchmark.")
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
    for index in range(TOOLS):

        def gauge(channel: int, label: str = "", index: int = index) -> str:
            return f"gauge {index} channel {channel} {label}: 42"

        server.add_tool(
            gauge,
            name=f"gauge_{index:02d}",
            description=f"Reading number {index} of the test bench gauges for one channel, with an optional label.",
            annotations=read_only,
            structured_output=False,
        )
    return server


def tool_call(name: str, **arguments: Any) -> str:
    return "[TOOL_CALL]" + json.dumps({"name": name, "arguments": arguments}) + "[END_TOOL_CALL]"


def timed_backend_class() -> type:
    from edgehost.llm.base import GenerationEvent, GenerationRequest
    from edgehost.llm.scripted import ScriptedBackend

    class TimedScriptedBackend(ScriptedBackend):
        """ScriptedBackend that adds the time spent inside its own generator steps to ``spent_s``."""

        spent_s = 0.0

        async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationEvent]:
            steps = super().generate(request)
            while True:
                began = time.perf_counter()
                try:
                    item = await steps.__anext__()
                except StopAsyncIteration:
                    self.spent_s += time.perf_counter() - began
                    return
                self.spent_s += time.perf_counter() - began
                yield item

    return TimedScriptedBackend


EMBEDDING_REQUESTS = ("similarities", "tool_similarities", "projections")


def timed(request: Any, spent: list[float]) -> Any:
    """``request`` adding the seconds each call takes to ``spent``."""

    def call(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return request(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - began)

    return call


async def run(data_dir: Path) -> None:
    from edgehost.agent.approval import auto_approver
    from edgehost.host import events as ev
    from edgehost.host.host import Host
    from edgehost.host.options import HostOptions
    from edgehost.llm.base import GenerationRequest
    from edgehost.mcp.config import ServerConfig, ServersConfig
    from edgehost.paths import Paths
    from edgehost.settings import Settings

    servers = ServersConfig(
        [
            ServerConfig(
                name="bench",
                command=sys.executable,
                args=[SERVER_SCRIPT, "--serve"],
                trusted=True,
            )
        ]
    )
    backend = timed_backend_class()()
    host = Host(
        Paths.resolve(None, data_dir),
        Settings(),
        HostOptions(backend=backend, servers=servers, approver=auto_approver(yes=True, yes_all=False)),
    )
    tool_ms: list[float] = []
    problems: list[str] = []

    def listen(event: Any) -> None:
        if isinstance(event, ev.ToolExecutionFinished):
            tool_ms.append(event.duration_ms)
            if event.status != "ok":
                problems.append(f"{event.tool} {event.status}: {event.error}")
        elif isinstance(event, ev.TurnFailed):
            problems.append(event.error)

    selection_s: list[float] = []

    def timed_select(select: Any) -> Any:
        async def select_and_time(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return await select(*args, **kwargs)
            finally:
                selection_s.append(time.perf_counter() - began)

        return select_and_time

    host.subscribe(listen)
    await host.start()
    try:
        states = await host.wait_servers_ready(SERVER_READY_S)
        if any(s.status.value != "ready" for s in states):
            raise SystemExit(f"the bench server did not start: {[(s.name, s.error) for s in states]}")
        if len(host.tools()) != TOOLS:
            raise SystemExit(f"expected {TOOLS} tools, got {len(host.tools())}")

        history_behind_s: list[float] = []

        async def one_turn(index: int, typed: bool = False) -> tuple[float, float, float]:
            """(wall, backend, tool) seconds of one turn in a new conversation. ``typed``: as in the
            window, where the question was handed to the host when typing paused (Host.anticipate)."""
            name = f"bench__gauge_{index % TOOLS:02d}"
            question = f"what does gauge {index % TOOLS} read on channel {index}?"
            backend.enqueue(tool_call(name, channel=index, label="x"), f"Gauge {index} reads 42.")
            backend.spent_s = 0.0
            tools_before = len(tool_ms)
            if typed:
                host.anticipate(question)
                await asyncio.sleep(TYPED_PAUSE_S)
            began = time.perf_counter()
            result = await host.submit(question)
            wall = time.perf_counter() - began
            if result is None or len(result.executions) != 1 or problems:
                raise SystemExit(f"turn {index} went wrong: {result} {problems}")
            # The history is written behind the turn, on a thread of its own; a read waits until it is
            # in. Between turns, as a user reads the answer: how far behind the writer was is reported.
            began = time.perf_counter()
            stored = host._store().list_messages(result.conversation_id)
            history_behind_s.append(time.perf_counter() - began)
            if [m.role for m in stored] != ["user", "assistant", "tool", "assistant"]:
                raise SystemExit(f"turn {index} was not recorded: {[(m.role, m.content) for m in stored]}")
            return wall, backend.spent_s, sum(tool_ms[tools_before:]) / 1000

        for index in range(WARM_UP_TURNS):
            await one_turn(index)
        # The runner exists after a turn; time its tool selection (a measuring wrapper, nothing else).
        assert host.runner is not None
        selector = host.runner._selector
        selector.select = timed_select(selector.select)  # type: ignore[method-assign]
        # ... and the turn's waits for the ranking process (the question's embedding, and the pipe).
        embedded_s: list[float] = []
        index_of_turns = getattr(getattr(await selector.ranker(), "semantic", None), "index", None)
        if index_of_turns is not None:
            # Any of these may embed the question (MiniLM, and e5 for tools and the probe).
            untimed = {name: getattr(index_of_turns, name) for name in EMBEDDING_REQUESTS}
            for name, request in untimed.items():
                setattr(index_of_turns, name, timed(request, embedded_s))
        without_embedding = []
        overhead, walls, without_selection = [], [], []
        for index in range(TURNS):
            selected_before, embedded_before = len(selection_s), len(embedded_s)
            wall, in_backend, in_tool = await one_turn(index)
            without_embedding.append(wall - in_backend - in_tool - sum(embedded_s[embedded_before:]))
            walls.append(wall)
            overhead.append(wall - in_backend - in_tool)
            without_selection.append(overhead[-1] - sum(selection_s[selected_before:]))

        # As in the window: each question handed over when typing paused, before Enter.
        typed_overhead = []
        for index in range(TURNS):
            wall, in_backend, in_tool = await one_turn(index + TURNS, typed=True)
            typed_overhead.append(wall - in_backend - in_tool)

        # Baselines, same run: the backend alone on the turn's two requests, the tool alone.
        recorded = backend.requests[-2:]
        backend_alone: list[float] = []
        for index in range(TURNS):
            backend.enqueue(tool_call(f"bench__gauge_{index % TOOLS:02d}", channel=index, label="x"), "Done.")
            began = time.perf_counter()
            for request in recorded:
                async for _item in backend.generate(
                    GenerationRequest(messages=list(request.messages), stop=list(request.stop))
                ):
                    pass
            backend_alone.append(time.perf_counter() - began)
        tool_alone: list[float] = []
        for index in range(TURNS):
            began = time.perf_counter()
            await host._manager().call_tool(
                f"bench__gauge_{index % TOOLS:02d}", {"channel": index, "label": "x"}
            )
            tool_alone.append(time.perf_counter() - began)

        median_overhead = statistics.median(overhead) * 1000
        median_tool = statistics.median(tool_alone) * 1000
        print(
            f"{TURNS} turns, {TOOLS} tools: median turn {statistics.median(walls) * 1000:.2f} ms, "
            f"in-turn tool {statistics.median(tool_ms[-TURNS:]):.2f} ms, "
            f"prompt {sum(len(m.content) for m in recorded[0].messages)} characters"
        )
        print(f"RESULT turn_overhead_ms {median_overhead:.2f}")
        print(f"RESULT turn_overhead_typed_ms {statistics.median(typed_overhead) * 1000:.2f}")
        print(f"RESULT turn_backend_ms {statistics.median(backend_alone) * 1000:.2f}")
        print(f"RESULT turn_tool_ms {median_tool:.2f}")
        print(f"RESULT turn_overhead_ratio {median_overhead / median_tool:.2f}")
        print(f"RESULT turn_selection_ms {statistics.median(selection_s) * 1000:.2f}")
        print(f"RESULT turn_overhead_without_selection_ms {statistics.median(without_selection) * 1000:.2f}")
        print(f"RESULT turn_history_behind_ms {statistics.median(history_behind_s[-TURNS:]) * 1000:.2f}")
        print(
            f"RESULT turn_overhead_excluding_embedding_ms {statistics.median(without_embedding) * 1000:.2f}"
        )
        if index_of_turns is not None:
            for name, request in untimed.items():
                setattr(index_of_turns, name, request)
        print(f"tool ranker: {type(await selector.ranker()).__name__} {selector.ranker_reasons}")

        # What host routing (decision 11) adds to a turn: route() over the same 50 tools, vectors warm,
        # with and without the question's embedding (which the selection of the turn then reuses).
        ranker = await selector.ranker()
        index = getattr(getattr(ranker, "semantic", None), "index", None)
        routed, embedded = [], []
        tools = host.tools()
        await selector.route("warm up", tools)
        for number in range(TURNS):
            question = f"what does gauge {number % TOOLS} read on channel {number}?"
            if index is not None:  # a new question's embedding, through the pipe, against one text
                began = time.perf_counter()
                await asyncio.to_thread(index.similarities, question + " (timing)", ["a gauge"])
                embedded.append(time.perf_counter() - began)
            began = time.perf_counter()
            await selector.route(question, tools)
            routed.append(time.perf_counter() - began)
        query_ms = statistics.median(embedded) * 1000 if embedded else 0.0
        print(f"RESULT query_embedding_ms {query_ms:.2f}")
        print(f"RESULT turn_routing_ms {statistics.median(routed) * 1000 - query_ms:.2f}")

        profiler = cProfile.Profile()
        profiler.enable()
        for index in range(PROFILED_TURNS):
            await one_turn(index)
        profiler.disable()
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("cumulative").print_stats(15)
        stats.sort_stats("tottime").print_stats(25)
        if "--callers" in sys.argv:
            stats.sort_stats("cumulative").print_stats("edgehost|mcp|anyio", 45)
        if "--callers" in sys.argv:
            stats.print_callers("threading.py:.*\\(wait\\)|pathlib.py:.*\\(stat\\)|wait_for")
        print(f"profile of {PROFILED_TURNS} turns (whole turns: backend and tool included):")
        print(out.getvalue())

        ranker = await selector.ranker()
        tools = host.tools()
        profiler = cProfile.Profile()
        profiler.enable()
        for index in range(PROFILED_TURNS):
            ranker.scores(f"what does gauge {index} read on channel {index * 7}?", tools)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(15)
        print(f"profile of the selection's ranking, {PROFILED_TURNS} questions over {len(tools)} tools:")
        print(out.getvalue())
    finally:
        await host.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help="be the 50-tool stdio server instead")
    parser.add_argument("--callers", action="store_true", help="print who waits on locks and stats files")
    args = parser.parse_args()
    if args.serve:
        from edgehost.servers._common import run_stdio

        return run_stdio(build_bench_server())
    with tempfile.TemporaryDirectory(prefix="edgehost-bench-") as folder:
        asyncio.run(run(Path(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
