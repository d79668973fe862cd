"""Servers: status light, protocol, tool count, enable switch, restart, stderr and log, error; add
(ui/server_form.py), edit, remove and import servers; Sign in / Sign out for a remote server that uses
OAuth (the authorization address shown to copy, the sign-in cancellable, a sign-in made in a terminal
noticed); a value for a VS Code ${input:ID} a server waits for."""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QColor, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from edgehost.errors import ConfigError, EdgeHostError
from edgehost.redaction import redact
from edgehost.ui._screen import fits_screen
from edgehost.ui._widgets import Chip, ColoursKeptWhenSelected, TaskSet, centered, confirm
from edgehost.ui.server_form import ServerForm, input_value_dialog
from edgehost.ui.theme import current_colors

if TYPE_CHECKING:
    from edgehost.host.host import Host
    from edgehost.mcp.auth import AuthStatus
    from edgehost.mcp.config import ServerConfig, ServersConfig
    from edgehost.ui.bundle_dialog import BundleDialog
    from edgehost.ui.registry_dialog import RegistryDialog

__all__ = ["ServersPanel"]

# Why Add, Edit, Remove and Import are off while the servers file cannot be read.
FILE_NOT_WRITABLE = (
    "The servers file cannot be read, so nothing is saved to it: fix it (Open the file), then Reload the file"
)
_STATUS_TONES = {"ready": "ok", "starting": "accent", "failed": "error", "stopped": "warn", "disabled": ""}


class ServersPanel(QDialog):
    """Lives as long as the main window; refreshes from ``host.server_states()``."""

    def __init__(self, host: Host, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.setWindowTitle("Servers — EdgeHost")
        fits_screen(self, QSize(900, 560))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        self._add_buttons(layout)
        self._add_notice(layout)
        self._add_sign_in_row(layout)
        self._add_file_problem(layout)
        self._add_table_and_details(layout)
        self._connect_buttons()
        self._signing_in: tuple[str, asyncio.Task[Any]] | None = None
        self._cancel_requested = False
        self.input_dialog: QInputDialog | None = None
        # Shows the authorization page: the user's browser (tests give a scripted one).
        self.open_url: Callable[[str], object] = lambda url: QDesktopServices.openUrl(QUrl(url))
        # Opens the servers file in the program the desktop has for it (False: none; tests give their own).
        self.open_file: Callable[[Path], object] = lambda path: QDesktopServices.openUrl(
            QUrl.fromLocalFile(str(path))
        )
        self.form: ServerForm | None = None
        self.registry_dialog: RegistryDialog | None = None
        self.bundle_dialog: BundleDialog | None = None
        self.tasks = TaskSet()
        self.refresh()

    def _add_buttons(self, layout: QVBoxLayout) -> None:
        """The title and what changes the servers file; what acts on the selected server is made here
        and placed above its details (all in one row did not fit 800 px)."""
        top = QHBoxLayout()
        title = QLabel("MCP servers")
        title.setObjectName("SectionTitle")
        top.addWidget(title)
        top.addStretch(1)
        # Add… offers the three ways to add a server (one button: a row of three did not fit 800 px).
        self.add_button = QPushButton("Add…")
        add_menu = QMenu(self.add_button)
        self.form_action = add_menu.addAction("A server by its command or address…")
        self.registry_button = add_menu.addAction("From the MCP Registry…")
        self.bundle_button = add_menu.addAction("An MCPB bundle (.mcpb)…")
        self.add_button.setMenu(add_menu)
        self.edit_button = QPushButton("Edit…")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setObjectName("Danger")
        self.import_button = QPushButton("Import config…")
        for button in (
            self.add_button,
            self.edit_button,
            self.remove_button,
            self.import_button,
        ):
            top.addWidget(button)
        layout.addLayout(top)
        self.restart_button = QPushButton("Restart")
        self.restart_button.setToolTip("Reconnect the selected server (the servers file is not read again)")
        self.sign_in_button = QPushButton("Sign in")
        self.sign_in_button.setToolTip("Sign in to this server in your browser (OAuth)")
        self.sign_out_button = QPushButton("Sign out")
        self.sign_out_button.setToolTip("Forget this server's sign-in (its tokens and registration)")
        self.input_button = QPushButton("Enter value…")
        self.input_button.setToolTip("Enter the value this server's entry asks for (VS Code ${input:…})")

    def _add_notice(self, layout: QVBoxLayout) -> None:
        """A line saying what was just done (a server connecting, a file that no program opens)."""
        # The server the notice says is connecting, and the notice, until it has connected or failed.
        self._connecting: tuple[str, str] | None = None
        self.notice = QLabel()
        self.notice.setObjectName("Caption")
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # a path to copy
        self.notice.hide()
        layout.addWidget(self.notice)

    def _add_sign_in_row(self, layout: QVBoxLayout) -> None:
        """The authorization address while a sign-in waits, with Copy, Open and Cancel."""
        # While a sign-in waits for the browser: the authorization address (the browser may not have
        # opened, or be on another computer), to copy or open again, and a way to give up.
        self.sign_in_box = QWidget()
        sign_in_row = QHBoxLayout(self.sign_in_box)
        sign_in_row.setContentsMargins(0, 0, 0, 0)
        self.sign_in_address = QLineEdit()
        self.sign_in_address.setReadOnly(True)
        self.sign_in_address.setPlaceholderText("waiting for the authorization address…")
        self.sign_in_address.setToolTip("The page to open in a browser to sign in")
        self.copy_address_button = QPushButton("Copy address")
        self.open_address_button = QPushButton("Open in browser")
        self.cancel_sign_in_button = QPushButton("Cancel")
        self.cancel_sign_in_button.setToolTip(
            "Stop waiting for this sign-in; the earlier one, if any, is kept"
        )
        sign_in_row.addWidget(self.sign_in_address, 1)
        for button in (self.copy_address_button, self.open_address_button, self.cancel_sign_in_button):
            sign_in_row.addWidget(button)
        self.sign_in_box.hide()
        layout.addWidget(self.sign_in_box)

    def _add_file_problem(self, layout: QVBoxLayout) -> None:
        """Why the servers file cannot be read, with Open the file and Reload the file."""
        # A servers file that could not be read at all, or has keys no host uses: why, and the way to fix it.
        self.file_problem = QWidget()
        problem_row = QHBoxLayout(self.file_problem)
        problem_row.setContentsMargins(0, 0, 0, 0)
        self.file_error = QLabel()
        self.file_error.setObjectName("ErrorText")
        self.file_error.setWordWrap(True)
        self.file_error.setTextFormat(Qt.TextFormat.PlainText)
        self.file_error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_file_button = QPushButton("Open the file")
        self.open_file_button.setToolTip("Open the servers file in your text editor")
        self.reload_file_button = QPushButton("Reload the file")
        self.reload_file_button.setToolTip(
            "Read the servers file again and apply it, without restarting EdgeHost"
        )
        problem_row.addWidget(self.file_error, 1)
        problem_row.addWidget(self.open_file_button)
        problem_row.addWidget(self.reload_file_button)
        self.file_problem.hide()
        layout.addWidget(self.file_problem)

    def _add_table_and_details(self, layout: QVBoxLayout) -> None:
        """The servers, and below them the selected one's details, stderr and log."""
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.table = QTableWidget(0, 6)
        self.table.setHorizontalHeaderLabels(["", "Server", "Status", "Protocol", "Tools", "Enabled"])
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setItemDelegate(ColoursKeptWhenSelected(self.table))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for column in (0, 2, 3, 4, 5):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        splitter.addWidget(self.table)
        details = QWidget()
        details_layout = QVBoxLayout(details)
        details_layout.setContentsMargins(0, 8, 0, 0)
        self.error = QLabel()
        self.error.setObjectName("ErrorText")
        self.error.setWordWrap(True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.hide()
        details_layout.addWidget(self.error)
        actions = QHBoxLayout()
        for button in (self.restart_button, self.input_button, self.sign_in_button, self.sign_out_button):
            actions.addWidget(button)
        actions.addStretch(1)
        details_layout.addLayout(actions)
        self.tabs = QTabWidget()
        self.info = QPlainTextEdit()
        self.stderr = QPlainTextEdit()
        self.log = QPlainTextEdit()
        for name, view in (("Details", self.info), ("Stderr", self.stderr), ("Log", self.log)):
            view.setReadOnly(True)
            view.setObjectName("Mono")
            self.tabs.addTab(view, name)
        details_layout.addWidget(self.tabs)
        splitter.addWidget(details)
        splitter.setSizes([260, 240])
        layout.addWidget(splitter, 1)

    def _connect_buttons(self) -> None:
        self.table.itemSelectionChanged.connect(self._show_details)
        self.form_action.triggered.connect(lambda: self._open_form(None))
        self.registry_button.triggered.connect(self.open_registry)
        self.bundle_button.triggered.connect(self._choose_bundle)
        self.edit_button.clicked.connect(lambda: self._open_form(self.selected_config()))
        self.remove_button.clicked.connect(self._remove)
        self.import_button.clicked.connect(self._import)
        self.restart_button.clicked.connect(self._restart)
        self.open_file_button.clicked.connect(self._open_servers_file)
        self.reload_file_button.clicked.connect(self._reload_servers_file)
        self.sign_in_button.clicked.connect(self._sign_in)
        self.sign_out_button.clicked.connect(self._sign_out)
        self.copy_address_button.clicked.connect(
            lambda: QGuiApplication.clipboard().setText(self.sign_in_address.text())
        )
        self.open_address_button.clicked.connect(self._open_address_again)
        self.cancel_sign_in_button.clicked.connect(self._cancel_sign_in)
        self.input_button.clicked.connect(self._enter_input)

    # -- data ----------------------------------------------------------------------------------
    def statuses(self) -> list[Any]:
        return list(self.host.server_states())

    def selected_name(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 1)
        return item.text() if item is not None else None

    def selected_config(self) -> ServerConfig | None:
        name = self.selected_name()
        config: ServersConfig = self.host.servers_config
        return config.get(name) if name else None

    def refresh(self) -> None:
        config: ServersConfig = self.host.servers_config
        problem = config.file_error
        warnings = config.warnings
        self.file_problem.setVisible(bool(problem or warnings))
        if problem:
            running = (
                "so only the built-in servers run"
                if all(s.builtin for s in config.servers)
                else "so the servers run as it said before"
            )
            self.file_error.setText(
                f"The servers file could not be read, {running}: {problem}\n"
                "Fix it (Open the file), then Reload the file; nothing in it was changed."
            )
        elif warnings:
            self.file_error.setText(
                "\n".join(["The servers file has keys EdgeHost does not know:", *warnings])
            )
        selected = self.selected_name()
        states = self.statuses()
        self._follow_connecting(states)
        colors = current_colors()
        tones = {
            "ok": colors.ok,
            "error": colors.error,
            "warn": colors.warn,
            "accent": colors.accent,
            "": colors.muted,
        }
        self.table.setRowCount(len(states))
        for row, state in enumerate(states):
            status = getattr(state.status, "value", str(state.status))
            light = QTableWidgetItem("●")
            light.setForeground(QColor(tones[_STATUS_TONES.get(status, "")]))
            self.table.setItem(row, 0, light)
            self.table.setItem(row, 1, QTableWidgetItem(state.name))
            chip = Chip(status, _STATUS_TONES.get(status, ""))
            self.table.setCellWidget(row, 2, centered(chip))
            self.table.setItem(row, 3, QTableWidgetItem(state.protocol_version or "—"))
            self.table.setItem(row, 4, QTableWidgetItem(str(state.tools)))
            switch = QCheckBox()
            switch.setChecked(status != "disabled")
            switch.setToolTip("Enable or disable this server (remembered)")
            switch.toggled.connect(lambda on, name=state.name: self._set_enabled(name, on))
            self.table.setCellWidget(row, 5, centered(switch))
            if state.name == selected:
                self.table.selectRow(row)
        if selected is None and states:
            self.table.selectRow(0)
        self._show_details()

    def _show_details(self) -> None:
        name = self.selected_name()
        state = next((s for s in self.statuses() if s.name == name), None)
        # Add, Edit, Remove and Import write the servers file: not over one that cannot be read.
        writable = self.host.servers_config.file_error is None
        for button, tip in (
            (self.add_button, "Add a server: by its command, from the MCP Registry, or from a bundle"),
            (self.edit_button, "Change the selected server's entry in the servers file"),
            (self.remove_button, "Take the selected server out of the servers file"),
            (self.import_button, "Add the servers of a Claude Desktop or VS Code config"),
        ):
            button.setToolTip(tip if writable else FILE_NOT_WRITABLE)
        self.add_button.setEnabled(writable)
        self.import_button.setEnabled(writable)
        self.edit_button.setEnabled(writable and state is not None)
        self.restart_button.setEnabled(state is not None)
        config = self.selected_config()
        self.remove_button.setEnabled(writable and config is not None and not config.builtin)
        sign_in = self._sign_in_status(name)
        self.sign_in_button.setVisible(sign_in is not None and sign_in.state != "signed in")
        self.sign_in_button.setEnabled(self._signing_in is None)
        self.sign_out_button.setVisible(sign_in is not None and sign_in.stored)
        missing_input = config.missing_input if config is not None else None
        self.input_button.setVisible(missing_input is not None)
        self.input_button.setText(f"Enter {missing_input}…")
        if state is None:
            for view in (self.info, self.stderr, self.log):
                view.clear()
            self.error.hide()
            return
        self.error.setText(state.error or "")
        self.error.setVisible(bool(state.error))
        info = [
            f"name:       {state.name}",
            f"transport:  {state.transport}",
            f"server:     {state.server_name or '—'} {state.server_version or ''}",
            f"protocol:   {state.protocol_version or '—'}",
            f"tools:      {state.tools}   resources: {state.resources}   templates: {state.resource_templates}   "
            f"prompts: {state.prompts}",
        ]
        if config is not None:
            info.append(f"{'address' if config.url else 'command'}:    {_command_line(config)}")
        if sign_in is not None:
            info.append(f"sign-in:    {sign_in.state}")
        if state.instructions:
            info += ["", "instructions:", state.instructions]
        self.info.setPlainText("\n".join(info))
        stderr, messages = self.host.server_output(state.name)
        self.stderr.setPlainText("\n".join(stderr) or "(nothing on stderr)")
        self.log.setPlainText("\n".join(messages) or "(no log messages)")

    # -- commands ------------------------------------------------------------------------------
    def _open_servers_file(self) -> None:
        path = self.host.paths.servers_file
        if self.open_file(path) is False:  # no program is set to open JSON (or TOML) files here
            self._say(
                f"No program here opens {path.suffix.lstrip('.').upper() or 'this'} files: open {path} in a "
                "text editor, fix it, then Reload the file.",
                error=True,
            )
        else:
            self._say(f"Opened {path}. Once it is fixed and saved, Reload the file.")

    def _reload_servers_file(self) -> None:
        """Read the servers file again and apply it (Host.reload_servers_file), in the background."""
        self.reload_file_button.setEnabled(False)
        self._say(f"Reading {self.host.paths.servers_file} again…")
        task = self.tasks.spawn(self._reload_outcome(), name="reload-servers-file")
        task.add_done_callback(self._reloaded)

    async def _reload_outcome(self) -> Any:
        """What the reload did, or why it failed (said in the notice, not logged as a widget's task
        that went wrong)."""
        try:
            return await self.host.reload_servers_file()
        except ConfigError as exc:
            return exc

    def _reloaded(self, task: asyncio.Task[Any]) -> None:
        self.reload_file_button.setEnabled(True)
        if task.cancelled():
            return
        outcome = task.result()
        if isinstance(outcome, Exception):
            self._say(f"The servers file was not applied: {outcome}", error=True)
        elif outcome.file_error:
            self._say(f"The servers file still cannot be read: {outcome.file_error}", error=True)
        else:
            changes = [
                f"{verb} {', '.join(f'“{name}”' for name in names)}"
                for verb, names in (("starting", outcome.started), ("stopped", outcome.stopped))
                if names
            ]
            self._say(
                "Read the servers file again"
                + (f": {'; '.join(changes)}." if changes else "; the servers were already as it says.")
            )
        self.refresh()

    def _set_enabled(self, name: str, enabled: bool) -> None:
        self.host.set_server_enabled(name, enabled)

    def _restart(self) -> None:
        name = self.selected_name()
        if name is None:
            return
        self.host.restart_server(name)

    def _sign_in_status(self, name: str | None) -> AuthStatus | None:
        """The OAuth status of server ``name``; None when it does not use OAuth (or a person has no part)."""
        if name is None:
            return None
        try:
            status = self.host.auth_status(name)
        except EdgeHostError:  # not in the config (yet), or the keyring cannot be read
            return None
        return None if status.state in ("not used", "client credentials") else status

    def _sign_in(self) -> None:
        name = self.selected_name()
        if name is None or self._signing_in is not None:
            return
        self._say(f"Signing in to “{name}”…")
        self.sign_in_address.clear()
        self.sign_in_box.show()
        self.sign_in_button.setEnabled(False)
        task = self.tasks.spawn(self._sign_in_outcome(name), name=f"sign-in-{name}")
        self._signing_in = (name, task)
        task.add_done_callback(lambda done: self._signed_in(name, done))

    async def _sign_in_outcome(self, name: str) -> AuthStatus | Exception:
        """The sign-in's status, or why it failed: a failure is said in the notice, not logged as a
        widget's task that went wrong (the sign-in logs it)."""
        try:
            return await self.host.sign_in(name, lambda url: self._show_authorization_page(name, url))
        except Exception as exc:
            return exc

    def _show_authorization_page(self, name: str, url: str) -> None:
        """Open the authorization page in the browser, and show its address whether that worked or not."""
        self.sign_in_address.setText(url)
        self.sign_in_address.setCursorPosition(0)
        self._open_in_browser(name, url)

    def _open_in_browser(self, name: str, url: str) -> None:
        if self.open_url(url) is False:  # QDesktopServices.openUrl found no browser, or it would not start
            self._say(
                f"The browser could not be opened. To sign in to “{name}”, open the address below in a "
                "browser on this computer (Copy address).",
                error=True,
            )
        else:
            self._say(f"Signing in to “{name}” in your browser… No page opened? Open the address below.")

    def _open_address_again(self) -> None:
        if self._signing_in is not None and self.sign_in_address.text():
            self._open_in_browser(self._signing_in[0], self.sign_in_address.text())

    def _cancel_sign_in(self) -> None:
        if self._signing_in is not None:
            self._cancel_requested = True
            self._signing_in[1].cancel()

    def _signed_in(self, name: str, task: asyncio.Task[Any]) -> None:
        self._signing_in = None
        if task.cancelled() and not self._cancel_requested:
            return  # the window is closing
        self._cancel_requested = False
        self.sign_in_box.hide()
        self.sign_in_address.clear()
        self.sign_in_button.setEnabled(True)
        if task.cancelled():
            self._say(f"Sign-in to “{name}” cancelled; the earlier sign-in, if any, is kept.")
        elif isinstance(error := task.result(), Exception):  # SignInFailed says why in words
            self._say(f"Sign-in to “{name}” failed: {error}", error=True)
        else:
            self._say(f"Signed in to “{name}”; connecting…", connecting=name)
        self.refresh()

    def _sign_out(self) -> None:
        name = self.selected_name()
        if name is None:
            return
        try:
            self.host.sign_out(name)
        except EdgeHostError as exc:
            self._say(str(exc), error=True)
            return
        self._say(f"Signed out of “{name}”.")
        self.refresh()

    def _enter_input(self) -> None:
        """Ask for the value of the ``${input:ID}`` the selected server waits for, as VS Code would."""
        config = self.selected_config()
        if config is None or config.missing_input is None:
            return
        input_id = config.missing_input
        self.input_dialog = input_value_dialog(self, input_id, self.host.servers_config.inputs.get(input_id))
        self.input_dialog.textValueSelected.connect(
            lambda value: self._input_entered(input_id, value, config.name)
        )
        self.input_dialog.open()

    def _input_entered(self, input_id: str, value: str, name: str) -> None:
        if not value:
            return
        self._say(f"Kept the value of {input_id}; connecting “{name}”…", connecting=name)
        task = self.tasks.spawn(self.host.set_input(input_id, value), name=f"input-{input_id}")
        task.add_done_callback(
            lambda done: (
                None
                if done.cancelled() or done.exception() is None
                else self._say(f"The value of {input_id} could not be kept: {done.exception()}", error=True)
            )
        )

    def _builtins(self) -> dict[str, ServerConfig]:
        return self.host.builtin_servers()

    def _open_form(self, existing: ServerConfig | None) -> None:
        taken = {s.name for s in self.host.servers_config.servers}
        self.form = form = ServerForm(self._builtins(), existing, taken, self)
        form.saved.connect(lambda server: self._save_server(server, form.renamed_from(server.name)))
        self.form.open()

    def open_registry(self) -> None:
        from edgehost.ui.registry_dialog import RegistryDialog

        self.registry_dialog = dialog = RegistryDialog(self.host, self)
        dialog.added.connect(
            lambda name: self._say(
                f"Added “{name}” to {self.host.paths.servers_file}; connecting…", connecting=name
            )
        )
        dialog.added.connect(lambda _name: self.refresh())
        dialog.bundle_ready.connect(self.open_bundle_file)
        dialog.open()
        dialog.search()

    def _choose_bundle(self) -> None:
        dialog = QFileDialog(self, "Install an MCPB bundle")
        dialog.setNameFilters(["MCP bundles (*.mcpb *.dxt)", "All files (*)"])
        dialog.fileSelected.connect(self.open_bundle_file)
        dialog.open()

    def open_bundle_file(self, filename: str) -> None:
        """Check the bundle and open its dialog; a file that is no bundle says why here."""
        from edgehost.ui.bundle_dialog import BundleDialog

        try:
            bundle = self.host.open_bundle(Path(filename))
        except EdgeHostError as exc:
            self._say(str(exc), error=True)
            return
        self.bundle_dialog = dialog = BundleDialog(self.host, bundle, self)
        dialog.added.connect(
            lambda name: self._say(
                f"Installed “{name}” from {Path(filename).name}; connecting…", connecting=name
            )
        )
        dialog.added.connect(lambda _name: self.refresh())
        dialog.open()

    def _save_server(self, server: ServerConfig, renamed_from: str | None = None) -> None:
        try:
            self.host.save_server(server, renamed_from=renamed_from)
        except ConfigError as exc:
            self._say(str(exc), error=True)
            return
        if renamed_from is not None:
            self._apply(renamed_from)  # stopped and forgotten: the file no longer has it
        self._say(
            f"Saved “{server.name}” to {self.host.paths.servers_file}; connecting…", connecting=server.name
        )
        self._apply(server.name)

    def _remove(self) -> None:
        config = self.selected_config()
        if config is None or config.builtin:
            return
        confirm(
            self,
            "Remove server",
            f"Remove the server “{config.name}” from the config?",
            lambda: self._remove_confirmed(config.name),
        )

    def _remove_confirmed(self, name: str) -> None:
        """Remove in a thread: a bundle's folder (its node_modules) and the keyring take their time."""
        bundle = " and uninstalled its bundle" if self.bundle_of(name) else ""
        task = self.tasks.spawn(asyncio.to_thread(self.host.remove_server_entry, name), name=f"remove-{name}")
        task.add_done_callback(lambda done: self._removed(name, bundle, done))

    def _removed(self, name: str, bundle: str, task: Any) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self._say(str(error) if isinstance(error, EdgeHostError | OSError) else repr(error), error=True)
            return
        self._say(f"Removed “{name}” from {self.host.paths.servers_file}{bundle}.")
        self._apply(name)

    def bundle_of(self, name: str) -> bool:
        return any(bundle.name == name for bundle in self.host.installed_bundles())

    def _import(self) -> None:
        dialog = QFileDialog(self, "Import a Claude Desktop or VS Code config")
        dialog.setNameFilters(["MCP configs (*.json *.toml)", "All files (*)"])
        dialog.fileSelected.connect(self.import_file)
        dialog.open()

    def import_file(self, filename: str) -> None:
        try:
            plan = self.host.import_servers(Path(filename))
        except ConfigError as exc:
            self._say(str(exc), error=True)
            return
        parts = [
            f"{len(plan.added)} added",
            f"{len(plan.replaced)} replaced",
            f"{len(plan.unchanged)} unchanged",
        ]
        message = "Imported: " + ", ".join(parts) + "."
        if plan.skipped:
            message += " Skipped: " + "; ".join(f"{n}: {e}" for n, e in plan.skipped)
        self._say(message, error=bool(plan.skipped))
        for name in [*plan.added, *plan.replaced]:
            self._apply(name)

    def _apply(self, name: str) -> None:
        """Start, restart or stop ``name`` as the servers file now says (in the background)."""
        task = self.tasks.spawn(self.host.reload_server(name), name=f"apply-server-{name}")
        task.add_done_callback(lambda done: self._applied(name, done))

    def _applied(self, name: str, task: Any) -> None:
        if task.cancelled():
            return
        if task.exception() is not None:
            self._say(f"“{name}” could not be applied: {task.exception()}", error=True)
        self.refresh()

    def _follow_connecting(self, states: list[Any]) -> None:
        """Once the server the notice says is connecting is ready or has failed, the notice says so."""
        name, said = self._connecting or ("", "")
        state = next((s for s in states if s.name == name), None)
        status = getattr(getattr(state, "status", None), "value", "")
        if state is None or status not in ("ready", "failed"):
            return
        if status == "ready":
            count = f"{state.tools} tool{'' if state.tools == 1 else 's'}"
            self._say(f"{said.removesuffix('connecting…')}connected, {count}.")
        else:
            first = (state.error or "").splitlines()[0] if state.error else "see its Stderr and Log"
            self._say(f"{said.removesuffix('connecting…')}it could not connect: {first}", error=True)

    def _say(self, text: str, error: bool = False, connecting: str | None = None) -> None:
        """Show ``text`` above the table; ``connecting``: the server it says is connecting, whose
        outcome replaces it (_follow_connecting)."""
        self.notice.setObjectName("ErrorText" if error else "Caption")
        self.notice.style().unpolish(self.notice)
        self.notice.style().polish(self.notice)
        self.notice.setText(text)
        self.notice.show()
        self._connecting = (connecting, text) if connecting else None


def _command_line(config: ServerConfig) -> str:
    """The server's address, or its command with its arguments as a shell would take them; for an
    entry that did not load, what the file says. Secrets (env values, headers) are hidden."""
    if config.url:
        line = config.url
    elif config.command:
        line = shlex.join([config.command, *config.args])
    elif isinstance(config.unparsed, dict):
        raw = config.unparsed
        line = " ".join(
            str(part) for part in (raw.get("command") or raw.get("url") or "", raw.get("args", ""))
        )
    else:
        line = ""
    return redact(line, config.secret_values()).strip() or "—"
