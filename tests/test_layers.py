"""Imports point down the layers of ARCHITECTURE.md: ui/cli -> host -> agent/mcp/llm/store/boards."""

from __future__ import annotations

import ast
from pathlib import Path

import edgehost

PACKAGE = Path(edgehost.__file__).parent
FOUNDATION = {
    "errors",
    "paths",
    "settings",
    "_settings_file",
    "redaction",
    "logs",
    "toml_text",
    "roles",
    "key_locations",
    "validation_messages",
    "schema_refs",
    "form_fields",
    "child_processes",
    "__init__",
}

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
    "cli": {"host", "agent", "mcp", "llm", "store", "boards", "servers", "desktop", "web"},
    "ui": {"host", "agent", "mcp", "llm", "store", "boards", "desktop"},
    "web": {"host", "agent"},
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


FACES = ("ui", "cli", "web")


def test_no_face_reaches_into_the_hosts_private_parts():
    """The window and the commands use the Host's methods and views (decision 9): no ``host._db``,
    ``host._mcp``, ``host._store()`` ... (ruff's banned-api rule keeps the Store and the ServerManager
    out of their imports)."""
    reaches = []
    for face in FACES:
        for path in sorted((PACKAGE / face).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and _names_a_host(node.value)
                ):
                    reaches.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
                elif (  # getattr(host, "manager", None): the same reach, hidden
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "getattr"
                    and node.args
                    and _names_a_host(node.args[0])
                ):
                    reaches.append(f"{path.relative_to(PACKAGE)}:{node.lineno} getattr")
    assert reaches == []


def _names_a_host(node: ast.expr) -> bool:
    """``host``, ``self.host``, ``desktop.host`` ..."""
    return (isinstance(node, ast.Name) and node.id == "host") or (
        isinstance(node, ast.Attribute) and node.attr == "host"
    )
