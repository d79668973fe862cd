"""worker.log says what CPU pinning the model process got: a profile's affinity for CPUs this machine lacks
(an RK3588 profile's big cores on a 2-core PC) is reported as not applied, not as if it were."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from edgehost.llm.worker import cpu_list, plan_affinity
from edgehost.llm.worker_backend import WorkerBackend

ENGINES = Path(__file__).resolve().parents[1] / "llm" / "engines"  # scripted_engine.py
pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this OS")


def test_the_pinning_plan_says_which_cpus_are_used_and_why_not() -> None:
    assert plan_affinity([4, 5, 6, 7], {0, 1}) == (
        set(),
        "affinity [4, 5, 6, 7] not applied: this machine has CPUs 0-1",
    )
    assert plan_affinity([4, 5, 6, 7], range(8)) == ({4, 5, 6, 7}, "pinned to CPUs 4-7")
    assert plan_affinity([4, 5, 6, 7], range(6)) == (
        {4, 5},
        "pinned to CPUs 4-5 only (affinity [4, 5, 6, 7]; this machine has CPUs 0-5)",
    )
    assert plan_affinity([], range(8)) == (set(), "no CPU pinning")
    assert cpu_list([0, 1, 2, 5, 7, 8]) == "0-2, 5, 7-8"


async def load_and_read_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, affinity: list[int]) -> str:
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, (str(ENGINES), os.environ.get("PYTHONPATH"))))
    )
    backend = WorkerBackend(
        "scripted_engine:create_engine", {"pieces": ["Hi"], "affinity": affinity}, log_dir=tmp_path
    )
    try:
        await backend.load()
    finally:
        await backend.close()
    return (tmp_path / "worker.log").read_text()


async def test_worker_log_says_an_affinity_for_cpus_this_machine_lacks_was_not_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = os.sched_getaffinity(0)
    missing = [max(mine) + n for n in range(1, 5)]  # [4, 5, 6, 7] on a 2-core PC
    log = await load_and_read_log(tmp_path, monkeypatch, missing)
    assert f"affinity {missing} not applied: this machine has CPUs {cpu_list(mine)}" in log
    assert f"affinity {missing})" not in log  # it had said this, as if it were applied


async def test_worker_log_says_which_cpus_it_was_pinned_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cpu = min(os.sched_getaffinity(0))
    log = await load_and_read_log(tmp_path, monkeypatch, [cpu])
    assert f"pinned to CPUs {cpu})" in log
