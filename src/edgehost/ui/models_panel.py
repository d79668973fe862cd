"""Models: the ones on this machine (the embedded default among them) and the catalog fitted to this
board, downloads with progress (bytes, speed, time left) of a catalog model or any hub file
(REPO:FILE), cancel, switching to a model on this machine and removing a downloaded one. Drives Host
commands, follows its download events, and removes by the rules `edgehost models rm` follows."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from edgehost.errors import UsageError
from edgehost.host import events as ev
from edgehost.host.model_cards import (
    catalog_details,
    catalog_note,
    catalog_order,
    describe_progress,
    installed_details,
)
from edgehost.host.model_library import in_models_folder, plan_removal
from edgehost.ui._widgets import Chip, TaskSet, confirm

if TYPE_CHECKING:
    from edgehost.host.host import Host
    from edgehost.host.model_library import ModelRemoval
    from edgehost.llm.catalog import CatalogRow
    from edgehost.llm.models import ModelFile

__all__ = ["ModelsPanel"]


class DownloadRow(QFrame):
    """A model to download: its progress, Cancel, and Download / Resume / Use / In use; Remove for the
    downloaded file, or for the part an interrupted download left."""

    def __init__(
        self,
        panel: ModelsPanel,
        name: str,
        title: str,
        details: str,
        file: str | None,
        *,
        fits: bool = True,
        partial_bytes: int = 0,
    ) -> None:
        super().__init__()
        self.panel = panel
        self.name = name  # what the download is started and reported under
        self.file = file  # the model's file name, when known before it is downloaded
        self.fits = fits
        self.partial_bytes = partial_bytes  # of a download a click resumes
        self.path: str | None = None
        layout, self.top = _card(self, title)
        self.top.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(lambda: panel.host.cancel_download(name))
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(lambda: panel.remove(self))
        self.action = QPushButton()
        self.action.clicked.connect(self._act)
        for button in (self.cancel_button, self.remove_button, self.action):
            self.top.addWidget(button)
        layout.addLayout(self.top)
        layout.addWidget(_caption(details))
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.status = _caption()
        self.status.hide()
        layout.addWidget(self.progress)
        layout.addWidget(self.status)

    @property
    def removable(self) -> str | None:
        """The path or file name Remove deletes, in this state; None when there is nothing to remove."""
        if self.state == "installed":
            return self.path or self.file
        return self.file if self.state == "available" and self.partial_bytes else None

    def show_state(self, state: str) -> None:
        """available | downloading | installed | in use."""
        self.state = state
        downloading = state == "downloading"
        self.progress.setVisible(downloading)
        self.cancel_button.setVisible(downloading)
        self.remove_button.setVisible(self.removable is not None)
        self.action.setVisible(not downloading)
        self.action.setEnabled(state != "in use" and (self.fits or state == "installed"))
        labels = {
            "available": "Resume" if self.partial_bytes else "Download",
            "installed": "Use",
            "in use": "In use",
        }
        self.action.setText(labels.get(state, ""))

    def _act(self) -> None:
        if self.state == "available":
            self.panel.start_download(self)
        elif self.state == "installed":
            self.panel.use(self)

    def progressed(self, event: ev.ModelDownloadProgressed) -> None:
        self.partial_bytes = event.done_bytes
        if self.state != "downloading":
            self.show_state("downloading")
        self.progress.setRange(0, 1000)
        self.progress.setValue(int(1000 * event.done_bytes / max(event.total_bytes, 1)))
        self.status.setText(describe_progress(event))
        self.status.show()

    def finished(self, event: ev.ModelDownloadFinished) -> None:
        if event.path:
            self.path = event.path
            self.partial_bytes = 0
            self.show_state("installed")
            self.status.setText(f"Downloaded to {event.path}. Use it now?")
        else:
            self.show_state("available")
            self.status.setText(event.error or "The download stopped.")
        self.status.show()


class ModelRow(DownloadRow):
    """One catalog entry: what it is, whether it fits, and its download."""

    def __init__(self, panel: ModelsPanel, row: CatalogRow) -> None:
        entry = row.entry
        details = catalog_details(row)
        super().__init__(
            panel,
            entry.name,
            entry.display_name,
            details,
            Path(entry.file).name,
            fits=row.fits,
            partial_bytes=0 if row.installed else row.partial_bytes,
        )
        self.row = row
        if row.recommended:
            self.top.insertWidget(1, Chip("Suggested for this board", "accent"))
        if note := catalog_note(row):
            self.status.setText(note)
            self.status.show()
        if row.installed:
            self.path = str(panel.host.paths.models_dir / Path(entry.file).name)
        self.show_state("installed" if row.installed else "available")


class HubRow(DownloadRow):
    """A file of the Hugging Face Hub pulled by its REPO:FILE (or REPO, for its only model file)."""

    def __init__(self, panel: ModelsPanel, spec: str) -> None:
        repo, _, file = spec.partition(":")
        super().__init__(
            panel, spec, file or repo, f"{repo} on the Hugging Face Hub", Path(file).name if file else None
        )
        self.show_state("available")


class InstalledRow(QFrame):
    """A model file on this machine that is no catalog entry: what it is, Use / In use, and Remove."""

    def __init__(self, panel: ModelsPanel, model: ModelFile) -> None:
        super().__init__()
        self.path: str | None = model.path
        layout, top = _card(self, model.name)
        top.addStretch(1)
        # Only a file in the models folder is EdgeHost's to delete: never the built-in model.
        self.removable = model.path if in_models_folder(model.path, panel.host.paths.models_dir) else None
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(lambda: panel.remove(self))
        self.action = QPushButton()
        self.action.clicked.connect(lambda: panel.use(self))
        top.addWidget(self.remove_button)
        top.addWidget(self.action)
        layout.addLayout(top)
        layout.addWidget(_caption(installed_details(model)))
        self.status = _caption(model.error or "")
        self.status.setVisible(bool(model.error))
        layout.addWidget(self.status)
        self.usable = model.error is None
        self.show_state("installed")

    def show_state(self, state: str) -> None:
        """installed | in use."""
        self.state = state
        self.action.setText("In use" if state == "in use" else "Use")
        self.action.setEnabled(state != "in use" and self.usable)
        self.remove_button.setVisible(state != "in use" and self.removable is not None)


class ModelsPanel(QDialog):
    def __init__(self, host: Host, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.tasks = TaskSet()
        self.rows: dict[str, DownloadRow] = {}  # by the name downloads are reported under
        self.installed: list[InstalledRow] = []  # files on this machine that no catalog row shows
        self.confirmation: QDialog | None = None  # the open "Remove …?" question
        self.loading: DownloadRow | InstalledRow | None = None  # the row whose model Use is loading
        self.setWindowTitle("Models — EdgeHost")
        self.resize(760, 620)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        title = QLabel("Models")
        title.setObjectName("SectionTitle")
        layout.addWidget(title)
        self.board = QLabel("Reading this board…")
        self.board.setObjectName("Caption")
        self.board.setWordWrap(True)
        layout.addWidget(self.board)
        self.show_all = QCheckBox("Also show the models that do not fit this board")
        self.show_all.toggled.connect(lambda _on: self.refresh())
        layout.addWidget(self.show_all)
        pull_row = QHBoxLayout()
        self.hub_file = QLineEdit()
        self.hub_file.setPlaceholderText("Any file of the Hugging Face Hub: OWNER/REPO:FILE.gguf")
        self.hub_file.returnPressed.connect(self.pull_from_hub)
        pull = QPushButton("Download")
        pull.clicked.connect(self.pull_from_hub)
        pull_row.addWidget(self.hub_file, 1)
        pull_row.addWidget(pull)
        layout.addLayout(pull_row)
        self.notice = _caption()
        self.notice.hide()
        layout.addWidget(self.notice)
        self.list = QWidget()
        self.list_layout = QVBoxLayout(self.list)
        self.list_layout.setContentsMargins(0, 0, 0, 0)
        self.list_layout.setSpacing(8)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.list)
        layout.addWidget(scroll, 1)

    def refresh(self) -> None:
        self.tasks.spawn(self._load(), name="model-catalog")

    async def _load(self) -> None:
        (board, rows), models = await asyncio.gather(self.host.model_catalog(), self.host.installed_models())
        self.board.setText(
            f"{board}. Models come from the Hugging Face Hub into {self.host.paths.models_dir}; "
            "an interrupted download resumes."
        )
        while (item := self.list_layout.takeAt(0)) is not None:
            if (widget := item.widget()) is not None:
                widget.deleteLater()
        self.rows, self.installed, self.loading = {}, [], None
        downloading = self.host.downloads()
        for spec in sorted(downloading - {row.entry.name for row in rows}):  # pulled by REPO:FILE
            self._add_hub_row(spec).show_state("downloading")
        catalog_files = {Path(row.entry.file).name for row in rows}
        others = [m for m in models if Path(m.path).name not in catalog_files]
        self.list_layout.addWidget(_heading("On this machine" if others else "From the catalog"))
        for model in others:
            installed = InstalledRow(self, model)
            if self.host.model_in_use(model.path):
                installed.show_state("in use")
            self.installed.append(installed)
            self.list_layout.addWidget(installed)
        if others:
            self.list_layout.addWidget(_heading("From the catalog"))
        for row in catalog_order(rows):
            if not row.fits and not row.installed and not self.show_all.isChecked():
                continue
            widget = ModelRow(self, row)
            if widget.path is not None and self.host.model_in_use(widget.path):
                widget.show_state("in use")
            elif row.entry.name in downloading:
                widget.show_state("downloading")
            self.rows[row.entry.name] = widget
            self.list_layout.addWidget(widget)
        self.list_layout.addStretch(1)

    def start_download(self, row: DownloadRow) -> None:
        row.show_state("downloading")
        row.progress.setRange(0, 1000)
        row.progress.setValue(0)
        row.status.setText("Asking the hub…")
        row.status.show()
        self.host.download_model(row.name)

    def pull_from_hub(self) -> None:
        """Download the hub file the field names, as `edgehost models pull REPO:FILE` does."""
        spec = self.hub_file.text().strip()
        if "/" not in spec:
            self._say(
                "Name a file of the Hugging Face Hub as OWNER/REPO:FILE, or OWNER/REPO for its only model file.",
                error=True,
            )
            return
        self.hub_file.clear()
        self.notice.hide()
        row = self.rows.get(spec)
        if row is None:
            row = self._add_hub_row(spec)
        if row.state != "downloading":
            self.start_download(row)

    def _add_hub_row(self, spec: str) -> HubRow:
        row = self.rows[spec] = HubRow(self, spec)
        self.list_layout.insertWidget(0, row)
        return row

    def use(self, row: DownloadRow | InstalledRow) -> None:
        assert row.path is not None
        others: list[DownloadRow | InstalledRow] = [*self.rows.values(), *self.installed]
        for other in others:
            if other.state == "in use":
                other.show_state("installed")
        row.show_state("in use")
        row.status.setText("Loading it…")
        row.status.show()
        self.loading = row
        self.tasks.spawn(self.host.use_model(row.path), name="use-model")

    def on_model_status(self, event: ev.ModelStatusChanged) -> None:
        """The model chosen with Use has loaded (the status bar says so: the row's "Loading it…" goes),
        or failed to (the row says why)."""
        row = self.loading
        if row is None or event.status == "loading":
            return
        self.loading = None
        if event.status == "ready":
            row.status.hide()
        else:
            row.status.setText(f"Could not load it: {event.detail}" if event.detail else "Could not load it.")

    def remove(self, row: DownloadRow | InstalledRow) -> None:
        """Ask, with the space it frees, before deleting a downloaded model (or the part of one)."""
        if row.removable is None:
            return
        try:
            removal = plan_removal(self.host.paths.models_dir, self.host.settings.model, row.removable)
        except UsageError as exc:  # the model in use, chosen meanwhile by `edgehost models use`
            row.status.setText(str(exc))
            row.status.show()
            return
        what = removal.name if removal.complete else f"the unfinished download of {removal.name}"
        self.confirmation = confirm(
            self,
            "Remove model",
            f"Delete {what} from {self.host.paths.models_dir}? This frees {_megabytes(removal)}; "
            "using it again means downloading it again.",
            lambda: self._remove_confirmed(removal),
        )

    def _remove_confirmed(self, removal: ModelRemoval) -> None:
        try:
            removal.delete()
        except OSError as exc:
            self._say(f"Cannot delete {removal.name}: {exc}", error=True)
            return
        self._say(f"Removed {removal.name}: {_megabytes(removal)} freed.")
        self.refresh()

    def _say(self, text: str, error: bool = False) -> None:
        self.notice.setObjectName("ErrorText" if error else "Caption")
        self.notice.style().unpolish(self.notice)
        self.notice.style().polish(self.notice)
        self.notice.setText(text)
        self.notice.show()

    def on_download_progressed(self, event: ev.ModelDownloadProgressed) -> None:
        if (row := self.rows.get(event.name)) is not None:
            row.progressed(event)

    def on_download_finished(self, event: ev.ModelDownloadFinished) -> None:
        if (row := self.rows.get(event.name)) is not None:
            row.finished(event)

    def keyPressEvent(self, event: Any) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(event)


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("ModelName")
    return label


def _card(card: QFrame, name: str) -> tuple[QVBoxLayout, QHBoxLayout]:
    """A model's card: its layout, and the top row that starts with the model's name."""
    card.setObjectName("ModelCard")
    layout = QVBoxLayout(card)
    layout.setContentsMargins(12, 10, 12, 10)
    top = QHBoxLayout()
    label = QLabel(name)
    label.setObjectName("ModelName")
    top.addWidget(label)
    return layout, top


def _megabytes(removal: ModelRemoval) -> str:
    return f"{removal.size_bytes / 1e6:,.0f} MB"


def _caption(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setObjectName("Caption")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
