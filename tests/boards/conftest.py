"""Fake device trees (tests/fixtures/sysfs/fake_sysfs.py) and the stub RKLLM runtime builder."""

from __future__ import annotations

import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
for helper_folder in ("sysfs", "rkllm_stub"):
    if str(FIXTURES / helper_folder) not in sys.path:
        sys.path.insert(0, str(FIXTURES / helper_folder))
