"""Downloading a model file from the Hugging Face Hub into the models folder.

The hub protocol is ``huggingface_hub``'s: it builds the URL (``HF_ENDPOINT`` for mirrors), sends the
token (``HF_TOKEN``), follows the hub's redirects, reads the file's size and sha256 (an LFS file's
ETag), and turns the hub's error codes into exceptions. Its own ``hf_hub_download`` deletes a partial
file when a download fails, so EdgeHost keeps its own: ``.downloads/FILE.part`` beside a small JSON
record of what it is a part of, resumed with a Range request while the file on the hub is the same.
A part lives under a hidden folder with its own suffix: it is never listed or loaded as a model.
Only a complete file whose size and sha256 match is moved into place.

One download of a file at a time: a second (in this process or another) is refused while the first
holds the part's lock, a ``FILE.lock`` beside the part that is deleted when the download ends.

The models folder is the user's disk: a folder that cannot be written and a disk that fills up
mid-download are DownloadErrors saying so, and the part stays for a resume; so is a transfer that the
server ended before the end of the file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO
from urllib.parse import urlsplit

from edgehost import __version__
from edgehost.errors import EdgeHostError

__all__ = [
    "DownloadCancelled",
    "DownloadError",
    "DownloadTarget",
    "Progress",
    "download",
    "hub_files",
    "partial_downloads",
    "partial_sizes",
]

PARTS_FOLDER = ".downloads"
_SHA256 = re.compile(r"[0-9a-f]{64}")
_CHUNK = 8 * 2**20
# Kept free on the disk after the download: a full disk breaks the history database first.
DISK_MARGIN_BYTES = 200 * 2**20


class DownloadError(EdgeHostError):
    """A download that cannot start or did not finish; the message says why and what to do."""


class DownloadCancelled(DownloadError):
    """The user stopped the download; its part is kept for a resume."""

    def __init__(self, done_bytes: int, total_bytes: int) -> None:
        super().__init__(
            f"Cancelled at {_mb(done_bytes)} of {_mb(total_bytes)} MB: downloading it again resumes from there."
        )
        self.done_bytes = done_bytes
        self.total_bytes = total_bytes


@dataclass(frozen=True)
class DownloadTarget:
    repo: str
    file: str
    revision: str = "main"
    sha256: str | None = None  # the catalog's, when it has one; otherwise the hub's
    size_bytes: int | None = None  # the catalog's, checked against the hub's


@dataclass(frozen=True)
class Progress:
    stage: str  # "downloading" | "verifying"
    done_bytes: int
    total_bytes: int
    bytes_per_s: float | None  # over the last few seconds; None until it is known

    @property
    def seconds_left(self) -> float | None:
        if not self.bytes_per_s:
            return None
        return max(0.0, (self.total_bytes - self.done_bytes) / self.bytes_per_s)


def partial_downloads(models_dir: Path) -> list[dict[str, Any]]:
    """The interrupted downloads a pull of the same file would resume: file, repo, bytes so far, size."""
    found = []
    for record in sorted((models_dir / PARTS_FOLDER).glob("*.part.json")):
        part = record.with_suffix("")
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(record.read_text(encoding="utf-8"))
            found.append(data | {"done_bytes": part.stat().st_size if part.exists() else 0})
    return found


def partial_sizes(models_dir: Path) -> dict[str, int]:
    """Bytes so far of each interrupted download, by the model's file name."""
    return {Path(str(d.get("file", ""))).name: int(d["done_bytes"]) for d in partial_downloads(models_dir)}


def hub_files(
    repo: str, revision: str = "main", *, token: str | None = None, endpoint: str | None = None
) -> list[str]:
    """The model files (.gguf, .rkllm) of a hub repository. Raises DownloadError."""
    from huggingface_hub import HfApi

    _quiet_hub()
    with _hub_errors(repo, None, endpoint):
        names = HfApi(endpoint=endpoint, token=token).list_repo_files(repo, revision=revision)
    return sorted(n for n in names if n.lower().endswith((".gguf", ".rkllm")))


def download(
    target: DownloadTarget,
    models_dir: Path,
    *,
    token: str | None = None,
    endpoint: str | None = None,
    on_progress: Callable[[Progress], None] = lambda progress: None,
    cancel: threading.Event | None = None,
) -> Path:
    """Download ``target`` into ``models_dir`` and return its path (at once when it is already there).
    ``endpoint`` is the hub's address; by default huggingface_hub's (``HF_ENDPOINT`` or huggingface.co).

    Raises DownloadCancelled when ``cancel`` is set, while downloading or while checking the sha256
    (the part stays for a resume), and DownloadError for everything else, with a message for the user
    (a folder that cannot be written, a full disk, a transfer that ended early); a corrupted part is
    deleted.
    """
    _quiet_hub()
    cancel = cancel or threading.Event()
    name = Path(target.file).name
    destination = models_dir / name
    parts = models_dir / PARTS_FOLDER
    part = parts / f"{name}.part"
    record = parts / f"{name}.part.json"
    with _writing_to(models_dir):
        parts.mkdir(parents=True, exist_ok=True)
    with _exclusive(parts / f"{name}.lock", name, models_dir):
        metadata, size = _file_metadata(target, token, endpoint)
        etag = metadata.etag or ""
        expected = target.sha256 or (etag if _SHA256.fullmatch(etag) else None)
        if destination.is_file() and destination.stat().st_size == size:
            return destination
        identity = {"repo": target.repo, "file": target.file, "commit": metadata.commit_hash, "etag": etag}
        resume = _resumable(part, record, identity, size)
        _check_disk(models_dir, size - resume)
        with _writing_to(models_dir):
            record.write_text(json.dumps(identity | {"size": size}), encoding="utf-8")
        meter = _Meter(size, resume, on_progress, cancel)
        with _part_file(part, resume, models_dir) as handle, _hub_errors(target.repo, target.file, endpoint):
            _transfer(metadata.location, handle, resume, size, token, meter)
        _check_part(part, record, size, expected, meter, urlsplit(metadata.location).hostname or "the hub")
        os.replace(part, destination)
        record.unlink(missing_ok=True)
        return destination


def _file_metadata(target: DownloadTarget, token: str | None, endpoint: str | None) -> tuple[Any, int]:
    """(the hub's metadata of ``target``, its size). Raises DownloadError when the hub gives no size or
    one other than the catalog's (the file changed)."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    url = hf_hub_url(target.repo, target.file, revision=target.revision, endpoint=endpoint)
    with _hub_errors(target.repo, target.file, endpoint):
        metadata = get_hf_file_metadata(
            url, token=token, endpoint=endpoint, library_name="edgehost", library_version=__version__
        )
    size = metadata.size
    if size is None:
        raise DownloadError(f"the hub did not say how big {target.file} is; try again later")
    if target.size_bytes is not None and size != target.size_bytes:
        raise DownloadError(
            f"{target.repo}/{target.file} is {size} bytes on the hub, the catalog says "
            f"{target.size_bytes}: the file changed; update EdgeHost or pull it as {target.repo}:{target.file}"
        )
    return metadata, size


def _transfer(location: str, handle: Any, resume: int, size: int, token: str | None, meter: _Meter) -> None:
    """The file's bytes from ``resume`` on, appended to ``handle``; a body that ends early is left to
    the size check (_check_part)."""
    from huggingface_hub import constants
    from huggingface_hub.file_download import http_get
    from huggingface_hub.utils import build_hf_headers

    # http_get reads the body in chunks of this size and reports after each: at 10 MiB (its
    # default) a board on a slow link would see the bar move and a cancel land every few seconds.
    constants.DOWNLOAD_CHUNK_SIZE = min(constants.DOWNLOAD_CHUNK_SIZE, _CHUNK // 8)
    try:
        http_get(
            location,
            handle,
            resume_size=resume,
            headers=build_hf_headers(token=token, library_name="edgehost", library_version=__version__),
            expected_size=size,
            tqdm_class=meter.bar_class(),
        )
    except OSError as exc:
        if exc.errno is not None or _is_network_error(exc):
            raise  # the disk's (_part_file names it) or the network's (_hub_errors)
        # huggingface_hub's "Consistency check failed": the body ended before the file did.
        # The part holds what came; the size check says so.


def _check_part(part: Path, record: Path, size: int, expected: str | None, meter: _Meter, host: str) -> None:
    """Raises DownloadError unless the downloaded part is the whole file (and its sha256 the one
    expected); a part too long or corrupted is deleted, one too short kept for a resume."""
    name = part.name.removesuffix(".part")
    got = part.stat().st_size
    if got < size:
        raise DownloadError(
            f"the download from {host} stopped early at {_mb(got)} of {_mb(size)} MB; "
            "pulling again resumes from there"
        )
    if got > size:
        part.unlink(missing_ok=True)
        record.unlink(missing_ok=True)
        raise DownloadError(
            f"the hub sent {got - size} bytes more than {name} has; the part was deleted, pull again"
        )
    if expected is not None:
        digest = _sha256(part, meter)
        if digest != expected:
            part.unlink(missing_ok=True)
            record.unlink(missing_ok=True)
            raise DownloadError(
                f"{name} is corrupted: its sha256 is {digest}, the hub's is {expected}; "
                "the part was deleted, pull again"
            )


def _quiet_hub() -> None:
    """No telemetry: huggingface_hub otherwise fetches an "agent harnesses" registry from the hub to
    fill its user agent. EdgeHost asks the hub for the file and nothing else."""
    from huggingface_hub import constants

    constants.HF_HUB_DISABLE_TELEMETRY = True


def _resumable(part: Path, record: Path, identity: dict[str, Any], size: int) -> int:
    """Bytes of ``part`` that belong to this very file on the hub; a part of another version starts over."""
    try:
        kept = json.loads(record.read_text(encoding="utf-8"))
        done = part.stat().st_size
    except (OSError, ValueError):
        return 0
    same = all(kept.get(key) == value for key, value in identity.items() if key != "commit")
    return done if same and done <= size else 0


def _open_part(path: Path) -> BinaryIO:
    """The part file opened for writing, as it is when there is one (a seam: tests hand out a file
    whose disk fills up)."""
    return path.open("r+b") if path.exists() else path.open("wb")


@contextlib.contextmanager
def _part_file(part: Path, resume: int, models_dir: Path) -> Iterator[BinaryIO]:
    """``part`` open for writing from byte ``resume``. A write that fails (a full disk most likely),
    also on the close that flushes the last bytes, is one DownloadError; the part stays for a resume."""
    with _writing_to(models_dir):
        handle = _open_part(part)
    try:
        with _writing_to(models_dir):
            handle.seek(resume)
            handle.truncate()
        yield handle
    except OSError as exc:
        with contextlib.suppress(OSError):
            handle.close()  # flushing the rest would fail again: the first error is the one to tell
        if exc.errno is None:
            raise  # not the disk's (the network's are DownloadErrors by now: _hub_errors)
        raise _write_error(exc, part, models_dir) from None
    except BaseException:
        with contextlib.suppress(OSError):
            handle.close()
        raise
    with _writing_to(models_dir, part):
        handle.close()


@contextlib.contextmanager
def _writing_to(models_dir: Path, part: Path | None = None) -> Iterator[None]:
    """OSErrors of writing into the models folder as DownloadErrors naming the folder and the reason."""
    try:
        yield
    except OSError as exc:
        raise _write_error(exc, part, models_dir) from None


def _write_error(exc: OSError, part: Path | None, models_dir: Path) -> DownloadError:
    reason = exc.strerror or str(exc)
    if part is not None and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        name = part.name.removesuffix(".part")
        return DownloadError(
            f"the disk filled up while downloading {name} ({reason}); free some space in {models_dir} "
            "and pull again (it resumes where it stopped)"
        )
    return DownloadError(f"cannot write to {models_dir}: {reason}")


def _check_disk(folder: Path, needed: int) -> None:
    free = shutil.disk_usage(folder).free
    if needed + DISK_MARGIN_BYTES > free:
        raise DownloadError(
            f"not enough disk space in {folder}: the download needs {_gb(needed)}, "
            f"{_gb(free)} is free (and {_gb(DISK_MARGIN_BYTES)} is kept for the rest of the system)"
        )


def _gb(size: int) -> str:
    return f"{size / 1e9:.2f} GB" if size >= 1e8 else f"{size / 1e6:.0f} MB"


def _mb(size: int) -> str:
    return f"{size / 1e6:,.0f}"


def _sha256(path: Path, meter: _Meter) -> str:
    digest = hashlib.sha256()
    done = 0
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            done += len(chunk)
            meter.verifying(done)
    return digest.hexdigest()


@contextlib.contextmanager
def _exclusive(lock_path: Path, name: str, models_dir: Path) -> Iterator[None]:
    """Holds ``lock_path`` (an flock) while the download runs, and deletes it at the end.

    The holder deletes the file before it lets go: another process that opened it meanwhile then
    holds a lock on a file no longer there, sees so, and takes the lock anew on a new file.
    """
    while True:
        with _writing_to(models_dir):
            lock = lock_path.open("w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise DownloadError(f"{name} is already being downloaded (by this or another EdgeHost)") from None
        except BaseException:
            lock.close()
            raise
        if _same_file(lock, lock_path):
            break
        lock.close()  # its holder deleted it while this process was opening it: lock the new one
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            lock_path.unlink()
        lock.close()  # lets go of the lock


def _same_file(handle: IO[str], path: Path) -> bool:
    try:
        now = path.stat()
    except FileNotFoundError:
        return False
    held = os.fstat(handle.fileno())
    return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)


@contextlib.contextmanager
def _hub_errors(repo: str, file: str | None, endpoint: str | None) -> Iterator[None]:
    """The hub's exceptions as messages a user can act on."""
    from huggingface_hub import constants, errors

    what = f"{repo}/{file}" if file else repo
    try:
        yield
    except DownloadError:
        raise
    except errors.GatedRepoError:
        raise DownloadError(
            f"{repo} is gated: accept its license on the hub, then give EdgeHost a token "
            "(HF_TOKEN=... or `hf auth login`)"
        ) from None
    except errors.RepositoryNotFoundError:
        raise DownloadError(
            f"no repository {repo} on the hub (or it is private and no token was given)"
        ) from None
    except errors.RevisionNotFoundError:
        raise DownloadError(f"{repo} has no such revision") from None
    except errors.RemoteEntryNotFoundError:
        raise DownloadError(f"{repo} has no file {file}") from None
    except errors.HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else "?"
        raise DownloadError(f"the hub answered {status} for {what}; try again later") from None
    except errors.OfflineModeIsEnabled:
        raise DownloadError("HF_HUB_OFFLINE is set: downloads are off") from None
    except Exception as exc:
        if _is_network_error(exc):
            raise DownloadError(
                f"cannot reach the hub at {endpoint or constants.ENDPOINT} ({type(exc).__name__}); check the network "
                "(a pull resumes where it stopped)"
            ) from None
        raise


def _is_network_error(exc: BaseException) -> bool:
    import httpx2  # huggingface_hub's HTTP client

    return isinstance(exc, (httpx2.TransportError, ConnectionError, TimeoutError))


class _Meter:
    """Turns huggingface_hub's progress bar updates into Progress reports, and stops the transfer when
    the download is cancelled (an exception raised from the bar's update ends http_get)."""

    def __init__(
        self, total: int, start: int, report: Callable[[Progress], None], cancel: threading.Event
    ) -> None:
        self.total = total
        self.done = start
        self.report = report
        self.cancel = cancel
        self.samples: list[tuple[float, int]] = [(time.monotonic(), start)]
        self.last_report = 0.0

    def advance(self, count: int) -> None:
        if self.cancel.is_set():
            raise DownloadCancelled(self.done, self.total)
        self.done += count
        now = time.monotonic()
        self.samples.append((now, self.done))
        self.samples = [s for s in self.samples if now - s[0] <= 5.0] or self.samples[-1:]
        if now - self.last_report >= 0.1 or self.done >= self.total:
            self.last_report = now
            self.report(Progress("downloading", self.done, self.total, self._rate()))

    def verifying(self, done: int) -> None:
        """Reports ``done`` bytes hashed; raises DownloadCancelled, as a cancelled transfer does, when
        the download was cancelled meanwhile (a multi-GB file takes a minute to hash on a board)."""
        if self.cancel.is_set():
            raise DownloadCancelled(self.done, self.total)
        self.report(Progress("verifying", done, self.total, None))

    def _rate(self) -> float | None:
        (start, first), (end, last) = self.samples[0], self.samples[-1]
        return (last - first) / (end - start) if end - start >= 0.5 else None

    def bar_class(self) -> type:
        from tqdm import tqdm

        meter = self

        class Bar(tqdm):  # type: ignore[misc]
            monitor_interval = 0  # tqdm starts a monitor thread per bar class otherwise

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                kwargs["disable"] = True
                super().__init__(*args, **kwargs)

            def update(self, n: float | None = 1) -> bool | None:
                meter.advance(int(n or 0))
                return None

        return Bar
