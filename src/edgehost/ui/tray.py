"""The tray icon: Quick ask, Show window, server status, Quit."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

__all__ = ["Tray"]


class Tray(QObject):
    quick_ask_requested = Signal()
    show_requested = Signal()
    quit_requested = Signal()

    def __init__(self, icon: QIcon, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.available = QSystemTrayIcon.isSystemTrayAvailable()
        self.icon = QSystemTrayIcon(icon, self)
        self.icon.setToolTip("EdgeHost")
        self.menu = QMenu()
        self.menu.addAction("Quick ask", self.quick_ask_requested.emit)
        self.menu.addAction("Show window", self.show_requested.emit)
        self.menu.addSeparator()
        self.status_action = self.menu.addAction("Servers: starting…")
        self.status_action.setEnabled(False)
        self.menu.addSeparator()
        self.menu.addAction("Quit EdgeHost", self.quit_requested.emit)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        if self.available:
            self.icon.show()

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.show_requested.emit()
        elif reason == QSystemTrayIcon.ActivationReason.MiddleClick:
            self.quick_ask_requested.emit()

    def show_servers(self, states: list[Any]) -> None:
        ready = sum(1 for s in states if getattr(s.status, "value", s.status) == "ready")
        failed = sum(1 for s in states if getattr(s.status, "value", s.status) == "failed")
        text = f"Servers: {ready} of {len(states)} ready" + (f", {failed} failed" if failed else "")
        self.status_action.setText(text)
        self.icon.setToolTip(f"EdgeHost — {text}")

    def hide(self) -> None:
        self.icon.hide()

    def close(self) -> None:
        """Hide the icon and free its menu (a top-level widget Qt does not own) and itself."""
        self.icon.hide()
        self.menu.deleteLater()
        self.deleteLater()
