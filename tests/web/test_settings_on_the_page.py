"""The page's Settings panel in a real browser (Debian's Chromium, driven by Playwright): the settings a
board without a screen needs, saved to settings.json; a change the model is loaded with loads the model
again with it. And on the socket: a value the settings do not take is refused, naming the setting."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.web.test_http import _next

from edgehost.host import events as ev
from edgehost.llm.scripted import ScriptedBackend
from edgehost.slow_machine import scaled_wait

pytestmark = pytest.mark.slow
PAGE_S = round(scaled_wait(30_000))  # ms, Playwright's unit
LOAD_S = round(scaled_wait(180_000))  # loading the model again on a loaded 2-core machine


async def test_settings_saved_on_the_page_reach_the_settings_file_and_the_model_is_loaded_again_with_them(
    serve: Any, page: Any
) -> None:
    served = await serve(ScriptedBackend())
    await page.goto(served.server.url)
    await page.wait_for_selector("#link.on", timeout=PAGE_S)
    await page.click("button[data-panel=settings]")
    form = page.locator("#settings-form")
    await page.wait_for_function(
        "() => document.querySelector('#settings-form select[name=profile]').options.length > 1",
        timeout=PAGE_S,
    )
    # What the settings say now: the profile detected, numbers from the profile (0), tools automatic.
    profile = form.locator("select[name=profile]")
    assert (await profile.locator("option").first.inner_text()).startswith("Detected: ")
    assert await profile.input_value() == ""
    assert await form.locator("input[name=threads]").input_value() == "0"
    assert await form.locator("select[name=routing]").input_value() == "auto"
    await form.locator("input[name=context_length]").fill("2048")
    await form.locator("select[name=routing]").select_option(label="Tools: EdgeHost decides")
    await form.locator("button[type=submit]").click()
    said = page.locator("#settings-said")
    await said.filter(has_text="Saved.").wait_for(timeout=PAGE_S)
    assert await said.inner_text() == "Saved. The model is loading again with them."
    saved = json.loads(served.host.paths.settings_file.read_text())
    assert (saved["context_length"], saved["routing"], saved["threads"]) == (2048, "host", None)
    await page.wait_for_function(
        "() => document.querySelector('#model').textContent.includes('(ready)')", timeout=LOAD_S
    )
    loaded = [e for e in served.events.of(ev.ModelStatusChanged) if e.status == "ready"]
    assert loaded[-1].backend == "llamacpp" and served.host.context_size == 2048
    # Saving again without a change says so.
    await form.locator("button[type=submit]").click()
    await said.filter(has_text="Nothing changed.").wait_for(timeout=PAGE_S)
    assert page.errors == []


async def test_a_setting_the_page_sends_wrong_is_refused_naming_it_and_nothing_is_saved(serve: Any) -> None:
    served = await serve(ScriptedBackend())
    async with served.connect() as socket:
        await socket.send(json.dumps({"command": "resume", "after": 0}))
        await socket.recv()
        for number, (values, error) in enumerate(
            [
                ({"threads": -1}, "threads: Input should be greater than or equal to 0"),
                ({"routing": "sometimes"}, "routing: Input should be 'auto', 'host' or 'model'"),
                ({"profile": "rock5b"}, "profile: no board profile 'rock5b'"),
                ({"theme": "dark"}, "the page does not change theme"),
            ],
            start=1,
        ):
            await socket.send(json.dumps({"id": number, "command": "save_settings", "values": values}))
            reply = await _next(socket, lambda m, number=number: m.get("reply") == number)
            assert (reply["ok"], reply["error"]) == (False, error)
    assert not served.host.paths.settings_file.exists()
