"""Changing the servers file (decision 9: one way, for the window, the CLI and the Host): read it as
written (no ${VAR} expanded) each time, so a change never overwrites what the user wrote since;
change it; save it. A broken file is never replaced by what the app could make of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from edgehost.mcp.config import (
    ServerConfig,
    ServersConfig,
    builtin_servers,
    parse_servers_file,
    save_servers_config,
    server_to_entry,
)
from edgehost.paths import Paths

__all__ = ["ImportPlan", "edit_servers_file", "import_servers", "merge_servers", "written_servers_config"]

T = TypeVar("T")


def written_servers_config(paths: Paths) -> ServersConfig:
    """The servers file as written, ready to change and save. Raises ConfigError when it cannot be
    read."""
    path = paths.servers_file
    builtins = {s.name: s for s in builtin_servers(paths)}
    config = (
        parse_servers_file(path, expand_variables=False, builtins=builtins)
        if path.exists()
        else ServersConfig(path=path)
    )
    config.builtin_defaults = builtins
    return config


def edit_servers_file(paths: Paths, change: Callable[[ServersConfig], T], *, save: bool = True) -> T:
    """Read the file, apply ``change`` to it, save it (unless ``change`` raised or ``save`` is False)
    and return what ``change`` returned. Raises ConfigError when the file cannot be read or written."""
    config = written_servers_config(paths)
    result = change(config)
    if save:
        save_servers_config(config, paths.servers_file)
    return result


def import_servers(paths: Paths, source: Path, *, replace: bool = True, dry_run: bool = False) -> ImportPlan:
    """Merge the servers of a Claude Desktop / VS Code / TOML file into ours (merge_servers); the file
    is written only when something was added or replaced, and not on a ``dry_run``. Raises ConfigError
    when either file cannot be read, or ours cannot be written."""
    incoming = parse_servers_file(source, expand_variables=False, builtins=builtin_servers_by_name(paths))
    config = written_servers_config(paths)
    plan = merge_servers(config, incoming, replace=replace)
    if (plan.added or plan.replaced) and not dry_run:
        save_servers_config(config, paths.servers_file)
    return plan


def builtin_servers_by_name(paths: Paths) -> dict[str, ServerConfig]:
    return {s.name: s for s in builtin_servers(paths)}


@dataclass
class ImportPlan:
    """How importing one file changes ours."""

    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name, error)
    # Same name, different entry, not replaced (no --replace): name -> the keys that differ.
    kept: dict[str, list[str]] = field(default_factory=dict)
    # Replaced: name -> the keys that differ.
    changes: dict[str, list[str]] = field(default_factory=dict)
    incoming: dict[str, ServerConfig] = field(default_factory=dict)  # the file's entries by name


def merge_servers(ours: ServersConfig, incoming: ServersConfig, *, replace: bool = True) -> ImportPlan:
    """Merge ``incoming`` into ``ours`` in place; entries with an error are skipped.

    A server of the same name with a different entry is replaced only when ``replace``; otherwise it is
    kept and listed in ``kept`` with the keys that differ. Raises nothing.
    """
    plan = ImportPlan(incoming={server.name: server for server in incoming.servers})
    for server in incoming.servers:
        if server.error is not None:
            plan.skipped.append((server.name, server.error))
            continue
        existing = ours.get(server.name)
        if existing is None:
            ours.servers.append(server)
            plan.added.append(server.name)
            continue
        differing = _differing_keys(_entry(ours, existing), _entry(ours, server))
        if existing.error is None and not differing:
            plan.unchanged.append(server.name)
        elif replace:
            ours.servers[ours.servers.index(existing)] = server
            plan.replaced.append(server.name)
            plan.changes[server.name] = differing
        else:
            plan.kept[server.name] = differing
    _merge_inputs(ours, incoming)
    return plan


def _entry(config: ServersConfig, server: ServerConfig) -> dict[str, Any]:
    """The server's entry as compared on import: a stdio entry's optional "type" does not count."""
    entry = server_to_entry(server, config.builtin_defaults.get(server.name))
    if not isinstance(entry, dict):
        return {}
    return {
        k: v for k, v in entry.items() if not (server.transport == "stdio" and k in ("type", "transportType"))
    }


def _differing_keys(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The names (never the values: they may be secrets) of the entry keys that differ."""
    return sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))


def _merge_inputs(ours: ServersConfig, incoming: ServersConfig) -> None:
    """Keep VS Code "inputs" declarations, so a ${input:id} message can still say what the input is."""
    new_inputs = incoming.extra.get("inputs")
    if not isinstance(new_inputs, list) or not new_inputs:
        return
    existing = ours.extra.get("inputs")
    merged: list[Any] = list(existing) if isinstance(existing, list) else []
    known = {item.get("id") for item in merged if isinstance(item, dict)}
    merged += [item for item in new_inputs if isinstance(item, dict) and item.get("id") not in known]
    ours.extra["inputs"] = merged
