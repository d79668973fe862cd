"""PySide's check of every module imported after it, made without keeping the module's source.

PySide6 replaces ``__import__`` so that each newly imported module is asked whether it uses PySide (for
its optional ``__feature__`` switches, which EdgeHost does not use). It answers by searching the
module's source for "PySide6", read with ``inspect.getsource``, and that puts the whole file into
``linecache`` for the life of the process. The core is imported after the window is up, so the source
of every module it loads (the MCP SDK, pydantic, httpx, ...: ~630 files) stayed in memory: 22 MB of the
GUI process's resident memory, and ~90 ms of the core's import.

``read_sources_uncached`` gives PySide the same answer from the same text, read through the module's
loader, without the cache. PySide keeps the check in a private module (``shibokensupport.feature``): if
a release renames it, nothing is changed and only the memory is lost.
"""

from __future__ import annotations

import logging
import sys
from types import ModuleType

__all__ = ["read_sources_uncached", "uses_pyside"]

log = logging.getLogger(__name__)

FEATURE_MODULE = "shibokensupport.feature"
CHECK = "_mod_uses_pyside"


def uses_pyside(module: ModuleType) -> bool:
    """Whether the source of ``module`` mentions PySide6, as PySide's own check answers it: no for a
    module without Python source (built in, an extension, a namespace package)."""
    spec = getattr(module, "__spec__", None)
    get_source = getattr(getattr(spec, "loader", None), "get_source", None)
    if spec is None or get_source is None:
        return False
    try:
        source = get_source(spec.name)
    except (ImportError, OSError, SyntaxError, UnicodeDecodeError):
        return False
    return bool(source) and "PySide6" in source


def read_sources_uncached() -> bool:
    """Make PySide's import hook use ``uses_pyside``; True if it was found (PySide imported, and its
    check where this version of it keeps it)."""
    feature = sys.modules.get(FEATURE_MODULE)
    if feature is None or not callable(getattr(feature, CHECK, None)):
        log.debug("PySide's feature check not found: imports keep their source in linecache")
        return False
    setattr(feature, CHECK, uses_pyside)
    return True
