"""Settings: model (picker plus the models found), backend, board profile (the detected one shown),
context length, threads, approval defaults, close-to-tray and theme."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSystemTrayIcon,
    QVBoxLayout,
    QWidget,
)

from edgehost.host.settings_choices import profile_choices
from edgehost.settings import Settings
from edgehost.ui._screen import scrolling_layout
from edgehost.ui._widgets import BackendChoice, cancel_save_row

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["SettingsDialog"]

THEMES = ("system", "dark", "light")
NO_TRAY = "This desktop has no system tray, so closing the window quits EdgeHost."


class SettingsDialog(QDialog):
    """Edits ``host.settings``; ``saved`` carries the names of the fields that changed."""

    saved = Signal(object)

    def __init__(self, host: Host, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.setWindowTitle("Settings — EdgeHost")
        settings: Settings = host.settings
        layout, outer = scrolling_layout(self, QSize(720, 0), spacing=6)
        title = QLabel("Settings")
        title.setObjectName("SectionTitle")
        layout.addWidget(title)
        form = QFormLayout()
        form.setVerticalSpacing(10)
        form.setHorizontalSpacing(14)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)  # a field under its label when narrow

        self._add_model_rows(form, settings)
        self._add_loading_rows(form, settings)
        self._add_tool_rows(form, settings)
        self._add_window_rows(form, settings)
        layout.addLayout(form)
        note = QLabel("Model, backend, profile, context and threads apply when the model is loaded again.")
        note.setObjectName("Caption")
        note.setWordWrap(True)
        layout.addWidget(note)
        layout.addStretch(1)
        outer.addLayout(cancel_save_row(self, self.save))

    def _add_model_rows(self, form: QFormLayout, settings: Settings) -> None:
        """Which model: the ones found on this machine, or a file to browse to."""
        self.model = QComboBox()
        self.model.setEditable(False)
        # As wide as the row allows; a long name (and its size and source) shows whole in the open list.
        self.model.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model.setMinimumContentsLength(16)
        self.model.currentTextChanged.connect(self.model.setToolTip)
        self.model.addItem("Embedded default (SmolLM2 135M)", None)
        for found in self.host.installed_models_now():
            label = f"{found.name}  ·  {found.format}  ·  {found.size_bytes / 1e6:.0f} MB  ({found.source})"
            if found.source == "embedded default":
                continue
            self.model.addItem(label, found.path)
        self._select(self.model, settings.model)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(browse)
        form.addRow("Model", model_row)

    def _add_loading_rows(self, form: QFormLayout, settings: Settings) -> None:
        """How the model is loaded: backend, board profile, context and threads."""
        self.backend = BackendChoice(settings.backend)
        form.addRow("Backend", self.backend)

        self.profile = QComboBox()
        detected_label, profiles = profile_choices(self.host.paths)
        self.profile.addItem(detected_label, None)
        for name, label in profiles:
            self.profile.addItem(label, name)
        self._select(self.profile, settings.profile)
        form.addRow("Board profile", self.profile)

        self.context = QSpinBox()
        self.context.setRange(0, 131072)
        self.context.setSingleStep(512)
        self.context.setSpecialValueText("from the profile")
        self.context.setValue(settings.context_length or 0)
        form.addRow("Context length", self.context)

        self.threads = QSpinBox()
        self.threads.setRange(0, 64)
        self.threads.setSpecialValueText("from the profile")
        self.threads.setValue(settings.threads or 0)
        form.addRow("Threads", self.threads)

    def _add_tool_rows(self, form: QFormLayout, settings: Settings) -> None:
        """How tool calls go: the approval's wait, calls per answer, who chooses the tools."""
        self.approval_timeout = QSpinBox()
        self.approval_timeout.setRange(10, 3600)
        self.approval_timeout.setSuffix(" s")
        self.approval_timeout.setValue(int(settings.approval_timeout_s))
        form.addRow("Deny unanswered approvals after", self.approval_timeout)

        self.max_calls = QSpinBox()
        self.max_calls.setRange(1, 50)
        self.max_calls.setValue(settings.max_calls_per_turn)
        form.addRow("Tool calls per answer (max)", self.max_calls)

        from edgehost.ui.routing_switch import CHOICES

        self.routing = QComboBox()
        for routing, label in CHOICES:
            self.routing.addItem(label.removeprefix("Tools: ").capitalize(), routing)
        self._select(self.routing, settings.routing)
        self.routing.setToolTip(
            "Who decides whether a question needs a tool. Automatic: EdgeHost decides for models under"
            " 1.5B parameters (too small to choose reliably), the model for larger ones. A conversation"
            " can override it in its header."
        )
        form.addRow("Tool choice", self.routing)

    def _add_window_rows(self, form: QFormLayout, settings: Settings) -> None:
        """The tray icon (drawn off, and why, where there is none) and the theme."""
        self.close_to_tray = QCheckBox("Keep running when the window is closed")
        self.close_to_tray.setChecked(settings.close_to_tray)
        self.no_tray_note = QLabel(NO_TRAY)
        self.no_tray_note.setObjectName("Caption")
        self.no_tray_note.setWordWrap(True)
        tray_box = QVBoxLayout()
        tray_box.setSpacing(2)
        tray_box.addWidget(self.close_to_tray)
        tray_box.addWidget(self.no_tray_note)
        self.tray_available = QSystemTrayIcon.isSystemTrayAvailable()
        if not self.tray_available:
            # Closing the window quits, whatever the setting says: shown off, and why; the setting is
            # kept for a session on a desktop with a tray.
            self.close_to_tray.setChecked(False)
            self.close_to_tray.setEnabled(False)
            self.close_to_tray.setToolTip(NO_TRAY)
        else:
            self.no_tray_note.hide()
        form.addRow("Tray icon", tray_box)

        self.theme = QComboBox()
        self.theme.addItems(THEMES)
        self.theme.setCurrentText(settings.theme)
        form.addRow("Theme", self.theme)

    @staticmethod
    def _select(combo: QComboBox, value: Any) -> None:
        index = combo.findData(value)
        combo.setCurrentIndex(max(0, index))

    def _browse(self) -> None:
        dialog = QFileDialog(self, "Choose a model file")
        dialog.setNameFilters(["Models (*.gguf *.rkllm)", "All files (*)"])
        dialog.fileSelected.connect(self._add_model)
        dialog.open()

    def _add_model(self, path: str) -> None:
        index = self.model.findData(path)
        if index < 0:
            self.model.addItem(path, path)
            index = self.model.count() - 1
        self.model.setCurrentIndex(index)

    def save(self) -> None:
        values = {
            "model": self.model.currentData(),
            "backend": self.backend.backend(),
            "profile": self.profile.currentData(),
            "context_length": self.context.value() or None,
            "threads": self.threads.value() or None,
            "approval_timeout_s": float(self.approval_timeout.value()),
            "max_calls_per_turn": self.max_calls.value(),
            "routing": self.routing.currentData(),
            "close_to_tray": (
                self.close_to_tray.isChecked() if self.tray_available else self.host.settings.close_to_tray
            ),
            "theme": self.theme.currentText(),
        }
        changed = self.host.update_settings(values)
        self.saved.emit(changed)
        self.accept()

    def keyPressEvent(self, event: Any) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.reject()
            return
        super().keyPressEvent(event)
