"""The core, imported after PySide as the app imports it, keeps no source text in memory: PySide's
import hook read every module's source into linecache for good (22 MB of the GUI process, issue 12),
and it must still tell a module that uses PySide from one that does not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

CHILD = """
import asyncio, json, linecache, sys
import PySide6.QtCore
from edgehost.ui.app import load_core
asyncio.run(load_core())
feature = sys.modules["shibokensupport.feature"]
CORE = ("/mcp/", "/mcp_types/", "/pydantic/", "/httpx", "/edgehost/host/", "/edgehost/mcp/", "/edgehost/agent/")
print(json.dumps({
    "cached": sorted(f for f in linecache.cache if any(p in f for p in CORE)),
    "imported": [name in sys.modules for name in ("mcp_types", "edgehost.host.host", "edgehost.ui.tray")],
    "uses_pyside": {
        name: feature.pyside_feature_dict.get(name)
        for name in ("mcp_types", "pydantic", "edgehost.mcp.manager", "edgehost.ui.bridge")
    },
}))
"""


def test_the_core_imported_after_pyside_leaves_no_source_in_linecache_and_pyside_still_sees_its_users() -> (
    None
):
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["imported"] == [True, True, True]
    assert seen["cached"] == []
    # PySide's own answer, kept: 0 = "uses PySide, no feature switched on", -1 = "ignore this module".
    assert seen["uses_pyside"] == {
        "mcp_types": -1,
        "pydantic": -1,
        "edgehost.mcp.manager": -1,
        "edgehost.ui.bridge": 0,
    }
