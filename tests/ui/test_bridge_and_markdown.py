"""Host events reach Qt through one bridge, text at display rate; model text is never HTML."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QMessageBox

from edgehost.host import events as ev
from edgehost.ui._widgets import MarkdownView
from edgehost.ui.bridge import HostBridge
from edgehost.ui.tool_card import RESULT_MAX_HEIGHT, ToolCard


def test_many_text_deltas_arrive_as_one_paint_in_order_with_other_events(qapp: QApplication) -> None:
    bridge = HostBridge()
    seen: list[Any] = []
    bridge.text_arrived.connect(lambda conv, text: seen.append(("text", conv, text)))
    bridge.tool_call_detected.connect(lambda e: seen.append(("call", e.call_id)))
    for word in ["Hel", "lo", " wor", "ld"]:
        bridge.on_event(ev.TextDelta(1, word))
    assert seen == []  # nothing painted per token
    bridge.on_event(ev.ToolCallDetected(1, "c1", "board__board_info", {}, "bracket"))
    bridge.on_event(ev.TextDelta(1, "after"))
    bridge.flush()
    assert seen == [("text", 1, "Hello world"), ("call", "c1"), ("text", 1, "after")]


def test_pending_text_is_delivered_by_the_display_timer(qtbot: Any) -> None:
    bridge = HostBridge()
    with qtbot.waitSignal(bridge.text_arrived, timeout=2000) as signal:
        bridge.on_event(ev.TextDelta(7, "a"))
        bridge.on_event(ev.TextDelta(7, "b"))
    assert signal.args == [7, "ab"]


def test_html_from_a_model_is_shown_as_text_and_images_are_never_loaded(qtbot: Any) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown('**bold** <b>fake</b> <img src="file:///etc/passwd"> <a href="https://evil">x</a>')
    plain = view.toPlainText()
    assert "bold" in plain and "<b>fake</b>" in plain and "<img" in plain
    html = view.document().toHtml()
    assert "<img" not in html.replace("&lt;img", "")
    assert (
        view.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl("file:///etc/passwd")) is None
    )


def test_a_link_opens_only_after_the_user_sees_the_address(qtbot: Any, monkeypatch: Any) -> None:
    opened: list[QUrl] = []
    monkeypatch.setattr("edgehost.ui._widgets.QDesktopServices.openUrl", lambda url: opened.append(url))
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown("[docs](https://example.com/a?b=c)")
    view.anchorClicked.emit(QUrl("https://example.com/a?b=c"))
    boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    assert boxes and "https://example.com/a?b=c" in boxes[-1].text()
    assert opened == []
    boxes[-1].button(QMessageBox.StandardButton.Open).click()
    assert opened == [QUrl("https://example.com/a?b=c")]


def test_a_tool_result_box_is_as_high_as_its_lines_up_to_a_limit(qtbot: Any) -> None:
    short, long = ToolCard("c1", "board__temperatures", {}), ToolCard("c2", "files__read_file", {})
    for card in (short, long):
        qtbot.addWidget(card)
        card.resize(700, 400)
        card.show()
    short.finish("ok", '{"zones": []}', 5.0, None)
    long.finish("ok", "\n".join(f"line {i}" for i in range(100)), 5.0, None)
    for card in (short, long):
        card.toggle.setChecked(True)
    line = short.result.fontMetrics().lineSpacing()
    assert short.result.height() < 3 * line + 40  # one line and its frame, not a 190 px box
    assert long.result.height() == RESULT_MAX_HEIGHT  # the rest scrolls


def test_each_line_of_an_answer_keeps_its_line_break_as_the_page_shows_it(qtbot: Any) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown("An old silent pond\nA frog jumps into the pond\nSplash! Silence again.")
    assert view.toPlainText().splitlines() == [
        "An old silent pond",
        "A frog jumps into the pond",
        "Splash! Silence again.",
    ]
    view.set_markdown("To buy:\n• eggs\n• flour")  # a list that is no markdown list
    assert view.toPlainText().splitlines() == ["To buy:", "• eggs", "• flour"]
    # A list item's second line stays in that item (it is no new item), and code is left as written.
    view.set_markdown("1. Boil water\n   for three minutes\n2. Serve\n\n```\nx = 1\ny = 2\n```")
    lists = {view.document().findBlockByNumber(n).textList() for n in range(2)}
    assert len(lists) == 1 and None not in lists and next(iter(lists)).count() == 2
    assert view.toPlainText().splitlines() == ["Boil water", "for three minutes", "Serve", "x = 1", "y = 2"]
    view.set_markdown("# Title\nfirst line\nsecond line")
    assert view.toPlainText().splitlines() == ["Title", "first line", "second line"]
    assert view.document().findBlockByNumber(0).blockFormat().headingLevel() == 1
    assert view.document().findBlockByNumber(1).blockFormat().headingLevel() == 0


def test_a_tool_card_says_which_arguments_edgehost_filled_in(qtbot: Any) -> None:
    arguments = {"repo_path": "/home/anna/plants", "max_count": 3}
    card = ToolCard("c1", "git__git_log", arguments)
    qtbot.addWidget(card)
    card.show()
    assert card.filled_label.isHidden()
    card.set_filled_by_host(("repo_path",), arguments)
    assert not card.filled_label.isHidden()
    assert card.filled_label.text() == (
        "Filled in by EdgeHost, not typed by you: repo_path = /home/anna/plants"
    )
    deletions = {"deletions": [{"entityName": "Home", "observations": ["garage code is 4512"]}]}
    card.set_filled_by_host(("deletions",), deletions)
    assert card.filled_label.text() == (
        "Filled in by EdgeHost, not typed by you: deletions = "
        '[{"entityName": "Home", "observations": ["garage code is 4512"]}]'
    )
