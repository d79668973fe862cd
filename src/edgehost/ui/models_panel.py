"""Models: the ones on this machine (the embedded default among them) and the catalog fitted to this
board, downloads with progress (bytes, speed, time left), cancel, and switching to a model on this
machine. Drives Host commands and follows its download events."""

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
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from edgehost.host import events as ev
from edgehost.ui._widgets import Chip, TaskSet

if TYPE_CHECKING:
    from edgehost.host.host import Host

if TYPE_CHECKING:
    from edgehost.llm.catalog import CatalogRow
    from edgehost.llm.models import ModelFile

__all__ = ["ModelsPanel", "describe_progress"]


def describe_progress(event: ev.ModelDownloadProgressed) -> str:
    """ "412 of 1,117 MB · 5.2 MB/s · 2 min 15 s left", or the check after the download."""
    if event.stage == "verifying":
        return f"Checking the file ({100 * event.done_bytes // max(event.total_bytes, 1)} %)…"
    text = f"{event.done_bytes / 1e6:,.0f} of {event.total_bytes / 1e6:,.0f} MB"
    if event.bytes_per_s:
        text += f" · {event.bytes_per_s / 1e6:.1f} MB/s"
    if event.seconds_left is not None:
        seconds = int(event.seconds_left)
        text += f" · {seconds // 60} min {seconds % 60} s left" if seconds >= 60 else f" · {seconds} s left"
    return text


class ModelRow(QFrame):
    """One catalog entry: what it is, whether it fits, and Download / Cancel / Use."""

    def __init__(self, panel: ModelsPanel, row: CatalogRow) -> None:
        super().__init__()
        self.panel = panel
        self.row = row
        self.path: str | None = None
        entry = row.entry
        layout, top = _card(self, entry.display_name)
        if row.recommended:
            top.addWidget(Chip("Suggested for this board", "accent"))
        top.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(lambda: panel.host.cancel_download(entry.name))
        self.cancel_button.hide()
        self.action = QPushButton()
        self.action.clicked.connect(self._act)
        top.addWidget(self.cancel_button)
        top.addWidget(self.action)
        layout.addLayout(top)
        speed = (
            f" · about {row.expected_tokens_per_s:.0f} tokens/s on this board"
            if row.expected_tokens_per_s
            else ""
        )
        layout.addWidget(
            _caption(
                f"{entry.params_b:g}B parameters · {entry.quantization} · {entry.size_mb / 1000:.2f} GB "
                f"download · needs {entry.ram_gb:g} GB RAM{speed} · {entry.license} · {entry.repo}"
            )
        )
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.status = _caption()
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        self.partial_bytes = 0 if row.installed else row.partial_bytes  # of a download a click resumes
        if row.why_not:
            self.status.setText(f"Does not fit this board: {row.why_not}")
        elif self.partial_bytes:
            self.status.setText(
                f"Stopped at {self.partial_bytes / 1e6:.0f} of {entry.size_mb:.0f} MB: Resume goes on from there."
            )
        else:
            self.status.hide()
        self.show_state("installed" if row.installed else "available")

    def show_state(self, state: str) -> None:
        """available | downloading | installed | in use."""
        self.state = state
        downloading = state == "downloading"
        self.progress.setVisible(downloading)
        self.cancel_button.setVisible(downloading)
        self.action.setVisible(not downloading)
        self.action.setEnabled(state != "in use" and (self.row.fits or state == "installed"))
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
        if self.state != "downloading":
            self.show_state("downloading")
        self.partial_bytes = event.done_bytes
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


# How a model file found on this machine came to be there.
_SOURCES = {
    "embedded default": "built into EdgeHost",
    "settings": "named in the settings",
    "models folder": "in the models folder",
}


class InstalledRow(QFrame):
    """A model file on this machine that is no catalog entry: what it is, and Use / In use."""

    def __init__(self, panel: ModelsPanel, model: ModelFile) -> None:
        super().__init__()
        self.path: str | None = model.path
        layout, top = _card(self, model.name)
        top.addStretch(1)
        self.action = QPushButton()
        self.action.clicked.connect(lambda: panel.use(self))
        top.addWidget(self.action)
        layout.addLayout(top)
        context = f" · {model.context_length:,} tokens of context" if model.context_length else ""
        layout.addWidget(
            _caption(
                f"{_SOURCES.get(model.source, model.source)} · {model.format} · "
                f"{model.size_bytes / 1e6:,.0f} MB{context} · {model.path}"
            )
        )
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


class ModelsPanel(QDialog):
    def __init__(self, host: Host, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.tasks = TaskSet()
        self.rows: dict[str, ModelRow] = {}
        self.installed: list[InstalledRow] = []  # files on this machine that no catalog row shows
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
        self.rows, self.installed = {}, []
        catalog_files = {row.entry.file.rsplit("/", 1)[-1] for row in rows}
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
        downloading = self.host.downloads()
        for row in sorted(
            rows, key=lambda r: (not r.recommended, not r.fits, r.entry.backend, r.entry.params_b)
        ):
            if not row.fits and not row.installed and not self.show_all.isChecked():
                continue
            widget = ModelRow(self, row)
            if row.installed and self.host.model_in_use(self._catalog_path(row)):
                widget.show_state("in use")
            elif row.entry.name in downloading:
                widget.show_state("downloading")
            self.rows[row.entry.name] = widget
            self.list_layout.addWidget(widget)
        self.list_layout.addStretch(1)

    def start_download(self, row: ModelRow) -> None:
        row.show_state("downloading")
        row.progress.setRange(0, 1000)
        row.progress.setValue(0)
        row.status.setText("Asking the hub…")
        row.status.show()
        self.host.download_model(row.row.entry.name)

    def _catalog_path(self, row: CatalogRow) -> str:
        """Where a catalog model is (or goes) in the models folder."""
        return str(self.host.paths.models_dir / row.entry.file.rsplit("/", 1)[-1])

    def use(self, row: ModelRow | InstalledRow) -> None:
        path = row.path or (self._catalog_path(row.row) if isinstance(row, ModelRow) else None)
        assert path is not None
        others: list[ModelRow | InstalledRow] = [*self.rows.values(), *self.installed]
        for other in others:
            if other.state == "in use":
                other.show_state("installed")
        row.show_state("in use")
        row.status.setText("Loading it…")
        row.status.show()
        self.tasks.spawn(self.host.use_model(path), name="use-model")

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


def _caption(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setObjectName("Caption")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
