"""The Models page: the catalog fitted to this machine, a download with progress from a local hub
(tests/fake_hub.py), cancel and resume, and switching to the downloaded model, which really loads."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel
from tests.fake_hub import FakeHub
from tests.ui.conftest import opened_desktop, wait_until

from edgehost.host import events as ev
from edgehost.llm.models import default_model_path
from edgehost.settings import Settings
from edgehost.ui.models_panel import ModelsPanel

# A catalog entry without a pinned size or sha256: the hub's own are checked, so the embedded model
# can stand in for its file.
ENTRY = "qwen2.5-0.5b-instruct-q4_k_m"
REPO, FILE = "bartowski/Qwen2.5-0.5B-Instruct-GGUF", "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf"


@pytest.fixture
def hub(empty_hub: FakeHub) -> FakeHub:
    empty_hub.add(REPO, FILE, default_model_path())
    return empty_hub


def test_a_suggested_model_downloads_with_progress_and_use_loads_it(
    data_dir: Path, hub: FakeHub, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False, hub_endpoint=hub.url) as desktop:
            events: list[Any] = []
            desktop.host.subscribe(events.append)
            panel = desktop.window.open_panel("models")
            assert isinstance(panel, ModelsPanel)
            await wait_until(lambda: ENTRY in panel.rows)
            assert "GB RAM, no NPU" in panel.board.text() or "RAM unknown" in panel.board.text()
            # Only what fits is listed until asked; .rkllm files need the NPU this PC has not.
            assert not any(name.endswith("-1.2") for name in panel.rows)
            row = panel.rows[ENTRY]
            assert row.action.text() == "Download" and row.action.isEnabled()
            row.action.click()
            await wait_until(lambda: any(isinstance(e, ev.ModelDownloadFinished) for e in events))
            finished = [e for e in events if isinstance(e, ev.ModelDownloadFinished)]
            assert finished[0].error is None, finished[0].error
            progress = [e for e in events if isinstance(e, ev.ModelDownloadProgressed)]
            assert progress and progress[-1].done_bytes == progress[-1].total_bytes
            path = desktop.host.paths.models_dir / FILE
            assert (
                hashlib.sha256(path.read_bytes()).digest()
                == hashlib.sha256(default_model_path().read_bytes()).digest()
            )
            assert row.action.text() == "Use" and "Downloaded to" in row.status.text()
            row.action.click()
            assert row.action.text() == "In use"
            await wait_until(
                lambda: (
                    desktop.host.model_status.status == "ready"
                    and desktop.host.model_status.backend == "llamacpp"
                ),
                120,
            )
            saved = json.loads(desktop.host.paths.settings_file.read_text())
            assert (saved["model"], saved["backend"]) == (str(path), "llamacpp")
            panel.show_all.setChecked(True)
            await wait_until(lambda: "qwen3-1.7b-rk3588-w8a8-1.2" in panel.rows)
            npu_row = panel.rows["qwen3-1.7b-rk3588-w8a8-1.2"]
            assert not npu_row.action.isEnabled()
            assert (
                npu_row.status.text()
                == "Does not fit this board: no NPU: .rkllm models run on the RK3588 NPU"
            )

    run(scenario())


def test_a_cancelled_download_says_so_and_resumes_from_its_part(
    data_dir: Path, hub: FakeHub, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False, hub_endpoint=hub.url) as desktop:
            hub.delay = 0.005
            panel = desktop.window.open_panel("models")
            assert isinstance(panel, ModelsPanel)
            await wait_until(lambda: ENTRY in panel.rows)
            row = panel.rows[ENTRY]
            row.action.click()
            await wait_until(lambda: " MB/s" in row.status.text() and "left" in row.status.text())
            assert row.cancel_button.isVisible() and not row.action.isVisible()
            row.cancel_button.click()
            await wait_until(lambda: row.action.text() == "Resume")
            assert "pull again to resume" in row.status.text()
            part = desktop.host.paths.models_dir / ".downloads" / f"{FILE}.part"
            kept = part.stat().st_size
            assert kept > 0 and not (desktop.host.paths.models_dir / FILE).exists()
            # Listed again (as after a restart), the row still offers to resume, from where it stopped.
            panel.refresh()
            await wait_until(lambda: panel.rows.get(ENTRY) not in (None, row))
            row = panel.rows[ENTRY]
            assert row.action.text() == "Resume"
            assert row.status.text().startswith(f"Stopped at {kept / 1e6:.0f} of ")
            hub.delay = 0.0
            hub.requests.clear()
            row.action.click()
            await wait_until(lambda: row.action.text() == "Use")
            assert [r[2] for r in hub.requests if r[0] == "GET"] == [f"bytes={kept}-"]

    run(scenario())


def test_on_the_embedded_model_the_window_suggests_one_for_this_board_once(
    data_dir: Path, hub: FakeHub, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False, hub_endpoint=hub.url) as desktop:
            window = desktop.window
            suggested = await desktop.host.suggested_model()
            assert suggested is not None and suggested.fits and suggested.recommended
            await wait_until(lambda: window.model_hint.isVisible())
            assert suggested.entry.display_name in window.model_hint.text.text()
            assert "small built-in model" in window.model_hint.text.text()
            events: list[Any] = []
            desktop.host.subscribe(events.append)
            window.model_hint.download.click()
            assert not window.model_hint.isVisible()
            panel = window.panels["models"]
            assert isinstance(panel, ModelsPanel) and panel.isVisible()
            # The local hub has not that repository: the download starts and ends with the hub's word.
            await wait_until(lambda: any(isinstance(e, ev.ModelDownloadFinished) for e in events))
            [done] = [e for e in events if isinstance(e, ev.ModelDownloadFinished)]
            assert done.name == suggested.entry.name and "on the hub" in (done.error or "")
            window.model_hint.offer(suggested)
            window.model_hint.later.click()
            assert Settings.load(desktop.host.paths.settings_file).model_hint_dismissed is True
            assert await desktop.host.suggested_model() is None

    run(scenario())


def test_the_model_in_use_is_listed_even_when_it_is_no_catalog_entry(
    data_dir: Path, empty_hub: FakeHub, run: Any
) -> None:
    """The embedded default is the model of a first start: the panel shows it, in use, above the catalog."""

    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False, hub_endpoint=empty_hub.url) as desktop:
            panel = desktop.window.open_panel("models")
            assert isinstance(panel, ModelsPanel)
            await wait_until(lambda: bool(panel.installed))
            [embedded] = panel.installed
            assert embedded.path == str(default_model_path())
            assert embedded.action.text() == "In use" and not embedded.action.isEnabled()
            details = " ".join(label.text() for label in embedded.findChildren(QLabel))
            assert "built into EdgeHost" in details and default_model_path().name in details

    run(scenario())
