"""The Models page: the catalog fitted to this machine, a download with progress from a local hub
(tests/fake_hub.py), cancel and resume, switching to the downloaded model, which really loads, a hub
file pulled by REPO:FILE, and removing a downloaded model after asking."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QMessageBox
from tests.fake_hub import FakeHub
from tests.ui.conftest import opened_desktop, wait_until

from edgehost.host import events as ev
from edgehost.llm.default_model import default_model_path
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
            await wait_until(lambda: row.status.isHidden())  # "Loading it…" goes once it is loaded
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
            panel, row = await _entry_row(desktop)
            row.action.click()
            await wait_until(lambda: " MB/s" in row.status.text() and "left" in row.status.text())
            assert row.cancel_button.isVisible() and not row.action.isVisible()
            row.cancel_button.click()
            await wait_until(lambda: row.action.text() == "Resume")
            assert row.status.text().startswith("Cancelled at ")
            assert row.status.text().endswith("downloading it again resumes from there.")
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
    data_dir: Path, hub: FakeHub, run: Any, caplog: pytest.LogCaptureFixture
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
            with caplog.at_level(logging.WARNING, logger="edgehost.host.model_library"):
                window.model_hint.download.click()
                assert window.model_hint.isVisible() and not window.model_hint.download.isEnabled()
                assert window.model_hint.text.text().startswith(f"Downloading {suggested.entry.display_name}")
                panel = window.panels["models"]
                assert isinstance(panel, ModelsPanel) and panel.isVisible()
                # The local hub has not that repository: the download starts and ends with the hub's word.
                await wait_until(lambda: any(isinstance(e, ev.ModelDownloadFinished) for e in events))
            [done] = [e for e in events if isinstance(e, ev.ModelDownloadFinished)]
            assert done.name == suggested.entry.name and "on the hub" in (done.error or "")
            # The banner stays, saying why, with a way to try again; the log has it too.
            hint = window.model_hint
            assert hint.isVisible() and hint.text.objectName() == "ErrorText"
            assert hint.text.text() == f"The download of {suggested.entry.display_name} failed: {done.error}"
            assert hint.download.text() == "Try again" and hint.download.isEnabled()
            assert [r.getMessage() for r in caplog.records] == [
                f"the download of {suggested.entry.name} failed: {done.error}"
            ]
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
            # The file's context beside the one it was loaded with, which the status bar shows.
            await desktop.host.wait_model()
            panel.refresh()
            await wait_until(lambda: "loaded with" in _details(panel.installed[0]))
            [model] = [m for m in await desktop.host.installed_models() if m.path == embedded.path]
            loaded = desktop.host.context_size
            assert model.context_length and loaded and model.context_length != loaded
            assert (
                f" · {model.context_length:,} tokens of context (the file's most; loaded with {loaded:,}) · "
                in _details(panel.installed[0])
            )

    run(scenario())


def _details(row: Any) -> str:
    return " ".join(label.text() for label in row.findChildren(QLabel))


async def _entry_row(desktop: Any) -> tuple[ModelsPanel, Any]:
    """The Models page open, and the test entry's card once the catalog is listed."""
    panel = desktop.window.open_panel("models")
    assert isinstance(panel, ModelsPanel)
    await wait_until(lambda: ENTRY in panel.rows)
    return panel, panel.rows[ENTRY]


def _answer_yes(panel: ModelsPanel) -> str:
    """Say Yes to the panel's open question; its text."""
    box = panel.confirmation
    assert isinstance(box, QMessageBox) and box.isVisible()
    text = box.text()
    box.button(QMessageBox.StandardButton.Yes).click()
    return text


def test_remove_deletes_a_downloaded_model_after_saying_the_space_it_frees_and_never_offers_the_built_in(
    data_dir: Path, empty_hub: FakeHub, run: Any
) -> None:
    models = data_dir / "models"
    models.mkdir()
    mine = models / "mine.gguf"
    shutil.copyfile(default_model_path(), mine)

    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False, hub_endpoint=empty_hub.url) as desktop:
            panel = desktop.window.open_panel("models")
            assert isinstance(panel, ModelsPanel)
            await wait_until(lambda: len(panel.installed) == 2)
            embedded, downloaded = panel.installed
            assert embedded.action.text() == "In use" and embedded.remove_button.isHidden()
            # Chosen, a model cannot be removed; the built-in one, once no longer chosen, still cannot.
            downloaded.action.click()
            assert downloaded.remove_button.isHidden() and embedded.remove_button.isHidden()
            embedded.action.click()
            await wait_until(lambda: desktop.host.settings.model is None)  # the built-in: named by no path
            assert embedded.remove_button.isHidden() and downloaded.remove_button.isVisible()
            downloaded.remove_button.click()
            question = _answer_yes(panel)
            assert question == (
                f"Delete mine.gguf from {models}? This frees 98 MB; using it again means downloading it again."
            )
            assert not mine.exists()
            assert panel.notice.text() == "Removed mine.gguf: 98 MB freed."
            await wait_until(lambda: [row.path for row in panel.installed] == [str(default_model_path())])

    run(scenario())


def test_a_hub_file_named_as_repo_and_file_downloads_with_progress_and_offers_use_and_remove(
    data_dir: Path, hub: FakeHub, run: Any
) -> None:
    spec = f"{REPO}:{FILE}"

    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False, hub_endpoint=hub.url) as desktop:
            events: list[Any] = []
            desktop.host.subscribe(events.append)
            panel = desktop.window.open_panel("models")
            assert isinstance(panel, ModelsPanel)
            await wait_until(lambda: ENTRY in panel.rows)
            panel.hub_file.setText("just-a-name")
            panel.pull_from_hub()
            assert "OWNER/REPO:FILE" in panel.notice.text() and spec not in panel.rows
            hub.delay = 0.002
            panel.hub_file.setText(f"  {spec} ")
            panel.pull_from_hub()
            row = panel.rows[spec]
            await wait_until(row.isVisible)  # a card added to the shown list is shown on the next turn
            assert row.cancel_button.isVisible() and not row.action.isVisible()
            await wait_until(lambda: " MB/s" in row.status.text())
            await wait_until(lambda: any(isinstance(e, ev.ModelDownloadFinished) for e in events), 60)
            [finished] = [e for e in events if isinstance(e, ev.ModelDownloadFinished)]
            path = desktop.host.paths.models_dir / FILE
            assert (finished.name, finished.path, finished.error) == (spec, str(path), None)
            assert {e.name for e in events if isinstance(e, ev.ModelDownloadProgressed)} == {spec}
            assert row.action.text() == "Use" and row.remove_button.isVisible()
            assert row.status.text() == f"Downloaded to {path}. Use it now?"
            row.remove_button.click()
            assert "This frees 98 MB" in _answer_yes(panel)
            assert not path.exists()

    run(scenario())


def test_a_cancelled_downloads_part_can_be_removed_to_free_its_space(
    data_dir: Path, hub: FakeHub, run: Any
) -> None:
    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False, hub_endpoint=hub.url) as desktop:
            hub.delay = 0.005
            panel, row = await _entry_row(desktop)
            assert row.remove_button.isHidden()  # nothing downloaded yet
            row.action.click()
            await wait_until(lambda: " MB/s" in row.status.text())
            row.cancel_button.click()
            await wait_until(lambda: row.action.text() == "Resume")
            part = desktop.host.paths.models_dir / ".downloads" / f"{FILE}.part"
            kept = part.stat().st_size
            row.remove_button.click()
            assert _answer_yes(panel).startswith(
                f"Delete the unfinished download of {FILE} from {desktop.host.paths.models_dir}? "
                f"This frees {kept / 1e6:,.0f} MB"
            )
            assert not part.exists()
            await wait_until(lambda: panel.rows.get(ENTRY) not in (None, row))
            assert panel.rows[ENTRY].action.text() == "Download"

    run(scenario())


def test_the_part_of_a_cancelled_hub_file_download_can_be_removed_from_its_card(
    data_dir: Path, empty_hub: FakeHub, run: Any
) -> None:
    other = "Other-Model-Q4_K_M.gguf"  # named by no catalog entry: only its REPO:FILE finds its part
    empty_hub.add(REPO, other, default_model_path())
    spec = f"{REPO}:{other}"

    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False, hub_endpoint=empty_hub.url) as desktop:
            empty_hub.delay = 0.005
            panel = desktop.window.open_panel("models")
            assert isinstance(panel, ModelsPanel)
            await wait_until(lambda: ENTRY in panel.rows)
            panel.hub_file.setText(spec)
            panel.pull_from_hub()
            row = panel.rows[spec]
            await wait_until(lambda: " MB/s" in row.status.text())
            row.cancel_button.click()
            await wait_until(lambda: row.action.text() == "Resume")
            part = desktop.host.paths.models_dir / ".downloads" / f"{other}.part"
            assert part.exists() and row.remove_button.isVisible()
            row.remove_button.click()
            assert _answer_yes(panel).startswith(f"Delete the unfinished download of {other} from ")
            assert not part.exists()

    run(scenario())
