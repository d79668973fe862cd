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
    module without a Python source file (built in, an extension, a namespace package).

    The file's bytes are searched as they are: decoding them would import ``tokenize``, and PySide
    (6.8) runs this check on that import too, which recursed.
    """
    spec = getattr(module, "__spec__", None)
    loader = getattr(spec, "loader", None)
    get_filename = getattr(loader, "get_filename", None)
    get_data = getattr(loader, "get_data", None)
    if spec is None or get_filename is None or get_data is None:
        return False
    try:
        path = get_filename(spec.name)
        return str(path).endswith(".py") and b"PySide6" in get_data(path)
    except (ImportError, OSError):
        return False


def read_sources_uncached() -> bool:
    """Make PySide's import hook use ``uses_pyside``; True if it was found (PySide imported, and its
    check where this version of it keeps it)."""
    feature = sys.modules.get(FEATURE_MODULE)
    if feature is None or not callable(getattr(feature, CHECK, None)):
        log.debug("PySide's feature check not found: imports keep their source in linecache")
        return False
    setattr(feature, CHECK, uses_pyside)
    return True
