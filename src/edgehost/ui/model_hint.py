"""The one-time note under the conversation's title that the embedded model is a tiny one, naming the
model suggested for this board with a button that downloads it (the Models page shows the progress).
It stays while the download runs, and says why when it fails, with a way to try again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

if TYPE_CHECKING:
    from edgehost.host import events as ev
    from edgehost.models.catalog import CatalogRow

__all__ = ["ModelHint"]


class ModelHint(QFrame):
    download_requested = Signal(str)  # the catalog entry
    dismissed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("ModelCard")
        self.entry: str | None = None
        self.display_name = ""
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 8, 6)
        self.text = QLabel()
        self.text.setObjectName("Caption")
        self.text.setWordWrap(True)
        self.download = QPushButton("Download")
        self.download.setObjectName("Primary")
        self.download.clicked.connect(self._download)
        self.later = QPushButton("Not now")
        self.later.setFlat(True)
        self.later.clicked.connect(self._dismiss)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.download)
        layout.addWidget(self.later)
        self.hide()

    def offer(self, row: CatalogRow | Any) -> None:
        entry = row.entry
        self.entry = entry.name
        self.display_name = entry.display_name
        speed = f", about {row.expected_tokens_per_s:.0f} tokens/s here" if row.expected_tokens_per_s else ""
        self._say(
            "You are using the small built-in model, for trying EdgeHost out. Suggested for this board: "
            f"{entry.display_name} ({entry.size_mb / 1000:.1f} GB{speed})."
        )
        self.download.setText("Download")
        self.download.setEnabled(True)
        self.show()

    def _download(self) -> None:
        if self.entry is None:
            self.hide()
            return
        self.download.setEnabled(False)
        self._say(f"Downloading {self.display_name}… (the progress is in Models)")
        self.download_requested.emit(self.entry)

    def download_progressed(self, event: ev.ModelDownloadProgressed) -> None:
        if event.name == self.entry and self.isVisible():
            from edgehost.host.model_cards import describe_progress  # loaded with the host, which sent it

            self._say(f"Downloading {self.display_name}: {describe_progress(event)}")

    def download_finished(self, event: ev.ModelDownloadFinished) -> None:
        """The suggested model's download ended: gone once it is there; otherwise why, and Try again
        (a download resumes from where it stopped)."""
        if event.name != self.entry or not self.isVisible():
            return
        self.download.setEnabled(True)
        if event.path is not None and event.error is None:
            self.hide()
        elif event.cancelled:
            self.download.setText("Resume")
            self._say(f"The download of {self.display_name} was stopped; Resume goes on from there.")
        else:
            self.download.setText("Try again")
            self._say(f"The download of {self.display_name} failed: {event.error}", error=True)

    def _say(self, text: str, error: bool = False) -> None:
        self.text.setObjectName("ErrorText" if error else "Caption")
        self.text.style().unpolish(self.text)
        self.text.style().polish(self.text)
        self.text.setText(text)

    def _dismiss(self) -> None:
        self.hide()
        self.dismissed.emit()
