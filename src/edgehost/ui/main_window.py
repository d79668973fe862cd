"""The main window: conversations on the left, the chat in the middle, the status bar below.

It only reacts to host events (through the HostBridge) and calls host commands; what a turn does is
decided in the core.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from edgehost.settings import Settings
from edgehost.ui._screen import fits_screen
from edgehost.ui._widgets import ElidedLabel, TaskSet
from edgehost.ui.chat_view import ChatView
from edgehost.ui.composer import Composer
from edgehost.ui.composer_actions import ComposerActions
from edgehost.ui.conversation_list import ConversationList
from edgehost.ui.server_dialogs import ServerDialogs
from edgehost.ui.status_line import StatusLine
from edgehost.ui.window_events import WindowEvents, perf_summary

if TYPE_CHECKING:
    from edgehost.host.host import Host

if TYPE_CHECKING:
    import asyncio

    from edgehost.host.attachments import AttachedResource
    from edgehost.ui.approval import ApprovalWindow
    from edgehost.ui.bridge import HostBridge

# Only what the first paint needs is imported above: the window is shown before the host, the MCP SDK
# and the panels are imported (see ui/app.py); those come in where they are used.
__all__ = ["MainWindow"]

log = logging.getLogger(__name__)

CATALOG_REFRESH_DELAY_MS = 50  # a burst of catalog changes (servers starting) becomes one rebuild


class MainWindow(WindowEvents, QMainWindow):
    quit_requested = Signal()
    dialog_opened = Signal(object)  # an elicitation or sampling dialog waiting for the user

    def __init__(
        self,
        settings: Settings,
        icon: QIcon | None = None,
        can_hide_to_tray: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__()
        self.settings = settings
        self._host: Host | None = None  # attach() gives it, once the window is on screen
        self.bridge: HostBridge | None = None
        self.approvals: ApprovalWindow  # made by attach(), with the palette
        self.composer_actions: ComposerActions  # made by attach(): the palette needs the host
        self.tasks = TaskSet()
        self.page: Any = None  # the chat page served beside the window (cli/page_beside.py), once served
        self.can_hide_to_tray = can_hide_to_tray
        self.turn_conversation: int | None = None
        self.turn_task: asyncio.Task[Any] | None = None
        self.last_user_text: dict[int, str] = {}
        self.context_used: dict[int, int] = {}  # conversation id -> tokens in context after its last reply
        self.held_answers: dict[int, str] = {}  # see WindowEvents
        self.panels: dict[str, QWidget] = {}
        self.dialogs: list[QWidget] = []  # open elicitation / sampling dialogs
        self.server_dialogs = ServerDialogs(self)
        self.model_ready = False
        self.quit_was_requested = False
        self.setWindowTitle("EdgeHost")
        self.setAcceptDrops(True)  # an MCPB bundle dropped on it installs (dropEvent)
        if icon is not None:
            self.setWindowIcon(icon)
        # As large as the screen allows, up to 1180×760. Its minimum is what its layout needs, under
        # 640×380: a 7-inch 800×480 panel holds it with a title bar and a taskbar.
        fits_screen(self, QSize(1180, 760))

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.setHandleWidth(1)
        splitter.addWidget(self._build_sidebar())
        splitter.addWidget(self._build_chat())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([260, 920])
        self.setCentralWidget(splitter)
        self._build_status_bar()
        self._build_actions()

        self._catalog_timer = QTimer(self)
        self._catalog_timer.setSingleShot(True)
        self._catalog_timer.setInterval(CATALOG_REFRESH_DELAY_MS)
        self._catalog_timer.timeout.connect(self._refresh_catalog_views)
        self.chat.show_placeholder(
            "Ask a question. EdgeHost answers with the local model and uses the tools "
            "of your MCP servers when it needs them."
        )

    # ------------------------------------------------------------------ layout
    def _build_sidebar(self) -> QWidget:
        sidebar = QFrame()
        sidebar.setObjectName("Sidebar")
        sidebar.setMinimumWidth(220)
        sidebar.setMaximumWidth(380)
        layout = QVBoxLayout(sidebar)
        layout.setContentsMargins(12, 14, 12, 12)
        layout.setSpacing(10)
        title = QLabel("EdgeHost")
        title.setObjectName("SidebarTitle")
        layout.addWidget(title)
        self.new_button = QPushButton("+  New chat")
        self.new_button.setObjectName("Primary")
        self.new_button.clicked.connect(self.new_chat)
        layout.addWidget(self.new_button)
        self.conversations = ConversationList(lambda: self._host)
        self.conversations.opened.connect(self.open_conversation)
        self.conversations.renamed.connect(self._renamed)
        self.conversations.deleted.connect(self._deleted)
        self.conversations.failed.connect(lambda message: self.chat.add_notice(message, error=True))
        layout.addWidget(self.conversations, 1)
        nav = QVBoxLayout()
        nav.setSpacing(2)
        self.nav_buttons: dict[str, QPushButton] = {}
        for key, label in (
            ("servers", "⛁   Servers"),
            ("tools", "⚒   Tools"),
            ("history", "☰   Tool history"),
            ("models", "⇩   Models"),
            ("settings", "⚙   Settings"),
        ):
            button = QPushButton(label)
            button.setObjectName("Nav")
            button.clicked.connect(lambda _c=False, k=key: self.open_panel(k))
            nav.addWidget(button)
            self.nav_buttons[key] = button
        layout.addLayout(nav)
        return sidebar

    def _build_chat(self) -> QWidget:
        area = QWidget()
        layout = QVBoxLayout(area)
        layout.setContentsMargins(0, 0, 0, 12)
        layout.setSpacing(8)
        header = QHBoxLayout()
        header.setContentsMargins(24, 12, 24, 0)
        self.title = ElidedLabel("New conversation")  # a long question's title is cut, not the window
        self.title.setObjectName("SectionTitle")
        header.addWidget(self.title, 1)
        from edgehost.ui.routing_switch import RoutingSwitch

        self.routing_switch = RoutingSwitch()
        header.addWidget(self.routing_switch)
        layout.addLayout(header)
        from edgehost.ui.model_hint import ModelHint

        self.model_hint = ModelHint()
        self.model_hint.download_requested.connect(self._download_suggested)
        self.model_hint.dismissed.connect(lambda: self.host.update_settings({"model_hint_dismissed": True}))
        hint_row = QHBoxLayout()
        hint_row.setContentsMargins(24, 0, 24, 0)
        hint_row.addWidget(self.model_hint)
        layout.addLayout(hint_row)
        self.chat = ChatView()
        self.chat.regenerate_requested.connect(self.regenerate)
        layout.addWidget(self.chat, 1)
        holder = QHBoxLayout()
        holder.setContentsMargins(24, 0, 24, 0)
        self.composer = Composer()
        self.composer.setMaximumWidth(900)
        self.composer.send_requested.connect(self.send)
        self.composer.draft_changed.connect(self._anticipate)
        self.composer.stop_requested.connect(self.stop)
        self.composer.palette_requested.connect(lambda: self.composer_actions.show_palette())
        self.composer.attach_requested.connect(lambda: self.composer_actions.show_resources())
        holder.addWidget(self.composer)
        layout.addLayout(holder)
        return area

    def _build_status_bar(self) -> None:
        self.status = StatusLine(
            self.statusBar(), self.settings.backend, self.switch_backend, lambda: self.open_panel("servers")
        )

    def _build_actions(self) -> None:
        for shortcut, slot in (
            (QKeySequence.StandardKey.New, self.new_chat),
            (QKeySequence("Ctrl+K"), lambda: self.conversations.search.setFocus()),
            (QKeySequence("Ctrl+,"), lambda: self.open_panel("settings")),
            (QKeySequence("Ctrl+Q"), self.quit_requested.emit),
            (QKeySequence("Ctrl+L"), lambda: self.composer.edit.setFocus()),
        ):
            action = QAction(self)
            action.setShortcut(shortcut)
            action.triggered.connect(slot)
            self.addAction(action)

    @property
    def current_id(self) -> int | None:
        """The conversation shown (None: a new one, not yet asked); the list keeps it selected."""
        return self.conversations.current_id

    @current_id.setter
    def current_id(self, conversation_id: int | None) -> None:
        self.conversations.current_id = conversation_id

    @property
    def host(self) -> Host:
        """The Host this window drives; RuntimeError before attach()."""
        if self._host is None:
            raise RuntimeError("the window is not attached to a host yet")
        return self._host

    def attach(self, host: Host, bridge: HostBridge) -> None:
        """Drive ``host`` and follow its events (called once, after the window is shown)."""
        from edgehost.ui.approval import ApprovalWindow

        self._host = host
        self.bridge = bridge
        self.approvals = ApprovalWindow(self._resolve_approval, self.settings.approval_timeout_s, self)
        self.composer_actions = ComposerActions(self)
        bridge.conversations_changed.connect(self.conversations.refresh_soon)
        self.follow(bridge)
        self.routing_switch.show_for(host, self.current_id)

    # ------------------------------------------------------------ conversations
    def new_chat(self) -> None:
        self.current_id = None
        self.title.setText("New conversation")
        self.routing_switch.show_for(self.host, None)
        self.show_context()
        self.status.show_speed(0)
        self.conversations.select(None)
        self.chat.show_placeholder(
            "Ask a question. EdgeHost answers with the local model and uses the tools "
            "of your MCP servers when it needs them."
        )
        self.composer.edit.setFocus()

    def open_conversation(self, conversation_id: int) -> None:
        """Show a stored conversation: its messages and tool cards in the order they happened."""
        from edgehost.host.history_view import Question, ToolRun
        from edgehost.ui.view_links import offer_view

        view = self.host.history.conversation(conversation_id) if self.host.started else None
        if view is None:
            return
        self.current_id = conversation_id
        self.title.setText(view.conversation.title)
        self.routing_switch.show_for(self.host, conversation_id)
        self.chat.clear()
        for entry in view.entries:
            if isinstance(entry, ToolRun):
                run = entry.execution
                card = self.chat.tool_card(f"history-{run.id}", run.tool, run.arguments, run.server)
                card.finish(run.status, run.result or "", run.duration_ms, run.error)
                if run.chosen_by:
                    card.set_chosen_by(run.chosen_by)
                offer_view(self, card, run.tool, run.chosen_by)
            elif isinstance(entry, Question):
                self.chat.add_user(entry.text, entry.attachments)
            elif entry.text:
                self.chat.append_text(entry.text)
        if view.last_question is not None:
            self.last_user_text[conversation_id] = view.last_question
        last = view.last_perf  # of the last answer: its stats under it, its context in the meter
        self.chat.end_answer(perf_summary(last), can_regenerate=True)
        if last.context_tokens:
            self.context_used[conversation_id] = last.context_tokens
        self.show_context()
        self.status.show_speed(last.tokens_per_second)
        if self.turn_conversation == conversation_id:
            self.chat.end_answer("", can_regenerate=False)
        self.conversations.select(conversation_id)
        self.chat.scroll_to_end()
        self.show_window()

    def _renamed(self, conversation_id: int, title: str) -> None:
        if conversation_id == self.current_id:
            self.title.setText(title)

    def _deleted(self, conversation_id: int) -> None:
        if conversation_id == self.current_id:
            self.new_chat()

    # -------------------------------------------------------------------- turns
    def send(self, text: str) -> None:
        if self.turn_task is not None and not self.turn_task.done():
            return
        if self._host is None or not self._host.started:
            self.chat.add_notice("EdgeHost is still starting; try again in a moment.", error=True)
            return
        if self.current_id is None:
            from edgehost.host.conversation_commands import (
                conversation_title,  # loaded with the host, which has started
            )

            self.current_id = self.host.new_conversation(text)
            self.routing_switch.apply_to(self.current_id)
            self.title.setText(conversation_title(text))
            self.chat.clear()
        pinned = self.composer.pinned_tool
        attachments = list(self.composer.attachments)
        self.composer.clear_after_send()
        self.start_turn(self.current_id, text, pinned, attachments)

    def _anticipate(self, draft: str) -> None:
        if self._host is not None and self._host.started:
            self._host.anticipate(draft)

    def start_turn(
        self,
        conversation_id: int,
        text: str,
        pinned: str | None = None,
        attachments: Sequence[AttachedResource] = (),
    ) -> asyncio.Task[Any]:
        """Send ``text`` with ``attachments`` (shown by name, as a reopened conversation shows them)."""
        from edgehost.host.attachments import attachment_text

        self.last_user_text[conversation_id] = text
        if conversation_id == self.current_id:
            self.chat.add_user(text, attachments)
            self.chat.show_thinking()
            self.status.show_speed(0)  # the last reply's speed is not this one's
        kwargs: dict[str, Any] = {}
        if pinned:
            kwargs["pinned_tool"] = pinned
        if attachments:
            kwargs["attachments"] = [attachment_text(a.uri, a.text) for a in attachments]
        return self._track_turn(conversation_id, self.host.start_turn(text, conversation_id, **kwargs))

    def _track_turn(self, conversation_id: int, task: asyncio.Task[Any]) -> asyncio.Task[Any]:
        self.turn_conversation = conversation_id
        self.composer.set_busy(True)
        self.turn_task = task
        task.add_done_callback(self._turn_task_done)
        self.conversations.refresh_soon()
        return task

    def _turn_task_done(self, task: asyncio.Task[Any]) -> None:
        self.composer.set_busy(False)
        if not task.cancelled() and task.exception() is not None:
            log.error("turn failed", exc_info=task.exception())
            self.chat.add_notice(f"The turn failed: {task.exception()}", error=True)

    def stop(self) -> None:
        self.tasks.spawn(self.host.cancel(), name="cancel-turn")

    def regenerate(self) -> None:
        """Answer the last question of this conversation again, in place of the last answer."""
        if self.current_id is None or (self.turn_task is not None and not self.turn_task.done()):
            return
        if self.current_id not in self.last_user_text:
            return
        self.chat.add_notice("Answering again; the model no longer sees the answer above.")
        self._track_turn(self.current_id, self.host.start_regenerate(self.current_id))

    # ------------------------------------------------------------ status line
    def show_context(self) -> None:
        """The meter: how much of the model's context the conversation on screen fills, as of its
        last reply (0 for a new one); nothing while no model is loaded."""
        used = self.context_used.get(self.current_id, 0) if self.current_id is not None else 0
        self.status.show_context(used, self.host.context_size)

    def _download_suggested(self, name: str) -> None:
        self.host.download_model(name)
        self.open_panel("models")  # where the progress shows

    # --------------------------------------------------------------- approvals
    def _resolve_approval(self, request_id: str, decision: Any) -> bool:
        return bool(self.host.resolve_approval(request_id, decision))

    # ---------------------------------------------------------------- panels
    def panel(self, key: str) -> QWidget:
        """The panel ``key`` (servers, tools, history, models, settings), made on first use."""
        panel = self.panels.get(key)
        if panel is None:
            from edgehost.ui.panels import build_panel

            panel = self.panels[key] = build_panel(self, key)
        return panel

    def open_panel(self, key: str) -> QWidget:
        panel = self.panel(key)
        refresh = getattr(panel, "refresh", None)
        if callable(refresh):
            refresh()
        panel.show()
        panel.raise_()
        panel.activateWindow()
        return panel

    def settings_saved(self, changed: set[str]) -> None:
        from edgehost.host.host import MODEL_SETTINGS  # with the core: not before the first frame

        if "theme" in changed:
            from PySide6.QtWidgets import QApplication

            from edgehost.ui.theme import apply_theme

            app = QApplication.instance()
            if isinstance(app, QApplication):
                apply_theme(app, self.host.settings.theme)
        if "approval_timeout_s" in changed:
            self.approvals.set_timeout(self.host.settings.approval_timeout_s)
        if "backend" in changed:
            self.status.backend_switch.set_backend(self.host.settings.backend)
        if changed & MODEL_SETTINGS:
            self.reload_model()

    def switch_backend(self, backend: str) -> None:
        if backend == self.host.settings.backend:
            return
        self.host.update_settings({"backend": backend})
        self.reload_model()

    def reload_model(self) -> None:
        """Load the model the settings name (after a turn in progress ends); the chat stays."""
        settings = self.settings
        self.tasks.spawn(self.host.switch_model(settings.backend, settings.model), name="switch-model")

    # ---------------------------------------------------------------- window
    def show_window(self) -> None:
        self.show()
        if self.isMinimized():
            self.showNormal()
        self.raise_()
        self.activateWindow()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        from edgehost.ui.bundle_dialog import bundle_files  # only when something is dragged in

        if bundle_files(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """An MCPB bundle dropped on the window opens its install dialog over the Servers panel."""
        from edgehost.ui.bundle_dialog import bundle_files

        files = bundle_files(event.mimeData())
        if not files:
            return
        event.acceptProposedAction()
        panel = self.open_panel("servers")
        panel.open_bundle_file(files[0])  # type: ignore[attr-defined]

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.settings.close_to_tray and self.can_hide_to_tray():
            event.ignore()
            self.hide()
            return
        event.accept()
        self.quit_was_requested = True  # the app may still be starting: it checks this once it listens
        self.quit_requested.emit()
