"""Run by test_board_screens.py in a process of its own, on Qt's offscreen platform with one screen of
the size given (QT_QPA_PLATFORM=offscreen:configfile=…): opens the whole app on a scripted model and the
built-in servers, then each window, panel and dialog in turn, and prints what does not fit the screen
as one JSON line after REPORT.

    QT_QPA_PLATFORM=offscreen:configfile=screens.json python -m tests.ui.board_screen_check [--shots DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import mcp_types as types
from PySide6.QtCore import QEvent, QPoint, QRect
from PySide6.QtWidgets import QAbstractButton, QApplication, QPushButton, QScrollArea, QWidget
from tests.registry_standin import FILESYSTEM, TIME, WEATHER, StandInRegistry
from tests.ui.conftest import STEP_S, finished, opened_desktop, wait_until

from edgehost.agent.approval import ApprovalRequest
from edgehost.host import events as ev
from edgehost.ui._screen import DECORATIONS
from edgehost.ui._waiting import expect
from edgehost.ui.app import Desktop
from edgehost.ui.servers_panel import ServersPanel

MARKER = "REPORT "
QUESTION = "How is the board doing? Memory, temperatures and the NPU's load, please, in a table."
REPLIES = [
    '[TOOL_CALL]{"name": "board__memory_usage", "arguments": {}}[END_TOOL_CALL]',
    "| sensor | value |\n|---|---|\n| memory in use | 38 % of 7.7 GB |\n| SoC | 46.2 °C |\n| NPU | idle |",
]
LONG_MODEL = "Qwen2.5-1.5B-Instruct-rk3588-w8a8-opt-1-hybrid-ratio-0.5.rkllm"
LONG_ANSWER = "\n\n".join(
    f"{n}. The RK3588 has a 6 TOPS NPU in three cores; this line is here to make the answer long."
    for n in range(1, 40)
)
FORM = {  # more fields than a 7-inch screen shows at once
    "type": "object",
    "properties": {
        **{f"field_{n}": {"type": "string", "title": f"Field number {n}"} for n in range(1, 13)},
        "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
        "detail": {"type": "string", "enum": ["short", "long"], "default": "long"},
        "metric": {"type": "boolean", "title": "Use metric units in the answer", "default": True},
    },
    "required": ["field_1"],
}


BUNDLE_MANIFEST = {  # a bundle with a long description and more options than a 7-inch screen shows at once
    "manifest_version": "0.3",
    "name": "weather-station",
    "display_name": "Weather station with a rather long name for a small screen",
    "version": "2.4.1",
    "description": "Reads the weather station on the balcony and the forecast for the town. " * 3,
    "author": {"name": "Example Weather Services"},
    "server": {
        "type": "node",
        "entry_point": "server/index.js",
        "mcp_config": {"command": "node", "args": ["${__dirname}/server/index.js"]},
    },
    "user_config": {
        "api_key": {
            "type": "string",
            "title": "API key",
            "description": "Your key",
            "sensitive": True,
            "required": True,
        },
        **{
            f"station_{n}": {
                "type": "string",
                "title": f"Station {n}",
                "description": f"The name of station {n}",
            }
            for n in range(1, 9)
        },
        "units": {"type": "boolean", "title": "Metric units", "description": "°C and km/h", "default": True},
    },
}


def approval_request() -> ApprovalRequest:
    return ApprovalRequest(
        id="screen-check",
        conversation_id=None,
        server="files",
        tool="files__write_file",
        arguments={
            "path": "notes/board.md",
            "content": "\n".join(f"line {n} of the note" for n in range(40)),
        },
        risk="caution",
        reasons=("it writes files", "the name says it changes things"),
        allowed_scopes=("once", "conversation", "always"),
        description="Create a new file or completely overwrite an existing file with new content. " * 6,
        asked_from="the web page (192.168.1.20)",
    )


def sampling_request() -> ApprovalRequest:
    messages = [{"role": "user", "content": "Summarise this log:\n" + "error: disk full\n" * 60}]
    return ApprovalRequest(
        id="screen-check-sampling",
        conversation_id=None,
        server="summariser",
        tool="sampling",
        arguments={"request": messages, "draft": "The disk is full.\n" * 30},
        risk="caution",
        reasons=(),
        allowed_scopes=("once",),
    )


# The buttons of each panel that are in view without scrolling.
PANEL_ACTIONS: dict[str, Callable[[Any], list[QAbstractButton]]] = {
    "servers": lambda p: [p.add_button, p.edit_button, p.remove_button, p.import_button, p.restart_button],
    "tools": lambda _p: [],
    "history": lambda p: [p.export_json, p.export_csv, p.jump],
    "models": lambda p: [p.pull_button],  # the catalog's Download buttons scroll with the list
    "settings": lambda p: _buttons(p, "Save", "Cancel"),
}


class Checker:
    def __init__(self, shots: Path | None) -> None:
        self.shots = shots
        self.windows: dict[str, list[str]] = {}

    async def check(self, name: str, window: QWidget, actions: Iterable[QAbstractButton] = ()) -> None:
        """What keeps ``window`` from fitting its screen or a button of it from being reached; its
        ``actions`` must be in view without scrolling."""
        await shown(window)
        if self.shots is not None:
            window.grab().save(str(self.shots / f"{name}.png"))
        self.windows[name] = problems(window, list(actions))


async def shown(window: QWidget) -> None:
    """Until ``window`` is on the screen and laid out (its layout requests delivered)."""
    await wait_until(lambda: window.isVisible() and window.windowHandle() is not None)
    await wait_until(lambda: window.windowHandle().isExposed())
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)


def problems(window: QWidget, actions: list[QAbstractButton]) -> list[str]:
    found: list[str] = []
    available = window.screen().availableGeometry()
    frame = window.frameGeometry()
    if not available.contains(frame):
        found.append(f"the window {_rect(frame)} is not within the screen's available {_rect(available)}")
    decorated = frame.size() != window.size()
    if decorated and (
        window.width() + DECORATIONS.width() > available.width()
        or window.height() + DECORATIONS.height() > available.height()
    ):
        found.append(f"{window.width()}×{window.height()} leaves no room for a title bar")
    needs = window.minimumSizeHint()
    if needs.width() > window.width() or needs.height() > window.height():
        found.append(f"its layout needs {needs.width()}×{needs.height()}: squeezed")
    for area in window.findChildren(QScrollArea):
        content = area.widget()
        if area.isVisibleTo(window) and content is not None and content.width() > area.viewport().width():
            found.append(f"the content of {type(area).__name__} is wider than it: cut, or scrolled sideways")
    for button in actions:
        if not button.isVisibleTo(window):
            found.append(f"{_name(button)} is not shown")
        elif _scroll_area(button, window) is not None:
            found.append(f"{_name(button)} scrolls with the content")
    for button in window.findChildren(QAbstractButton):
        if not button.isVisibleTo(window):
            continue
        area = _scroll_area(button, window)
        if area is not None and button not in actions:
            area.ensureWidgetVisible(button)  # reached by scrolling
        found += _unreachable(button, window, available)
    return found


def _unreachable(button: QAbstractButton, window: QWidget, available: QRect) -> list[str]:
    place = QRect(button.mapToGlobal(QPoint(0, 0)), button.size())
    shown = button.visibleRegion().boundingRect()
    found = []
    if not available.contains(place):
        found.append(f"{_name(button)} at {_rect(place)} is off the screen")
    if shown.size() != button.size():
        found.append(f"{_name(button)} shows {_rect(shown)} of {button.width()}×{button.height()}")
    wanted = button.minimumSizeHint()
    if button.width() < wanted.width() or button.height() < wanted.height():
        found.append(f"{_name(button)} is squeezed to {button.width()}×{button.height()}")
    return found


def _scroll_area(widget: QWidget, window: QWidget) -> QScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        if isinstance(parent, QScrollArea):
            return parent
        parent = parent.parentWidget()
    return None


def _buttons(window: QWidget, *texts: str) -> list[QAbstractButton]:
    return [b for b in window.findChildren(QPushButton) if b.text() in texts]


def _name(button: QAbstractButton) -> str:
    return f"{type(button).__name__} “{button.text() or button.toolTip()}”"


def _rect(rect: QRect) -> str:
    return f"{rect.width()}×{rect.height()} at {rect.x()},{rect.y()}"


async def check_server_sources(panel: ServersPanel, checker: Checker) -> None:
    """The registry's dialog with an entry open (a secret, a choice), and a bundle's with its options."""
    panel.open_registry()
    registry = panel.registry_dialog
    assert registry is not None
    await wait_until(lambda: registry.results.count() > 0)
    registry.results.setCurrentRow(registry.results.count() - 1)  # the weather server: a secret, a choice
    await checker.check("registry", registry, [registry.search_button, registry.add_button])
    registry.reject()
    with tempfile.TemporaryDirectory(prefix="edgehost-bundle-") as folder:
        bundle = Path(folder) / "weather.mcpb"
        with zipfile.ZipFile(bundle, "w") as archive:
            archive.writestr("manifest.json", json.dumps(BUNDLE_MANIFEST))
        panel.open_bundle_file(str(bundle))
    dialog = panel.bundle_dialog
    assert dialog is not None
    await wait_until(lambda: dialog.form is not None)  # its options, read off the window's thread
    await checker.check("bundle", dialog, [dialog.add_button])
    dialog.reject()


async def check_everything(desktop: Desktop, checker: Checker) -> dict[str, Any]:
    window = desktop.window
    window.send(QUESTION)  # a conversation whose title is longer than the window is wide
    await finished(window.turn_task)
    await checker.check("main", window, [window.composer.send_button, *window.nav_buttons.values()])
    window.status.show_model(ev.ModelStatusChanged("ready", "rkllm", LONG_MODEL))
    window.status.show_speed(12.3)
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    status = window.status.model_label
    placeholder = window.composer.edit.placeholderText()
    report: dict[str, Any] = {
        "main_minimum": [window.minimumSize().width(), window.minimumSize().height()],
        "status_text": status.text(),
        "status_fits": status.fontMetrics().horizontalAdvance(status.text()) <= status.contentsRect().width(),
        "status_tooltip": status.toolTip(),
        "placeholder": placeholder,
        "placeholder_fits": window.composer.edit.fontMetrics().horizontalAdvance(placeholder)
        <= window.composer.edit.viewport().width(),
    }

    for key, panel_actions in PANEL_ACTIONS.items():
        panel = window.open_panel(key)
        actions = panel_actions(panel)
        if key == "models":  # its list's rows load in the background
            await wait_until(lambda p=panel: p.rows)  # type: ignore[misc]
        await checker.check(key, panel, actions)
        if isinstance(panel, ServersPanel):
            panel._open_form(None)
            assert panel.form is not None
            await checker.check("server-form", panel.form, _buttons(panel.form, "Save", "Cancel"))
            panel.form.reject()
            await check_server_sources(panel, checker)
        panel.hide()

    approvals = window.approvals
    approvals.add_request(approval_request())
    await checker.check(
        "approval",
        approvals,
        [
            approvals.deny_button,
            approvals.always_button,
            approvals.conversation_button,
            approvals.once_button,
        ],
    )
    approvals.drop_request("screen-check")

    opened = expect(window.dialog_opened)
    params = types.ElicitRequestFormParams(
        message="The weather server needs a few answers. " * 4, requested_schema=FORM
    )
    answer = asyncio.ensure_future(window.server_dialogs.elicit("weather", params))
    (form,) = await opened.wait(STEP_S)
    await checker.check("elicitation", form, [form.cancel_button, form.decline_button, form.accept_button])
    form.answer("cancel")
    await asyncio.wait_for(answer, STEP_S)

    opened = expect(window.dialog_opened)
    window.server_dialogs.open_sampling(sampling_request(), lambda _id, _decision: True)
    (sampling,) = await opened.wait(STEP_S)
    await checker.check("sampling", sampling, [sampling.reject_button, sampling.approve_button])
    sampling.close_unanswered()

    actions = window.composer_actions
    actions.show_palette()
    await checker.check("tool-picker", actions.palette)
    report["tool_picker_rows"] = actions.palette.list.viewport().height() // max(
        actions.palette.list.sizeHintForRow(0), 1
    )
    actions.palette.hide()

    quick = desktop.quick_ask
    quick.present()
    await finished(quick.ask("What NPU does the RK3588 have?"))
    await checker.check("quick-ask", quick, [quick.continue_button])
    quick.hide()
    report["windows"] = checker.windows
    return report


async def main(shots: Path | None) -> dict[str, Any]:
    checker = Checker(shots)
    registry = StandInRegistry()
    for server in (FILESYSTEM, TIME, {**WEATHER, "name": "io.github.zz/weather"}):
        registry.add(server)
    os.environ["EDGEHOST_REGISTRY_URL"] = registry.start().url
    with tempfile.TemporaryDirectory(prefix="edgehost-screen-") as folder:
        async with opened_desktop(Path(folder), [*REPLIES, LONG_ANSWER]) as desktop:
            screen = desktop.window.screen().availableGeometry()
            report = await check_everything(desktop, checker)
            report["available"] = [screen.width(), screen.height()]
            return report


def run(shots: Path | None, report: Callable[[dict[str, Any]], None]) -> None:
    import qasync

    from edgehost.ui._gc import GuiThreadCollector
    from edgehost.ui.theme import apply_theme

    app = QApplication([sys.argv[0]])
    apply_theme(app, "light")
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    collector = GuiThreadCollector()
    with loop:
        report(loop.run_until_complete(asyncio.wait_for(main(shots), 120)))
    collector.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--shots", type=Path, help="save a picture of each window there")
    args = parser.parse_args()
    if args.shots is not None:
        args.shots.mkdir(parents=True, exist_ok=True)
    run(args.shots, lambda report: print(MARKER + json.dumps(report), flush=True))
