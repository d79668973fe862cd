"""What a face shows of the models, the same in the window's Models panel and on the web page: the model
files on this machine that no catalog entry names, then the catalog fitted to this board (suggested
first), each with what it is and its state; and a download's progress in words."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from edgehost.host.model_library import in_models_folder

if TYPE_CHECKING:
    from edgehost.host.host import Host
    from edgehost.models.catalog import CatalogRow
    from edgehost.models.files import ModelFile

__all__ = [
    "ModelCard",
    "catalog_details",
    "catalog_note",
    "catalog_order",
    "describe_progress",
    "duration",
    "hub_card",
    "installed_details",
    "removable",
    "model_cards",
]

# How a model file found on this machine came to be there.
SOURCES = {
    "embedded default": "built into EdgeHost",
    "settings": "named in the settings",
    "models folder": "in the models folder",
}


class _Progress(Protocol):
    @property
    def stage(self) -> str: ...  # downloading | verifying
    @property
    def done_bytes(self) -> int: ...
    @property
    def total_bytes(self) -> int: ...
    @property
    def bytes_per_s(self) -> float | None: ...
    @property
    def seconds_left(self) -> float | None: ...


def describe_progress(progress: _Progress) -> str:
    """ "412 of 1,117 MB · 5.2 MB/s · 2 min 15 s left", or the check after the download; of a
    ModelDownloadProgressed event or a download's own Progress."""
    if progress.stage == "verifying":
        return f"Checking the file ({100 * progress.done_bytes // max(progress.total_bytes, 1)} %)…"
    text = f"{progress.done_bytes / 1e6:,.0f} of {progress.total_bytes / 1e6:,.0f} MB"
    if progress.bytes_per_s:
        text += f" · {progress.bytes_per_s / 1e6:.1f} MB/s"
    if progress.seconds_left is not None:
        text += f" · {duration(progress.seconds_left)} left"
    return text


def duration(seconds: float) -> str:
    """ "2 min 15 s", "40 s"."""
    whole = int(seconds)
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"


def catalog_details(row: CatalogRow) -> str:
    """One line on a catalog entry: size, quantisation, download, RAM, speed on this board, licence."""
    entry = row.entry
    if row.expected_tokens_per_s:
        speed = f" · about {row.expected_tokens_per_s:.0f} tokens/s on this board"
    elif row.estimated_tokens_per_s:  # no measured speed: the estimate the suggestion went by
        speed = f" · about {row.estimated_tokens_per_s:.0f} tokens/s here (estimated from the CPU cores)"
    else:
        speed = ""
    return (
        f"{entry.params_b:g}B parameters · {entry.quantization} · {entry.size_mb / 1000:.2f} GB "
        f"download · needs {entry.ram_gb:g} GB RAM{speed} · {entry.license} · {entry.repo}"
    )


def catalog_note(row: CatalogRow) -> str:
    """Why the entry cannot be downloaded here, or where its interrupted download stopped; "" otherwise."""
    if row.why_not:
        return f"Does not fit this board: {row.why_not}"
    if row.partial_bytes and not row.installed:
        return f"Stopped at {row.partial_bytes / 1e6:.0f} of {row.entry.size_mb:.0f} MB: Resume goes on from there."
    return ""


def installed_details(model: ModelFile, loaded_context: int = 0) -> str:
    """One line on a model file: where it came from, its format, size and context, its path.
    ``loaded_context``: the context the model in use was loaded with (0: not loaded)."""
    # The file's context is what it allows; the model is loaded with the board profile's (or Settings')
    # context, which the status bar shows ("4.1k"): both said, or the two figures look contradictory.
    context = ""
    if model.context_length:
        loaded = f"; loaded with {loaded_context:,}" if loaded_context else ""
        context = f" · {model.context_length:,} tokens of context (the file's most{loaded})"
    return (
        f"{SOURCES.get(model.source, model.source)} · {model.format} · "
        f"{model.size_bytes / 1e6:,.0f} MB{context} · {model.path}"
    )


def catalog_order(rows: Iterable[CatalogRow]) -> list[CatalogRow]:
    """The suggested entry first, then those that fit, by backend and size."""
    return sorted(rows, key=lambda r: (not r.recommended, not r.fits, r.entry.backend, r.entry.params_b))


def removable(state: str, path: str | None, partial_bytes: int, models_dir: Path) -> bool:
    """Whether Remove is offered for a model in ``state``: a file of the models folder not in use (never
    the built-in model), or the part an interrupted download left."""
    if state == "installed":
        return path is not None and in_models_folder(path, models_dir)
    return state == "available" and partial_bytes > 0


@dataclass(frozen=True)
class ModelCard:
    """One model as a face lists it."""

    name: str  # a catalog entry's name (what its download is started and reported under), or a file's path
    title: str
    details: str
    state: str  # available | downloading | installed | in use
    catalog: bool  # a catalog entry (downloadable), or a file on this machine no entry names
    path: str | None = None  # the file on this machine, once it is there
    fits: bool = True
    note: str = ""  # why it does not fit, where its download stopped, why the file cannot be used
    recommended: bool = False
    partial_bytes: int = 0  # of an interrupted download, which Download resumes
    removable: bool = False  # a file (or part of one) in the models folder, not in use
    usable: bool = True  # the file can be loaded (a broken one says why in `note`)
    hub: bool = False  # a file of the Hugging Face Hub pulled by its REPO:FILE, no catalog entry

    def as_dict(self) -> dict[str, Any]:
        return {field: getattr(self, field) for field in self.__dataclass_fields__}


def hub_card(spec: str, state: str = "available") -> ModelCard:
    """A file of the Hugging Face Hub named as REPO:FILE (or REPO, for its only model file)."""
    repo, _, file = spec.partition(":")
    return ModelCard(spec, file or repo, f"{repo} on the Hugging Face Hub", state, catalog=True, hub=True)


async def model_cards(host: Host, *, show_all: bool = False) -> tuple[str, list[ModelCard]]:
    """This board described and its models: the files no catalog entry names, then the catalog entries
    (with ``show_all``, also those that do not fit and are not downloaded)."""
    (board, rows), models = await asyncio.gather(host.model_catalog(), host.installed_models())
    models_dir = host.paths.models_dir
    downloading = host.downloads()
    catalog_files = {Path(row.entry.file).name for row in rows}
    cards = [  # pulled by REPO:FILE
        hub_card(spec, "downloading") for spec in sorted(downloading - {row.entry.name for row in rows})
    ]
    for model in models:
        if Path(model.path).name in catalog_files:
            continue
        in_use = host.model_in_use(model.path)
        cards.append(
            ModelCard(
                model.path,
                model.name,
                installed_details(model, host.context_size if in_use else 0),
                "in use" if in_use else "installed",
                catalog=False,
                path=model.path,
                note=model.error or "",
                removable=removable("in use" if in_use else "installed", model.path, 0, models_dir),
                usable=model.error is None,
            )
        )
    for row in catalog_order(rows):
        if not row.fits and not row.installed and not show_all:
            continue
        path = str(models_dir / Path(row.entry.file).name) if row.installed else None
        in_use = path is not None and host.model_in_use(path)
        state = (
            "in use"
            if in_use
            else "downloading"
            if row.entry.name in downloading
            else "installed"
            if row.installed
            else "available"
        )
        partial = 0 if row.installed else row.partial_bytes
        cards.append(
            ModelCard(
                row.entry.name,
                row.entry.display_name,
                catalog_details(row),
                state,
                catalog=True,
                path=path,
                fits=row.fits,
                note=catalog_note(row),
                recommended=row.recommended,
                partial_bytes=partial,
                removable=removable(state, path, partial, models_dir),
            )
        )
    return board, cards
