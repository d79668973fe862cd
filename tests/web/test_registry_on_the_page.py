"""The page's "From the registry", in Chromium: search the stand-in registry (EDGEHOST_REGISTRY_URL),
open a card, fill its value, read the command it makes, add it (uvx fetches the PyPI time server), and
a question then calls its tool."""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.bundles.mcpb_support import FIXTURES, NODE, packed
from tests.host.conftest import call
from tests.registry_standin import FILESYSTEM, TIME, TIME_VERSION, StandInRegistry, bundle_entry

from edgehost.host import events as ev
from edgehost.llm.scripted import ScriptedBackend
from edgehost.slow_machine import scaled_wait

pytestmark = [pytest.mark.slow, pytest.mark.peers]
PAGE_S = round(scaled_wait(30_000))  # ms, Playwright's unit
FIRST_START_S = scaled_wait(120.0)
GREET_ADA = '[TOOL_CALL]{"name": "hello-node__greet", "arguments": {"name": "Ada"}}[END_TOOL_CALL]'


async def ready(host: Any, name: str) -> None:
    """Until the server ``name`` is ready (its first start may fetch its package)."""
    deadline = asyncio.get_running_loop().time() + FIRST_START_S
    while not any(s.name == name and s.status.value == "ready" for s in host.server_states()):
        assert asyncio.get_running_loop().time() < deadline, host.server_states()
        await asyncio.sleep(0.1)


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInRegistry]:
    standin = StandInRegistry()
    standin.add(FILESYSTEM)
    standin.add(TIME)
    standin.start()
    monkeypatch.setenv("EDGEHOST_REGISTRY_URL", standin.url)
    yield standin
    standin.stop()


async def test_a_server_from_the_registry_is_added_on_the_page_and_its_tool_answers_a_question(
    registry: StandInRegistry, serve: Any, page: Any
) -> None:
    reply = call("time__get_current_time", timezone="Europe/Paris")
    served = await serve(ScriptedBackend([reply, "It is **noon** in Paris."]))
    await page.goto(served.server.url)
    await page.wait_for_selector("#link.on", timeout=PAGE_S)
    confirmations: list[str] = []

    def accept(dialog: Any) -> None:
        confirmations.append(dialog.message)
        asyncio.ensure_future(dialog.accept())

    page.on("dialog", accept)
    await page.click("button[data-panel=servers]")
    await page.fill("#registry-query", "modelcontextprotocol")
    await page.click("#registry-search button")
    card = page.locator(".registry-entry", has_text=f"Time {TIME_VERSION}")
    await card.wait_for(timeout=PAGE_S)
    assert "runs here: PyPI" in await card.inner_text()
    assert "2 servers in " + registry.url in await page.inner_text("#registry-status")

    await card.locator(".model-head").click()
    zone = card.locator("input[data-key='local-timezone']")
    assert await zone.input_value() == "UTC"  # the entry's default
    await zone.fill("Europe/Paris")
    command = f"uvx mcp-server-time=={TIME_VERSION} --local-timezone Europe/Paris"
    await card.locator("pre.registry-command", has_text=command).wait_for(timeout=PAGE_S)
    await card.locator("button.registry-add:not([disabled])").click()
    await page.locator("#servers li", has_text="time").wait_for(timeout=FIRST_START_S * 1000)
    assert confirmations and command in confirmations[0]  # the exact command, asked before it ran

    await ready(served.host, "time")
    await page.fill("#input", "What time is it in Paris?")
    await page.press("#input", "Enter")
    # A new server's tool is asked about before its first call.
    await page.wait_for_selector("#approval[open]", timeout=PAGE_S)
    assert "time__get_current_time" in await page.inner_text("#approval-what")
    await page.click("#approval-once")
    await served.events.wait_for(lambda e: isinstance(e, ev.TurnCompleted))
    [execution] = served.host.history.executions()
    assert (execution.tool, execution.status) == ("time__get_current_time", "ok")
    assert "Europe/Paris" in (execution.result or "")
    tool_card = page.locator("details.card", has_text="time__get_current_time")
    assert "ok" in await tool_card.locator(".status").inner_text()
    assert page.errors == []


async def test_an_entrys_bundle_is_downloaded_its_own_form_asked_and_its_tool_called_on_the_page(
    registry: StandInRegistry, serve: Any, page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{NODE.parent}{os.pathsep}{os.environ['PATH']}")  # the bundle runs `node`
    data = packed(FIXTURES / "hello-node", tmp_path / "hello-node.mcpb").read_bytes()
    registry.files["hello-node.mcpb"] = data
    entry = bundle_entry(f"{registry.url}/files/hello-node.mcpb", hashlib.sha256(data).hexdigest())
    registry.add({**entry, "name": "io.example/hello-node", "title": "Hello (Node)"})
    served = await serve(ScriptedBackend([GREET_ADA, "Greeted."]))
    await page.goto(served.server.url)
    await page.wait_for_selector("#link.on", timeout=PAGE_S)
    page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
    await page.click("button[data-panel=servers]")
    await page.fill("#registry-query", "hello")
    await page.click("#registry-search button")
    card = page.locator(".registry-entry", has_text="Hello (Node)")
    await card.wait_for(timeout=PAGE_S)
    await card.locator(".model-head").click()
    key = card.locator("input[data-key='api_key']")  # the bundle's own form, once it is downloaded
    await key.wait_for(timeout=PAGE_S)
    assert await key.get_attribute("type") == "password"
    await key.fill("key-0123456789abcdef")
    await card.locator("pre.registry-command", has_text="--greeting=Hello").wait_for(timeout=PAGE_S)
    await card.locator("button.registry-add:not([disabled])").click()
    await page.locator("#servers li", has_text="hello-node").wait_for(timeout=PAGE_S)
    await ready(served.host, "hello-node")
    await page.fill("#input", "Greet Ada")
    await page.press("#input", "Enter")
    await page.wait_for_selector("#approval[open]", timeout=PAGE_S)
    await page.click("#approval-once")
    await served.events.wait_for(lambda e: isinstance(e, ev.TurnCompleted))
    [execution] = served.host.history.executions()
    assert (execution.tool, execution.status) == ("hello-node__greet", "ok")
    assert execution.result == "Hello, Ada! (from the node bundle, with an API key)"
    assert page.errors == []
