"""The model files on this machine: the embedded default, the settings' file and the models folder, and
what each file says about itself (read from its header, never its weights)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from edgehost.llm.base import BackendError
from edgehost.llm.default_model import default_model_path
from edgehost.llm.gguf import GGUFError, gguf_context_length, read_gguf_metadata

__all__ = ["ModelFile", "describe_model", "find_models", "installed_names", "model_paths"]

MODEL_SUFFIXES = (".gguf", ".rkllm")


@dataclass(frozen=True)
class ModelFile:
    path: str
    name: str
    format: str  # "gguf" | "rkllm"
    size_bytes: int
    context_length: int | None  # None when the file does not say (.rkllm) or cannot be read
    chat_template: bool | None
    architecture: str | None = None
    source: str = "models folder"  # "embedded default" | "models folder" | "settings"
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def describe_model(path: Path, *, source: str = "models folder") -> ModelFile:
    """Format, size, context and chat template of one file; never loads weights.

    A file that cannot be read is described with ``error`` set rather than raising.
    """
    fmt = path.suffix.lower().lstrip(".")
    try:
        size = path.stat().st_size
    except OSError as exc:
        return ModelFile(str(path), path.name, fmt, 0, None, None, source=source, error=str(exc))
    if fmt != "gguf":
        return ModelFile(str(path), path.name, fmt, size, None, None, source=source)
    try:
        metadata = read_gguf_metadata(path)
    except (GGUFError, OSError) as exc:
        return ModelFile(str(path), path.name, fmt, size, None, None, source=source, error=str(exc))
    return ModelFile(
        path=str(path),
        name=path.stem,  # the file's name, as the status bar says it: a GGUF's general.name is a training run's
        format=fmt,
        size_bytes=size,
        context_length=gguf_context_length(metadata),
        chat_template=bool(metadata.get("tokenizer.chat_template")),
        architecture=metadata.get("general.architecture"),
        source=source,
    )


def find_models(models_dir: Path, configured: Iterable[str | None] = ()) -> list[ModelFile]:
    """The embedded default, configured model paths, and model files in ``models_dir`` (recursively)."""
    return [describe_model(path, source=source) for path, source in model_paths(models_dir, configured)]


def installed_names(models_dir: Path, configured: Iterable[str | None] = ()) -> set[str]:
    """The file names of the models find_models lists, without reading the files."""
    return {path.name for path, _source in model_paths(models_dir, configured)}


def model_paths(models_dir: Path, configured: Iterable[str | None] = ()) -> list[tuple[Path, str]]:
    """(path, where it was found) of each model find_models describes, each file once."""
    found: list[tuple[Path, str]] = []
    try:
        found.append((default_model_path(), "embedded default"))
    except BackendError:
        pass
    found.extend((Path(p).expanduser(), "settings") for p in configured if p)
    if models_dir.is_dir():
        found.extend(
            (p, "models folder")
            for p in sorted(models_dir.rglob("*"))
            if p.suffix.lower() in MODEL_SUFFIXES and p.is_file()
        )
    seen: set[Path] = set()
    result = []
    for path, source in found:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            result.append((path, source))
    return result
