"""Colours and the style sheet: one light and one dark palette; "system" follows the desktop."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

__all__ = ["Colors", "DARK", "LIGHT", "apply_theme", "current_colors", "resolve_theme"]


@dataclass(frozen=True)
class Colors:
    name: str
    window: str
    surface: str
    surface_alt: str
    border: str
    text: str
    muted: str
    accent: str
    accent_text: str
    user_bubble: str
    ok: str
    warn: str
    error: str
    code_bg: str


LIGHT = Colors(
    name="light",
    window="#f4f5f7",
    surface="#ffffff",
    surface_alt="#eef0f3",
    border="#dde1e6",
    text="#1f2328",
    muted="#6b7280",
    accent="#2f6fed",
    accent_text="#ffffff",
    user_bubble="#e3ecff",
    ok="#1a8f4c",
    warn="#b7791f",
    error="#d1242f",
    code_bg="#e8ebef",
)
DARK = Colors(
    name="dark",
    window="#17181b",
    surface="#202226",
    surface_alt="#2a2d32",
    border="#34373d",
    text="#e6e7e9",
    muted="#9aa0a8",
    accent="#5b8cff",
    accent_text="#ffffff",
    user_bubble="#263352",
    ok="#3fb873",
    warn="#e0a23a",
    error="#ff6b6b",
    code_bg="#2a2d32",
)


def resolve_theme(setting: str) -> Colors:
    """ "dark" / "light", or the desktop's colour scheme for "system" (light when it does not say)."""
    if setting == "dark":
        return DARK
    if setting == "light":
        return LIGHT
    hints = QGuiApplication.styleHints()
    return DARK if hints.colorScheme() == Qt.ColorScheme.Dark else LIGHT


def current_colors() -> Colors:
    app = QApplication.instance()
    colors = app.property("edgehostColors") if app is not None else None
    return colors if isinstance(colors, Colors) else LIGHT


def apply_theme(app: QApplication, setting: str) -> Colors:
    colors = resolve_theme(setting)
    app.setStyle("Fusion")
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: colors.window,
        QPalette.ColorRole.Base: colors.surface,
        QPalette.ColorRole.AlternateBase: colors.surface_alt,
        QPalette.ColorRole.WindowText: colors.text,
        QPalette.ColorRole.Text: colors.text,
        QPalette.ColorRole.Button: colors.surface,
        QPalette.ColorRole.ButtonText: colors.text,
        QPalette.ColorRole.Highlight: colors.accent,
        QPalette.ColorRole.HighlightedText: colors.accent_text,
        QPalette.ColorRole.ToolTipBase: colors.surface,
        QPalette.ColorRole.ToolTipText: colors.text,
        QPalette.ColorRole.PlaceholderText: colors.muted,
        QPalette.ColorRole.Link: colors.accent,
        QPalette.ColorRole.Mid: colors.border,
    }
    for role, value in roles.items():
        palette.setColor(role, QColor(value))
    # Switched off reads as off: a check box's or a label's text is WindowText, which Qt left as dark
    # as an enabled one's (the tray check box on a desktop without a tray looked available).
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(colors.muted))
    app.setPalette(palette)
    app.setStyleSheet(style_sheet(colors))
    app.setProperty("edgehostColors", colors)
    return colors


def style_sheet(c: Colors) -> str:
    """The app's style sheet: Qt's own widgets, then EdgeHost's named ones (order kept: a later rule of
    the same weight wins)."""
    return _widget_rules(c) + _edgehost_rules(c)


def _widget_rules(c: Colors) -> str:
    """Qt's widgets: lists, inputs, scroll bars, buttons, the sidebar's navigation."""
    return f"""
QWidget {{ font-size: 10pt; }}
QMainWindow, QDialog {{ background: {c.window}; }}
QToolTip {{ background: {c.surface}; color: {c.text}; border: 1px solid {c.border}; padding: 4px; }}
QFrame#Sidebar {{ background: {c.surface}; border-right: 1px solid {c.border}; }}
QLabel#SidebarTitle {{ font-size: 13pt; font-weight: 600; }}
QLabel#Muted, QLabel#Caption {{ color: {c.muted}; }}
QLabel#Caption {{ font-size: 9pt; }}
QLabel#SectionTitle {{ font-size: 12pt; font-weight: 600; }}
QLabel#ErrorText {{ color: {c.error}; }}
QListWidget, QTreeWidget, QTableView, QTableWidget, QPlainTextEdit, QTextEdit, QLineEdit {{
    background: {c.surface}; border: 1px solid {c.border}; border-radius: 8px; padding: 4px;
    selection-background-color: {c.accent}; selection-color: {c.accent_text};
}}
QTreeWidget, QTableView, QTableWidget {{ selection-background-color: {c.user_bubble}; selection-color: {c.text}; }}
QTreeWidget::item, QTableView::item {{ padding: 3px 2px; }}
QScrollBar:vertical {{ background: transparent; width: 10px; margin: 2px; }}
QScrollBar::handle:vertical {{ background: {c.border}; border-radius: 3px; min-height: 30px; }}
QScrollBar::handle:vertical:hover {{ background: {c.muted}; }}
QScrollBar:horizontal {{ background: transparent; height: 10px; margin: 2px; }}
QScrollBar::handle:horizontal {{ background: {c.border}; border-radius: 3px; min-width: 30px; }}
QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: transparent; }}
QPushButton#Nav {{ text-align: left; border: none; background: transparent; padding: 7px 10px; color: {c.muted}; }}
QPushButton#Nav:hover {{ background: {c.surface_alt}; color: {c.text}; }}
QListWidget#ConversationList {{ border: none; background: transparent; padding: 0; }}
QListWidget#ConversationList::item {{ padding: 8px 10px; border-radius: 8px; margin: 1px 0; }}
QListWidget#ConversationList::item:selected {{ background: {c.surface_alt}; color: {c.text}; }}
QListWidget#ConversationList::item:hover {{ background: {c.surface_alt}; }}
QLineEdit:focus, QPlainTextEdit:focus, QTextEdit:focus {{ border: 1px solid {c.accent}; }}
QHeaderView::section {{ background: {c.surface_alt}; color: {c.muted}; border: none; padding: 6px; }}
QPushButton {{
    background: {c.surface}; border: 1px solid {c.border}; border-radius: 8px; padding: 6px 14px;
}}
QPushButton:hover {{ background: {c.surface_alt}; }}
QPushButton:disabled {{ color: {c.muted}; }}
QPushButton#Primary {{ background: {c.accent}; color: {c.accent_text}; border: 1px solid {c.accent}; font-weight: 600; }}
QPushButton#Primary:disabled {{ background: {c.border}; border-color: {c.border}; color: {c.muted}; }}
QPushButton#Danger {{ color: {c.error}; }}
QToolButton {{ border: none; border-radius: 6px; padding: 4px 6px; color: {c.muted}; }}
QToolButton:hover {{ background: {c.surface_alt}; color: {c.text}; }}
"""


def _edgehost_rules(c: Colors) -> str:
    """EdgeHost's named widgets: the composer, bubbles, tool cards, chips, panels, dialogs, menus."""
    return f"""QFrame#Composer {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 12px; }}
QFrame#Composer QPlainTextEdit {{ border: none; background: transparent; padding: 2px; }}
QFrame#UserBubble {{ background: {c.user_bubble}; border-radius: 12px; }}
QFrame#AssistantBlock {{ background: transparent; }}
QFrame#ToolCard {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 10px; }}
QFrame#ToolCard[status="error"], QFrame#ToolCard[status="timeout"], QFrame#ToolCard[status="invalid"],
QFrame#ToolCard[status="unavailable"] {{ border: 1px solid {c.error}; }}
QFrame#ToolCard[status="denied"] {{ border: 1px solid {c.warn}; }}
QLabel#Chip {{ border-radius: 8px; padding: 1px 8px; font-size: 9pt; font-weight: 600;
    background: {c.surface_alt}; color: {c.muted}; }}
QLabel#Chip[tone="ok"] {{ color: {c.ok}; }}
QLabel#Chip[tone="error"] {{ color: {c.error}; }}
QLabel#Chip[tone="warn"] {{ color: {c.warn}; }}
QLabel#Chip[tone="accent"] {{ color: {c.accent}; }}
QLabel#Mono, QPlainTextEdit#Mono {{ font-family: "DejaVu Sans Mono", monospace; font-size: 9pt; }}
QPlainTextEdit#Mono {{ background: {c.code_bg}; }}
QProgressBar {{ border: none; background: {c.surface_alt}; border-radius: 3px; max-height: 6px; }}
QProgressBar::chunk {{ background: {c.accent}; border-radius: 3px; }}
QProgressBar#ContextMeter {{ max-height: 8px; min-width: 90px; max-width: 120px; }}
QStatusBar {{ background: {c.surface}; border-top: 1px solid {c.border}; color: {c.muted}; }}
QStatusBar QLabel {{ color: {c.muted}; padding: 0 6px; }}
QScrollArea {{ border: none; background: transparent; }}
QScrollArea > QWidget > QWidget {{ background: transparent; }}
QTabWidget::pane {{ border: 1px solid {c.border}; border-radius: 8px; background: {c.surface}; }}
QTabBar::tab {{ padding: 6px 14px; border: none; color: {c.muted}; }}
QTabBar::tab:selected {{ color: {c.text}; border-bottom: 2px solid {c.accent}; }}
QFrame#Palette {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 10px; }}
QFrame#QuickAsk {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 14px; }}
QFrame#AttachmentChip {{ background: {c.surface_alt}; border-radius: 8px; }}
QLabel#AttachmentChip {{ color: {c.text}; padding: 2px 8px; }}
QFrame#ModelCard {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 10px; }}
QLabel#ModelName {{ font-weight: 600; }}
QFrame#ApprovalHeader {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 10px; }}
QFrame#ApprovalHeader[risk="destructive"] {{ border: 1px solid {c.error}; }}
QFrame#ApprovalHeader[risk="caution"] {{ border: 1px solid {c.warn}; }}
QMenu {{ background: {c.surface}; border: 1px solid {c.border}; padding: 4px; }}
QMenu::item {{ padding: 6px 20px; border-radius: 6px; }}
QMenu::item:selected {{ background: {c.surface_alt}; color: {c.text}; }}
"""
