"""The one-time note under the conversation's title that the embedded model is a tiny one, naming the
model suggested for this board with a button that downloads it (the Models page shows the progress)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

if TYPE_CHECKING:
    from edgehost.llm.catalog import CatalogRow

__all__ = ["ModelHint"]


class ModelHint(QFrame):
    download_requested = Signal(str)  # the catalog entry
    dismissed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("ModelCard")
        self.entry: str | None = None
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
        speed = f", about {row.expected_tokens_per_s:.0f} tokens/s here" if row.expected_tokens_per_s else ""
        self.text.setText(
            "You are using the small built-in model, for trying EdgeHost out. Suggested for this board: "
            f"{entry.display_name} ({entry.size_mb / 1000:.1f} GB{speed})."
        )
        self.show()

    def _download(self) -> None:
        if self.entry is not None:
            self.download_requested.emit(self.entry)
        self.hide()

    def _dismiss(self) -> None:
        self.hide()
        self.dismissed.emit()
