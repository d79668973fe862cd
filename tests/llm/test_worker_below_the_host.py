"""The model worker runs below the host's priority, in a process group of its own in the host's session."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from edgehost.child_processes import BACKGROUND_NICE_STEP
from edgehost.llm.worker_backend import WorkerBackend

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="nice is per thread on Linux")


def _group_session_nice(pid: int) -> tuple[int, int, int]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[2]), int(fields[3]), int(fields[16])


@pytest.mark.usefixtures("test_engines_on_path")
async def test_the_model_worker_runs_below_the_host(tmp_path: Path) -> None:
    backend = WorkerBackend("scripted_engine:create_engine", {"pieces": ["Hi"]}, log_dir=tmp_path)
    try:
        await backend.load()
        pid = backend.worker_pid
        assert pid is not None
        group, session, nice = _group_session_nice(pid)
        assert nice == min(19, os.getpriority(os.PRIO_PROCESS, 0) + BACKGROUND_NICE_STEP)
        assert group == pid
        assert session == os.getsid(0)
    finally:
        await backend.close()
