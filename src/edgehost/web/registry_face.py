"""The page's "From the registry" in its Servers panel, on the Host's registry commands as the window's
dialog is: a search answered with cards (what each server runs as, whether this machine can run it, the
values it asks for as a JSON-schema form), the exact command the values make, and adding it.

The page names an entry by its registry name and a way to run it by its index: what runs is always
what the configured registry says, never a command the page sends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgehost.errors import EdgeHostError
from edgehost.web.wire import CommandError

if TYPE_CHECKING:
    from edgehost.bundles.installing import Bundle
    from edgehost.host.host import Host
    from edgehost.registry.install import InstallOption
    from edgehost.registry.server_json import RegistryEntry

__all__ = ["REGISTRY_COMMANDS", "RegistryFace"]

REGISTRY_COMMANDS = frozenset({"registry_plan", "registry_add", "install_node"})


class RegistryFace:
    """Keeps the entries of the page's last search, so that a plan or an add names one by its name."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._entries: dict[str, RegistryEntry] = {}
        self._bundles: dict[Path, Bundle] = {}
        self._forms: dict[tuple[Path, str], tuple[dict[str, Any], AbstractSet[str]]] = {}

    async def search(self, query: str) -> dict[str, Any]:
        """What GET /api/registry?q=QUERY answers."""
        try:
            listing = await self.host.search_registry(query)
        except EdgeHostError as exc:
            return {"registry": self.host.registry().base_url, "error": str(exc), "entries": []}
        self._entries.update({entry.name: entry for entry in listing.entries})
        return {
            "registry": self.host.registry().base_url,
            "hidden": listing.hidden,
            "more": listing.next_cursor is not None,
            "offline": listing.offline,
            "age_s": round(listing.age_s()),
            "entries": [self._card(entry) for entry in listing.entries],
        }

    def _card(self, entry: RegistryEntry) -> dict[str, Any]:
        try:
            name = self.host.free_server_name(entry.short_name)
        except (ValueError, EdgeHostError):
            name = entry.short_name
        return {
            "name": entry.name,
            "title": entry.display_name,
            "version": entry.version,
            "description": entry.description,
            "server_name": name,
            "options": [
                {
                    "label": option.label,
                    "why_not": option.why_not_here(),
                    "needs_node": option.needs_node(),
                    "schema": option.form_schema(),
                }
                for option in self.host.install_options(entry)
            ],
        }

    async def _option(self, fields: Mapping[str, Any]) -> InstallOption:
        entry = self._entries.get(fields["name"])
        if entry is None:
            try:
                entry, _offline = await self.host.registry_entry(fields["name"])
            except EdgeHostError as exc:
                raise CommandError(str(exc)) from None
        options = self.host.install_options(entry)
        index = fields["option"]
        if not 0 <= index < len(options):
            raise CommandError(f"{entry.name} has no way to run numbered {index}")
        option = options[index]
        problem = option.why_not_here()
        if problem is not None:
            raise CommandError(f"this machine cannot run {entry.name} as {option.label}: {problem}")
        return option

    async def run(self, name: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Run one of REGISTRY_COMMANDS; what the reply adds. Raises CommandError saying why not."""
        if name == "install_node":
            try:
                return {"version": await self.host.install_node()}
            except EdgeHostError as exc:
                raise CommandError(str(exc)) from None
        option = await self._option(fields)
        try:
            if option.kind == "mcpb":
                return await self._bundle(name, option, fields)
            if name == "registry_plan":
                return {"summary": option.plan(fields["server"], fields["values"]).summary()}
            plan = await self.host.add_from_registry(option, fields["server"], fields["values"])
        except (ValueError, EdgeHostError) as exc:
            raise CommandError(str(exc)) from None
        return {"summary": plan.summary(), "server": plan.server.name}

    async def _bundle(self, name: str, option: InstallOption, fields: Mapping[str, Any]) -> dict[str, Any]:
        """An entry's bundle: downloaded and checked (once, then cached) the first time it is planned;
        the plan carries the bundle's own form, which the page then shows."""
        path = await self.host.download_registry_bundle(option)
        server = fields["server"]
        if path not in self._bundles:  # read once, not at each keystroke of the page's preview
            self._bundles[path] = await asyncio.to_thread(self.host.open_bundle, path)
        bundle = self._bundles[path]
        if (path, server) not in self._forms:  # the keyring, once per name
            self._forms[(path, server)] = await asyncio.to_thread(self.host.bundle_form, bundle, server)
        schema, kept = self._forms[(path, server)]
        if name == "registry_plan":
            try:
                summary = self.host.bundle_plan(bundle, server, fields["values"], kept).summary()
            except ValueError as exc:
                return {"schema": schema, "summary": [], "problem": str(exc)}
            return {"schema": schema, "summary": summary}
        plan = await self.host.install_bundle(bundle, server, fields["values"])
        return {"summary": plan.summary(), "server": plan.server.name}
