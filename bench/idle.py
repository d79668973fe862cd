"""CPU and memory of the desktop app at rest: the window open (offscreen), the built-in servers
connected and the default model loaded in its worker, nobody typing.

CPU is counted over the whole process tree (the GUI, the inference worker, the MCP servers) for 10 s
and given as percent of one core: ``RESULT idle_cpu`` (target <= 1.0). ``RESULT idle_rss_mb`` is the
GUI process's resident memory in a run without a model (the worker's model memory is the model's).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
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


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def run_idle(data_dir: str, with_model: bool) -> tuple[float, float, str]:
    from edgehost.host.host import HostOptions
    from edgehost.paths import Paths
    from edgehost.settings import Settings
    from edgehost.ui.app import Desktop

    options = HostOptions(backend_name="llamacpp", with_model=with_model)
    desktop = Desktop(Paths.resolve(None, data_dir), Settings(close_to_tray=False), options)
    model = "none"
    try:
        await desktop.start()
        await desktop.host.wait_servers_ready(SERVERS_READY_S)
        if with_model:
            backend = await desktop.host.wait_model(MODEL_LOAD_S)
            model = backend.model_info.name if backend.model_info else "model"
        await asyncio.sleep(SETTLE_S)
        pids = tree(os.getpid())
        before = cpu_seconds(pids)
        await asyncio.sleep(IDLE_S)
        used = cpu_seconds(pids) - before
        return used / IDLE_S * 100, rss_mb(), f"{model}, {len(pids)} processes"
    finally:
        await desktop.aclose()


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")
    from PySide6.QtWidgets import QApplication

    from edgehost.llm.base import BackendError
    from edgehost.llm.models import default_model_path
    from edgehost.ui.app import event_loop

    try:
        default_model_path()
    except BackendError as exc:
        sys.exit(f"idle: {exc}")
    app = QApplication([sys.argv[0]])
    loop = event_loop(app)  # as the app makes it
    with loop:
        with tempfile.TemporaryDirectory(prefix="edgehost-idle-") as folder:
            _cpu, rss, _what = loop.run_until_complete(run_idle(folder, with_model=False))
        with tempfile.TemporaryDirectory(prefix="edgehost-idle-") as folder:
            cpu, _rss, what = loop.run_until_complete(run_idle(folder, with_model=True))
    print(f"idle with {what}", file=sys.stderr)
    print(f"RESULT idle_cpu {cpu:.2f}")
    print(f"RESULT idle_rss_mb {rss:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
