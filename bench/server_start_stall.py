"""The event-loop stall that starting MCP servers causes, apart from the rest of the app: 5 stdio servers
(as in bench/ui_stall.py) start and list their tools under the load of the default model generating in
its worker, while a heartbeat on the loop records how late it wakes. No window, no keyring, no tool
ranker: only what issue 12 moved off the loop and below the GUI (the spawning of servers and worker).

Each round starts them in fresh processes as now and as before (the SDK's ``stdio_client`` on the loop,
each child a session of its own at our priority), alternating. Prints ``RESULT server_start_stall_ms``
(median over rounds of the longest stall), ``RESULT server_start_stall_baseline_ms`` and
``RESULT server_start_stall_ratio`` (now / baseline).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time

from ui_stall import as_before, five_servers, quiet_session, running_model

HEARTBEAT_S = 0.005
READY_S = 90.0
CHILD_TIMEOUT_S = 300.0


async def measure(data_dir: str) -> float:
    from edgehost.mcp.config import ServersConfig
    from edgehost.mcp.manager import ServerManager
    from edgehost.paths import Paths
    from edgehost.settings import Settings

    worker, generating = await running_model(data_dir)
    await asyncio.sleep(1.0)  # the model is generating
    servers = ServersConfig(five_servers(Paths.resolve(None, data_dir)))  # type: ignore[arg-type]
    worst = 0.0
    stop = asyncio.Event()

    async def heartbeat() -> None:
        nonlocal worst
        while not stop.is_set():
            before = time.perf_counter()
            await asyncio.sleep(HEARTBEAT_S)
            worst = max(worst, time.perf_counter() - before - HEARTBEAT_S)

    beat = asyncio.ensure_future(heartbeat())
    try:
        async with ServerManager(servers, Settings()) as manager:
            await manager.wait_ready(READY_S)
            ready = [s.name for s in manager.statuses() if s.status.value == "ready"]
            stop.set()
            await beat
            if len(ready) != 5:
                raise SystemExit(f"server_start_stall: only {ready} started")
    finally:
        stop.set()
        generating.cancel()
        await worker.close()  # type: ignore[attr-defined]
    return worst * 1000


def child(baseline: bool) -> float:
    command = [sys.executable, __file__, "--once", *(["--baseline"] if baseline else [])]
    done = subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise SystemExit(f"server_start_stall: a run failed:\n{done.stderr[-3000:]}")
    return float(done.stdout.split()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--once", action="store_true")
    parser.add_argument("--baseline", action="store_true")
    parser.add_argument("--quiet-session", action="store_true", help=quiet_session.__doc__)
    args = parser.parse_args(argv)
    if args.once:
        if args.baseline:
            as_before()
        with tempfile.TemporaryDirectory(prefix="edgehost-start-stall-") as folder:
            print(f"{asyncio.run(measure(folder)):.1f}")
        return 0
    now: list[float] = []
    before: list[float] = []
    with quiet_session(args.quiet_session):
        for round_ in range(args.rounds):
            for baseline in (round_ % 2 == 0, round_ % 2 == 1):
                (before if baseline else now).append(child(baseline))
    print(f"now {now}, baseline {before} (ms)", file=sys.stderr)
    mine, theirs = statistics.median(now), statistics.median(before)
    print(f"RESULT server_start_stall_ms {mine:.1f}")
    print(f"RESULT server_start_stall_baseline_ms {theirs:.1f}")
    print(f"RESULT server_start_stall_ratio {mine / theirs:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
