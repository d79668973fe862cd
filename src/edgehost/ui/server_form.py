"""The form that adds or edits one server, checked by the real config loader before anything is saved,
and the dialog that asks for a VS Code ${input:ID} (the Servers panel opens both)."""

from __future__ import annotations

import shlex
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from edgehost.errors import ConfigError
from edgehost.host.server_entries import builtin_own_args, entry_from_form, validate_entry, written_entry
from edgehost.ui._screen import scrolling_layout
from edgehost.ui._widgets import cancel_save_row

if TYPE_CHECKING:
    from edgehost.mcp.config import InputSpec, ServerConfig

__all__ = ["ServerForm", "input_value_dialog"]


class ServerForm(QDialog):
    """Add or edit one server; ``saved`` carries the validated ServerConfig."""

    saved = Signal(object)

    def __init__(
        self,
        builtins: dict[str, ServerConfig],
        existing: ServerConfig | None = None,
        taken: Collection[str] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit server" if existing else "Add server")
        self._builtins = builtins
        self._taken = set(taken) - ({existing.name} if existing else set())
        # The fields scroll on a short screen; why the entry is refused, Cancel and Save stay in view.
        layout, outer = scrolling_layout(self, QSize(520, 0), margin=12, spacing=8)
        form = QFormLayout()
        form.setVerticalSpacing(8)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)  # a field under its label when narrow
        self.name = QLineEdit(existing.name if existing else "")
        self.transport = QComboBox()
        self.transport.addItems(["stdio", "http", "sse", "websocket"])
        self.command = QLineEdit()
        self.command.setPlaceholderText("npx, uvx, /usr/bin/python3 …")
        self.args = QLineEdit()
        self.args.setPlaceholderText("-y @modelcontextprotocol/server-memory   (quoted like a shell)")
        self.env = QPlainTextEdit()
        self.env.setPlaceholderText("KEY=value   one per line; ${VAR} takes it from your environment")
        self.env.setMaximumHeight(80)
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://example.com/mcp")
        self.headers = QPlainTextEdit()
        self.headers.setPlaceholderText("Authorization: Bearer ${TOKEN}   one per line")
        self.headers.setMaximumHeight(80)
        form.addRow("Name", self.name)
        form.addRow("Transport", self.transport)
        self._command_label, self._args_label = QLabel("Command"), QLabel("Arguments")
        form.addRow(self._command_label, self.command)
        form.addRow(self._args_label, self.args)
        form.addRow("Environment", self.env)
        form.addRow("URL", self.url)
        form.addRow("Headers", self.headers)
        self._rows = form
        layout.addLayout(form)
        layout.addStretch(1)
        self.problem = QLabel()
        self.problem.setObjectName("ErrorText")
        self.problem.setWordWrap(True)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.hide()
        outer.addWidget(self.problem)
        outer.addLayout(cancel_save_row(self, self.save))
        self.transport.currentTextChanged.connect(self._show_fields)
        self._written: dict[str, Any] = {}
        self._builtin = existing is not None and existing.builtin
        self._existing_name = existing.name if existing is not None else None
        if existing is not None:
            self._written = written_entry(existing, builtins)
            self.name.setReadOnly(existing.builtin)
            self.transport.setCurrentText(existing.transport)
            self.command.setText(existing.command or "")
            self.args.setText(shlex.join(existing.args))
            if existing.builtin:  # its program is EdgeHost itself: only its options are the user's
                self.transport.setEnabled(False)
                self.command.setReadOnly(True)
                own = builtin_own_args(existing, builtins)
                self.command.setText(shlex.join([existing.command or "", *own]))
                self.args.setText(shlex.join(self._written.get("args", [])))
                self.args.setPlaceholderText(
                    f"options of `edgehost serve {existing.name}`, e.g. --help lists them"
                )
                self._command_label.setText("Program")
                self._args_label.setText("Options")
            env = self._written.get("env", existing.env)  # as written: ${VAR}, not the secret
            self.env.setPlainText("\n".join(f"{k}={v}" for k, v in env.items()))
            self.url.setText(existing.url or "")
            headers = self._written.get("headers", existing.headers)
            self.headers.setPlainText("\n".join(f"{k}: {v}" for k, v in headers.items()))
        self._show_fields(self.transport.currentText())

    def renamed_from(self, name: str) -> str | None:
        """The name of the server edited when it is saved as ``name``, another (a rename)."""
        return self._existing_name if self._existing_name not in (None, name) else None

    def _show_fields(self, transport: str) -> None:
        stdio = transport == "stdio"
        for widget, visible in (
            (self.command, stdio),
            (self.args, stdio),
            (self.env, stdio),
            (self.url, not stdio),
            (self.headers, not stdio),
        ):
            self._rows.setRowVisible(widget, visible)

    def save(self) -> None:
        name = self.name.text().strip()
        try:
            if not name:
                raise ConfigError("the server needs a name")
            if name in self._taken:
                raise ConfigError(f"there is already a server named “{name}”")
            entry = entry_from_form(
                self.transport.currentText(),
                self.command.text(),
                self.args.text(),
                self.env.toPlainText(),
                self.url.text(),
                self.headers.toPlainText(),
                self._written,
                builtin=self._builtin,
            )
            server = validate_entry(name, entry, self._builtins)
        except ConfigError as exc:
            self.problem.setText(str(exc))
            self.problem.show()
            return
        self.saved.emit(server)
        self.accept()


def input_value_dialog(parent: QWidget, input_id: str, spec: InputSpec | None) -> QInputDialog:
    """A dialog for the value of ``${input:input_id}``, as the file's VS Code ``inputs`` declare it
    (``spec``): a password is not shown, a pickString offers its options."""
    dialog = QInputDialog(parent)
    dialog.setWindowTitle(f"{input_id} — EdgeHost")
    description = (spec.description if spec else "") or input_id
    dialog.setLabelText(
        f"{description}\n(for ${{input:{input_id}}}; kept with your sign-ins, in the keyring)"
    )
    if spec is not None and spec.options:
        dialog.setComboBoxItems(list(spec.options))
    if spec is not None and spec.password:
        dialog.setTextEchoMode(QLineEdit.EchoMode.Password)
    if spec is not None and spec.default is not None:
        dialog.setTextValue(spec.default)
    return dialog
