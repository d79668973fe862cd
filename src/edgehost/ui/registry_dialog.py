"""Add a server from the MCP Registry: search, a card per server (what it runs as, and whether this
machine can run it now), the values it asks for, the exact command it will run, then Add and start.

Opened from the Servers panel; the search and the adding run on the Host (host/registry_commands.py),
as `edgehost servers add` does. Laid out to fit a 7-inch screen (800 x 480): the list, the form and
the command scroll; the buttons stay in view.
"""

from __future__ import annotations

from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QWidget,
)

from edgehost.errors import EdgeHostError
from edgehost.registry.install import run_labels
from edgehost.ui._widgets import confirm
from edgehost.ui.server_install import ServerInstallDialog, caption

if TYPE_CHECKING:
    from edgehost.host.host import Host
    from edgehost.registry.client import Listing
    from edgehost.registry.install import InstallOption, InstallPlan
    from edgehost.registry.server_json import RegistryEntry

__all__ = ["RegistryDialog"]


class RegistryDialog(ServerInstallDialog):
    """``added(name)`` once a server was added to the servers file and is starting; ``bundle_ready(path)``
    once an entry's bundle is downloaded and checked (the Servers panel opens it as any bundle)."""

    bundle_ready = Signal(str)

    def __init__(self, host: Host, parent: QWidget | None = None) -> None:
        super().__init__(host, "Add a server from the registry — EdgeHost", parent)
        self.entries: list[RegistryEntry] = []
        self.options: list[InstallOption] = []
        self.listing: Listing | None = None
        self.node_offer: QMessageBox | None = None

        search_row = QHBoxLayout()
        self.query = QLineEdit()
        self.query.setPlaceholderText("Search the registry by name: time, github, filesystem …")
        self.search_button = QPushButton("Search")
        search_row.addWidget(self.query, 1)
        search_row.addWidget(self.search_button)
        self.outer.insertLayout(0, search_row)  # the search stays in view when the list scrolls away
        self.status = caption()
        self.body.addWidget(self.status)
        self.results = QListWidget()
        self.results.setWordWrap(True)
        self.results.setSpacing(3)
        self.results.setAlternatingRowColors(True)
        self.results.setMinimumHeight(120)
        self.body.addWidget(self.results, 1)

        self.run_as = QComboBox()
        self.why_not = caption(error=True)
        self.bundle_button = QPushButton("Download the bundle…")
        self.bundle_button.setToolTip("Download the bundle, check it against the registry's SHA-256, open it")
        self.install_node_button = QPushButton("Install Node.js…")
        self.install_node_button.setToolTip("Download Node.js from PyPI into EdgeHost's data folder")
        self.details_layout.addRow("Run as", self.run_as)
        self.details_layout.addRow("", self.why_not)
        self.details_layout.addRow("", self.install_node_button)
        self.details_layout.addRow("", self.bundle_button)
        self.add_form_rows()
        self.details.hide()
        self.body.addWidget(self.details)

        self.search_button.clicked.connect(self.search)
        self.query.returnPressed.connect(self.search)
        self.results.currentRowChanged.connect(self._show_entry)
        self.run_as.currentIndexChanged.connect(self._show_option)
        self.install_node_button.clicked.connect(self._offer_node)
        self.bundle_button.clicked.connect(self._download_bundle)

    # -- search ----------------------------------------------------------------------------------
    def search(self) -> None:
        self.status.setText("Searching …")
        self.search_button.setEnabled(False)
        task = self.tasks.spawn(self.host.search_registry(self.query.text()), name="registry-search")
        task.add_done_callback(self._searched)

    def _searched(self, task: Any) -> None:
        self.search_button.setEnabled(True)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.status.setText(
                str(error) if isinstance(error, EdgeHostError) else f"The search failed: {error}"
            )
            return
        self.show_listing(task.result())

    def show_listing(self, listing: Listing) -> None:
        self.listing = listing
        self.entries = list(listing.entries)
        self.results.clear()
        for entry in self.entries:
            runs_as, runs_here = run_labels(self.host.install_options(entry))
            kinds, here = ", ".join(runs_as) or "nothing to run", ", ".join(runs_here)
            item = QListWidgetItem(
                f"{entry.display_name}  {entry.version}\n{entry.description}\n"
                f"{entry.name} · runs as {kinds} · {'here: ' + here if here else 'not on this machine yet'}"
            )
            item.setToolTip(entry.website or entry.repository or entry.name)
            self.results.addItem(item)
        said = [f"{len(self.entries)} server{'' if len(self.entries) == 1 else 's'}"]
        if listing.hidden:
            said.append(f"{listing.hidden} not active left out")
        if listing.next_cursor:
            said.append("more on the registry: search with more words")
        if listing.offline:
            minutes = listing.age_s() / 60
            said.append(f"offline ({listing.offline}): as the registry was {minutes:.0f} minutes ago")
        self.status.setText("; ".join(said) + ".")
        self.details.hide()
        self.add_button.setEnabled(False)

    # -- one entry -------------------------------------------------------------------------------
    def _show_entry(self, row: int) -> None:
        if not 0 <= row < len(self.entries):
            self.details.hide()
            return
        entry = self.entries[row]
        self.options = self.host.install_options(entry)
        self.run_as.blockSignals(True)
        self.run_as.clear()
        for option in self.options:
            self.run_as.addItem(
                option.label if option.why_not_here() is None else f"{option.label} (not here)"
            )
        runnable = next((i for i, o in enumerate(self.options) if o.why_not_here() is None), 0)
        self.run_as.setCurrentIndex(runnable)
        self.run_as.blockSignals(False)
        try:
            self.name.setText(self.host.free_server_name(entry.short_name))
        except (ValueError, EdgeHostError):
            self.name.setText(entry.short_name)
        self.details.show()
        self._show_option(runnable)

    def option(self) -> InstallOption | None:
        index = self.run_as.currentIndex()
        return self.options[index] if 0 <= index < len(self.options) else None

    def _show_option(self, _index: int) -> None:
        option = self.option()
        self.install_node_button.hide()
        self.bundle_button.hide()
        if option is None:
            self.why_not.setText("It lists no package or remote to run.")
            self.show_form(None)
            return
        self.why_not.setText(option.why_not_here() or "")
        self.why_not.setVisible(option.why_not_here() is not None)
        self.install_node_button.setVisible(option.needs_node())
        is_bundle = option.kind == "mcpb"
        self.bundle_button.setVisible(is_bundle and option.why_not_here() is None)
        self.show_form(None if is_bundle else option.form_schema())  # a bundle's form comes with it

    def _download_bundle(self) -> None:
        option = self.option()
        if option is None:
            return
        self.bundle_button.setEnabled(False)
        self.why_not.show()
        self.why_not.setText("Downloading the bundle …")
        task = self.tasks.spawn(self.host.download_registry_bundle(option), name="registry-bundle")
        task.add_done_callback(self._bundle_downloaded)

    def _bundle_downloaded(self, task: Any) -> None:
        self.bundle_button.setEnabled(True)
        if task.cancelled():
            return
        if task.exception() is not None:
            self.why_not.setText(str(task.exception()))
            return
        self.bundle_ready.emit(str(task.result()))
        self.accept()

    def blocked(self) -> str | None:
        option = self.option()
        return "nothing to run" if option is None else option.why_not_here()

    def plan_for(self, name: str, values: Mapping[str, Any]) -> InstallPlan:
        option = self.option()
        assert option is not None
        return option.plan(name, values)

    def install(self, name: str, values: Mapping[str, Any]) -> Coroutine[Any, Any, Any]:
        option = self.option()
        assert option is not None
        return self.host.add_from_registry(option, name, values)

    # -- Node.js, where a server needs it and the machine has none ---------------------------------
    def _offer_node(self) -> None:
        self.install_node_button.setEnabled(False)
        self.why_not.setText("Asking PyPI for the size of Node.js …")
        task = self.tasks.spawn(self.host.node_download(), name="node-size")
        task.add_done_callback(self._node_offered)

    def _node_offered(self, task: Any) -> None:
        self.install_node_button.setEnabled(True)
        if task.cancelled():
            return
        if task.exception() is not None:
            self.why_not.setText(f"Node.js cannot be installed now: {task.exception()}")
            return
        wheel = task.result()
        self.node_offer = confirm(
            self,
            "Install Node.js?",
            f"EdgeHost will download Node.js from PyPI ({wheel.filename}, {wheel.size / 1e6:.0f} MB) into"
            f" {self.host.paths.data_dir / 'runtimes'}. Servers published on npm then run on this machine.",
            self._install_node,
        )

    def _install_node(self) -> None:
        self.install_node_button.setEnabled(False)
        self.why_not.setText("Installing Node.js …")
        task = self.tasks.spawn(self.host.install_node(), name="node-install")
        task.add_done_callback(self._node_installed)

    def _node_installed(self, task: Any) -> None:
        self.install_node_button.setEnabled(True)
        if task.cancelled():
            return
        if task.exception() is not None:
            self.why_not.setText(f"Node.js was not installed: {task.exception()}")
            return
        row = self.results.currentRow()
        if self.listing is not None:
            self.show_listing(self.listing)  # the cards say what runs here now
        self.results.setCurrentRow(row)
