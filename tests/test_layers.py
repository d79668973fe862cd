"""Imports point down the layers of ARCHITECTURE.md: ui/cli -> host -> agent/mcp/llm/store/boards; the
window and the web page import the Host and the value types it hands them (FACE_IMPORTS), nothing else."""

from __future__ import annotations

import ast
from pathlib import Path

import edgehost

PACKAGE = Path(edgehost.__file__).parent
FACES = ("ui", "cli", "web")
NARROW_FACES = ("ui", "web")  # import the Host and what it hands them, nothing else
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
    "slow_machine",
    "awaiting",
    "programs",
    "__init__",
}

# Which layers each layer may import (besides the foundation modules every layer may use).
ALLOWED: dict[str, set[str]] = {
    "boards": set(),
    "store": set(),
    "mcp": set(),
    "llm": {"boards"},
    "models": {"boards", "llm"},
    "servers": {"boards", "mcp"},
    "registry": {"mcp"},
    "bundles": {"mcp", "registry"},
    "agent": {"llm"},
    "host": {"agent", "mcp", "llm", "models", "store", "boards", "servers", "registry", "bundles"},
    "desktop": set(),
    "cli": {
        "host",
        "agent",
        "mcp",
        "llm",
        "models",
        "store",
        "boards",
        "servers",
        "desktop",
        "web",
        "registry",
        "bundles",
    },
    "ui": {"host"},
    "web": {"host"},
    "__main__": {"cli"},
}
# The entry point starts the GUI when no command is given (imported lazily, only then).
EXCEPTIONS = {("cli/main.py", "ui")}

# The faces (ui, web) drive the Host and render what it hands them: besides ``edgehost.host`` they
# import only these names from below it, each for the reason given. Logic goes through the Host.
FACE_IMPORTS: dict[str, dict[str, str]] = {
    "edgehost.agent.approval": {
        "ApprovalRequest": "what an ApprovalRequested event carries",
        "ApprovalDecision": "what Host.resolve_approval takes",
    },
    "edgehost.agent.config": {"AgentConfig": "a value of HostOptions (the self-test's limits)"},
    "edgehost.agent.tools": {
        "ToolSpec": "what Host.tools() returns",
        "NAMESPACE_SEPARATOR": "the `server__tool` naming of decision 3, to show a call's two parts",
        "summary": "a description's first paragraph on one line: pure text, as the prompt shows it",
    },
    "edgehost.mcp.auth": {"AuthStatus": "what Host.auth_status and Host.sign_in return"},
    "edgehost.mcp.catalog": {
        "ResourceTemplateEntry": "what Host.resource_templates() returns",
        "SEPARATOR": "the `server__name` naming of decision 3, to show a prompt's two parts",
    },
    "edgehost.mcp.client_features": {"ClientFeatures": "a value of HostOptions (the window's dialogs)"},
    "edgehost.mcp.config": {
        "ServerConfig": "what host.servers_config holds and Host.save_server takes",
        "ServersConfig": "the type of host.servers_config",
        "InputSpec": "what host.servers_config.inputs holds",
    },
    "edgehost.mcp.errors": {
        "ServerRequestFailed": "what Host.read_resource and Host.get_prompt raise",
        "ToolCallError": "what Host.read_view and Host.call_from_view raise (the page tells the view why)",
    },
    "edgehost.llm.base": {
        "Perf": "what a TurnCompleted event carries",
        "BackendError": "what Host.wait_model raises",
    },
    "edgehost.models.catalog": {"CatalogRow": "what Host.suggested_model returns"},
    "edgehost.registry.client": {"Listing": "what Host.search_registry returns"},
    "edgehost.registry.server_json": {"RegistryEntry": "what a Listing holds"},
    "edgehost.registry.install": {
        "InstallOption": "what Host.install_options returns",
        "InstallPlan": "what Host.bundle_plan and an install option's plan return",
        "run_labels": "what a card says an entry runs as and runs here as: pure text",
    },
    "edgehost.bundles.installing": {"Bundle": "what Host.open_bundle returns"},
    "edgehost.store": {"Execution": "what host.history.executions() returns"},
    # Why Qt could not open a window: asked when there is no window and no Host yet.
    "edgehost.boards.gui_platform": {
        "check_gui_platform": "runs before any Host exists, when Qt failed to start",
        "install_hint": "the same: the packages to install for Qt's X11 plugin",
    },
}


def imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """The ``edgehost.`` modules ``path`` imports, each with the names it takes from it (none for a
    plain ``import``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.Import):
            found += [(alias.name, ()) for alias in node.names]
    return [(module, names) for module, names in found if module.startswith("edgehost.")]


def imported_layers(path: Path, face: bool = False) -> set[str]:
    """The layers ``path`` imports from; for a face, not counting the names FACE_IMPORTS lets it take."""
    return {
        module.split(".")[1]
        for module, names in imports(path)
        if not (face and names and set(names) <= set(FACE_IMPORTS.get(module, {})))
    }


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
        for target in (
            imported_layers(path, face=layer in NARROW_FACES) - FOUNDATION - {layer} - ALLOWED[layer]
        ):
            if (relative.as_posix(), target) not in EXCEPTIONS:
                violations.append(f"{relative} imports edgehost.{target}")
    assert violations == []


def test_every_name_the_faces_may_take_from_below_the_host_is_still_taken():
    """FACE_IMPORTS stays the list of what the faces need, not of what they once did."""
    taken = {
        (module, name)
        for face in NARROW_FACES
        for path in (PACKAGE / face).rglob("*.py")
        for module, names in imports(path)
        for name in names
    }
    unused = [(m, n) for m, names in FACE_IMPORTS.items() for n in names if (m, n) not in taken]
    assert unused == []


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
