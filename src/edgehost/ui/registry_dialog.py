"""Add a server from the MCP Registry: search, a card per server (what it runs as, and whether this
machine can run it now), the values it asks for, the exact command it will run, then Add and start.

Opened from the Servers panel; the search and the adding run on the Host (host/registry_commands.py),
as `edgehost servers add` does. Laid out to fit a 7-inch screen (800 x 480): the list, the form and
the command scroll; the buttons stay in view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QWidget,
)

from edgehost.errors import EdgeHostError
from edgehost.ui._screen import scrolling_layout
from edgehost.ui._widgets import TaskSet, confirm
from edgehost.ui.schema_form import SchemaForm

if TYPE_CHECKING:
    from edgehost.host.host import Host
    from edgehost.registry.client import Listing
    from edgehost.registry.install import InstallOption
    from edgehost.registry.server_json import RegistryEntry

__all__ = ["RegistryDialog"]


class RegistryDialog(QDialog):
    """``added(name)`` once a server was added to the servers file and is starting."""

    added = Signal(str)

    def __init__(self, host: Host, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.setWindowTitle("Add a server from the registry — EdgeHost")
        body, outer = scrolling_layout(self, QSize(760, 560), margin=12, spacing=8)
        self.tasks = TaskSet()
        self.entries: list[RegistryEntry] = []
        self.options: list[InstallOption] = []
        self.form: SchemaForm | None = None
        self.listing: Listing | None = None
        self.node_offer: QMessageBox | None = None

        search_row = QHBoxLayout()
        self.query = QLineEdit()
        self.query.setPlaceholderText("Search the registry by name: time, github, filesystem …")
        self.search_button = QPushButton("Search")
        search_row.addWidget(self.query, 1)
        search_row.addWidget(self.search_button)
        body.addLayout(search_row)
        self.status = _caption()
        body.addWidget(self.status)
        self.results = QListWidget()
        self.results.setWordWrap(True)
        self.results.setSpacing(3)
        self.results.setAlternatingRowColors(True)
        self.results.setMinimumHeight(120)
        body.addWidget(self.results, 1)

        self.details = QWidget()
        details = QFormLayout(self.details)
        details.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.run_as = QComboBox()
        self.name = QLineEdit()
        self.why_not = _caption(error=True)
        self.install_node_button = QPushButton("Install Node.js…")
        self.install_node_button.setToolTip("Download Node.js from PyPI into EdgeHost's data folder")
        details.addRow("Run as", self.run_as)
        details.addRow("", self.why_not)
        details.addRow("", self.install_node_button)
        details.addRow("Name", self.name)
        self.form_holder = QFormLayout()
        details.addRow(self.form_holder)
        self.command = QLabel()
        self.command.setObjectName("Mono")
        self.command.setWordWrap(True)
        self.command.setTextFormat(Qt.TextFormat.PlainText)
        self.command.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        details.addRow("Will run", self.command)
        self.details.hide()
        body.addWidget(self.details)

        buttons = QHBoxLayout()
        self.problem = _caption(error=True)
        buttons.addWidget(self.problem, 1)
        close = QPushButton("Close")
        self.add_button = QPushButton("Add and start")
        self.add_button.setObjectName("Primary")
        self.add_button.setEnabled(False)
        buttons.addWidget(close)
        buttons.addWidget(self.add_button)
        outer.addLayout(buttons)

        close.clicked.connect(self.reject)
        self.search_button.clicked.connect(self.search)
        self.query.returnPressed.connect(self.search)
        self.results.currentRowChanged.connect(self._show_entry)
        self.run_as.currentIndexChanged.connect(self._show_option)
        self.name.textChanged.connect(self._preview)
        self.add_button.clicked.connect(self._confirm_add)
        self.install_node_button.clicked.connect(self._offer_node)
        self.finished.connect(lambda _result: self.tasks.cancel_all())

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
            options = self.host.install_options(entry)
            kinds = ", ".join(dict.fromkeys(o.label for o in options)) or "nothing to run"
            here = ", ".join(dict.fromkeys(o.label for o in options if o.why_not_here() is None))
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
        while self.form_holder.rowCount():
            self.form_holder.removeRow(0)
        self.form = None
        option = self.option()
        self.install_node_button.hide()
        if option is None:
            self.why_not.setText("It lists no package or remote to run.")
            self._preview()
            return
        self.why_not.setText(option.why_not_here() or "")
        self.why_not.setVisible(option.why_not_here() is not None)
        self.install_node_button.setVisible(option.needs_node())
        self.form = SchemaForm(option.form_schema())
        self.form.changed.connect(self._preview)
        self.form_holder.addRow(self.form)
        self._preview()

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

    def _plan_or_problem(self) -> tuple[Any, str]:
        option = self.option()
        if option is None or self.form is None:
            return None, ""
        if option.why_not_here() is not None:
            return None, "This machine cannot run it this way yet."
        missing = self.form.missing() + self.form.problems()
        if missing:
            return None, "Needed: " + ", ".join(missing)
        try:
            return option.plan(self.name.text().strip(), self.form.values()), ""
        except ValueError as exc:
            return None, str(exc)

    def _preview(self, *_args: object) -> None:
        """The exact command (secrets as their ${input:…} reference), and whether Add can go."""
        plan, problem = self._plan_or_problem()
        self.command.setText(_plan_text(plan) if plan is not None else "—")
        self.problem.setText(problem)
        self.add_button.setEnabled(plan is not None and bool(self.name.text().strip()))

    def _confirm_add(self) -> None:
        plan, problem = self._plan_or_problem()
        if plan is None:
            self.problem.setText(problem)
            return
        confirm(
            self,
            "Add and start this server?",
            f"EdgeHost will add “{plan.server.name}” to {self.host.paths.servers_file} and run:\n\n"
            f"{_plan_text(plan)}",
            self._add,
        )

    def _add(self) -> None:
        option, form = self.option(), self.form
        if option is None or form is None:
            return
        name = self.name.text().strip()
        self.add_button.setEnabled(False)
        self.problem.setText(f"Adding {name} …")
        task = self.tasks.spawn(self.host.add_from_registry(option, name, form.values()), name="registry-add")
        task.add_done_callback(lambda done: self._added(name, done))

    def _added(self, name: str, task: Any) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.problem.setText(f"Not added: {error}")
            self.add_button.setEnabled(True)
            return
        self.added.emit(name)
        self.accept()


def _plan_text(plan: Any) -> str:
    return "\n".join(plan.summary())


def _caption(*, error: bool = False) -> QLabel:
    label = QLabel()
    label.setObjectName("ErrorText" if error else "Caption")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
