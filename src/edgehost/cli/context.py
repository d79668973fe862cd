"""What every command handler receives: resolved paths, settings and the parsed arguments."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from edgehost.errors import UsageError
from edgehost.paths import Paths
from edgehost.settings import Settings


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


def print_json(value: Any) -> None:
    """The one way commands print --json output: UTF-8, indented, newline-terminated."""
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False, default=str)
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
