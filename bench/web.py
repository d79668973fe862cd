"""The web face's cost (issue 14): time to the first token through the page's WebSocket against the same
turn through the Host directly, and the CPU `edgehost web` uses while a page is connected and idle.

- first token: one process, the embedded default model in its worker, the built-in servers; a question
  that needs no tool, in a new conversation each time, alternating the two ways (10 each). Direct: from
  Host.start_turn to the first TextDelta event. Web: from sending `submit` on a connected socket to the
  first TextDelta message received. Ratio = median web / median direct (goal <= 1.1).
- idle CPU: `edgehost web` started as users start it, one page-like client connected (resumed), then
  the CPU time of the web process (and of its whole process tree: model worker, servers) over 20 s of
  wall time, in percent of one core (goal <= 0.5 % for the web process).

Prints RESULT web_first_token_ms, host_first_token_ms, web_first_token_ratio, web_idle_cpu_percent,
web_idle_cpu_tree_percent.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import websockets

from edgehost.host import events as ev
from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.llm.default_model import default_model_path
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.web.serve import serving

ROUNDS = 10
QUESTION = "Tell me a short joke."
IDLE_S = 20.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


async def first_tokens(data: Path) -> tuple[list[float], list[float]]:
    host = Host(
        Paths.resolve(None, data),
        Settings(),
        HostOptions(model=str(default_model_path()), backend_name="llamacpp"),
    )
    first: asyncio.Queue[float] = asyncio.Queue()
    done: asyncio.Queue[None] = asyncio.Queue()

    def listen(event: Any) -> None:
        if isinstance(event, ev.TextDelta):
            first.put_nowait(time.perf_counter())
        elif isinstance(event, ev.TurnCompleted | ev.TurnFailed):
            done.put_nowait(None)

    host.subscribe(listen)
    await host.start()
    await host.wait_servers_ready(60)
    await host.wait_model()
    direct: list[float] = []
    web: list[float] = []
    try:
        async with serving(host, "127.0.0.1", 0, data / "web-token") as server:
            url = f"ws://127.0.0.1:{server.port}/ws"
            protocols = ["edgehost", f"edgehost.bearer.{server.token}"]
            async with websockets.connect(url, subprotocols=protocols) as socket:  # type: ignore[arg-type]
                await socket.send(json.dumps({"command": "resume", "after": 0}))
                await socket.recv()
                await _direct(host, first, done)  # warm-up: the model's first turn loads its caches
                for round_ in range(ROUNDS * 2):
                    if round_ % 2 == 0:
                        direct.append(await _direct(host, first, done))
                    else:
                        web.append(await _web(socket, done))
                    _drain(first)
    finally:
        await host.aclose()
    return direct, web


def _drain(queue: asyncio.Queue[Any]) -> None:
    while not queue.empty():
        queue.get_nowait()


async def _direct(host: Host, first: asyncio.Queue[float], done: asyncio.Queue[None]) -> float:
    _drain(first)
    began = time.perf_counter()
    host.start_turn(QUESTION, host.new_conversation(QUESTION))
    token = await first.get()
    await done.get()
    return (token - began) * 1000


async def _web(socket: Any, done: asyncio.Queue[None]) -> float:
    began = time.perf_counter()
    await socket.send(json.dumps({"id": 1, "command": "submit", "text": QUESTION}))
    conversation: int | None = None
    token: float | None = None
    while True:
        message = json.loads(await socket.recv())
        if message.get("reply") == 1:
            conversation = message["conversation_id"]
        data = message.get("data") or {}
        if conversation is None or data.get("conversation_id") != conversation:
            continue  # the direct turns' events, which this socket saw too
        if message["event"] == "TextDelta" and token is None:
            token = time.perf_counter()
        if message["event"] in ("TurnCompleted", "TurnFailed"):
            break
    await done.get()
    return ((token or time.perf_counter()) - began) * 1000


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def tree(pid: int) -> list[int]:
    pids = [pid]
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        pids += tree(int(child))
    return pids


def cpu_of(pids: list[int]) -> dict[int, float]:
    return {p: cpu_seconds(p) for p in pids if Path(f"/proc/{p}").exists()}


async def idle_cpu(data: Path) -> tuple[float, float]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "edgehost",
        "--data-dir",
        str(data),
        "web",
        "--port",
        "8797",
        stdout=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        served = (await process.stdout.readline()).decode()  # "EdgeHost is serving the chat page at URL"
        token = served.strip().rsplit("?token=", 1)[-1]  # the page needs its token on loopback too
        protocols = ["edgehost", f"edgehost.bearer.{token}"]
        async with websockets.connect("ws://127.0.0.1:8797/ws", subprotocols=protocols) as socket:  # type: ignore[arg-type]
            await socket.send(json.dumps({"command": "resume", "after": 0}))
            await socket.recv()
            await asyncio.sleep(10)  # the model loads and the servers start
            pids = tree(process.pid)
            before = cpu_of(pids)
            began = time.monotonic()
            await asyncio.sleep(IDLE_S)
            wall = time.monotonic() - began
            after = cpu_of(pids)
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 30)
    own = (after[process.pid] - before[process.pid]) / wall * 100
    whole = sum(after[p] - before[p] for p in after) / wall * 100
    return own, whole


async def main() -> None:
    with tempfile.TemporaryDirectory() as first_dir, tempfile.TemporaryDirectory() as idle_dir:
        direct, web = await first_tokens(Path(first_dir))
        host_ms, web_ms = statistics.median(direct), statistics.median(web)
        print(f"# direct {[round(x) for x in direct]} web {[round(x) for x in web]}")
        print(f"RESULT host_first_token_ms {host_ms:.1f}")
        print(f"RESULT web_first_token_ms {web_ms:.1f}")
        print(f"RESULT web_first_token_ratio {web_ms / host_ms:.3f}")
        own, whole = await idle_cpu(Path(idle_dir))
        print(f"RESULT web_idle_cpu_percent {own:.2f}")
        print(f"RESULT web_idle_cpu_tree_percent {whole:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
