"""The form that adds or edits one server, checked by the real config loader before anything is saved,
and the dialog that asks for a VS Code ${input:ID} (the Servers panel opens both)."""

from __future__ import annotations

import json
import shlex
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from edgehost.errors import ConfigError
from edgehost.mcp.config import InputSpec, ServerConfig, parse_servers_file
from edgehost.ui._widgets import cancel_save_row

__all__ = ["ServerForm", "entry_from_form", "input_value_dialog", "validate_entry"]


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _pairs(text: str, separator: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for line in _lines(text):
        key, found, value = line.partition(separator)
        if not found:
            raise ConfigError(f"“{line}” should look like KEY{separator}VALUE")
        pairs[key.strip()] = value.strip()
    return pairs


def entry_from_form(
    transport: str, command: str, args: str, env: str, url: str, headers: str
) -> dict[str, Any]:
    """The Claude Desktop / VS Code entry the form describes. Raises ConfigError for a malformed line."""
    if transport == "stdio":
        entry: dict[str, Any] = {"command": command.strip(), "args": shlex.split(args)}
        if env.strip():
            entry["env"] = _pairs(env, "=")
        return entry
    entry = {"type": transport, "url": url.strip()}
    if headers.strip():
        entry["headers"] = _pairs(headers, ":")
    return entry


def validate_entry(name: str, entry: dict[str, Any], builtins: dict[str, ServerConfig]) -> ServerConfig:
    """Run one entry through the real config loader. Raises ConfigError with the loader's message."""
    with tempfile.TemporaryDirectory(prefix="edgehost-form-") as folder:
        path = Path(folder) / "servers.json"
        path.write_text(json.dumps({"mcpServers": {name: entry}}), encoding="utf-8")
        parsed = parse_servers_file(path, expand_variables=False, builtins=builtins)
    server = parsed.servers[0]
    if server.error is not None:
        raise ConfigError(server.error.replace(str(path), "form"))
    missing = None if "${" in (server.command or "") else server.missing_program()
    if missing is not None:
        raise ConfigError(f"{missing}: install it or give its full path")
    return server


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
        self.setMinimumWidth(520)
        self._builtins = builtins
        self._taken = set(taken) - ({existing.name} if existing else set())
        layout = QVBoxLayout(self)
        form = QFormLayout()
        form.setVerticalSpacing(8)
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
        form.addRow("Command", self.command)
        form.addRow("Arguments", self.args)
        form.addRow("Environment", self.env)
        form.addRow("URL", self.url)
        form.addRow("Headers", self.headers)
        self._rows = form
        layout.addLayout(form)
        self.problem = QLabel()
        self.problem.setObjectName("ErrorText")
        self.problem.setWordWrap(True)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.hide()
        layout.addWidget(self.problem)
        layout.addLayout(cancel_save_row(self, self.save))
        self.transport.currentTextChanged.connect(self._show_fields)
        if existing is not None:
            self.name.setReadOnly(existing.builtin)
            self.transport.setCurrentText(existing.transport)
            self.command.setText(existing.command or "")
            self.args.setText(shlex.join(existing.args))
            written = {k: v[0] for k, v in existing.as_written.items()}
            self.env.setPlainText("\n".join(f"{k}={written.get(k, v)}" for k, v in existing.env.items()))
            self.url.setText(existing.url or "")
            self.headers.setPlainText("\n".join(f"{k}: {v}" for k, v in existing.headers.items()))
        self._show_fields(self.transport.currentText())

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
