"""Fake device trees (tests/fixtures/sysfs/fake_sysfs.py) for board detection."""

from __future__ import annotations

import sys
from pathlib import Path

SYSFS_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "sysfs"
if str(SYSFS_FIXTURES) not in sys.path:
    sys.path.insert(0, str(SYSFS_FIXTURES))
