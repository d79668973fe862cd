"""Install an MCPB bundle (Open bundle… in the Servers panel, or a .mcpb dropped on the window): what the
bundle is, why this machine cannot run it (its platforms, a binary built for another machine, a missing
runtime), its options, the exact command; Install confirms the command and starts the server."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QMimeData
from PySide6.QtWidgets import QWidget

from edgehost.ui.server_install import ServerInstallDialog, caption

if TYPE_CHECKING:
    from edgehost.bundles.installing import Bundle
    from edgehost.host.host import Host
    from edgehost.registry.install import InstallPlan

__all__ = ["BundleDialog", "bundle_files"]


class BundleDialog(ServerInstallDialog):
    action = "Install and start"
    doing = "Installing"

    def __init__(self, host: Host, bundle: Bundle, parent: QWidget | None = None) -> None:
        manifest = bundle.manifest
        super().__init__(host, f"Install {manifest.title} — EdgeHost", parent)
        self.bundle = bundle
        about = caption()
        about.setText(
            f"{manifest.title} {manifest.version} by {manifest.author.name} ({manifest.server.type} server)\n"
            f"{manifest.description}\nfrom {bundle.source}"
        )
        self.body.addWidget(about)
        self.why_not = caption(error=True)
        self.why_not.setText(bundle.why_not_here() or "")
        self.why_not.setVisible(bundle.why_not_here() is not None)
        self.body.addWidget(self.why_not)
        self.add_form_rows()
        self.body.addWidget(self.details)
        self.body.addStretch(1)
        self.name.setText(bundle.server_name)
        self.kept: AbstractSet[str] = frozenset()
        # The form says which secrets are stored already: read off the window's thread (a keyring may
        # take its time, or ask to be unlocked).
        self.problem.setText("Reading the options given before …")
        reading = self.tasks.spawn(
            asyncio.to_thread(host.bundle_form, bundle, bundle.server_name), name="bundle-form"
        )
        reading.add_done_callback(self._form_read)

    def _form_read(self, task: Any) -> None:
        if task.cancelled():
            return
        if task.exception() is not None:
            self.problem.setText(f"The options given before cannot be read: {task.exception()}")
            schema = self.bundle.form_schema()  # asked anew
        else:
            schema, self.kept = task.result()
        self.show_form(schema)

    def blocked(self) -> str | None:
        return self.bundle.why_not_here()

    def plan_for(self, name: str, values: Mapping[str, Any]) -> InstallPlan:
        # The secrets stored before are those of the bundle's own name: under another, they are asked.
        kept = self.kept if name == self.bundle.server_name else frozenset()
        return self.host.bundle_plan(self.bundle, name, values, kept)

    def install(self, name: str, values: Mapping[str, Any]) -> Coroutine[Any, Any, Any]:
        return self.host.install_bundle(self.bundle, name, values)


def bundle_files(mime: QMimeData) -> list[str]:
    """The local MCPB bundles (.mcpb, and .dxt as they were called before) among dropped ``mime`` data."""
    paths = (url.toLocalFile() for url in mime.urls() if url.isLocalFile()) if mime.hasUrls() else ()
    return [path for path in paths if Path(path).suffix.lower() in (".mcpb", ".dxt")]
