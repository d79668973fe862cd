"""What the registry's dialog and the bundle's dialog share: the server's name, the form of the values
it asks for, the exact command it will run (secrets as their ${input:…} reference), why it cannot be
added yet, and the button that confirms the command again and adds it.

A subclass puts its own rows in ``details`` above ``add_form_rows()``, and says what blocks it
(``blocked``), what the values make (``plan_for``) and how it is added (``install``).
"""

from __future__ import annotations

from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from edgehost.ui._screen import scrolling_layout
from edgehost.ui._widgets import TaskSet, confirm
from edgehost.ui.schema_form import SchemaForm

if TYPE_CHECKING:
    from edgehost.host.host import Host
    from edgehost.registry.install import InstallPlan

__all__ = ["ServerInstallDialog", "caption"]


def caption(*, error: bool = False) -> QLabel:
    label = QLabel()
    label.setObjectName("ErrorText" if error else "Caption")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class ServerInstallDialog(QDialog):
    """``added(name)`` once the server is in the servers file and starting."""

    added = Signal(str)
    action = "Add and start"
    doing = "Adding"

    def __init__(self, host: Host, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.setWindowTitle(title)
        # What scrolls (``body``), between what stays in view: a subclass's row above it, the buttons below.
        self.body, outer = scrolling_layout(self, QSize(760, 560), margin=12, spacing=8)
        self.outer = outer
        self.tasks = TaskSet()
        self.form: SchemaForm | None = None
        self.details = QWidget()
        self.details_layout = QFormLayout(self.details)
        self.details_layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.name = QLineEdit()
        self.form_holder = QFormLayout()
        self.command = QLabel()
        self.command.setObjectName("Mono")
        self.command.setWordWrap(True)
        self.command.setTextFormat(Qt.TextFormat.PlainText)
        self.command.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        buttons = QHBoxLayout()
        self.problem = caption(error=True)
        buttons.addWidget(self.problem, 1)
        close = QPushButton("Close")
        self.add_button = QPushButton(self.action)
        self.add_button.setObjectName("Primary")
        self.add_button.setEnabled(False)
        buttons.addWidget(close)
        buttons.addWidget(self.add_button)
        outer.addLayout(buttons)
        close.clicked.connect(self.reject)
        self.name.textChanged.connect(self.preview)
        self.add_button.clicked.connect(self._confirm)
        self.finished.connect(lambda _result: self.tasks.cancel_all())

    def add_form_rows(self) -> None:
        self.details_layout.addRow("Name", self.name)
        self.details_layout.addRow(self.form_holder)
        self.details_layout.addRow("Will run", self.command)

    # -- what a subclass says ----------------------------------------------------------------------
    def blocked(self) -> str | None:
        """Why it cannot be added on this machine now, or None."""
        raise NotImplementedError

    def plan_for(self, name: str, values: Mapping[str, Any]) -> InstallPlan:
        """What the values make; raises ValueError naming what is missing."""
        raise NotImplementedError

    def install(self, name: str, values: Mapping[str, Any]) -> Coroutine[Any, Any, Any]:
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------------------------
    def show_form(self, schema: Mapping[str, Any] | None) -> None:
        """The values to ask (None: nothing to ask, as nothing can be added)."""
        while self.form_holder.rowCount():
            self.form_holder.removeRow(0)
        self.form = None
        if schema is not None:
            self.form = SchemaForm(schema)
            self.form.changed.connect(self.preview)
            self.form_holder.addRow(self.form)
        self.preview()

    def _plan_or_problem(self) -> tuple[InstallPlan | None, str]:
        if self.form is None:
            return None, ""
        if self.blocked() is not None:
            return None, "This machine cannot run it this way yet."
        titles = {field.name: field.title for field in self.form.form_fields}
        missing = [titles.get(name, name) for name in self.form.missing()] + self.form.problems()
        if missing:
            return None, "Needed: " + ", ".join(missing)
        try:
            return self.plan_for(self.name.text().strip(), self.form.values()), ""
        except ValueError as exc:
            return None, str(exc)

    def preview(self, *_args: object) -> None:
        """The exact command, and whether the server can be added as it stands."""
        plan, problem = self._plan_or_problem()
        self.command.setText("\n".join(plan.summary()) if plan is not None else "—")
        self.problem.setText(problem)
        self.add_button.setEnabled(plan is not None and bool(self.name.text().strip()))

    def _confirm(self) -> None:
        plan, problem = self._plan_or_problem()
        if plan is None:
            self.problem.setText(problem)
            return
        self.confirmation = confirm(
            self,
            f"{self.action} this server?",
            f"EdgeHost will add “{plan.server.name}” to {self.host.paths.servers_file} and run:\n\n"
            + "\n".join(plan.summary()),
            self._add,
        )

    def _add(self) -> None:
        if self.form is None:
            return
        name = self.name.text().strip()
        self.add_button.setEnabled(False)
        self.problem.setText(f"{self.doing} {name} …")
        task = self.tasks.spawn(self.install(name, self.form.values()), name=f"install-{name}")
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
