"""CPU and memory of the desktop app at rest: the window open (offscreen), the built-in servers
connected and the default model loaded in its worker, nobody typing.

CPU is counted over the whole process tree (the GUI with the built-in servers on its threads, the
inference worker, the tool-ranking process) for 10 s and given as percent of one core: ``RESULT
idle_cpu`` (goal <= 1.0).

Memory (issue 35's goal: the whole tree at idle, minus the model's weights, <= 300 MB):
- ``RESULT idle_tree_mb_without_model``: the sum of every process's resident memory, less the model
  file's resident pages (``RESULT idle_model_weights_mb``, read from the worker's mappings, not assumed);
  ``RESULT idle_tree_pss_mb_without_model`` the same with shared pages counted once (PSS);
- ``RESULT idle_rss_mb`` the GUI process's, ``RESULT idle_rss_worker_mb`` and ``RESULT idle_rss_ranker_mb``
  theirs (the ranker's 0: it ends after REST_AFTER_S unused, which the bench waits for; its size while
  awake, after embedding the tools at the start, is ``RESULT idle_rss_ranker_awake_mb``), ``RESULT idle_rss_servers_mb`` any server process's (none: the built-in servers run on threads
  of the GUI process);
- the baseline it can be held against: ``RESULT idle_rss_bare_qt_mb``, a bare PySide6 window in a fresh
  process.
On stderr: each process, and where each one's memory goes (its largest mappings by resident size,
grouped by file, anonymous memory apart).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IDLE_S = 10.0
SETTLE_S = 3.0  # first paints, catalog refreshes and the servers' start-up logging end well within this
SERVERS_READY_S = 90.0
MODEL_LOAD_S = 300.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tree(pid: int) -> list[int]:
    pids = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        for child in children:
            pids += tree(int(child))
    return pids


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime + stime
    return total / CLOCK_TICKS


def rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pss_mb(pid: int | str = "self") -> float:
    """Proportional set size: pages shared with the tree's other processes (libpython, libc, numpy ...)
    counted once across them, not once in each."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return 0.0


def model_weights_mb(pid: int) -> float:
    """Resident MiB of the model files (.gguf, .rkllm) mapped by ``pid``: the weights' share, measured."""
    return sum(mb for name, mb in where_memory_goes(pid, 10**6) if name.endswith((".gguf", ".rkllm")))


def describe(pid: int) -> str:
    args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    words = [a.decode(errors="replace") for a in args if a]
    for marker in ("edgehost.llm.worker", "edgehost.agent.ranking_process", "serve"):
        if marker in words:
            return " ".join(Path(w).name for w in words[words.index(marker) - 1 : words.index(marker) + 2])
    return " ".join(Path(w).name for w in words[:2])


def ranking_pids() -> list[int]:
    """The tool-ranking process, while it runs (it ends after REST_AFTER_S unused)."""
    found = []
    for pid in tree(os.getpid())[1:]:
        try:
            if "ranking_process" in describe(pid):
                found.append(pid)
        except FileNotFoundError:  # it ended meanwhile
            pass
    return found


def where_memory_goes(pid: int | str = "self", shown: int = 12) -> list[tuple[str, float]]:
    """Resident MiB of ``pid`` by mapped file (anonymous memory as "[anon]"), largest first."""
    by_file: dict[str, int] = {}
    name = "[anon]"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        first = line.split(maxsplit=5)
        if len(first) >= 5 and "-" in first[0] and ":" in first[3]:  # a mapping's header line
            path = first[5].strip() if len(first) == 6 else ""
            name = Path(path).name if path.startswith("/") else (path or "[anon]")
            name = "[anon]" if name in ("[heap]", "[stack]") else name
        elif line.startswith("Rss:"):
            by_file[name] = by_file.get(name, 0) + int(line.split()[1])
    ranked = sorted(by_file.items(), key=lambda item: item[1], reverse=True)
    rest = sum(kb for _, kb in ranked[shown:])
    return [(n, kb / 1024) for n, kb in ranked[:shown]] + [("(the rest)", rest / 1024)]


def bare_qt_rss_mb() -> float:
    """A bare PySide6 window's resident memory, in a fresh process (the baseline)."""
    code = (
        "import sys, time\n"
        "from PySide6 import QtWidgets\n"
        "app = QtWidgets.QApplication([sys.argv[0]])\n"
        "w = QtWidgets.QMainWindow(); w.resize(1180, 760); w.show()\n"
        "for _ in range(20): app.processEvents(); time.sleep(0.05)\n"
        "print([l for l in open('/proc/self/status') if l.startswith('VmRSS:')][0].split()[1])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1]) / 1024


async def run_idle(data_dir: str) -> tuple[float, list[tuple[str, float]]]:
    """Idle CPU percent of the whole tree, and each process's RSS in MiB (the GUI's first)."""
    from edgehost.ui.app import Desktop, load_core

    await load_core()  # as the app imports the core: in a thread, after the window, with PySide loaded
    from edgehost.host.options import HostOptions
    from edgehost.paths import Paths
    from edgehost.settings import Settings

    options = HostOptions(backend_name="llamacpp")
    desktop = Desktop(Paths.resolve(None, data_dir), Settings(close_to_tray=False), options)
    try:
        await desktop.start()
        await desktop.host.wait_servers_ready(SERVERS_READY_S)
        backend = await desktop.host.wait_model(MODEL_LOAD_S)
        model = backend.model_info.name if backend.model_info else "model"
        # The start-up work done: the tools embedded, the new conversation's prompt prefilled (~12 s of
        # the worker's CPU in a fresh data folder; a restart loads it from the disk cache).
        await desktop.host.wait_warm()
        await asyncio.sleep(SETTLE_S)
        # The ranking process, awake since the start-up embedded the tools: its size now, then it rests.
        from edgehost.agent.ranking_process import REST_AFTER_S

        for pid in ranking_pids():
            print(f"RESULT idle_rss_ranker_awake_mb {rss_mb(pid):.0f}")
        deadline = time.monotonic() + REST_AFTER_S + 30
        while ranking_pids():
            if time.monotonic() > deadline:
                sys.exit("idle: the ranking process did not rest")
            await asyncio.sleep(0.5)
        pids = tree(os.getpid())
        before = cpu_seconds(pids)
        await asyncio.sleep(IDLE_S)
        used = cpu_seconds(pids) - before
        memory = [("the GUI process", rss_mb())] + [(describe(pid), rss_mb(pid)) for pid in pids[1:]]
        print(f"idle with {model}, {len(pids)} processes (RSS, PSS):", file=sys.stderr)
        for pid, (what, mb) in zip(pids, memory, strict=True):
            print(f"  {mb:6.1f} MiB  {pss_mb(pid):6.1f} MiB  {what}", file=sys.stderr)
        weights = sum(model_weights_mb(pid) for pid in pids)
        pss = sum(pss_mb(pid) for pid in pids)
        print(f"RESULT idle_model_weights_mb {weights:.0f}")
        print(f"RESULT idle_tree_mb {sum(mb for _, mb in memory):.0f}")
        print(f"RESULT idle_tree_mb_without_model {sum(mb for _, mb in memory) - weights:.0f}")
        print(f"RESULT idle_tree_pss_mb_without_model {pss - weights:.0f}")
        for pid, (what, _) in zip(pids, memory, strict=True):
            print(f"where {what}'s memory goes (resident MiB by mapping):", file=sys.stderr)
            for name, mb in where_memory_goes(pid, 8):
                print(f"  {mb:6.1f}  {name}", file=sys.stderr)
        return used / IDLE_S * 100, memory
    finally:
        await desktop.aclose()


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")
    from PySide6.QtWidgets import QApplication

    from edgehost.ui._pyside_imports import read_sources_uncached

    read_sources_uncached()  # as the app does (ui.app.run_app), before the rest is imported
    from edgehost.llm.base import BackendError
    from edgehost.llm.default_model import default_model_path
    from edgehost.ui.app import event_loop

    try:
        default_model_path()
    except BackendError as exc:
        sys.exit(f"idle: {exc}")
    bare = bare_qt_rss_mb()
    app = QApplication([sys.argv[0]])
    loop = event_loop(app)  # as the app makes it
    with loop, tempfile.TemporaryDirectory(prefix="edgehost-idle-") as folder:
        # As on every start after the first: the int8 embedding model is in the cache folder already
        # (the first start writes it, from the package's fp32 model; written here by another process so
        # that this one's memory is the app's alone).
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys, pathlib; from edgehost.agent._embedding import int8_source; "
                "int8_source(pathlib.Path(sys.argv[1]))",
                str(Path(folder) / "cache"),
            ],
            check=True,
        )
        cpu, memory = loop.run_until_complete(run_idle(folder))
    (_, gui), *others = memory
    workers = [mb for what, mb in others if "edgehost.llm.worker" in what]
    rankers = [mb for what, mb in others if "ranking_process" in what]
    servers = [
        mb for what, mb in others if "edgehost.llm.worker" not in what and "ranking_process" not in what
    ]
    print(f"RESULT idle_cpu {cpu:.2f}")
    print(f"RESULT idle_rss_mb {gui:.0f}")
    print(f"RESULT idle_rss_worker_mb {sum(workers):.0f}")
    print(f"RESULT idle_rss_ranker_mb {sum(rankers):.0f}")
    print(f"RESULT idle_rss_servers_mb {sum(servers):.0f}")
    print(f"RESULT idle_rss_bare_qt_mb {bare:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
