"""The models a user can get from inside the app: the catalog fitted to this board, downloads that run
in a thread and report as host events, and choosing and removing the models on this machine. The
window and `edgehost models` share these rules: which model a name means, what using one writes in the
settings, what removing one deletes."""

from __future__ import annotations

import asyncio
import glob
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgehost.boards import BoardProfile, detect_board, system_root
from edgehost.errors import UsageError
from edgehost.host import events as ev
from edgehost.llm.base import BackendError
from edgehost.llm.default_model import default_model_path
from edgehost.models.catalog import (
    BoardFacts,
    CatalogEntry,
    CatalogRow,
    board_facts,
    catalog_rows,
    describe_board,
    find_entry,
    load_catalog,
)
from edgehost.models.downloads import (
    PARTS_FOLDER,
    DownloadCancelled,
    DownloadError,
    DownloadTarget,
    Progress,
    download,
    hub_files,
    partial_sizes,
)
from edgehost.models.files import MODEL_SUFFIXES, ModelFile, describe_model, find_models, installed_names
from edgehost.settings import Settings
from edgehost.validation_messages import near_miss

__all__ = [
    "BUILT_IN",
    "ModelLibrary",
    "ModelRemoval",
    "download_target",
    "find_installed",
    "in_models_folder",
    "is_in_use",
    "plan_removal",
    "settings_to_use",
]

log = logging.getLogger(__name__)

# What `edgehost models use` and `rm` also call the model built into EdgeHost (listed by its file's name).
BUILT_IN = "default"
_EMBEDDED = "embedded default"  # a ModelFile's source for the built-in model


def is_in_use(path: str | Path, chosen: str | None) -> bool:
    """Whether the model file at ``path`` is the one ``chosen`` (Settings.model) names; None names the
    built-in model."""
    try:
        target = Path(chosen) if chosen else default_model_path()
    except BackendError:  # no model named, and the built-in one is not installed
        return False
    return Path(path).expanduser().resolve() == target.expanduser().resolve()


def settings_to_use(path: str | Path) -> dict[str, Any]:
    """The settings that make EdgeHost use the model file at ``path``: the file and the backend that
    runs it. The built-in model is named by no path (None), so the choice survives a reinstall that
    moves it."""
    path = Path(path)
    backend = "rkllm" if path.suffix.lower() == ".rkllm" else "llamacpp"
    return {"model": None if _is_built_in(path) else str(path), "backend": backend}


def in_models_folder(path: str | Path, models_dir: Path) -> bool:
    """Whether ``path`` is inside the models folder: only those files are EdgeHost's to delete."""
    return Path(path).expanduser().resolve().is_relative_to(models_dir.expanduser().resolve())


def find_installed(models_dir: Path, chosen: str | None, name: str) -> ModelFile:
    """The model on this machine that ``name`` means: its name as `edgehost models` lists it, its file's
    name, the catalog entry it was downloaded as, ``default`` for the built-in model, or a model file's
    path. Raises UsageError naming the models there are (and the one meant, for a near miss)."""
    models = find_models(models_dir, [chosen])
    catalog = load_catalog()
    names = {m.path: _names(m, catalog) for m in models}
    for fold in (lambda text: text, str.casefold):
        hits = [m for m in models if fold(name) in {fold(n) for n in names[m.path]}]
        if len(hits) == 1:
            return hits[0]
        if hits:
            listed = "\n  ".join(m.path for m in hits)
            raise UsageError(f"{name!r} names {len(hits)} models; give the path of one:\n  {listed}")
    path = Path(name).expanduser()
    if path.suffix.lower() in MODEL_SUFFIXES and path.is_file():
        found = path.resolve()
        listed_there = (m for m in models if Path(m.path).resolve() == found)
        return next(listed_there, None) or describe_model(found, source="settings")
    entry = find_entry(catalog, name)
    if entry is not None:
        raise UsageError(f"{entry.name} is not downloaded: `edgehost models pull {entry.name}` gets it")
    meant = near_miss(name, [n for known in names.values() for n in known])
    hint = f" (did you mean {meant!r}?)" if meant else ""
    raise UsageError(f"no model {name!r} on this machine{hint}; the models here: {_listing(models)}")


@dataclass(frozen=True)
class ModelRemoval:
    """A downloaded model file and the parts of its unfinished download, deleted together."""

    name: str  # the model's file name
    files: tuple[Path, ...]
    size_bytes: int  # the space deleting them frees
    complete: bool  # False: only an unfinished download

    def delete(self) -> None:
        """Raises OSError when a file cannot be deleted (those before it are gone)."""
        for file in self.files:
            file.unlink(missing_ok=True)


def plan_removal(models_dir: Path, chosen: str | None, name: str) -> ModelRemoval:
    """What removing ``name`` deletes (`edgehost models rm`, the Models page's Remove): a model file in
    the models folder, by any name find_installed takes, with its unfinished download; or an unfinished
    download alone, by its file's or catalog entry's name or as REPO:FILE. Raises UsageError for the
    built-in model, a file outside the models folder, the model in use (saying how to switch), or an
    unknown name."""
    try:
        model: ModelFile | None = find_installed(models_dir, chosen, name)
    except UsageError:
        entry = find_entry(load_catalog(), name)
        # An entry's file, or the FILE of a hub file named as REPO:FILE, or a file's own name.
        file_name = Path(entry.file if entry else name.rpartition(":")[2]).name
        if not _parts(models_dir, file_name):
            raise
        model = None
    if model is not None:
        if model.source == _EMBEDDED:
            raise UsageError(f"{model.name} is the model built into EdgeHost: it cannot be removed")
        if not in_models_folder(model.path, models_dir):
            raise UsageError(
                f"{model.path} is not in the models folder ({models_dir}): EdgeHost deletes only what "
                "it downloaded there"
            )
        if is_in_use(model.path, chosen):
            others = [m for m in find_models(models_dir, [chosen]) if m.path != model.path]
            raise UsageError(
                f"{model.name} is the model in use: switch to another first with "
                f"`edgehost models use NAME` (the models here: {_listing(others)})"
            )
        file_name = Path(model.path).name
    files = ([Path(model.path)] if model else []) + _parts(models_dir, file_name)
    size = sum(f.stat().st_size for f in files if f.exists())
    return ModelRemoval(file_name, tuple(files), size, complete=model is not None)


def download_target(spec: str, endpoint: str | None = None) -> tuple[DownloadTarget, CatalogEntry | None]:
    """What `edgehost models pull SPEC` and the Models page download: a catalog entry by its name,
    REPO:FILE of the Hugging Face Hub, or REPO alone for its only model file (the hub is asked).
    Raises UsageError for a spec that names no model file, DownloadError when the hub cannot list REPO."""
    entry = find_entry(load_catalog(), spec)
    if entry is not None:
        return DownloadTarget(entry.repo, entry.file, entry.revision, entry.sha256, entry.size_bytes), entry
    if "/" not in spec:
        raise UsageError(
            f"no catalog model {spec!r}: see `edgehost models --all`, or give REPO:FILE of the hub"
        )
    repo, _, file = spec.partition(":")
    if not file:
        files = hub_files(repo, endpoint=endpoint)
        if len(files) != 1:
            listed = "\n  ".join(files) or "(none)"
            raise UsageError(f"{repo} has {len(files)} model files; name one as {repo}:FILE:\n  {listed}")
        file = files[0]
    if not file.lower().endswith(MODEL_SUFFIXES):
        raise UsageError(f"{file} is not a model file (.gguf or .rkllm)")
    return DownloadTarget(repo, file), None


def _is_built_in(path: Path) -> bool:
    try:
        return path.expanduser().resolve() == default_model_path().resolve()
    except BackendError:
        return False


def _names(model: ModelFile, catalog: list[CatalogEntry]) -> set[str]:
    """Every name a model goes by: as listed, its file's name with and without the suffix, the catalog
    entry it was downloaded as, and ``default`` for the built-in one."""
    file = Path(model.path).name
    names = {model.name, file, Path(file).stem}
    names.update(e.name for e in catalog if Path(e.file).name == file)
    if model.source == _EMBEDDED:
        names.add(BUILT_IN)
    return names


def _listing(models: list[ModelFile]) -> str:
    """ "default (the built-in SmolLM2-135M-Instruct.Q4_1), Qwen3-1.7B" """
    names = [f"{BUILT_IN} (the built-in {m.name})" if m.source == _EMBEDDED else m.name for m in models]
    return ", ".join(names) or "none"


def _parts(models_dir: Path, file_name: str) -> list[Path]:
    """The part and record of an unfinished download of ``file_name``."""
    return sorted((models_dir / PARTS_FOLDER).glob(f"{glob.escape(file_name)}.part*"))


class ModelLibrary:
    """One per Host. ``emit`` is called on the event loop's thread, never from a download's thread."""

    def __init__(self, models_dir: Path, emit: Callable[[Any], None], endpoint: str | None = None) -> None:
        self.models_dir = models_dir
        self.emit = emit
        self.endpoint = endpoint  # the hub; None: huggingface_hub's (HF_ENDPOINT or huggingface.co)
        self._cancels: dict[str, threading.Event] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def board(self, settings: Settings) -> BoardFacts:
        return board_facts(detect_board(system_root()), settings.rkllm_lib, settings.rkllm_abi)

    async def rows(self, profile: BoardProfile, settings: Settings) -> tuple[str, list[CatalogRow]]:
        """This board described, and every catalog entry fitted to it (read off the event loop)."""

        def read() -> tuple[str, list[CatalogRow]]:
            facts = self.board(settings)
            installed = installed_names(self.models_dir, [settings.model])
            rows = catalog_rows(load_catalog(), profile, facts, installed, partial_sizes(self.models_dir))
            return describe_board(profile, facts), rows

        return await asyncio.to_thread(read)

    def downloading(self) -> set[str]:
        return set(self._tasks)

    def start(self, name: str) -> asyncio.Task[None]:
        """Download ``name``, a catalog entry or a hub file as `edgehost models pull` takes it (REPO:FILE,
        or REPO for its only model file); progress and the end come as events named after the entry,
        or ``name`` itself for a hub file. A second start of the same download returns the running one.
        Raises KeyError for a name that is neither a catalog entry nor a hub repository."""
        entry = find_entry(load_catalog(), name)
        if entry is None and "/" not in name:
            raise KeyError(name)
        key = entry.name if entry else name
        if key in self._tasks:
            return self._tasks[key]
        cancel = self._cancels[key] = threading.Event()
        loop = asyncio.get_running_loop()

        def report(progress: Progress) -> None:
            event = ev.ModelDownloadProgressed(
                key,
                progress.stage,
                progress.done_bytes,
                progress.total_bytes,
                progress.bytes_per_s,
                progress.seconds_left,
            )
            loop.call_soon_threadsafe(self.emit, event)

        async def run() -> None:
            try:
                # REPO alone asks the hub for its files: not on the event loop.
                target, _entry = await asyncio.to_thread(download_target, name, self.endpoint)
                path = await asyncio.to_thread(
                    download,
                    target,
                    self.models_dir,
                    endpoint=self.endpoint,
                    on_progress=report,
                    cancel=cancel,
                )
            except DownloadCancelled as exc:
                log.info("the download of %s was cancelled: %s", key, exc)
                self.emit(ev.ModelDownloadFinished(key, None, str(exc), cancelled=True))
            except (DownloadError, UsageError) as exc:
                log.warning("the download of %s failed: %s", key, exc)
                self.emit(ev.ModelDownloadFinished(key, None, str(exc)))
            except OSError as exc:
                log.warning("the download of %s failed: cannot write the model: %s", key, exc)
                self.emit(ev.ModelDownloadFinished(key, None, f"cannot write the model: {exc}"))
            else:
                self.emit(ev.ModelDownloadFinished(key, str(path)))
            finally:
                self._tasks.pop(key, None)
                self._cancels.pop(key, None)

        task = self._tasks[key] = asyncio.create_task(run(), name=f"edgehost-download-{key}")
        return task

    def cancel(self, name: str) -> None:
        """Stop a download; its part stays, so starting it again resumes."""
        if (event := self._cancels.get(name)) is not None:
            event.set()

    async def aclose(self) -> None:
        for event in self._cancels.values():
            event.set()
        if self._tasks:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
