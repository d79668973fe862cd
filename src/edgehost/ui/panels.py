"""The main window's panels (servers, tools, history, models, settings), each made on first use and
wired to the window: imported only then, so the first frame does not wait for them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from edgehost.ui.history_panel import HistoryPanel
from edgehost.ui.models_panel import ModelsPanel
from edgehost.ui.servers_panel import ServersPanel
from edgehost.ui.settings_dialog import SettingsDialog
from edgehost.ui.tools_panel import ToolsPanel

if TYPE_CHECKING:
    from edgehost.ui.main_window import MainWindow

__all__ = ["build_panel"]


def build_panel(window: MainWindow, key: str) -> QWidget:
    """A new panel ``key`` for ``window``. Raises KeyError for an unknown key."""
    host = window.host
    if key == "servers":
        return ServersPanel(host, window)
    if key == "tools":
        return ToolsPanel(host, window)
    if key == "history":
        history = HistoryPanel(host, window)
        history.open_conversation.connect(window.open_conversation)
        return history
    if key == "models":
        models = ModelsPanel(host, window)
        if window.bridge is not None:
            window.bridge.model_download_progressed.connect(models.on_download_progressed)
            window.bridge.model_download_finished.connect(models.on_download_finished)
            window.bridge.model_status_changed.connect(models.on_model_status)
        return models
    if key == "settings":
        settings = SettingsDialog(host, window)
        settings.saved.connect(window.settings_saved)
        settings.finished.connect(lambda _r: window.panels.pop("settings", None))
        return settings
    raise KeyError(key)
