"""`edgehost` without a command: the desktop app on PySide6 + qasync.

The window is shown first (unless --hidden starts the app in the tray), then the host starts (servers
concurrently, the model in the background). One instance per user and data folder; a second start raises
the window or toggles quick-ask.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from edgehost.paths import shipped_dir

if TYPE_CHECKING:
    from edgehost.paths import Paths
    from edgehost.settings import Settings

__all__ = ["Desktop", "Launch", "app_icon", "event_loop", "load_core", "run_app", "starts_in_tray"]

log = logging.getLogger(__name__)
# asyncio, qasync and the core are imported inside the functions that use them: `edgehost` shows its
# window before any of them is loaded.


def app_icon(tray: bool = False) -> Any:
    from PySide6.QtGui import QIcon

    icons = shipped_dir("resources") / "icons"
    icon = QIcon()
    if tray:
        for size in (16, 22, 24, 32):
            icon.addFile(str(icons / f"edgehost-tray-{size}.png"))
    else:
        for size in (16, 24, 32, 48, 64, 128, 256):
            icon.addFile(str(icons / f"edgehost-{size}.png"))
    return icon


def starts_in_tray(hidden: bool, tray_available: bool) -> bool:
    """Whether a start asked to be ``hidden`` keeps the window closed: only with a system tray to
    reopen it from (otherwise the app would run with nothing on screen). Logs why it does not."""
    if hidden and not tray_available:
        log.warning("started with --hidden, but there is no system tray: showing the window instead")
    return hidden and tray_available


@dataclass(frozen=True)
class Launch:
    """How the desktop app was asked to start (the command line's options, read by the CLI)."""

    paths: Paths
    settings: Settings
    profile_override: str | None = None
    quick_ask: bool = False
    hidden: bool = False
    self_test: bool = False
    verbose: bool = False
    # Another face served by the same Host while the window runs (the CLI's `--web`): called with the
    # started Host, entered until the app quits.
    beside: Callable[[Any], contextlib.AbstractAsyncContextManager[Any]] | None = None


def run_app(ctx: Launch) -> int:
    """Run the desktop app until the user quits; returns the exit code."""
    if ctx.self_test:
        from edgehost.ui.self_test import run_self_test

        with app_logging(ctx):
            return run_self_test(ctx.settings.model, ctx.profile_override)
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication, QSystemTrayIcon

    from edgehost.ui._pyside_imports import read_sources_uncached

    read_sources_uncached()  # before the rest is imported (load_core does it for other faces)
    from edgehost.ui._instance import instance_name, send_to_running
    from edgehost.ui.main_window import MainWindow
    from edgehost.ui.theme import apply_theme

    settings = ctx.settings
    with explained_platform_failure():
        app = QApplication.instance() or QApplication([sys.argv[0], *_qt_args()])
    assert isinstance(app, QApplication)
    name = instance_name(ctx.paths)
    quick_ask = ctx.quick_ask
    hidden = ctx.hidden and not quick_ask
    if send_to_running(name, "quick-ask" if quick_ask else "show"):
        return 0
    app.setApplicationName("EdgeHost")
    app.setDesktopFileName("edgehost")
    app.setQuitOnLastWindowClosed(False)
    app.setWindowIcon(app_icon())
    apply_theme(app, settings.theme)
    # The window first: the host, the MCP SDK and the model are imported and started after it is up.
    window = MainWindow(settings, app_icon())
    tray_available = QSystemTrayIcon.isSystemTrayAvailable()
    if not quick_ask and not (hidden and tray_available):
        window.show_window()
        # Paint it now: the rest of the start (logging, asyncio and qasync, then the core importing in a
        # thread that holds the GIL in long pieces) delayed the first frame ~30 ms after this point.
        # Input waits: nothing is attached to handle it yet.
        app.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    with app_logging(ctx):
        hidden = starts_in_tray(hidden, tray_available)  # after the logging set-up: it may log why
        loop = event_loop(app)

        async def main() -> int:
            await load_core()
            from edgehost.host.options import HostOptions

            desktop = Desktop(
                ctx.paths, settings, HostOptions(), ctx.profile_override, instance=name, window=window
            )
            with quit_on_signals(desktop.quit):
                return await desktop.run(quick_ask=quick_ask, hidden=hidden, beside=ctx.beside)

        from edgehost.ui._gc import GuiThreadCollector

        collector = GuiThreadCollector(app)
        try:
            with loop:
                return int(loop.run_until_complete(main()))
        finally:
            collector.stop()


@contextlib.contextmanager
def app_logging(ctx: Launch) -> Iterator[None]:
    """The app's log file and terminal output (``edgehost.logs``) while the block runs.

    Set up here rather than by the CLI, once the window is shown: logging.handlers and what it imports
    held the window ~10 ms. Nothing run_app does before it logs a record. Raises nothing itself.
    """
    from edgehost.logs import configure_logging

    logs = configure_logging(ctx.paths, verbose=ctx.verbose)
    try:
        yield
    finally:
        logs.close()


# How long a thread that wants the GIL waits before the one running Python must hand it over
# (Python's default: 5 ms). The window's thread needs it back after each Qt call and each wait: while a
# built-in server's thread or the core's import thread runs Python, a few such waits in one frame
# made a 30-50 ms stall (bench/ui_stall.py).
GUI_SWITCH_INTERVAL_S = 0.001


def event_loop(app: Any) -> Any:
    """A qasync loop on ``app`` (the QApplication), made the current asyncio loop, with the GIL handed
    over every GUI_SWITCH_INTERVAL_S.

    On Python < 3.12 the servers' processes are then watched through pidfds on this loop, which 3.12
    does by default: 3.10/3.11 start a thread per child process and block the loop until it runs,
    20-30 ms per server start on a busy CPU.
    """
    import asyncio

    import qasync

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    if sys.version_info < (3, 12) and _can_use_pidfd():
        watcher = asyncio.PidfdChildWatcher()
        asyncio.set_child_watcher(watcher)
        watcher.attach_loop(loop)
    return loop


def _can_use_pidfd() -> bool:
    """Linux 5.3 or later (asyncio's own test for its pidfd child watcher)."""
    if not hasattr(os, "pidfd_open"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:
        return False
    return True


# The core's imports (the MCP SDK builds hundreds of pydantic models) take about a second on a board.
CORE_MODULES = (
    "edgehost.host.host",
    "edgehost.mcp.client_features",
    "edgehost.mcp.manager",
    "edgehost.boards",
    "edgehost.ui.quick_ask",
    "edgehost.ui.tray",
    # The built-in servers, built on threads of their own as the host starts: imported here, their
    # modules are frozen with the rest instead of filling the collector's view then.
    "edgehost.servers.board",
    "edgehost.servers.files",
    # What the servers' first connections use (anyio's subprocess and stream support).
    "anyio._backends._asyncio",
    "anyio._core._subprocesses",
    "anyio.streams.stapled",
)


async def load_core() -> None:
    """Import the core in a thread while the window stays live (the GIL is handed back to the GUI
    thread every few milliseconds, so it keeps painting and answering input).

    The cyclic garbage collector is paused meanwhile, and what the import made is then frozen
    (gc.freeze) out of its view: a full collection holds the GIL throughout, and over the core's
    ~80,000 long-lived objects one took 40-100 ms, a visible freeze of the window, during the import
    and again later in the first answers.
    """
    import asyncio
    import gc

    from edgehost.ui._gc import collection_paused
    from edgehost.ui._pyside_imports import read_sources_uncached

    read_sources_uncached()  # PySide's import hook kept the source of every module imported: 22 MB
    with collection_paused():
        try:
            await asyncio.to_thread(lambda: [importlib.import_module(name) for name in CORE_MODULES])
        finally:
            gc.freeze()


@contextlib.contextmanager
def quit_on_signals(quit_app: Callable[[], None]) -> Iterator[None]:
    """SIGTERM and SIGINT quit cleanly (servers and the model worker stopped, nothing lost).

    Python runs signal handlers only between bytecodes, and an idle Qt loop runs none: the signal's
    byte on a wakeup socket wakes a QSocketNotifier instead, at no idle cost.
    """
    import signal
    import socket

    from PySide6.QtCore import QSocketNotifier

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    previous_fd = signal.set_wakeup_fd(writer.fileno())
    handlers = {sig: signal.signal(sig, lambda *_args: None) for sig in (signal.SIGTERM, signal.SIGINT)}
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read)

    quitting = {signal.SIGTERM.value, signal.SIGINT.value}

    def woken() -> None:
        # Every signal with a Python handler writes its number here (SIGCHLD from the servers too).
        received = b""
        with contextlib.suppress(OSError):
            received = reader.recv(64)
        if quitting & set(received):
            quit_app()

    notifier.activated.connect(woken)
    try:
        yield
    finally:
        notifier.setEnabled(False)
        signal.set_wakeup_fd(previous_fd)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        reader.close()
        writer.close()


@contextlib.contextmanager
def explained_platform_failure() -> Iterator[None]:
    """While the QApplication is made: when Qt cannot open a window it aborts with its own words
    ("Could not load the Qt platform plugin "xcb""); say first what to install or do instead."""
    from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

    def explain(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
        category = context.category if context.category not in (None, "default") else None
        sys.stderr.write(f"{category}: {message}\n" if category else f"{message}\n")
        if kind == QtMsgType.QtFatalMsg:
            sys.stderr.write(f"EdgeHost: {platform_failure_hint()}\n")
            sys.stderr.flush()

    previous = qInstallMessageHandler(explain)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)


def platform_failure_hint() -> str:
    """What to do when Qt could not open a window here (missing X11 libraries, no display)."""
    from edgehost.boards.gui_platform import check_gui_platform, install_hint

    gui = check_gui_platform()
    parts = []
    if gui.display is None:
        parts.append(
            "there is no display to open the window on (no DISPLAY or WAYLAND_DISPLAY): use `edgehost chat`"
            " or `edgehost web` in a terminal, or start EdgeHost from the desktop session"
        )
    if gui.missing:
        needs = "the window also needs" if parts else "the window needs"
        parts.append(f"{needs} {', '.join(gui.missing)}: install them with `{install_hint(gui.packages)}`")
        if gui.display is not None:
            parts.append("`edgehost chat` works in a terminal meanwhile")
    if not parts:
        return "Qt could not open a window; `edgehost doctor` checks the platform, `edgehost chat` works meanwhile"
    return "; ".join(parts)


def _qt_args() -> list[str]:
    return ["-platform", "offscreen"] if os.environ.get("EDGEHOST_OFFSCREEN") else []


class Desktop:
    """Everything the app is made of, started and stopped together (also driven by tests and --self-test)."""

    def __init__(
        self,
        paths: Any,
        settings: Any,
        options: Any,
        profile_override: str | None = None,
        instance: str | None = None,
        window: Any = None,
    ) -> None:

        from edgehost.host.host import Host
        from edgehost.mcp.client_features import ClientFeatures
        from edgehost.ui._instance import InstanceServer
        from edgehost.ui.bridge import HostBridge
        from edgehost.ui.main_window import MainWindow
        from edgehost.ui.tray import Tray

        self.bridge = HostBridge()
        self.host = Host(paths, settings, options, profile_override)
        self.bridge.attach(self.host.subscribe)
        self.tray = Tray(app_icon(tray=True))
        self.window = window if window is not None else MainWindow(settings, app_icon())
        self.window.can_hide_to_tray = lambda: self.tray.available
        self.window.attach(self.host, self.bridge)
        self._quick_ask: Any = None
        # Elicitation is answered in the window's form; sampling by the Host's handler, whose approval
        # the window shows as a draft dialog.
        if options.features is None:
            options.features = ClientFeatures(elicitation=self.window.server_dialogs.elicit)
        self.instance = InstanceServer(instance) if instance else None
        import asyncio

        self._quit = asyncio.Event()
        self.start_error: str | None = None
        self.window.quit_requested.connect(self.quit)
        if self.window.quit_was_requested:  # closed while the core was still loading
            self.quit()
        self.tray.quit_requested.connect(self.quit)
        self.tray.show_requested.connect(self.window.show_window)
        self.tray.quick_ask_requested.connect(lambda: self.quick_ask.toggle())
        self.bridge.server_status_changed.connect(lambda _e: self._servers_changed())
        if self.instance is not None:
            self.instance.message_received.connect(self._on_message)

    @property
    def quick_ask(self) -> Any:
        """The quick-ask window, built when first asked for: building it at start-up held the event
        loop ~10 ms longer while the main window came up, for a window many sessions never open."""
        if self._quick_ask is None:
            from edgehost.ui.quick_ask import QuickAsk

            self._quick_ask = QuickAsk(self.host, self.bridge)
            self._quick_ask.continue_requested.connect(self.window.open_conversation)
            self._quick_ask.dismissed.connect(self._quick_ask_dismissed)
        return self._quick_ask

    def _quick_ask_dismissed(self) -> None:
        """Without a tray icon and the main window, a dismissed quick-ask would leave a process
        nobody can reach: quit."""
        if not self.window.isVisible() and not self.tray.available:
            log.info("quick-ask dismissed with no window and no tray icon: quitting")
            self.quit()

    async def start(self, quick_ask: bool = False, hidden: bool = False) -> None:
        """Show the window (or quick-ask; or nothing but the tray icon when ``hidden`` and there is a
        tray), then start the host; a start error is shown, not raised."""
        if self.instance is not None:
            self.instance.listen()
        if quick_ask:
            self.quick_ask.present()
        elif not starts_in_tray(hidden, self.tray.available):
            self.window.show_window()
        import asyncio

        await asyncio.sleep(0)  # let the window paint before servers and the model start
        try:
            await self.host.start()
        except Exception as exc:  # a broken config is shown in the window; the app stays usable
            log.exception("the host failed to start")
            self.start_error = str(exc)
            self.window.chat.add_notice(f"⚠ EdgeHost could not start: {exc}", error=True)
            # No model loads after this: the status bar says why instead of "Loading model…".
            from edgehost.host import events as ev

            self.window.status.show_model(ev.ModelStatusChanged("not started", "", "", str(exc)))
            if hidden:  # in the tray, the notice would go unseen
                self.window.show_window()
        for warning in self.host.profile_warnings:  # a profile the settings name that does not exist
            self.window.chat.add_notice(f"⚠ {warning.problem}. To fix it: {warning.hint}.", error=True)
        problem = self.host.servers_config.file_error
        if problem:
            self.window.chat.add_notice(
                f"⚠ The servers file could not be read, so only the built-in servers run: {problem}."
                " Open Servers to fix it.",
                error=True,
            )
        self.window.conversations.refresh()
        self._servers_changed()

    async def run(
        self,
        quick_ask: bool = False,
        hidden: bool = False,
        beside: Callable[[Any], contextlib.AbstractAsyncContextManager[Any]] | None = None,
    ) -> int:
        await self.start(quick_ask, hidden)
        try:
            async with contextlib.AsyncExitStack() as faces:
                if beside is not None and self.host.started:
                    try:
                        # The chat page beside the window: the tool cards' "Open the view" link to it.
                        self.window.page = await faces.enter_async_context(beside(self.host))
                    except Exception as exc:  # the window goes on without it
                        log.exception("the face beside the window did not start")
                        self.window.chat.add_notice(f"⚠ {exc}", error=True)
                await self.until_quit()
        finally:
            await self.aclose()
        return 0

    async def until_quit(self) -> None:
        """Return when the user quits (menu, tray, Ctrl+Q, last window closed without a tray, SIGTERM)."""
        await self._quit.wait()

    def quit(self) -> None:
        self._quit.set()

    async def aclose(self) -> None:
        """Stop the turn, servers and the model worker; close every window."""
        from edgehost.ui._widgets import TaskSet

        if self.instance is not None:
            self.instance.close()
        self.window.tasks.cancel_all()
        for panel in self.window.panels.values():  # a panel's catalog load or refresh still running
            if isinstance(tasks := getattr(panel, "tasks", None), TaskSet):
                tasks.cancel_all()
        try:
            await self.host.aclose()
        finally:
            self.bridge.detach()
            self.tray.close()
            if self._quick_ask is not None:
                self._quick_ask.close()
                self._quick_ask.deleteLater()
            self.window.approvals.hide()
            for panel in list(self.window.panels.values()):  # closing Settings takes it out of the dict
                panel.close()
            self.window.hide()
            self.window.deleteLater()

    def _servers_changed(self) -> None:
        states = self.host.server_states()
        self.tray.show_servers(states)
        self.window.refresh_servers()

    def _on_message(self, message: str) -> None:
        if message == "quick-ask":
            self.quick_ask.toggle()
        else:
            self.window.show_window()
