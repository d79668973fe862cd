"""Servers from the MCP Registry on the Host's command surface (the window's "From the registry" and the
web page): search, an entry's ways to run here, and adding one, which starts it. ``Host`` inherits it;
the registry itself is edgehost.registry, the one way `edgehost servers add` uses too."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from edgehost.mcp.inputs import InputValues
    from edgehost.mcp.node_runtime import NodeWheel
    from edgehost.paths import Paths
    from edgehost.registry.client import Listing, RegistryClient
    from edgehost.registry.install import InstallOption, InstallPlan
    from edgehost.registry.server_json import RegistryEntry
    from edgehost.settings import Settings

__all__ = ["RegistryCommands"]


class RegistryCommands:
    # The Host's.
    paths: Paths
    settings: Settings

    if TYPE_CHECKING:

        def input_values(self) -> InputValues: ...

        async def reload_server(self, name: str) -> None: ...

    def registry(self) -> RegistryClient:
        """The registry the settings name (EDGEHOST_REGISTRY_URL over them), cached in the data folder."""
        # The registry's modules are imported at their first use: the window's start does not wait.
        from edgehost.registry.client import RegistryClient, registry_url

        return RegistryClient(registry_url(self.settings.registry_url), self.paths.cache_dir / "registry")

    async def search_registry(self, query: str, cursor: str | None = None) -> Listing:
        """One page of the registry's active servers matching ``query``. Raises RegistryError when the
        registry cannot be reached and nothing is cached."""
        return await self.registry().search(query, cursor=cursor)

    async def registry_entry(self, name: str) -> tuple[RegistryEntry, str | None]:
        """The latest version of ``name``, and why it came from the cache (None: from the registry)."""
        return await self.registry().latest(name)

    @staticmethod
    def install_options(entry: RegistryEntry) -> list[InstallOption]:
        """The ways to run ``entry``, each saying whether this machine can now."""
        from edgehost.registry.install import install_options

        return install_options(entry)

    def free_server_name(self, wanted: str) -> str:
        """``wanted``, or with a number after it where the servers file has it. Raises ValueError,
        ConfigError."""
        from edgehost.registry.adding import free_server_name

        return free_server_name(self.paths, wanted)

    async def download_registry_bundle(self, option: InstallOption) -> Path:
        """The bundle of an ``mcpb`` option, downloaded and checked against the entry's SHA-256; open
        and install it with the BundleCommands. Raises BundleDownloadError."""
        from edgehost.registry.bundle_download import download_bundle

        return await asyncio.to_thread(download_bundle, option, self.paths.cache_dir / "bundles")

    async def node_download(self) -> NodeWheel:
        """The Node.js wheel this machine would download, with its size. Raises NodeRuntimeError."""
        from edgehost.mcp.node_runtime import node_wheel

        return await asyncio.to_thread(node_wheel)

    async def install_node(self) -> str:
        """Install Node.js into the data folder (after the person agreed to its size); its version.
        Servers that run npx find it from then on; a second request while one installs waits for it.
        Raises NodeRuntimeError."""
        from edgehost.mcp.node_runtime import install_node

        # One install at a time (the window and the page may both ask): they share a staging folder.
        lock = self.__dict__.setdefault("_node_install_lock", asyncio.Lock())
        async with lock:
            return await asyncio.to_thread(install_node, self.paths.data_dir)

    async def add_from_registry(
        self, option: InstallOption, name: str, values: Mapping[str, Any]
    ) -> InstallPlan:
        """Add ``option`` as the server ``name`` with the form's ``values`` (secrets to the credential
        store), then start it. Raises ValueError (a required value missing), CredentialStoreError,
        ConfigError; the server's own failure to start shows in its state, as any server's."""
        plan = option.plan(name, values)
        problem = await asyncio.to_thread(option.image_problem)
        if problem is not None:
            raise ValueError(f"{name} would not run here: {problem}")
        from edgehost.registry.adding import add_to_servers_file

        await asyncio.to_thread(add_to_servers_file, self.paths, plan, self.input_values)
        await self.reload_server(name)
        return plan
