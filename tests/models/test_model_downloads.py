"""Pulling a model from the hub (models/downloads.py) against a local hub that speaks its protocol
(tests/fake_hub.py), with the embedded SmolLM2 GGUF as the file: resume, cancel, verify, refuse."""

from __future__ import annotations

import errno
import hashlib
import os
import threading
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from tests.fake_hub import FakeHub

from edgehost.llm.default_model import default_model_path
from edgehost.models import downloads
from edgehost.models.downloads import DownloadCancelled, DownloadError, DownloadTarget, download, hub_files
from edgehost.models.files import find_models

REPO = "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF"
FILE = "smollm2-135m-instruct-q4_1.gguf"


@pytest.fixture(scope="module")
def model_sha256() -> str:
    return hashlib.sha256(default_model_path().read_bytes()).hexdigest()


@pytest.fixture
def hub(empty_hub: FakeHub) -> FakeHub:
    empty_hub.add(REPO, FILE, default_model_path())
    return empty_hub


def pull(hub: FakeHub, models: Path, **kwargs) -> Path:
    target = kwargs.pop("target", DownloadTarget(REPO, FILE))
    return download(target, models, endpoint=hub.url, **kwargs)


def test_a_pulled_model_is_the_hubs_file_in_the_models_folder_with_progress_to_the_end(
    hub: FakeHub, tmp_path: Path, model_sha256: str
) -> None:
    reports: list[downloads.Progress] = []
    path = pull(hub, tmp_path, on_progress=reports.append)
    assert path == tmp_path / FILE
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model_sha256
    assert [m.path for m in find_models(tmp_path) if m.source == "models folder"] == [str(path)]
    sizes = [r.done_bytes for r in reports if r.stage == "downloading"]
    assert sizes == sorted(sizes) and sizes[-1] == path.stat().st_size
    assert reports[-1].stage == "verifying" and reports[-1].done_bytes == reports[-1].total_bytes
    assert list((tmp_path / ".downloads").glob("*.part*")) == []
    # A second pull finds it there and downloads nothing.
    hub.requests.clear()
    assert pull(hub, tmp_path) == path
    assert [r for r in hub.requests if r[0] == "GET"] == []


def test_a_cancelled_pull_keeps_its_part_out_of_the_model_list_and_the_next_pull_resumes_it(
    hub: FakeHub, tmp_path: Path, model_sha256: str
) -> None:
    hub.delay = 0.002
    cancel = threading.Event()

    def stop_at_a_third(progress: downloads.Progress) -> None:
        if progress.done_bytes > progress.total_bytes // 3:
            cancel.set()

    with pytest.raises(DownloadCancelled) as cancelled:
        pull(hub, tmp_path, on_progress=stop_at_a_third, cancel=cancel)
    part = tmp_path / ".downloads" / f"{FILE}.part"
    kept = part.stat().st_size
    # Said as right beside the window's Resume button as after the command line's own hint.
    assert str(cancelled.value) == (
        f"Cancelled at {kept / 1e6:,.0f} of {default_model_path().stat().st_size / 1e6:,.0f} MB: "
        "downloading it again resumes from there."
    )
    assert (cancelled.value.done_bytes, cancelled.value.total_bytes) == (
        kept,
        default_model_path().stat().st_size,
    )
    assert 0 < kept < default_model_path().stat().st_size
    assert not (tmp_path / FILE).exists()
    assert [m for m in find_models(tmp_path) if m.source == "models folder"] == []
    assert downloads.partial_downloads(tmp_path)[0]["done_bytes"] == kept

    hub.delay = 0.0
    hub.requests.clear()
    path = pull(hub, tmp_path)
    assert ("GET", f"/cdn/{model_sha256}", f"bytes={kept}-") in hub.requests
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model_sha256
    assert not part.exists()


def test_a_corrupted_download_is_deleted_and_never_becomes_a_model(hub: FakeHub, tmp_path: Path) -> None:
    hub.corrupt = True
    with pytest.raises(DownloadError, match="corrupted: its sha256 is"):
        pull(hub, tmp_path)
    assert not (tmp_path / FILE).exists()
    assert list((tmp_path / ".downloads").glob("*.part")) == []


def test_a_catalog_sha256_that_differs_from_the_file_is_caught(hub: FakeHub, tmp_path: Path) -> None:
    target = DownloadTarget(REPO, FILE, sha256="0" * 64)
    with pytest.raises(DownloadError, match="corrupted"):
        pull(hub, tmp_path, target=target)
    assert not (tmp_path / FILE).exists()


def test_a_catalog_size_that_differs_from_the_hubs_is_refused_before_downloading(
    hub: FakeHub, tmp_path: Path
) -> None:
    with pytest.raises(DownloadError, match="the file changed"):
        pull(hub, tmp_path, target=DownloadTarget(REPO, FILE, size_bytes=12345))
    assert [r for r in hub.requests if r[0] == "GET"] == []


@pytest.mark.parametrize(
    ("repo", "file", "message"),
    [
        (REPO, "missing.gguf", f"{REPO} has no file missing.gguf"),
        ("nobody/nothing", FILE, "no repository nobody/nothing on the hub"),
    ],
)
def test_a_missing_repository_or_file_is_named(
    hub: FakeHub, tmp_path: Path, repo: str, file: str, message: str
) -> None:
    with pytest.raises(DownloadError, match=message):
        pull(hub, tmp_path, target=DownloadTarget(repo, file))


def test_a_gated_repository_asks_for_a_token_and_downloads_with_one(hub: FakeHub, tmp_path: Path) -> None:
    hub.gated.add(REPO)
    with pytest.raises(DownloadError, match="is gated: accept its license.*HF_TOKEN"):
        pull(hub, tmp_path, token=False)
    assert pull(hub, tmp_path, token=hub.token).is_file()


def test_no_network_says_which_hub_it_could_not_reach(tmp_path: Path) -> None:
    closed = FakeHub().start()
    url = closed.url
    closed.stop()
    with pytest.raises(DownloadError, match=f"cannot reach the hub at {url}"):
        download(DownloadTarget(REPO, FILE), tmp_path, endpoint=url)


def test_a_disk_without_room_for_the_file_is_refused_before_downloading(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    free = shutil.disk_usage(tmp_path).free
    # The real disk's free space, less than the file needs once the kept margin is counted.
    monkeypatch.setattr(downloads, "DISK_MARGIN_BYTES", free - default_model_path().stat().st_size // 2)
    with pytest.raises(DownloadError, match="not enough disk space"):
        pull(hub, tmp_path)
    assert [r for r in hub.requests if r[0] == "GET"] == []


def test_a_second_pull_of_the_same_file_at_once_is_refused(hub: FakeHub, tmp_path: Path) -> None:
    hub.delay = 0.005
    started = threading.Event()
    cancel = threading.Event()
    errors: list[BaseException] = []

    def first() -> None:
        try:
            pull(hub, tmp_path, on_progress=lambda p: started.set(), cancel=cancel)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            errors.append(exc)

    thread = threading.Thread(target=first)
    thread.start()
    assert started.wait(30)
    with pytest.raises(DownloadError, match="already being downloaded"):
        pull(hub, tmp_path)
    cancel.set()
    thread.join(30)
    assert len(errors) == 1 and isinstance(errors[0], DownloadCancelled)


def test_the_model_files_of_a_repository_are_listed(hub: FakeHub, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("hello")
    hub.add(REPO, "README.md", readme)
    assert hub_files(REPO, endpoint=hub.url) == [FILE]


class DiskThatFillsUp:
    """The part file on a disk with ``room`` bytes left (None: all of it): a write past it fails with
    ENOSPC, and so does the close that flushes what was buffered, as a buffered file's close does.
    With ``full_on_close`` only the close fails, as when the last bytes sat in the buffer."""

    def __init__(self, real: BinaryIO, room: int | None, *, full_on_close: bool = False) -> None:
        self.real = real
        self.room = room
        self.full = full_on_close
        self.written = 0

    def write(self, data: bytes) -> int:
        if self.room is not None and self.written + len(data) > self.room:
            self.full = True
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.written += len(data)
        return self.real.write(data)

    def close(self) -> None:
        self.real.close()
        if self.full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def __enter__(self) -> DiskThatFillsUp:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@pytest.mark.parametrize(
    ("room", "full_on_close"), [(30_000_000, False), (None, True)], ids=["on-a-write", "on-the-close"]
)
def test_a_disk_that_fills_up_midway_is_one_clear_error_and_the_next_pull_resumes(
    hub: FakeHub,
    tmp_path: Path,
    model_sha256: str,
    monkeypatch: pytest.MonkeyPatch,
    room: int | None,
    full_on_close: bool,
) -> None:
    real_open = downloads._open_part
    monkeypatch.setattr(
        downloads,
        "_open_part",
        lambda path: DiskThatFillsUp(real_open(path), room, full_on_close=full_on_close),
    )
    with pytest.raises(DownloadError) as failed:
        pull(hub, tmp_path)
    assert str(failed.value) == (
        f"the disk filled up while downloading {FILE} (No space left on device); free some space in "
        f"{tmp_path} and pull again (it resumes where it stopped)"
    )
    part = tmp_path / ".downloads" / f"{FILE}.part"
    kept = part.stat().st_size
    assert 0 < kept <= (room or kept) and not (tmp_path / FILE).exists()
    assert downloads.partial_downloads(tmp_path)[0]["done_bytes"] == kept

    monkeypatch.undo()  # space was freed
    hub.requests.clear()
    path = pull(hub, tmp_path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model_sha256
    if kept < path.stat().st_size:
        assert ("GET", f"/cdn/{model_sha256}", f"bytes={kept}-") in hub.requests


def test_a_models_folder_that_cannot_be_written_is_named_with_the_reason(
    hub: FakeHub, tmp_path: Path
) -> None:
    # A folder under a regular file cannot be created: as a read-only or someone else's folder, an
    # OSError from the very first write into it.
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file")
    models = blocker / "models"
    with pytest.raises(DownloadError) as failed:
        pull(hub, models)
    assert str(failed.value) == f"cannot write to {models}: Not a directory"
    assert [r for r in hub.requests if r[0] == "GET"] == []


def test_a_finished_or_cancelled_download_leaves_no_lock_file_behind(hub: FakeHub, tmp_path: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(DownloadCancelled):
        pull(hub, tmp_path, cancel=cancel)
    parts = tmp_path / ".downloads"
    assert sorted(p.name for p in parts.iterdir()) == [f"{FILE}.part", f"{FILE}.part.json"]
    pull(hub, tmp_path)
    assert list(parts.iterdir()) == []


def test_a_transfer_the_server_ends_early_is_one_clear_error_and_the_next_pull_resumes(
    hub: FakeHub, tmp_path: Path, model_sha256: str
) -> None:
    # The body ends 10 MB in as if that were all (huggingface_hub's "Consistency check failed", an
    # OSError without errno).
    hub.end_early_after = 10_000_000
    total = default_model_path().stat().st_size
    with pytest.raises(DownloadError) as failed:
        pull(hub, tmp_path)
    assert str(failed.value) == (
        f"the download from localhost stopped early at 10 of {total / 1e6:,.0f} MB; "
        "pulling again resumes from there"
    )
    part = tmp_path / ".downloads" / f"{FILE}.part"
    assert part.stat().st_size == 10_000_000 and not (tmp_path / FILE).exists()
    assert downloads.partial_downloads(tmp_path)[0]["done_bytes"] == 10_000_000

    hub.end_early_after = None
    hub.requests.clear()
    path = pull(hub, tmp_path)
    assert ("GET", f"/cdn/{model_sha256}", "bytes=10000000-") in hub.requests
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model_sha256


def test_a_cancel_during_the_sha256_check_stops_it_and_keeps_the_file_for_the_next_pull(
    hub: FakeHub, tmp_path: Path, model_sha256: str
) -> None:
    cancel = threading.Event()
    hashed: list[int] = []

    def cancel_as_the_check_starts(progress: downloads.Progress) -> None:
        if progress.stage == "verifying":
            hashed.append(progress.done_bytes)
            cancel.set()

    with pytest.raises(DownloadCancelled) as cancelled:
        pull(hub, tmp_path, on_progress=cancel_as_the_check_starts, cancel=cancel)
    total = default_model_path().stat().st_size
    assert len(hashed) == 1 and hashed[0] < total  # stopped after the first chunk, not at the end
    # Worded as a cancel while downloading is: all of it is there, kept for the next pull.
    assert str(cancelled.value) == (
        f"Cancelled at {total / 1e6:,.0f} of {total / 1e6:,.0f} MB: downloading it again resumes from there."
    )
    assert (tmp_path / ".downloads" / f"{FILE}.part").stat().st_size == total
    assert not (tmp_path / FILE).exists()
    assert not (tmp_path / ".downloads" / f"{FILE}.lock").exists()

    hub.requests.clear()
    path = pull(hub, tmp_path)
    assert [r for r in hub.requests if r[0] == "GET"] == []  # nothing downloaded again: checked, moved
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model_sha256
