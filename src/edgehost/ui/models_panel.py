"""Models: the ones on this machine (the embedded default among them) and the catalog fitted to this
board, downloads with progress (bytes, speed, time left) of a catalog model or any hub file
(REPO:FILE), cancel, switching to a model on this machine and removing a downloaded one. Drives Host
commands, follows its download events, and removes by the rules `edgehost models rm` follows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt
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
from edgehost.host.model_cards import ModelCard, describe_progress, hub_card, model_cards, removable
from edgehost.host.model_library import plan_removal
from edgehost.ui._screen import fits_screen
from edgehost.ui._widgets import Chip, TaskSet, confirm

if TYPE_CHECKING:
    from edgehost.host.host import Host
    from edgehost.host.model_library import ModelRemoval

__all__ = ["ModelsPanel"]


class ModelRow(QFrame):
    """One model as the panel lists it (a ModelCard): what it is, Download / Resume / Use / In use, its
    progress and Cancel while it downloads, and Remove for a downloaded file in the models folder or for
    the part an interrupted download left."""

    def __init__(self, panel: ModelsPanel, card: ModelCard) -> None:
        super().__init__()
        self.panel = panel
        self.name = card.name  # what its download is started and reported under
        self.fits = card.fits
        self.usable = card.usable
        self.partial_bytes = card.partial_bytes  # of a download a click resumes
        self.path = card.path  # the file on this machine, once it is there
        layout, self.top = _card(self, card.title)
        if card.recommended:
            self.top.addWidget(Chip("Suggested for this board", "accent"))
        self.top.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(lambda: panel.host.cancel_download(self.name))
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(lambda: panel.remove(self))
        self.action = QPushButton()
        self.action.clicked.connect(self._act)
        for button in (self.cancel_button, self.remove_button, self.action):
            self.top.addWidget(button)
        layout.addLayout(self.top)
        layout.addWidget(_caption(card.details))
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        layout.addWidget(self.progress)
        self.status = _caption(card.note)
        self.status.setVisible(bool(card.note))
        layout.addWidget(self.status)
        self.show_state(card.state)

    @property
    def removable(self) -> str | None:
        """What Remove deletes in this state (the file, or the part of the download by its name); None
        when model_cards.removable says there is nothing EdgeHost may delete."""
        if not removable(self.state, self.path, self.partial_bytes, self.panel.host.paths.models_dir):
            return None
        return self.path if self.state == "installed" else self.name

    def show_state(self, state: str) -> None:
        """available | downloading | installed | in use."""
        self.state = state
        downloading = state == "downloading"
        self.progress.setVisible(downloading)
        self.cancel_button.setVisible(downloading)
        self.remove_button.setVisible(self.removable is not None)
        self.action.setVisible(not downloading)
        self.action.setEnabled(state != "in use" and (self.fits if state == "available" else self.usable))
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


class ModelsPanel(QDialog):
    def __init__(self, host: Host, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.tasks = TaskSet()
        self.rows: dict[str, ModelRow] = {}  # by the name downloads are reported under
        self.installed: list[ModelRow] = []  # files on this machine that no catalog row shows
        self.confirmation: QDialog | None = None  # the open "Remove …?" question
        self.loading: ModelRow | None = None  # the row whose model Use is loading
        self.setWindowTitle("Models — EdgeHost")
        fits_screen(self, QSize(760, 620))
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
        self.pull_button = QPushButton("Download")
        self.pull_button.clicked.connect(self.pull_from_hub)
        pull_row.addWidget(self.hub_file, 1)
        pull_row.addWidget(self.pull_button)
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
        board, cards = await model_cards(self.host, show_all=self.show_all.isChecked())
        self.board.setText(
            f"{board}. Models come from the Hugging Face Hub into {self.host.paths.models_dir}; "
            "an interrupted download resumes."
        )
        while (item := self.list_layout.takeAt(0)) is not None:
            if (widget := item.widget()) is not None:
                widget.deleteLater()
        self.rows, self.installed, self.loading = {}, [], None
        headings = {"file": "On this machine", "catalog": "From the catalog"}
        for card in cards:  # hub downloads under way, the files no entry names, then the catalog
            kind = "hub" if card.hub else "catalog" if card.catalog else "file"
            if (heading := headings.pop(kind, None)) is not None:
                headings.pop("file", None)  # no "On this machine" below the catalog's heading
                self.list_layout.addWidget(_heading(heading))
            row = ModelRow(self, card)
            if card.catalog:
                self.rows[card.name] = row
            else:
                self.installed.append(row)
            self.list_layout.addWidget(row)
        self.list_layout.addStretch(1)

    def start_download(self, row: ModelRow) -> None:
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

    def _add_hub_row(self, spec: str) -> ModelRow:
        row = self.rows[spec] = ModelRow(self, hub_card(spec))
        self.list_layout.insertWidget(0, row)
        return row

    def use(self, row: ModelRow) -> None:
        assert row.path is not None
        others: list[ModelRow] = [*self.rows.values(), *self.installed]
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

    def remove(self, row: ModelRow) -> None:
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
