"""Every module outside ui/ imports with PySide6 and qasync made unimportable."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = r"""
import importlib, pkgutil, sys

class BlockQt:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"PySide6", "shiboken6", "qasync"}:
            raise ImportError(f"Qt is not allowed in the core: {name}")
        return None

sys.meta_path.insert(0, BlockQt())
import edgehost
count = 0
for info in pkgutil.walk_packages(edgehost.__path__, "edgehost."):
    if info.name.startswith("edgehost.ui") or info.name == "edgehost.__main__":
        continue
    importlib.import_module(info.name)
    count += 1
print(count)
"""


def test_every_non_ui_module_imports_without_qt():
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) >= 10
