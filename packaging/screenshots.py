"""Screenshots of the desktop app for docs/screenshots/: the main window with a conversation holding
tool cards (light and dark), each panel, the approval dialog and the quick-ask window; then the start
with a servers file that has a syntax error (the window's notice and the servers panel); then the
suggestion of a better model and the Models page downloading it. With --screen 800x480 (a board's
7-inch panel), the whole screen instead, once for each window, panel and dialog as it opens there.

Runs the real app (real built-in servers, real history) on a scripted model and the tests' fake RK3588
board so the pictures are the same every time. Needs an X server: with no DISPLAY it starts Xvfb (Debian package `xvfb`).

    .venv/bin/python packaging/screenshots.py [--out docs/screenshots] [--screen 800x480]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SCREEN = (1600, 1000)
XVFB_START_S = 10.0  # Xvfb creates its socket within a second; a loaded CI runner may need more
SERVERS_READY_S = 60.0

REPLIES = [
    "I'll read the board's memory and temperatures first.\n"
    '[TOOL_CALL]{"name": "board__memory_usage", "arguments": {}}[END_TOOL_CALL]',
    '[TOOL_CALL]{"name": "board__temperatures", "arguments": {}}[END_TOOL_CALL]',
    "Here is how the board is doing:\n\n"
    "| sensor | value |\n|---|---|\n| memory in use | **38 %** of 7.7 GB |\n| SoC | 46.2 °C |\n| NPU | idle |\n\n"
    "Everything is within normal limits. To watch it live, run:\n\n```sh\nwatch -n1 edgehost call board__temperatures\n```\n\n"
    "<b>HTML from a model is shown as text</b>, and links such as [the RK3588 datasheet](https://example.com/rk3588) "
    "open only after you confirm the address.",
    'I will save the note.\n[TOOL_CALL]{"name": "files__write_file", "arguments": {"path": "notes/board.md", '
    '"content": "SoC at 46 °C, memory 38 % used."}}[END_TOOL_CALL]',
    "Saved to `notes/board.md`.",
    "The **RK3588** has a 6 TOPS NPU with three cores; RKLLM runs models such as Qwen2.5 1.5B at about "
    "15 tokens/s on it.",
]


def fake_board(root: Path) -> Path:
    """The board the pictures show, the tests' fake Orange Pi 5 Plus tree, with the readings the
    scripted answer quotes (the built-in board server reads it: a real machine's readings would not
    match the answer, and EdgeHost rightly replaces an answer its tool results do not support)."""
    sys.path.insert(0, str(REPO / "tests" / "fixtures" / "sysfs"))
    from fake_sysfs import build, rk3588_board

    zones = [("soc-thermal", 46200), ("bigcore0-thermal", 46900), ("npu-thermal", 44000)]
    return build(root, rk3588_board(thermal=zones, mem_total_kb=8074000, mem_available_kb=5006000))


def ensure_display(screen: tuple[int, int] | None) -> subprocess.Popen[bytes] | None:
    """Xvfb with a screen of that size (else SCREEN) when there is no DISPLAY, or when a size is asked
    for: a desktop's own display is not the board's."""
    if os.environ.get("DISPLAY") and screen is None:
        return None
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        sys.exit("screenshots: no DISPLAY and no Xvfb; install it with: apt-get install xvfb")
    for number in range(90, 110):
        if not Path(f"/tmp/.X11-unix/X{number}").exists():
            break
    display = f":{number}"
    process = subprocess.Popen(
        [xvfb, display, "-screen", "0", "{}x{}x24".format(*(screen or SCREEN)), "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + XVFB_START_S
    while not Path(f"/tmp/.X11-unix/X{number}").exists():
        if process.poll() is not None or time.monotonic() > deadline:
            sys.exit("screenshots: Xvfb did not start")
        time.sleep(0.05)
    os.environ["DISPLAY"] = display
    return process


async def done(task: Any, timeout: float = 60.0) -> Any:
    return await asyncio.wait_for(asyncio.shield(task), timeout)


async def settle(app: Any, seconds: float = 0.3) -> None:
    """Give the window manager-less X server time to lay out and paint (a picture, not a condition:
    there is no event for "looks finished"). processEvents inside a coroutine would re-enter the loop."""
    del app
    await asyncio.sleep(seconds)


async def capture(out: Path, theme: str, screen: tuple[int, int] | None = None) -> list[Path]:
    """The main pictures in ``theme``; on a ``screen`` of that size, of the whole screen (named
    board-WxH-…), with the server form, the tool picker and the Models page as well."""
    from PySide6.QtWidgets import QApplication

    from edgehost.host.options import HostOptions
    from edgehost.llm.scripted import ScriptedBackend
    from edgehost.paths import Paths
    from edgehost.settings import Settings
    from edgehost.ui._waiting import expect
    from edgehost.ui.app import Desktop
    from edgehost.ui.servers_panel import ServersPanel
    from edgehost.ui.theme import apply_theme
    from edgehost.ui.tools_panel import ToolsPanel

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, theme)
    suffix = "" if theme == "light" else "-dark"
    prefix = "board-{}x{}-".format(*screen) if screen else ""
    saved: list[Path] = []

    def grab(widget: Any, name: str) -> None:
        path = out / f"{prefix}{name}{suffix}.png"
        # On a board's screen, the screen: what fits it and what the window leaves of the one below.
        (app.primaryScreen().grabWindow(0) if screen else widget.grab()).save(str(path))
        saved.append(path)

    with tempfile.TemporaryDirectory(prefix="edgehost-shots-") as folder:
        paths = Paths.resolve(None, folder)
        (paths.files_root / "notes").mkdir(parents=True)
        settings = Settings(close_to_tray=False, theme=theme)
        desktop = Desktop(
            paths, settings, HostOptions(backend=ScriptedBackend(REPLIES, chunk_size=6, delay_s=0.04))
        )
        window = desktop.window
        if screen is None:
            window.resize(1280, 820)
        try:
            await desktop.start()
            if screen is not None:  # where a window manager puts it, below its title bar (drawn black)
                from edgehost.ui._screen import DECORATIONS

                border = DECORATIONS.width() // 2
                window.move(border, DECORATIONS.height() - border)
            await desktop.host.wait_servers_ready(SERVERS_READY_S)
            assert desktop.host.tools(), "the built-in servers listed no tools"
            for title in (
                "Plan the NPU benchmark",
                "Summarise /var/log/syslog errors",
                "Qwen vs Llama on 8 GB",
            ):
                desktop.host._store().create_conversation(title)
            window.send("How is the board doing? Memory and temperatures, please.")
            await done(window.turn_task)
            window.composer.set_text("Save a short note about it in notes/board.md")
            await settle(app)
            window.conversations.refresh()
            await settle(app, 0.5)
            grab(window, "main")

            asked = expect(desktop.bridge.approval_requested)
            window.send("Save a short note about it in notes/board.md")
            await asked.wait(60.0)
            await settle(app)
            grab(window.approvals, "approval")
            window.approvals.allow("once")
            await done(window.turn_task)

            for key in ("servers", "tools", "history", "settings", *(("models",) if screen else ())):
                panel = window.open_panel(key)
                if isinstance(panel, ToolsPanel):
                    panel.tree.expandAll()
                    first = panel.tree.topLevelItem(0)
                    tool = first.child(0) if first is not None else None
                    if tool is not None:
                        panel.tree.setCurrentItem(tool)
                await settle(app, 1.0 if key == "models" else 0.4)  # the catalog loads in the background
                grab(panel, key)
                if screen and isinstance(panel, ServersPanel):
                    panel._open_form(None)
                    assert panel.form is not None
                    await settle(app, 0.4)
                    grab(panel.form, "server-form")
                    panel.form.reject()
                panel.hide()

            if screen:
                window.composer_actions.show_palette()
                await settle(app, 0.4)
                grab(window.composer_actions.palette, "tool-picker")
                window.composer_actions.palette.hide()

            desktop.quick_ask.present()
            desktop.quick_ask.input.setText("What NPU does the RK3588 have?")
            desktop.quick_ask.ask()
            await done(desktop.quick_ask.task)
            await settle(app, 0.5)
            grab(desktop.quick_ask, "quick-ask")
        finally:
            await desktop.aclose()
    return saved


BROKEN_SERVERS_FILE = """{
  "mcpServers": {
    "weather": {"command": "uvx", "args": ["mcp-weather"]},
    "notes": {
      "command": "npx"
      "args": ["-y", "@modelcontextprotocol/server-memory"]
    }
  }
}
"""


async def capture_broken_servers_file(out: Path) -> list[Path]:
    """The app started on a servers file with a missing comma: built-in servers, model and history
    load, and the window and the servers panel say which line to fix."""
    from edgehost.host.options import HostOptions
    from edgehost.llm.scripted import ScriptedBackend
    from edgehost.paths import Paths
    from edgehost.settings import Settings
    from edgehost.ui.app import Desktop

    saved = []
    with tempfile.TemporaryDirectory(prefix="edgehost-shots-") as folder:
        paths = Paths.resolve(None, folder)
        paths.servers_file.parent.mkdir(parents=True, exist_ok=True)
        paths.servers_file.write_text(BROKEN_SERVERS_FILE, encoding="utf-8")
        desktop = Desktop(paths, Settings(close_to_tray=False), HostOptions(backend=ScriptedBackend([])))
        desktop.window.resize(1280, 820)
        try:
            await desktop.start()
            await desktop.host.wait_servers_ready(SERVERS_READY_S)
            await settle(None, 0.5)
            for widget, name in (
                (desktop.window, "broken-servers-file"),
                (desktop.window.open_panel("servers"), "broken-servers-file-panel"),
            ):
                await settle(None, 0.4)
                path = out / f"{name}.png"
                widget.grab().save(str(path))
                saved.append(path)
        finally:
            await desktop.aclose()
    return saved


async def capture_models(out: Path) -> list[Path]:
    """The first start on the embedded model (the window's suggestion), and the Models page with a
    model downloading from a local stand-in for the hub (tests/fake_hub.py) that serves the embedded
    model under the name of a catalog entry whose exact size the catalog does not pin."""
    sys.path.insert(0, str(REPO))
    from PySide6.QtWidgets import QApplication
    from tests.fake_hub import FakeHub

    from edgehost.host.options import HostOptions
    from edgehost.llm.default_model import default_model_path
    from edgehost.llm.scripted import ScriptedBackend
    from edgehost.paths import Paths
    from edgehost.settings import Settings
    from edgehost.ui.app import Desktop
    from edgehost.ui.theme import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, "light")
    hub = FakeHub(delay=0.05).start()
    saved = []
    with tempfile.TemporaryDirectory(prefix="edgehost-shots-") as folder:
        desktop = Desktop(
            Paths.resolve(None, folder),
            Settings(close_to_tray=False),
            HostOptions(backend=ScriptedBackend([]), hub_endpoint=hub.url),
        )
        desktop.window.resize(1280, 820)
        try:
            await desktop.start()
            _board, rows = await desktop.host.model_catalog()
            stand_in = next(r.entry for r in rows if r.fits and r.entry.size_bytes is None)
            hub.add(stand_in.repo, stand_in.file, default_model_path())
            await settle(None, 1.0)
            path = out / "model-suggestion.png"
            desktop.window.grab().save(str(path))
            saved.append(path)
            desktop.host.download_model(stand_in.name)
            panel = desktop.window.open_panel("models")
            panel.resize(820, 720)
            await settle(None, 3.0)
            path = out / "models-page.png"
            panel.grab().save(str(path))
            saved.append(path)
        finally:
            await desktop.aclose()
            hub.stop()
    return saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "screenshots"))
    parser.add_argument("--theme", choices=("light", "dark", "both"), default="both")
    parser.add_argument(
        "--screen",
        metavar="WIDTHxHEIGHT",
        help="a board's screen, e.g. 800x480: pictures of the whole screen, named board-800x480-*.png",
    )
    parser.add_argument(
        "--only",
        choices=("all", "main", "broken-servers-file", "models"),
        default="all",
        help="which pictures",
    )
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    screen = None
    if args.screen:
        width, _x, height = args.screen.lower().partition("x")
        if not (width.isdigit() and height.isdigit()):
            parser.error("--screen: WIDTHxHEIGHT, e.g. 800x480")
        screen = (int(width), int(height))
    xvfb = ensure_display(screen)
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    board = tempfile.TemporaryDirectory(prefix="edgehost-shots-board-")
    os.environ["EDGEHOST_SYSFS_ROOT"] = str(fake_board(Path(board.name)))
    try:
        import qasync
        from PySide6.QtWidgets import QApplication

        app = QApplication([sys.argv[0]])
        app.setApplicationName("EdgeHost")
        themes = ["light", "dark"] if args.theme == "both" else [args.theme]
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        saved: list[Path] = []
        with loop:
            if screen is not None:  # the board's pictures, in the light theme
                saved += loop.run_until_complete(capture(out, "light", screen))
            elif args.only in ("all", "main"):
                for theme in themes:
                    saved += loop.run_until_complete(capture(out, theme))
            if screen is None and args.only in ("all", "broken-servers-file"):
                saved += loop.run_until_complete(capture_broken_servers_file(out))
            if screen is None and args.only in ("all", "models"):
                saved += loop.run_until_complete(capture_models(out))
        for path in saved:
            print(f"wrote {path}")
        return 0
    finally:
        board.cleanup()
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(5)


if __name__ == "__main__":
    sys.exit(main())
