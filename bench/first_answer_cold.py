"""What a board user waits for after boot: from starting EdgeHost to the whole answer of a question
that needs a tool, on the default model (issue 35).

Each run is a fresh process started as the app starts (the window first, then the core imported, the
host, its servers and the model worker), offscreen. The question is sent as soon as the window can take
it; the turn waits for what it needs (the model, the servers, the ranking). Two kinds of start:

- **after boot** (``RESULT first_answer_cold_s``): the data folder of an earlier run, as on every start
  but the first (the prompt's KV state, the int8 embedding model and the tool vectors are on disk);
- **first run** (``RESULT first_answer_first_run_s``): a data folder made for it, nothing cached.

Both are median of ROUNDS runs, alternated. ``RESULT first_answer_cold_<step>_s`` says where the time
goes (seconds after the process started: the window shown, the core imported, the host started, the
servers ready, the model loaded, the question routed to a tool, the call found in the model's text,
the tool's result, the answer's first token and its end). The page cache
is warm (this machine cannot drop it): a board's first start after boot also reads the files from its
storage. On stderr: each run's marks and its answer, to be read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROUNDS = 3
QUESTION = "How much memory is free on this board?"
TOOL = "board__memory_usage"
TURN_S = 600.0
STEPS = (
    "window",
    "core",
    "host",
    "servers",
    "model",
    "routed",
    "call",
    "tool_result",
    "first_token",
    "answer",
)


def mark(name: str, **extra: object) -> None:
    print(json.dumps({"mark": name, "at": time.time(), **extra}), flush=True)


async def one_start(data_dir: Path, window: object) -> None:
    """The app's start (ui.app.run_app's order) and one question; marks on stdout."""
    from edgehost.ui.app import Desktop, load_core

    await load_core()
    mark("core")
    from edgehost.host import events as ev
    from edgehost.host.options import HostOptions
    from edgehost.paths import Paths
    from edgehost.settings import Settings

    desktop = Desktop(
        Paths.resolve(None, data_dir), Settings(close_to_tray=False), HostOptions(), window=window
    )
    answer: list[str] = []
    seen: set[str] = set()

    def on_event(event: object) -> None:
        if isinstance(event, ev.TextDelta) and event.text.strip() and "first_token" not in seen:
            seen.add("first_token")
            mark("first_token")
        if isinstance(event, ev.TextDelta):
            answer.append(event.text)
        for kind, name in ((ev.TurnRouted, "routed"), (ev.ToolCallDetected, "call")):
            if isinstance(event, kind) and name not in seen:
                seen.add(name)
                mark(name)
        if isinstance(event, ev.ToolExecutionFinished) and "tool_result" not in seen:
            seen.add("tool_result")
            mark("tool_result", tool=event.tool, status=event.status)

    try:
        await desktop.start()
        desktop.host.subscribe(on_event)
        mark("host")

        async def servers() -> None:
            await desktop.host.wait_servers_ready(TURN_S)
            mark("servers")

        async def model() -> None:
            await desktop.host.wait_model(TURN_S)
            mark("model")

        waits = [asyncio.ensure_future(servers()), asyncio.ensure_future(model())]
        desktop.window.send(QUESTION)
        assert desktop.window.turn_task is not None
        await asyncio.wait_for(asyncio.shield(desktop.window.turn_task), TURN_S)
        mark("answer", text="".join(answer))
        await asyncio.gather(*waits)
    finally:
        await desktop.aclose()


def run_once(data_dir: Path) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from edgehost.ui._pyside_imports import read_sources_uncached

    read_sources_uncached()
    from edgehost.settings import Settings
    from edgehost.ui.app import event_loop
    from edgehost.ui.main_window import MainWindow

    app = QApplication([sys.argv[0]])
    window = MainWindow(Settings(close_to_tray=False))
    window.show_window()
    app.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    mark("window")
    loop = event_loop(app)
    with loop:
        loop.run_until_complete(one_start(data_dir, window))
    return 0


def timed_start(data_dir: Path) -> tuple[dict[str, float], str]:
    """One start in a fresh process: seconds from its spawn to each mark, and the answer."""
    started = time.time()
    done = subprocess.run(
        [sys.executable, __file__, "--once", str(data_dir)],
        capture_output=True,
        text=True,
        timeout=TURN_S * 2,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"first_answer_cold: a start failed (exit {done.returncode}):\n{done.stderr[-3000:]}"
        )
    marks: dict[str, float] = {}
    text = ""
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            marks[record["mark"]] = record["at"] - started
            text = record.get("text", text)
            if record["mark"] == "tool_result":
                print(f"  tool result: {record.get('tool')} {record.get('status')}", file=sys.stderr)
    return marks, text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--once", type=Path, help="one start with this data folder, marks on stdout")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    if args.once:
        return run_once(args.once)
    runs: dict[str, list[dict[str, float]]] = {"first_run": [], "after_boot": []}
    with tempfile.TemporaryDirectory(prefix="edgehost-cold-") as folder:
        for round_ in range(args.rounds):
            kept = Path(folder) / "kept"  # the earlier runs' data folder
            order = ("first_run", "after_boot") if round_ % 2 == 0 else ("after_boot", "first_run")
            for kind in order:
                data = kept if kind == "after_boot" else Path(folder) / f"fresh-{round_}"
                if kind == "after_boot" and not kept.exists():
                    timed_start(kept)  # the earlier run whose caches the after-boot start finds
                marks, text = timed_start(data)
                runs[kind].append(marks)
                steps = ", ".join(f"{s} {marks[s]:.1f}" for s in STEPS if s in marks)
                print(f"round {round_ + 1} {kind}: {steps} s", file=sys.stderr)
                print(f"  answer: {text.strip()[:300]!r}", file=sys.stderr)
    for kind, name in (("after_boot", "first_answer_cold"), ("first_run", "first_answer_first_run")):
        print(f"RESULT {name}_s {statistics.median(m['answer'] for m in runs[kind]):.1f}")
    for step in STEPS:
        values = [m[step] for m in runs["after_boot"] if step in m]
        if values:
            print(f"RESULT first_answer_cold_{step}_s {statistics.median(values):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
