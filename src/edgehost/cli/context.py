"""What every command handler receives: resolved paths, settings and the parsed arguments."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from edgehost.errors import UsageError
from edgehost.paths import Paths
from edgehost.settings import Settings

if TYPE_CHECKING:
    from edgehost.mcp.config import ServersConfig

_N = TypeVar("_N", int, float)


@dataclass
class CliContext:
    paths: Paths
    args: argparse.Namespace
    profile_override: str | None = None
    _settings: Settings | None = field(default=None, repr=False)

    @cached_property
    def settings(self) -> Settings:
        return Settings.load(self.paths.settings_file)

    def save_settings(self) -> None:
        self.settings.save(self.paths.settings_file)

    def servers_config(self) -> ServersConfig:
        """The servers to run, as the app loads them: a file that cannot be read leaves the built-ins
        (``file_error``), and ``${input:ID}`` takes the value entered with `edgehost config input`."""
        from edgehost.mcp.auth import default_credential_store
        from edgehost.mcp.config import load_servers_config
        from edgehost.mcp.inputs import environ_with_inputs

        environ = environ_with_inputs(lambda: default_credential_store(self.paths.data_dir))
        return load_servers_config(self.paths, fall_back=True, environ=environ)


def print_json(value: Any, *, one_line: bool = False) -> None:
    """The one way commands print --json output: UTF-8, indented (or ``one_line``, for a stream of
    JSON lines), newline-terminated."""
    json.dump(value, sys.stdout, indent=None if one_line else 2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")
    sys.stdout.flush()


def parse_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """KEY=VALUE words (prompt arguments) as a dict. Raises UsageError for a word without "="."""
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"arguments are KEY=VALUE, got {pair!r}")
        values[key] = value
    return values


def positive_int(text: str) -> int:
    """argparse type: an integer > 0. Raises argparse.ArgumentTypeError (a usage error, exit 2)."""
    return _checked(int, text, lambda v: v > 0, "a whole number above 0")


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0. Raises argparse.ArgumentTypeError (a usage error, exit 2)."""
    return _checked(int, text, lambda v: v >= 0, "a whole number, 0 or more")


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0. Raises argparse.ArgumentTypeError (a usage error, exit 2)."""
    return _checked(float, text, lambda v: 0 < v < math.inf, "a number above 0")


def _checked(kind: Callable[[str], _N], text: str, valid: Callable[[_N], bool], expected: str) -> _N:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not valid(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value
