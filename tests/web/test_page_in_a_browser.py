"""The page in a real browser (Debian's Chromium, driven by Playwright): a question to the embedded
model, a destructive call approved on the page (and closed in a second browser), the history, and a
WebSocket dropped in the middle of an answer."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import math
import re
import time
import types
from collections.abc import AsyncIterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from tests.host.conftest import WARM_S, call, serve_memory
from tests.host.test_turn_bounds import GrammarBackend

from edgehost.host import events as ev
from edgehost.llm.base import GenerationEvent, GenerationRequest
from edgehost.llm.scripted import ScriptedBackend
from edgehost.settings import Settings
from edgehost.slow_machine import scaled_wait

pytestmark = pytest.mark.slow
PAGE_S = round(scaled_wait(30_000))  # ms, Playwright's unit
TURN_S = round(scaled_wait(180_000))  # a turn of the real model on a loaded 2-core machine
LAST_ANSWER_DRAWN = """() => {
  const answer = [...document.querySelectorAll('.msg.assistant')].pop();
  return answer !== undefined && !answer.hidden && answer.innerText.trim().length > 0;
}"""


async def _open(browser: Any, url: str, **context: Any) -> Any:
    """The page at ``url`` in a new browser page (``context``: Playwright's new_page options)."""
    page = await browser.new_page(**context)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    await page.goto(url)
    await page.wait_for_selector("#link.on", timeout=PAGE_S)
    return page


def _same_figure(written: str, value: float) -> bool:
    """``written`` is ``value``, perhaps rounded or cut to the places written (21790 for 21790.3)."""
    places = len(written.partition(".")[2])
    number = float(written.replace(",", ""))
    return number in (round(value, places), math.floor(value * 10**places) / 10**places)


def _words(markdown_or_text: str) -> list[str]:
    """The words of a text, without markdown's marks (the page renders them, the host's text has them)."""
    words = (word for word in markdown_or_text.split() if not word.startswith("```"))  # a fence, not text
    # A backtick opens or closes a code span wherever it stands in a word ("0;`."): the page draws none.
    words = (word.replace("`", "") for word in words)
    # A numbered list's "1." is drawn by the browser, not part of the list item's text.
    return [w for w in (word.strip("*_`>#-") for word in words) if w and not re.fullmatch(r"\d+[.)]", w)]


async def _ask(page: Any, text: str) -> None:
    await page.fill("#input", text)
    await page.press("#input", "Enter")
    await page.locator(".msg.user", has_text=text).wait_for(timeout=PAGE_S)  # the turn started


@pytest.mark.usefixtures("data_dir_answered_once")  # not the first question: that is test_prompt_warm_up
async def test_a_question_to_the_embedded_model_streams_its_answer_with_the_tool_it_used(
    serve: Any, browser: Any, model_path: Path
) -> None:
    served = await serve(None, model=str(model_path), backend_name="llamacpp")
    await served.host.wait_model()
    page = await _open(browser, served.server.url)
    await _ask(page, "How much memory is free?")
    await page.wait_for_selector("#send:not([hidden])", timeout=TURN_S)
    completed = await served.events.wait_for(lambda e: isinstance(e, ev.TurnCompleted))
    [execution] = served.host.history.executions()
    assert (execution.tool, execution.status) == ("board__memory_usage", "ok")
    card = page.locator("details.card", has_text="board__memory_usage")
    assert "ok" in await card.locator(".status").inner_text()
    assert "chosen by EdgeHost" in await card.inner_text()
    # What the page shows is the answer the host completed, and it is grounded in the measured figure.
    shown = await page.locator(".msg.assistant").last.inner_text()
    assert completed.text and _words(shown) == _words(completed.text)
    available = float(json.loads(execution.result or "{}")["available_mb"])
    assert any(_same_figure(written, available) for written in re.findall(r"\d[\d,]*(?:\.\d+)?", shown)), (
        shown
    )
    assert page.errors == []


async def test_a_destructive_call_is_approved_on_the_page_and_the_other_browser_closes_its_prompt(
    serve: Any, browser: Any
) -> None:
    reply = call("files__write_file", path="notes.txt", content="hello from the web")
    served = await serve(ScriptedBackend([reply, "I wrote **notes.txt**."]))
    page = await _open(browser, served.server.url, timezone_id="Asia/Tokyo")  # not the server's zone
    other = await _open(browser, served.server.url)
    await _ask(page, "Write a note")
    for shown in (page, other):
        await shown.wait_for_selector("#approval[open]", timeout=PAGE_S)
        assert "files__write_file" in await shown.inner_text("#approval-what")
    edited = {"path": "notes.txt", "content": "hello, edited on the page"}
    await page.fill("#approval-arguments", json.dumps(edited))
    await page.click("#approval-once")
    await other.wait_for_selector("#approval", state="hidden", timeout=PAGE_S)  # answered elsewhere
    await page.wait_for_selector("#send:not([hidden])", timeout=PAGE_S)
    card = page.locator("details.card", has_text="files__write_file")
    assert "ok" in await card.locator(".status").inner_text()
    answer = page.locator(".msg.assistant").last
    assert await answer.locator("strong").first.inner_text() == "notes.txt"  # markdown rendered
    # The edit is said after the answer: what ran, and what the model had proposed.
    assert "as you changed it; the model proposed" in await answer.inner_text()
    [execution] = served.host.history.executions()
    assert (execution.status, execution.decided_by, execution.arguments) == ("ok", "web", edited)
    assert execution.proposed_arguments == {"path": "notes.txt", "content": "hello from the web"}
    # The history panel lists it, with who decided.
    await page.click("button[data-panel=history]")
    row = page.locator("#history tr", has_text="files__write_file")
    await row.wait_for(timeout=PAGE_S)
    assert "web" in await row.inner_text()
    # Its start in the reader's time zone (it had been the UTC time cut out of the ISO text).
    local = await page.evaluate(
        "(s) => new Date(s * 1000).toLocaleTimeString([], {hour: '2-digit', minute: '2-digit', second: '2-digit'})",
        execution.started,
    )
    utc = datetime.fromtimestamp(execution.started, timezone.utc).strftime("%H:%M:%S")
    assert await row.locator("td").first.inner_text() == local and utc not in local
    assert page.errors == [] and other.errors == []


async def test_a_kept_text_edgehost_offered_is_shown_on_the_calls_card_as_edgehosts(
    serve: Any, browser: Any, data_dir: Path, tmp_path: Path, node: str
) -> None:
    # The page showed a list argument filled in by EdgeHost as "[object Object]".
    home = {"type": "entity", "name": "Home", "entityType": "place", "observations": ["garage code is 4512"]}
    serve_memory(tmp_path / "memory.jsonl", [home], node, data_dir)
    deletions = {"deletions": [{"entityName": "Home", "observations": ["garage code is 4512"]}]}
    backend = GrammarBackend([call("memory__delete_observations", **deletions), "Done."])
    served = await serve(backend, settings=Settings(routing="host"))
    await asyncio.wait_for(served.host.wait_warm(), WARM_S)
    page = await _open(browser, served.server.url)
    await _ask(page, "Forget the garage code, I've changed it.")
    await page.wait_for_selector("#approval[open]", timeout=PAGE_S)
    await page.click("#approval-once")
    await page.wait_for_selector("#send:not([hidden])", timeout=PAGE_S)
    filled = page.locator("details.card", has_text="memory__delete_observations").locator(".filled")
    assert await filled.text_content() == (
        'Filled in by EdgeHost, not typed by you: deletions = [{"entityName":"Home",'
        '"observations":["garage code is 4512"]}]'
    )
    assert page.errors == []


async def test_html_from_the_model_is_shown_as_text(serve: Any, browser: Any) -> None:
    served = await serve(
        ScriptedBackend(['<img src=x onerror="window.owned=1"> **bold** <script>window.owned=2</script>'])
    )
    page = await _open(browser, served.server.url)
    await _ask(page, "Say something odd")
    await page.wait_for_selector("#send:not([hidden])", timeout=PAGE_S)
    answer = page.locator(".msg.assistant").last
    assert "<img src=x" in await answer.inner_text()
    assert await answer.locator("img, script").count() == 0
    assert await page.evaluate("window.owned === undefined")


async def test_a_socket_dropped_mid_answer_reconnects_and_the_page_has_the_whole_answer_once(
    serve: Any, browser: Any
) -> None:
    words = " ".join(f"word{i}" for i in range(120))
    served = await serve(ScriptedBackend([words], chunk_size=3, delay_s=0.02))
    page = await _open(browser, served.server.url)
    await _ask(page, "Count for me")
    await page.wait_for_function("document.querySelector('.msg.assistant')?.innerText.includes('word10')")
    await page.evaluate("window.edgehost.socket.close()")
    await page.wait_for_selector("#link.off", timeout=PAGE_S)
    await page.wait_for_selector("#send:not([hidden])", timeout=PAGE_S)
    assert await page.evaluate("window.edgehost.connections") == 2  # it reconnected
    shown = await page.locator(".msg.assistant").last.inner_text()
    assert shown.split() == words.split()  # every word, none twice
    assert page.errors == []


async def test_a_task_tools_card_shows_the_tasks_state_on_the_page(
    serve: Any, browser: Any, everything_servers: Any
) -> None:
    reply = call("everything__simulate-research-query", topic="ferns")
    served = await serve(ScriptedBackend([reply, "The report is in."]), servers=everything_servers)
    page = await _open(browser, served.server.url)
    await _ask(page, "Research ferns")
    await page.wait_for_selector("#approval[open]", timeout=PAGE_S)  # the server is not trusted
    await page.click("#approval-once")
    status = page.locator("details.card", has_text="simulate-research-query").locator(".status")
    await status.filter(has_text="task working — ").wait_for(timeout=PAGE_S)
    assert "MCP task " in (await status.get_attribute("title") or "")
    await page.wait_for_selector("#send:not([hidden])", timeout=PAGE_S)
    assert (await status.inner_text()).startswith("ok")
    assert page.errors == []


async def test_a_question_typed_on_the_page_is_handed_to_the_host_when_typing_pauses(
    serve: Any, browser: Any
) -> None:
    served = await serve(ScriptedBackend(["Hello."]))
    drafts: list[str] = []
    anticipate = served.host.anticipate

    def seen(draft: str) -> None:  # records, then the host's own
        drafts.append(draft)
        anticipate(draft)

    served.host.anticipate = seen
    page = await _open(browser, served.server.url)
    await page.type("#input", "How much memory is free? ")
    for _ in range(300):
        if drafts:
            break
        await page.wait_for_timeout(10)
    assert drafts == ["How much memory is free?"]  # once, when typing paused; trimmed as it is sent
    await page.press("#input", "Enter")
    completed = await served.events.wait_for(lambda e: isinstance(e, ev.TurnCompleted))
    assert completed.text == "Hello."
    assert page.errors == []


class HeldBackend(ScriptedBackend):
    """A scripted model that reads its prompt until the test lets it go (``go``)."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(replies)
        self.go = asyncio.Event()

    async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationEvent]:
        await self.go.wait()
        async for event in super().generate(request):
            yield event


async def test_while_the_model_reads_the_prompt_the_page_says_which_tool_edgehost_chose(
    serve: Any, browser: Any
) -> None:
    # No grammar in the scripted backend: the host writes the call's start, the model the rest.
    backend = HeldBackend(["{}}[END_TOOL_CALL]", "Plenty."])
    served = await serve(backend, settings=Settings(routing="host"))
    page = await _open(browser, served.server.url)
    await _ask(page, "How much memory is free?")
    thinking = page.locator(".msg.thinking")
    await thinking.filter(has_text="Using board__memory_usage: the model is reading the question…").wait_for(
        timeout=PAGE_S
    )
    backend.go.set()
    await page.wait_for_selector("#send:not([hidden])", timeout=PAGE_S)
    assert await thinking.count() == 0  # gone with the turn
    assert page.errors == []


async def test_the_token_leaves_the_address_bar_a_bookmark_works_and_a_browser_without_it_is_told_where_it_is(
    serve: Any, browser: Any
) -> None:
    served = await serve(ScriptedBackend([]), bind="0.0.0.0")
    page = await _open(browser, served.server.url)
    assert "token=" not in page.url  # kept in the browser, not in its history or a screenshot
    bookmark = served.server.url.split("?")[0]  # the board's address alone
    await page.goto(bookmark)
    await page.wait_for_selector("#link.on", timeout=PAGE_S)
    assert await page.locator("#locked").is_hidden()
    stranger = await browser.new_page()  # another browser profile: no token kept
    await stranger.goto(bookmark)
    await stranger.locator("#locked").wait_for(timeout=PAGE_S)
    assert (
        "Open the link that edgehost web printed on the board"
        in await stranger.locator("#locked").inner_text()
    )
    assert await stranger.locator("main.layout").is_hidden()


async def test_on_a_phone_the_page_fits_the_screen_and_the_conversations_open_from_a_button(
    serve: Any, browser: Any
) -> None:
    # Seen at 390 px: the page was 557 px wide (the Tools and History buttons off the screen), and the
    # conversations and "New chat" were hidden with nothing in their place.
    served = await serve(ScriptedBackend(["Hello there."]))
    first = await served.host.submit("Say hello")
    context = await browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = await context.new_page()
    await page.goto(served.server.url)
    await page.wait_for_selector("#link.on", timeout=PAGE_S)
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    tabs = [
        f".tabs button[data-panel={name}]" for name in ("servers", "tools", "history", "models", "settings")
    ]
    for button in ("#chats-toggle", *tabs):
        box = await page.locator(button).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (button, box)
    assert await page.locator("#conversations").is_hidden()
    await page.tap("#chats-toggle")
    item = page.locator("#conversations li", has_text="Say hello")
    await item.wait_for(timeout=PAGE_S)
    assert await page.locator("#new-chat").is_visible()
    await item.tap()
    await page.locator(".msg", has_text="Hello there.").wait_for(timeout=PAGE_S)
    assert await page.locator("#conversations").is_hidden()  # closed once one is chosen
    assert first.conversation_id == await page.evaluate("window.edgehost.current")
    await context.close()


async def test_an_approval_waiting_when_the_page_opens_counts_down_and_shows_its_conversation(
    serve: Any, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen: after a reload the page opened on "New conversation" with a prompt from another one, and no
    # word that the call would be denied unanswered.
    reply = call("files__write_file", path="notes.txt", content="hello")
    served = await serve(ScriptedBackend([reply, "Written."]), settings=Settings(approval_timeout_s=120))
    turn = asyncio.ensure_future(served.host.submit("Write a note"))
    asked = await served.events.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))
    # The request has waited 30 s before the page opens (the broker's clock runs ahead, not the test):
    # the countdown counts that.
    from edgehost.agent import approval

    ahead = types.SimpleNamespace(monotonic=lambda: time.monotonic() + 30)
    monkeypatch.setattr(approval, "time", ahead)
    assert served.host.approvals.waited_s(asked.request.id) >= 30
    page = await _open(browser, served.server.url)
    await page.wait_for_selector("#approval[open]", timeout=PAGE_S)
    shown = re.fullmatch(
        r"Denied automatically in (\d+):(\d\d)", await page.inner_text("#approval-countdown")
    )
    assert shown is not None and 60 <= int(shown[1]) * 60 + int(shown[2]) <= 118, shown
    await page.wait_for_function(
        f"window.edgehost.current === {asked.request.conversation_id}", timeout=PAGE_S
    )
    await page.locator(".msg.user", has_text="Write a note").wait_for(timeout=PAGE_S)  # what asked, behind it
    await page.click("#approval-deny")
    await asyncio.wait_for(turn, TURN_S / 1000)
    assert page.errors == []


async def test_an_approval_counts_down_from_the_wait_set_after_the_page_opened(
    serve: Any, browser: Any
) -> None:
    # Seen: a page open while the wait was changed (in the window's Settings) counted down from the old one.
    reply = call("files__write_file", path="notes.txt", content="hello")
    served = await serve(ScriptedBackend([reply, "Written."]), settings=Settings(approval_timeout_s=300))
    page = await _open(browser, served.server.url)
    served.host.update_settings({"approval_timeout_s": 40})
    turn = asyncio.ensure_future(served.host.submit("Write a note"))
    await page.wait_for_selector("#approval[open]", timeout=PAGE_S)
    shown = re.fullmatch(
        r"Denied automatically in (\d+):(\d\d)", await page.inner_text("#approval-countdown")
    )
    assert shown is not None and 30 <= int(shown[1]) * 60 + int(shown[2]) <= 40, shown
    await page.click("#approval-deny")
    await asyncio.wait_for(turn, TURN_S / 1000)
    assert page.errors == []


async def test_a_call_in_the_history_opens_to_what_it_was_given_and_gave_and_the_calls_shown_download(
    serve: Any, browser: Any
) -> None:
    served = await serve(ScriptedBackend([call("board__uptime"), "It has been up a while."]))
    await served.host.call_tool("files__list_directory", {"path": "."})  # one outside any conversation
    page = await _open(browser, served.server.url)
    await _ask(page, "How long has the board been up?")
    await page.wait_for_selector("#send:not([hidden])", timeout=PAGE_S)
    asked = await page.evaluate("window.edgehost.current")
    assert isinstance(asked, int)
    uptime = next(e for e in served.host.history.executions() if e.tool == "board__uptime")
    await page.click("#new-chat")
    await page.click("button[data-panel=history]")
    row = page.locator("#history tr.run", has_text="board__uptime")
    await row.click()
    details = page.locator("#history tr.run-details")
    await details.wait_for(timeout=PAGE_S)
    assert (await details.locator("pre").nth(1).inner_text()).strip() == (uptime.result or "").strip()
    assert "chosen by the model" in await details.inner_text()
    await details.get_by_role("button", name="Open its conversation").click()
    await page.wait_for_function(f"window.edgehost.current === {asked}", timeout=PAGE_S)
    await row.click()  # closed again
    await details.wait_for(state="detached", timeout=PAGE_S)
    # Export what the filter shows: a word typed finds the tool, as in the window.
    await page.fill("#history-tool", "uptime")
    await (
        page.locator("#history tr.run").filter(has_text="files__").wait_for(state="detached", timeout=PAGE_S)
    )
    async with page.expect_download(timeout=PAGE_S) as downloading:
        await page.click("#export-csv")
    download = await downloading.value
    assert download.suggested_filename == "edgehost-executions.csv"
    assert _csv_tools(await download.path()) == ["board__uptime"]
    assert page.errors == []


async def test_a_question_sent_with_an_attachment_reopens_with_the_resources_name_not_its_text(
    serve: Any, browser: Any
) -> None:
    # As the window shows it (host/attachments.py): the page had shown the whole attached note.
    from edgehost.host.attachments import attachment_text

    served = await serve(ScriptedBackend(["Milk, and the plumber."]))
    note = attachment_text("note://today", "Buy milk.\n\nCall the plumber about the leak.")
    sent = await served.host.submit("What is on my list?", attachments=[note])
    assert sent is not None
    page = await _open(browser, served.server.url)
    await page.locator("#conversations li", has_text="What is on my list?").click()
    question = page.locator(".msg.user")
    await question.wait_for(timeout=PAGE_S)
    assert await question.locator(".attachment").all_inner_texts() == ["▤ today · 43 B"]
    assert await question.locator(".attachment").get_attribute("title") == "note://today"
    assert (await question.inner_text()).splitlines()[-1] == "What is on my list?"
    assert "plumber" not in await question.inner_text()
    assert page.errors == []


async def test_a_question_asked_in_the_window_with_an_attachment_shows_its_chip_on_the_open_page_at_once(
    serve: Any, browser: Any
) -> None:
    # The turn's start had only the typed question: the chip appeared only once the conversation was
    # opened again.
    from edgehost.host.attachments import attachment_text

    served = await serve(ScriptedBackend(["Hello.", "Milk, and the plumber."]))
    first = await served.host.submit("Hello")
    assert first is not None
    page = await _open(browser, served.server.url)
    await page.locator("#conversations li", has_text="Hello").click()
    await page.locator(".msg.assistant", has_text="Hello.").wait_for(timeout=PAGE_S)
    note = attachment_text("note://today", "Buy milk.\n\nCall the plumber about the leak.")
    sent = await served.host.submit("What is on my list?", first.conversation_id, attachments=[note])
    assert sent is not None
    question = page.locator(".msg.user", has_text="What is on my list?")
    await question.locator(".attachment").wait_for(timeout=PAGE_S)
    assert await question.locator(".attachment").all_inner_texts() == ["▤ today · 43 B"]
    assert await question.locator(".attachment").get_attribute("title") == "note://today"
    assert (await question.inner_text()).splitlines()[-1] == "What is on my list?"
    assert "plumber" not in await question.inner_text()
    await page.locator(".msg.assistant", has_text="Milk, and the plumber.").wait_for(timeout=PAGE_S)
    assert await page.locator(".msg.user").count() == 2
    assert page.errors == []


def _csv_tools(path: Path) -> list[str]:
    """The tool column of an exported CSV file."""
    return [row["tool"] for row in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))]


async def test_what_the_model_writes_after_a_denied_call_is_held_back_until_the_turn_ends(
    serve: Any, browser: Any
) -> None:
    # Seen in the window and on the page: the model's made-up "I wrote it" showed for seconds after a
    # denial, before EdgeHost's statement replaced it.
    made_up = "I wrote the note for you, just as you asked me to."
    reply = call("files__write_file", path="notes.txt", content="hello")
    served = await serve(ScriptedBackend([reply, made_up], delay_s=0.15))
    page = await _open(browser, served.server.url)
    await _ask(page, "Write a note")
    await page.wait_for_selector("#approval[open]", timeout=PAGE_S)
    await page.click("#approval-deny")
    # The reply streams in (the page has some of it) while none of it is shown.
    await page.wait_for_function(
        "window.edgehost.answer !== null && window.edgehost.answer.text.length > 8", timeout=PAGE_S
    )
    assert await page.evaluate("window.edgehost.answer.node.hidden")
    assert "I wrote" not in await page.locator("#messages").inner_text()
    assert "the model is answering without it" in await page.locator(".msg.thinking").inner_text()
    completed = await served.events.wait_for(lambda e: isinstance(e, ev.TurnCompleted))
    shown = page.locator(".msg.assistant").last
    await page.wait_for_function("document.querySelector('.msg.thinking') === null", timeout=PAGE_S)
    # The held answer is drawn at the next animation frame after the turn ends (late under load).
    await page.wait_for_function(LAST_ANSWER_DRAWN, timeout=PAGE_S)
    assert completed.text and _words(await shown.inner_text()) == _words(completed.text)
    assert page.errors == []
