"""The model catalog: models that work with EdgeHost's tool calling, as data (resources/models/catalog.toml).

Each entry names a file on the Hugging Face Hub and what a board needs to run it. Whether an entry fits
*this* board is decided here from three facts (RAM, an NPU, the RKLLM runtime line); how fast it runs
comes from the board profile's measured speeds, not from the entry (boards.profiles.expected_speed),
or, for llama.cpp on a board without them, from a rough estimate by its CPU cores (estimated_speed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from edgehost.boards.detection import BoardInfo, big_cores
from edgehost.boards.profiles import BoardProfile, expected_speed
from edgehost.errors import ConfigError
from edgehost.paths import shipped_dir
from edgehost.toml_text import load_toml

__all__ = [
    "BoardFacts",
    "CatalogEntry",
    "CatalogRow",
    "catalog_rows",
    "describe_board",
    "board_facts",
    "cpu_cores",
    "estimated_speed",
    "catalog_file",
    "find_entry",
    "load_catalog",
    "recommend",
    "why_not",
]

# The runtime line a .rkllm file was converted for: 1.2.x files do not load in 1.3.0 and back.
RUNTIME_LINES = ("1.2", "1.3")
FORMATS = {"gguf": "llamacpp", "rkllm": "rkllm"}
# A model is recommended when it needs at most this share of the board's RAM (the desktop, the
# servers and the page cache need the rest) and decodes at least this fast on the board.
RECOMMEND_RAM_SHARE = 0.5
RECOMMEND_MIN_TOKENS_PER_S = 8.0
# What the system and EdgeHost itself keep when a model only has to fit.
RAM_HEADROOM_GB = 1.0
# llama.cpp's decode speed on a board whose profile has no [speed] figures (a PC, a Raspberry Pi):
# tokens/s ≈ this × cores / billions of parameters. Decode reads every weight once per token, so speed
# falls in proportion to the size; 2.5 is the RK3588's measured llama.cpp Q4 figure (10 tokens/s at
# 1B on its four A76 cores: 2.5 × 4 / 1.0). Most PC cores are faster than an A76: the estimate errs
# low. Memory bandwidth, not cores, bounds decoding past a few cores: no more than
# ESTIMATE_MAX_CORES are counted.
CPU_TOKENS_PER_S_PER_CORE = 2.5
ESTIMATE_MAX_CORES = 8
# With no speed figure nor estimate at all, only a model this small is suggested.
UNKNOWN_SPEED_MAX_PARAMS_B = 1.0


@dataclass(frozen=True)
class CatalogEntry:
    name: str  # what `edgehost models pull` takes: "qwen2.5-1.5b-instruct-q4_k_m"
    display_name: str
    repo: str  # the hub repository: "Qwen/Qwen2.5-1.5B-Instruct-GGUF"
    file: str  # the file in it
    format: str  # "gguf" | "rkllm"
    quantization: str
    params_b: float  # parameters, in billions
    size_mb: float  # as the hub lists it (megabytes); the exact size is the hub's, or size_bytes
    context: int
    license: str
    tool_dialect: str  # the tool-call format its chat template teaches (agent/_dialects.py)
    ram_gb: float  # RAM it needs loaded, with its default context
    revision: str = "main"
    sha256: str | None = None  # when known; otherwise the hub's own (an LFS file's ETag) is checked
    size_bytes: int | None = None  # exact, when known: a file of another size on the hub is refused
    runtime: str | None = None  # .rkllm only: the runtime line it was converted with ("1.2", "1.3")
    gated: bool = False  # the hub asks for a token (HF_TOKEN) after accepting the license

    @property
    def backend(self) -> str:
        return FORMATS[self.format]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"backend": self.backend}


@dataclass(frozen=True)
class BoardFacts:
    """What decides whether a model fits: total RAM, a usable NPU, the RKLLM runtime found."""

    ram_gb: float | None
    npu: bool
    rkllm_runtime: str | None  # "1.2.3", "1.3.0"; None when no runtime library was found
    # CPU cores llama.cpp decodes on, for a speed estimate where the profile has no figures: the
    # fastest cluster's on a big.LITTLE board; None when unknown.
    cpu_cores: int | None = None


def board_facts(info: BoardInfo, rkllm_lib: str | None = None, rkllm_abi: str | None = None) -> BoardFacts:
    """The facts of this board: its RAM and NPU from ``info``, and the RKLLM runtime found (the
    library's version, or the ABI line set in the settings when the version cannot be read)."""
    from edgehost.llm.base import BackendError
    from edgehost.llm.rkllm import locate_library

    runtime = None
    if info.npu.present:
        try:
            library = locate_library(None, rkllm_lib, rkllm_abi)
            runtime = library.version or library.abi
        except BackendError:
            runtime = None
    return BoardFacts(
        ram_gb=info.ram_gb, npu=info.npu.present, rkllm_runtime=runtime, cpu_cores=cpu_cores(info)
    )


def cpu_cores(info: BoardInfo) -> int | None:
    """The cores a model runs on: the fastest cluster's on a big.LITTLE board, else all; None unknown."""
    return len(big_cores(info.cpus)) or len(info.cpus) or None


def catalog_file() -> Path:
    return shipped_dir("resources") / "models" / "catalog.toml"


_FIELDS = {
    "name": str,
    "display_name": str,
    "repo": str,
    "file": str,
    "format": str,
    "quantization": str,
    "params_b": float,
    "size_mb": float,
    "context": int,
    "license": str,
    "tool_dialect": str,
    "ram_gb": float,
}
_OPTIONAL = {"revision": str, "sha256": str, "size_bytes": int, "runtime": str, "gated": bool}
_SHA256 = re.compile(r"[0-9a-f]{64}")


def load_catalog(path: Path | None = None) -> list[CatalogEntry]:
    """Every ``[[model]]`` of the catalog. Raises ConfigError naming the file, line and field."""
    path = path or catalog_file()
    text = path.read_text(encoding="utf-8")
    data = load_toml(text, str(path))
    starts = [number for number, line in enumerate(text.splitlines(), 1) if line.strip() == "[[model]]"]
    entries: list[CatalogEntry] = []
    for index, item in enumerate(data.get("model", [])):
        line = starts[index] if index < len(starts) else None
        entry = _entry(item, str(path), line)
        if any(e.name == entry.name for e in entries):
            raise ConfigError(f"a second entry named {entry.name!r}", path=str(path), line=line, field="name")
        entries.append(entry)
    return entries


def _entry(item: dict[str, Any], where: str, line: int | None) -> CatalogEntry:
    values: dict[str, Any] = {}
    for key, kind in (_FIELDS | _OPTIONAL).items():
        if key not in item:
            if key in _FIELDS:
                raise ConfigError("is missing", path=where, line=line, field=key)
            continue
        value = item[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ConfigError(f"must be a {kind.__name__}", path=where, line=line, field=key)
        values[key] = value
    unknown = sorted(set(item) - set(_FIELDS) - set(_OPTIONAL))
    if unknown:
        raise ConfigError(f"unknown field {unknown[0]!r}", path=where, line=line)
    if values["format"] not in FORMATS:
        raise ConfigError(f"must be one of {', '.join(FORMATS)}", path=where, line=line, field="format")
    if values["format"] == "rkllm" and values.get("runtime") not in RUNTIME_LINES:
        raise ConfigError(
            f"a .rkllm entry needs the runtime line it was converted with: {' or '.join(RUNTIME_LINES)}",
            path=where,
            line=line,
            field="runtime",
        )
    if "sha256" in values and not _SHA256.fullmatch(values["sha256"]):
        raise ConfigError("must be 64 lowercase hex digits", path=where, line=line, field="sha256")
    if not values["file"].endswith(f".{values['format']}"):
        raise ConfigError(f"must end in .{values['format']}", path=where, line=line, field="file")
    return CatalogEntry(**values)


def why_not(entry: CatalogEntry, board: BoardFacts) -> str | None:
    """Why ``entry`` cannot run on ``board`` ("RAM", "no NPU", "runtime …"), or None when it fits."""
    if board.ram_gb is not None and entry.ram_gb > board.ram_gb - RAM_HEADROOM_GB:
        return f"RAM: needs {entry.ram_gb:g} GB, the board has {board.ram_gb:.1f} GB"
    if entry.format == "rkllm":
        if not board.npu:
            return "no NPU: .rkllm models run on the RK3588 NPU"
        if board.rkllm_runtime is None:
            return "no RKLLM runtime (librkllmrt.so) found"
        line = ".".join(board.rkllm_runtime.split(".")[:2])
        if line != entry.runtime:
            return f"runtime: converted for {entry.runtime}.x, the board has {board.rkllm_runtime}"
    return None


def estimated_speed(profile: BoardProfile, board: BoardFacts, backend: str, params_b: float) -> float | None:
    """Decode tokens/s of a model of ``params_b`` billion parameters: the profile's measured figure,
    else for llama.cpp an estimate from the board's CPU cores (CPU_TOKENS_PER_S_PER_CORE); None when
    neither is known."""
    measured = expected_speed(profile, backend, params_b)
    if measured is not None or backend != "llamacpp" or not board.cpu_cores or params_b <= 0:
        return measured
    return CPU_TOKENS_PER_S_PER_CORE * min(board.cpu_cores, ESTIMATE_MAX_CORES) / params_b


def recommend(
    catalog: list[CatalogEntry], profile: BoardProfile, board: BoardFacts, backend: str | None = None
) -> CatalogEntry | None:
    """The one model to suggest: for the first backend of the profile's order that has a fitting
    entry (or ``backend``), the biggest that needs at most half the RAM and still decodes at least
    8 tokens/s by the profile's measured speeds, or by an estimate from the CPU cores where the profile
    has none (estimated_speed). A model whose speed cannot even be estimated is suggested only when it
    is small (UNKNOWN_SPEED_MAX_PARAMS_B)."""
    backends = [backend] if backend else [b for b in profile.backend_order if b in FORMATS.values()]
    for name in backends:
        candidates = [
            e
            for e in catalog
            if e.backend == name
            and why_not(e, board) is None
            and (board.ram_gb is None or e.ram_gb <= board.ram_gb * RECOMMEND_RAM_SHARE)
            and _fast_enough(e, estimated_speed(profile, board, name, e.params_b))
        ]
        if candidates:
            return max(candidates, key=lambda e: (e.params_b, e.quantization == "Q4_K_M"))
    return None


def _fast_enough(entry: CatalogEntry, speed: float | None) -> bool:
    if speed is None:
        return entry.params_b <= UNKNOWN_SPEED_MAX_PARAMS_B
    return speed >= RECOMMEND_MIN_TOKENS_PER_S


@dataclass(frozen=True)
class CatalogRow:
    """One entry as this board sees it: whether it fits and why not, its speed here (measured, or
    else estimated from the CPU cores), whether it is the one suggested and whether it is downloaded
    already."""

    entry: CatalogEntry
    why_not: str | None
    expected_tokens_per_s: float | None  # by the profile's measured speeds only
    recommended: bool
    installed: bool
    partial_bytes: int = 0  # of an interrupted download a pull resumes; 0 when there is none
    # estimated_speed's figure where there is no measured one (llama.cpp on a PC, a Raspberry Pi): the
    # speed the suggestion went by.
    estimated_tokens_per_s: float | None = None

    @property
    def fits(self) -> bool:
        return self.why_not is None

    def as_dict(self) -> dict[str, Any]:
        return self.entry.as_dict() | {
            "fits": self.fits,
            "why_not": self.why_not,
            "installed": self.installed,
            "partial_bytes": self.partial_bytes,
            "recommended": self.recommended,
            "expected_tokens_per_s": self.expected_tokens_per_s,
            "estimated_tokens_per_s": self.estimated_tokens_per_s,
        }


def catalog_rows(
    catalog: list[CatalogEntry],
    profile: BoardProfile,
    board: BoardFacts,
    installed: set[str],
    partial: Mapping[str, int] | None = None,
) -> list[CatalogRow]:
    """Every entry fitted to this board; ``installed`` holds the file names of the models there are
    (llm.model_files.installed_names), ``partial`` the bytes of each interrupted download by file name."""
    partial = partial or {}
    chosen = {m.name for b in profile.backend_order if (m := recommend(catalog, profile, board, b))}
    rows = []
    for entry in catalog:
        speed = expected_speed(profile, entry.backend, entry.params_b)
        estimate = None if speed else estimated_speed(profile, board, entry.backend, entry.params_b)
        rows.append(
            CatalogRow(
                entry=entry,
                why_not=why_not(entry, board),
                expected_tokens_per_s=round(speed, 1) if speed else None,
                recommended=entry.name in chosen,
                installed=Path(entry.file).name in installed,
                partial_bytes=partial.get(Path(entry.file).name, 0),
                estimated_tokens_per_s=round(estimate, 1) if estimate else None,
            )
        )
    return rows


def describe_board(profile: BoardProfile, board: BoardFacts) -> str:
    """ "Radxa ROCK 5B (15.6 GB RAM, NPU with RKLLM 1.2.3)"."""
    ram = f"{board.ram_gb:.1f} GB RAM" if board.ram_gb else "RAM unknown"
    npu = f"NPU with RKLLM {board.rkllm_runtime}" if board.rkllm_runtime else "NPU" if board.npu else "no NPU"
    return f"{profile.display_name} ({ram}, {npu})"


def find_entry(catalog: list[CatalogEntry], name: str) -> CatalogEntry | None:
    """The entry called ``name`` (any case), or whose file is ``name``."""
    wanted = name.lower()
    return next((e for e in catalog if wanted in (e.name.lower(), e.file.lower())), None)
