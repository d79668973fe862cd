"""MCPB bundles on the Host's command surface (the window's Open bundle… and a bundle dropped on it):
open one, the form of its options, install it (then it starts), the installed ones, uninstall.
``Host`` inherits it; the work is edgehost.bundles', the one way `edgehost install` uses too."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType

    from edgehost.bundles.installing import Bundle, InstalledBundle
    from edgehost.mcp.inputs import InputValues
    from edgehost.paths import Paths
    from edgehost.registry.install import InstallPlan

__all__ = ["BundleCommands"]


def _bundles() -> ModuleType:
    """edgehost.bundles.installing, imported at the first use: the window's start does not wait for it."""
    from edgehost.bundles import installing

    return installing


class BundleCommands:
    # The Host's.
    paths: Paths

    if TYPE_CHECKING:

        def input_values(self) -> InputValues: ...

        async def reload_server(self, name: str) -> None: ...

    @staticmethod
    def open_bundle(path: Path) -> Bundle:
        """The bundle at ``path``, checked. Raises BundleError, ConfigError (its manifest)."""
        return _bundles().open_bundle(path)

    def bundle_form(self, bundle: Bundle, name: str) -> tuple[dict[str, Any], AbstractSet[str]]:
        """The form of ``bundle``'s options installed as ``name`` (an earlier install's values as its
        defaults), and the secrets stored before, which need not be typed again."""
        bundles = _bundles()
        kept = bundles.stored_secrets(bundle, name, self.input_values)
        return bundle.form_schema(bundles.previous_values(self.paths.data_dir, name), kept), kept

    def bundle_plan(
        self, bundle: Bundle, name: str, values: Mapping[str, Any], kept: AbstractSet[str] = frozenset()
    ) -> InstallPlan:
        """The entry ``bundle`` makes as ``name`` with ``values``. Raises ValueError (a value missing)."""
        return bundle.plan(name, _bundles().bundles_folder(self.paths.data_dir) / name, values, kept)

    async def install_bundle(self, bundle: Bundle, name: str, values: Mapping[str, Any]) -> InstallPlan:
        """Install ``bundle`` as the server ``name`` and start it. Raises BundleError, ValueError,
        ConfigError, CredentialStoreError."""
        install = _bundles().install_bundle
        plan = await asyncio.to_thread(install, self.paths, bundle, name, values, self.input_values)
        await self.reload_server(name)
        return plan

    def installed_bundles(self) -> list[InstalledBundle]:
        return list(_bundles().installed_bundles(self.paths.data_dir))

    async def uninstall_bundle(self, name: str) -> InstalledBundle:
        """Remove the bundle ``name`` and stop its server. Raises BundleError, ConfigError."""
        uninstall = _bundles().uninstall_bundle
        removed = await asyncio.to_thread(uninstall, self.paths, name, self.input_values)
        await self.reload_server(name)
        return removed
