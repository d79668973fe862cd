"""Windows that fit the screen they open on. Boards drive 7-inch panels at 800×480 and 1024×600, and
HDMI at 1280×720: no window, panel or dialog opens larger than the available geometry of its screen,
and a dialog whose content is longer scrolls it while its buttons stay in view.

The panels (servers, tools, history, models, settings) stay windows of their own on a small screen,
sized to it, rather than becoming pages of the main window: the board's desktop gives them a title bar
and a Close button as it gives every other program, switching back to the chat is the desktop's usual
way (taskbar, Alt+Tab), and a panel behaves the same on a 7-inch panel as on a monitor."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QFrame, QScrollArea, QVBoxLayout, QWidget

__all__ = ["DECORATIONS", "ScrollingBody", "fit_to_screen", "fits_screen", "room", "scrolling_layout"]

# What a window manager draws around a window, which is known only once the window is shown: a title
# bar (about 30 px on Xfce, LXDE/labwc and GNOME's server-side decorations, more with large fonts) and
# a border of a few pixels. A window that leaves this much room fits the screen with them.
DECORATIONS = QSize(8, 40)


def room(window: QWidget) -> QRect:
    """Where ``window``, without its decorations, may lie: the available geometry of the screen it
    opens on (its parent's, for a dialog), less DECORATIONS unless it is frameless or a popup."""
    area = _available(window)
    if _decorated(window):  # what it has, once shown, when that is more
        known = window.frameGeometry().size() - window.size()
        area.setSize(area.size() - DECORATIONS.expandedTo(known))
    return area


def fit_to_screen(window: QWidget, wanted: QSize | None = None) -> None:
    """Give ``window`` the size ``wanted`` (default: the size it has) or as much of it as room() holds,
    and, when its position was set (a window shown before, or placed by the code), move it so that it
    lies wholly on the screen. A dialog shown for the first time is then centred by Qt, on the screen.
    A maximized or full-screen window is left as it is: the window manager fits it."""
    if window.windowState() & (Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen):
        return
    size = (wanted if wanted is not None else window.size()).boundedTo(room(window).size())
    if size != window.size():
        window.resize(size.expandedTo(window.minimumSize()))
    if not window.testAttribute(Qt.WidgetAttribute.WA_Moved):
        return
    frame = window.frameGeometry()
    decorations = frame.size() - window.size()
    if decorations.isNull() and _decorated(window):  # not shown yet: its frame is not known
        decorations = DECORATIONS
    width, height = window.width() + decorations.width(), window.height() + decorations.height()
    area = _available(window)
    x = max(area.left(), min(frame.left(), area.left() + area.width() - width))
    y = max(area.top(), min(frame.top(), area.top() + area.height() - height))
    if (x, y) != (frame.left(), frame.top()):
        window.move(x, y)


def fits_screen(window: QWidget, opening: QSize | None = None) -> None:
    """From now on ``window`` fits the screen each time it is shown (fit_to_screen): the first time at
    ``opening`` (or its size hint, when that is larger in a direction), later at the size the user left
    it at, never larger than room()."""
    window.setProperty(_OPENING, opening or QSize())
    window.installEventFilter(_FitWhenShown(window))


_OPENING = "edgehost_opening_size"


class _FitWhenShown(QObject):
    """Keeps nothing of its own (a reference to the window would make a cycle that the garbage collector
    may break, attributes first, while Qt still sends the window's last events here)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Before the window's own showEvent: a dialog is centred (QDialog.showEvent) at its fitted size.
        if event.type() == QEvent.Type.Show and not event.spontaneous() and isinstance(watched, QWidget):
            # The size hints as polished for showing: a scrolling body hears of its content's only then.
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            if watched.testAttribute(Qt.WidgetAttribute.WA_Resized):  # by the code or the user
                fit_to_screen(watched)
            else:
                opening = watched.property(_OPENING)
                fit_to_screen(watched, watched.sizeHint().expandedTo(opening))
        return False


def _available(window: QWidget) -> QRect:
    parent = window.parentWidget()
    screen = (parent.window() if parent is not None else window).screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def _decorated(window: QWidget) -> bool:
    flags = window.windowFlags()
    popup = (flags & Qt.WindowType.Popup) == Qt.WindowType.Popup
    return not popup and not flags & Qt.WindowType.FramelessWindowHint


class ScrollingBody(QScrollArea):
    """The part of a dialog above its buttons, scrolled when the screen is too short for it; it asks
    for the room its content wants (a scroll area otherwise asks for a fixed 36 by 24 lines at most)."""

    def __init__(self, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidget(content)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The content's layout changed (polished, a row shown): so does the room this asks for, which
        # the dialog's layout would otherwise keep from before.
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def sizeHint(self) -> QSize:
        content = self.widget()
        if content is None:
            return super().sizeHint()
        frame = 2 * self.frameWidth()
        return content.sizeHint() + QSize(frame + self.verticalScrollBar().sizeHint().width(), frame)


def scrolling_layout(
    dialog: QDialog, opening: QSize | None = None, margin: int = 18, spacing: int = 10
) -> tuple[QVBoxLayout, QVBoxLayout]:
    """Lay ``dialog`` out as a body that scrolls above a part that never does (its buttons), and make
    it fit the screen (fits_screen, at ``opening``). Returns the body's layout and the dialog's: the
    caller fills the first and adds its buttons to the second."""
    outer = QVBoxLayout(dialog)
    outer.setContentsMargins(margin, margin, margin, margin)
    outer.setSpacing(spacing)
    content = QWidget()
    body = QVBoxLayout(content)
    body.setContentsMargins(0, 0, 8, 0)  # clear of the scroll bar, when there is one
    body.setSpacing(spacing)
    outer.addWidget(ScrollingBody(content), 1)
    fits_screen(dialog, opening)
    return body, outer
