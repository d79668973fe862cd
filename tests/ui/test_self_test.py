"""End to end: the real default model (llama.cpp) answers through the whole app with a pinned tool."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from edgehost.llm.base import BackendError
from edgehost.llm.default_model import default_model_path
from edgehost.slow_machine import scaled_wait

SELF_TEST_S = round(scaled_wait(600))  # model load and a forced call on a loaded CI machine


@pytest.mark.slow
def test_self_test_runs_a_pinned_tool_turn_on_the_default_model_and_opens_every_window(
    data_dir_answered_once: Path,
) -> None:
    data_dir = data_dir_answered_once
    try:
        default_model_path()
    except BackendError as exc:
        pytest.skip(str(exc))
    done = subprocess.run(
        [sys.executable, "-m", "edgehost", "--data-dir", str(data_dir), "--self-test"],
        capture_output=True,
        text=True,
        timeout=SELF_TEST_S,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith("self-test ok:") and "board__board_info ok" in summary
    for window in (
        "servers",
        "tools",
        "history",
        "settings",
        "approval",
        "elicitation",
        "sampling",
        "quick-ask",
    ):
        assert window in summary
