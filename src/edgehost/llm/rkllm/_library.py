"""Finding librkllmrt.so and telling its ABI from the version string embedded in the file.

Nothing here loads the library: the host process only inspects files; the inference worker loads it
(see _handle.py). The 1.2.x and 1.3.0 libraries export the same symbols with different struct
layouts, so the version must be known before the first call (a 1.2 binding on 1.3.0 segfaults).
"""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from edgehost.llm.base import BackendError

__all__ = [
    "LIBRARY_ENV",
    "LIBRARY_NAME",
    "STANDARD_DIRS",
    "SUPPORTED_VERSIONS",
    "LibraryInfo",
    "abi_for_version",
    "find_library",
    "inspect_library",
    "library_candidates",
    "locate_library",
    "read_runtime_version",
]

LIBRARY_NAME = "librkllmrt.so"
LIBRARY_ENV = "EDGEHOST_RKLLM_LIB"
STANDARD_DIRS = ("/usr/lib", "/usr/local/lib", "/usr/lib/aarch64-linux-gnu")
# Runtime version -> ABI of our binding. 1.2.1-1.2.3 share one ABI; 1.3.0 broke it.
SUPPORTED_VERSIONS: dict[str, str] = {"1.2.1": "1.2", "1.2.2": "1.2", "1.2.3": "1.2", "1.3.0": "1.3"}
ABIS = ("1.2", "1.3")
_VERSION_RE = re.compile(rb"rkllm-runtime version:?\s*v?(\d+\.\d+\.\d+)")


@dataclass(frozen=True)
class LibraryInfo:
    path: Path
    version: str | None  # as embedded in the file; None when it could not be read
    abi: str  # "1.2" or "1.3"


def library_candidates(
    rkllm_lib: str | os.PathLike[str] | None = None,
    settings_lib: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[Path]:
    """Where to look, in order: the ``rkllm_lib`` argument (``--rkllm-lib``), ``$EDGEHOST_RKLLM_LIB``,
    the ``rkllm_lib`` setting, then /usr/lib, /usr/local/lib and /usr/lib/aarch64-linux-gnu."""
    env = os.environ if environ is None else environ
    explicit = [p for p in (rkllm_lib, env.get(LIBRARY_ENV), settings_lib) if p]
    return [Path(p).expanduser() for p in explicit] + [Path(d) / LIBRARY_NAME for d in STANDARD_DIRS]


def find_library(
    rkllm_lib: str | os.PathLike[str] | None = None,
    settings_lib: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """The first library found among library_candidates().

    An explicitly given path that does not exist is an error rather than a reason to look further,
    so a typo is not hidden by a system-wide library. Raises BackendError naming what was tried.
    """
    env = os.environ if environ is None else environ
    explicit = [p for p in (rkllm_lib, env.get(LIBRARY_ENV), settings_lib) if p]
    if explicit:
        first = Path(explicit[0]).expanduser()
        if first.is_file():
            return first
        raise BackendError(f"the RKLLM library {first} does not exist")
    for candidate in library_candidates(None, None, {}):
        if candidate.is_file():
            return candidate
    looked = ", ".join(STANDARD_DIRS)
    raise BackendError(
        f"{LIBRARY_NAME} not found in {looked}: install the RKLLM runtime from airockchip/rknn-llm "
        f"or point to it with --rkllm-lib, ${LIBRARY_ENV} or the rkllm_lib setting"
    )


def read_runtime_version(path: Path) -> str | None:
    """The ``rkllm-runtime version: X.Y.Z`` string embedded in the library file, if any."""
    try:
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            found = _VERSION_RE.search(data)  # type: ignore[call-overload]
            # Read the group while the map is open: the match refers into it.
            return bytes(found.group(1)).decode("ascii") if found else None
    except (OSError, ValueError):
        return None


def abi_for_version(version: str | None, abi_override: str | None = None) -> str:
    """The binding ABI for a runtime version; ``abi_override`` (the rkllm_abi setting) wins.

    Raises BackendError for an unsupported version, an unknown override, or neither being known.
    """
    supported = ", ".join(SUPPORTED_VERSIONS)
    if abi_override:
        if abi_override not in ABIS:
            raise BackendError(f"rkllm_abi must be one of {', '.join(ABIS)}, not {abi_override!r}")
        return abi_override
    if version is None:
        raise BackendError(
            "cannot read the RKLLM runtime version from the library (no 'rkllm-runtime version' string); "
            f"set rkllm_abi to 1.2 or 1.3 in the settings if you know it (supported runtimes: {supported})"
        )
    abi = SUPPORTED_VERSIONS.get(version)
    if abi is None:
        raise BackendError(
            f"RKLLM runtime {version} is not supported (supported: {supported}); "
            "install one of those from airockchip/rknn-llm"
        )
    return abi


def inspect_library(path: Path, abi_override: str | None = None) -> LibraryInfo:
    """Version and ABI of the library at ``path`` without loading it. Raises BackendError."""
    version = read_runtime_version(path)
    try:
        abi = abi_for_version(version, abi_override)
    except BackendError as exc:
        raise BackendError(f"{path}: {exc}") from None
    return LibraryInfo(path=path, version=version, abi=abi)


def locate_library(
    rkllm_lib: str | os.PathLike[str] | None = None,
    settings_lib: str | None = None,
    abi_override: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> LibraryInfo:
    """find_library() then inspect_library(). Raises BackendError with a message a user can act on."""
    return inspect_library(find_library(rkllm_lib, settings_lib, environ), abi_override)
