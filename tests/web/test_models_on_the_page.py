"""The page's Models panel in a real browser (Debian's Chromium, driven by Playwright), against a local
hub (tests/fake_hub.py): a model fitted to the board downloads with its progress, Use loads it for real,
and a downloaded model is removed after the user confirms. And on the socket: a page cannot make the host
load a file that is no model of the board."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.fake_hub import FakeHub
from tests.web.test_http import _next

from edgehost.host import events as ev
from edgehost.llm.default_model import default_model_path
from edgehost.llm.scripted import ScriptedBackend
from edgehost.slow_machine import scaled_wait

pytestmark = pytest.mark.slow
PAGE_S = round(scaled_wait(30_000))  # ms, Playwright's unit
LOAD_S = round(scaled_wait(180_000))  # loading the downloaded model on a loaded 2-core machine

# A catalog entry without a pinned size or sha256: the hub's own are checked, so the embedded model can
# stand in for its file (as in tests/ui/test_models_panel.py).
ENTRY, TITLE = "qwen2.5-0.5b-instruct-q4_k_m", "Qwen2.5 0.5B Instruct (Q4_K_M)"
REPO, FILE = "bartowski/Qwen2.5-0.5B-Instruct-GGUF", "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf"


@pytest.fixture
def hub(empty_hub: FakeHub) -> FakeHub:
    empty_hub.add(REPO, FILE, default_model_path())
    return empty_hub


async def _models_panel(page: Any, url: str) -> Any:
    """The page at ``url`` with its Models panel open; the row of ENTRY."""
    await page.goto(url)
    await page.wait_for_selector("#link.on", timeout=PAGE_S)
    await page.click("button[data-panel=models]")
    row = page.locator("li.model", has_text=TITLE)
    await row.wait_for(timeout=PAGE_S)
    return row


async def test_a_model_for_this_board_downloads_with_its_progress_and_use_loads_it(
    serve: Any, page: Any, hub: FakeHub
) -> None:
    hub.delay = 0.002  # per 64 KiB: a few seconds in all, so the page shows the download going
    served = await serve(ScriptedBackend(), hub_endpoint=hub.url)
    row = await _models_panel(page, served.server.url)
    board = await page.inner_text("#models-board")
    assert str(served.host.paths.models_dir) in board and "RAM" in board
    # The model built in, in use; one catalog model suggested for this board.
    built_in = page.locator("li.model").first
    assert "built into EdgeHost" in await built_in.inner_text()
    assert await built_in.locator("button:disabled", has_text="In use").count() == 1
    assert await page.locator("li.model", has_text="Suggested for this board").count() == 1
    # Only what fits is listed until asked: .rkllm models need the NPU this PC has not.
    assert await page.locator("li.model", has_text="RK3588").count() == 0
    await row.locator("button", has_text="Download").click()
    await row.locator("progress:not([hidden])").wait_for(timeout=PAGE_S)
    await page.wait_for_function(
        "() => /\\d+ of [\\d,]+ MB/.test(document.querySelector('li.model progress:not([hidden])')"
        "?.parentElement.innerText || '')",
        timeout=PAGE_S,
    )
    await row.locator("text=Downloaded to").wait_for(timeout=LOAD_S)
    path = served.host.paths.models_dir / FILE
    assert path.stat().st_size == default_model_path().stat().st_size
    await row.locator("button", has_text="Use").click()
    await row.locator("button:disabled", has_text="In use").wait_for(timeout=LOAD_S)
    saved = json.loads(served.host.paths.settings_file.read_text())
    assert (saved["model"], saved["backend"]) == (str(path), "llamacpp")
    await page.wait_for_function(
        "() => document.querySelector('#model').textContent.includes('(ready)')", timeout=LOAD_S
    )
    assert served.host.model_status.backend == "llamacpp"
    # The not fitting ones, when asked for: listed, their download not offered, and why.
    await page.check("#models-all")
    npu = page.locator("li.model", has_text="RK3588").first
    await npu.wait_for(timeout=PAGE_S)
    assert await npu.locator("button", has_text="Download").is_disabled()
    assert "Does not fit this board: no NPU" in await npu.inner_text()
    assert page.errors == []


async def test_a_downloaded_model_is_removed_after_the_user_confirms(
    serve: Any, page: Any, hub: FakeHub
) -> None:
    served = await serve(ScriptedBackend(), hub_endpoint=hub.url)
    row = await _models_panel(page, served.server.url)
    await row.locator("button", has_text="Download").click()
    await row.locator("text=Downloaded to").wait_for(timeout=LOAD_S)
    path = served.host.paths.models_dir / FILE
    asked: list[str] = []

    async def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        await (dialog.dismiss() if len(asked) == 1 else dialog.accept())

    page.on("dialog", answer)
    await row.locator("button", has_text="Remove").click()  # dismissed: nothing is deleted
    assert path.exists()
    await row.locator("button", has_text="Remove").click()
    await row.locator("text=MB freed").wait_for(timeout=PAGE_S)
    assert not path.exists()
    assert asked[1] == f"Delete {TITLE} from {served.host.paths.models_dir}?"
    assert await row.locator("button", has_text="Download").is_enabled()
    assert page.errors == []


async def test_the_socket_loads_only_a_model_of_this_board_and_says_why_a_download_cannot_start(
    serve: Any, tmp_path: Path
) -> None:
    served = await serve(ScriptedBackend())
    stranger = tmp_path / "not-a-model.gguf"
    stranger.write_bytes(b"GGUF but not really")
    async with served.connect() as socket:
        await socket.send(json.dumps({"command": "resume", "after": 0}))
        await socket.recv()
        await socket.send(json.dumps({"id": 1, "command": "use_model", "path": str(stranger)}))
        refused = await _next(socket, lambda m: m.get("reply") == 1)
        assert not refused["ok"] and refused["error"] == f"{stranger} is not a model on this board"
        await socket.send(json.dumps({"id": 2, "command": "download_model", "name": "no-such-model"}))
        unknown = await _next(socket, lambda m: m.get("reply") == 2)
        assert not unknown["ok"] and "no-such-model" in unknown["error"]
        await socket.send(json.dumps({"id": 3, "command": "remove_model", "name": "default"}))
        built_in = await _next(socket, lambda m: m.get("reply") == 3)
        assert not built_in["ok"] and "built into EdgeHost: it cannot be removed" in built_in["error"]
    assert served.host.settings.model is None
    assert not served.events.of(ev.ModelStatusChanged) or all(
        e.model != str(stranger) for e in served.events.of(ev.ModelStatusChanged)
    )
