"""Reading TOML text (servers files, board profiles, the model catalog) with errors that name the file,
line and column: Python's TOMLDecodeError only says "(at line L, column C)" in its message before 3.14."""

from __future__ import annotations

import re
import sys
from typing import Any

from edgehost.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["load_toml"]

_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)")


def load_toml(text: str, path: str) -> dict[str, Any]:
    """The TOML document ``text`` read from ``path``. Raises ConfigError with its line and column (said
    once, where the error names the file, not again in the decoder's message)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _POSITION.search(message)
        line = int(found.group(1)) if found else None
        column = int(found.group(2)) if found else None
        reason = _POSITION.sub("", message)
        raise ConfigError(f"invalid TOML: {reason}", path=path, line=line, column=column) from None
