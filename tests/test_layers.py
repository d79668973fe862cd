"""Imports point down the layers of ARCHITECTURE.md: ui/cli -> host -> agent/mcp/llm/store/boards."""

from __future__ import annotations

import ast
from pathlib import Path

import edgehost

PACKAGE = Path(edgehost.__file__).parent
FOUNDATION = {"errors", "paths", "settings", "redaction", "logs", "toml_text", "__init__"}

# Which layers each layer may import (besides the foundation modules every layer may use).
ALLOWED: dict[str, set[str]] = {
    "boards": set(),
    "store": set(),
    "mcp": set(),
    "llm": {"boards"},
    "servers": {"boards", "mcp"},
    "agent": {"llm"},
    "host": {"agent", "mcp", "llm", "store", "boards"},
    "desktop": set(),
    "cli": {"host", "agent", "mcp", "llm", "store", "boards", "servers", "desktop"},
    "ui": {"host", "agent", "mcp", "llm", "store", "boards", "desktop", "cli"},
    "__main__": {"cli"},
}
# The entry point starts the GUI when no command is given (imported lazily, only then).
EXCEPTIONS = {("cli/main.py", "ui")}


def imported_layers(path: Path) -> set[str]:
    layers = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        layers |= {n.split(".")[1] for n in names if n.startswith("edgehost.")}
    return layers


def test_every_module_imports_only_from_the_layers_below_it():
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        layer = relative.parts[0].removesuffix(".py")
        if layer in FOUNDATION:
            continue
        if layer not in ALLOWED:
            violations.append(f"{relative} is in no layer: add it to ALLOWED or move it into one")
            continue
        for target in imported_layers(path) - FOUNDATION - {layer} - ALLOWED[layer]:
            if (relative.as_posix(), target) not in EXCEPTIONS:
                violations.append(f"{relative} imports edgehost.{target}")
    assert violations == []
