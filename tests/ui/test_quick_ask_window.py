"""The quick-ask window's size (it grows with the answer as it arrives, up to a maximum, then scrolls)
and its rounded corners."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from tests.host.conftest import call
from tests.ui.conftest import finished, opened_desktop

from edgehost.ui import quick_ask
from edgehost.ui.quick_ask import ANSWER_MAX_HEIGHT, CORNER_RADIUS

SHORT = "Yes."
MEDIUM = "\n\n".join(f"Paragraph {n}: the board is fine and nothing needs doing." for n in range(1, 6))
LONG = "\n\n".join(f"Paragraph {n}: the board is fine and nothing needs doing today." for n in range(1, 41))


class Resizes(QObject):
    """Counts the resize events of one widget."""

    def __init__(self, widget: Any) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize:
            self.count += 1
        return False


async def answered(quick: Any, question: str) -> None:
    quick.input.setText(question)
    quick.input.returnPressed.emit()
    await finished(quick.task)


def test_the_quick_ask_window_grows_with_its_answer_up_to_a_maximum_then_scrolls(
    data_dir: Path, run: Any
) -> None:
    """The answer stayed in a box about three lines tall, cut mid-line, however long it was."""

    async def scenario() -> None:
        async with opened_desktop(data_dir, [SHORT, MEDIUM, LONG, SHORT], wait_servers=False) as desktop:
            quick = desktop.quick_ask
            quick.present()
            area, bar = quick.answer_area, quick.answer_area.verticalScrollBar()

            await answered(quick, "Is the board fine?")
            short_area, short_window = area.height(), quick.height()

            await answered(quick, "Tell me about the board in five paragraphs.")
            # The whole answer is shown, without scrolling, in a taller window.
            assert area.height() > short_area and quick.height() > short_window
            assert area.viewport().height() >= quick.answer.height() and bar.maximum() == 0
            medium_window = quick.height()

            window_resizes = Resizes(quick)
            await answered(quick, "Tell me about the board in forty paragraphs.")
            assert area.height() == ANSWER_MAX_HEIGHT  # no taller than the maximum: the rest scrolls
            assert quick.height() > medium_window and bar.maximum() > 0
            # Grown as the answer's height changed, not at each of its hundreds of streamed pieces.
            assert 0 < window_resizes.count <= LONG.count("\n\n") + 2

            await answered(quick, "Is it still fine?")
            assert area.height() == short_area and quick.height() == short_window  # back to its size

    run(scenario())


def test_with_a_compositor_the_quick_ask_has_smooth_transparent_corners_and_no_mask(
    data_dir: Path, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mask cuts the corners pixel by pixel (jagged); where a compositor shows what is behind a
    transparent window, the frame's rounded outline is painted smoothly instead."""
    monkeypatch.setattr(quick_ask, "compositing", lambda platform=None: True)

    async def scenario() -> None:
        async with opened_desktop(data_dir, wait_servers=False) as desktop:
            quick = desktop.quick_ask
            quick.present()
            assert quick.testAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
            assert quick.mask().isEmpty()
            image = quick.grab().toImage()
            width, middle = image.width(), image.height() // 2
            assert image.pixelColor(0, 0).alpha() == 0  # the corner shows what is behind
            assert image.pixelColor(width // 2, middle).alpha() == 255
            # Along the corner's arc, pixels partly covered are partly opaque: antialiased.
            arc = [image.pixelColor(x, y).alpha() for x in range(CORNER_RADIUS) for y in range(CORNER_RADIUS)]
            assert any(0 < alpha < 255 for alpha in arc)

    run(scenario())


def test_only_a_composited_display_gets_a_transparent_quick_ask() -> None:
    assert quick_ask.compositing("wayland")
    assert not quick_ask.compositing("offscreen")
    assert not quick_ask.compositing("linuxfb")  # a board's console: nothing behind to show


def test_quick_ask_holds_what_the_model_writes_after_a_denied_call_until_the_turn_ends(
    data_dir: Path, run: Any
) -> None:
    write = call("files__write_file", path="note.txt", content="from the model")
    made_up = "I wrote the note for you."

    async def scenario() -> None:
        async with opened_desktop(data_dir, [write, made_up], delay_s=0.01) as desktop:
            quick = desktop.quick_ask
            shown: list[str] = []
            desktop.bridge.text_arrived.connect(lambda _c, _t: shown.append(quick.answer.toPlainText()))
            desktop.bridge.approval_requested.connect(lambda _e: desktop.window.approvals.deny_button.click())
            await answered(quick, "Write a note")
            assert shown and all(made_up[:6] not in text for text in shown)  # never while it streamed
            assert quick.answer.toPlainText() == made_up
            assert quick.status.text() == "Done. ⚙ write_file: Not run: you denied it."

    run(scenario())
