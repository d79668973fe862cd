"""Fixtures of the store tests: a real SQLite file in a fresh data folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from edgehost.store import Store


@pytest.fixture
def db_path(data_dir: Path) -> Path:
    return data_dir / "history.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    opened = Store.open(db_path)
    yield opened
    opened.close()
