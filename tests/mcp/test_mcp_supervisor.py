"""The supervisor against servers that misbehave on purpose (tests/fixtures/servers/hostile.py)."""

from __future__ import annotations

import asyncio
import logging
import re

import anyio
import pytest
from mcp_support import hostile, running, wait_for

from edgehost.mcp.errors import ServerUnavailable, ToolDisabled, ToolTimeout, UnknownTool
from edgehost.mcp.manager import CatalogChanged, ServerOutputChanged, ServerStatusChanged
from edgehost.mcp.results import result_text
from edgehost.mcp.server_state import ServerStatus
from edgehost.mcp.supervisor import OUTPUT_EVENT_INTERVAL_S
from edgehost.settings import Settings


def _text(result) -> str:  # type: ignore[no-untyped-def]
    return "".join(getattr(block, "text", "") for block in result.content)


async def test_a_server_that_exits_at_start_is_failed_with_its_stderr_and_the_others_start() -> None:
    async with running(hostile("broken", "--exit-at-start"), hostile("fine"), auto_restart=False) as manager:
        broken, fine = manager.statuses()
        assert broken.status is ServerStatus.FAILED
        assert "broken" in (broken.error or "")
        assert any("cannot open /dev/npu0" in line for line in broken.stderr_tail)
        assert fine.status is ServerStatus.READY
        assert _text(await manager.call_tool("fine__echo", {"text": "hi"})) == "hi"
        with pytest.raises(UnknownTool):
            await manager.call_tool("broken__echo", {"text": "hi"})


async def test_a_failed_server_is_logged_with_why(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="edgehost.mcp.supervisor")
    async with running(hostile("broken", "--exit-at-start"), hostile("fine"), auto_restart=False):
        pass
    failed = [r for r in caplog.records if "'broken' failed" in r.getMessage()]
    assert failed and "broken" in failed[0].getMessage()
    assert any("'fine' is ready" in r.getMessage() for r in caplog.records)


async def test_a_dead_server_fails_its_pending_call_within_a_second_and_is_restarted() -> None:
    async with running(hostile("h")) as manager:
        statuses: list[ServerStatus] = []
        manager.add_listener(
            lambda e: statuses.append(e.status) if isinstance(e, ServerStatusChanged) else None
        )
        with anyio.fail_after(1.0), pytest.raises(ServerUnavailable) as caught:
            await manager.call_tool("h__die", {"message": "last words before dying"})
        assert caught.value.server == "h"
        assert "'h'" in str(caught.value)
        assert "last words before dying" in str(caught.value)
        # Restarted with backoff (the first wait is one second), shown failed until it is back; it answers.
        await wait_for(manager, lambda: statuses[-2:] == [ServerStatus.FAILED, ServerStatus.READY])
        assert ServerStatus.STARTING not in statuses
        assert _text(await manager.call_tool("h__echo", {"text": "back"})) == "back"


async def test_a_call_past_its_timeout_is_cancelled_and_the_server_keeps_running() -> None:
    async with running(hostile("h", timeout=1.0)) as manager:
        with pytest.raises(ToolTimeout) as caught:
            await manager.call_tool("h__hang", {})
        assert caught.value.timeout == 1.0
        assert "timed out" in str(caught.value)
        assert manager.status("h").status is ServerStatus.READY
        assert _text(await manager.call_tool("h__echo", {"text": "still here"})) == "still here"
        # The server was told (notifications/cancelled): its handler was cancelled and said so.
        await wait_for_stderr(manager, "h", "hang: cancelled by the client")


async def wait_for_stderr(manager, name: str, text: str) -> None:  # type: ignore[no-untyped-def]
    # Lines arrive through a reader thread; each batch is announced (ServerOutputChanged).
    await wait_for(manager, lambda: any(text in line for line in manager.stderr_tail(name)), 10)


async def test_a_flood_of_server_output_is_announced_at_most_once_a_second_and_after_its_last_line() -> None:
    async with running(hostile("h")) as manager:
        announced: list[tuple[float, str]] = []  # when, and the last log line then

        def on_event(event: object) -> None:
            if isinstance(event, ServerOutputChanged):
                announced.append((anyio.current_time(), "".join(manager.log_tail("h", 1))))

        manager.add_listener(on_event)
        began = anyio.current_time()
        await manager.call_tool("h__flood", {"count": 3000})
        took = anyio.current_time() - began
        # The last line is announced too (the trailing announcement), within a second or so.
        await wait_for(manager, lambda: any(last.endswith("flood 2999") for _when, last in announced), 5)
        times = [when for when, _last in announced]
        assert len(times) <= took + 3, (len(times), took)  # 3000 lines, a handful of announcements
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert all(gap >= OUTPUT_EVENT_INTERVAL_S * 0.9 for gap in gaps), gaps


async def test_progress_notifications_extend_the_timeout() -> None:
    reports: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total))

    async with running(hostile("h", timeout=1.0)) as manager:
        # Six steps of 0.4 s: 2.4 s in all, more than the 1 s timeout, but never 1 s without progress.
        result = await manager.call_tool(
            "h__progress_then_answer", {"steps": 6, "interval": 0.4}, progress=on_progress
        )
    assert _text(result) == "done after 6 steps"
    assert reports == [(float(i), 6.0) for i in range(1, 7)]


async def test_junk_on_stdout_is_ignored_and_counted() -> None:
    async with running(hostile("junky", "--junk")) as manager:
        assert manager.status("junky").status is ServerStatus.READY
        assert _text(await manager.call_tool("junky__echo", {"text": "ok"})) == "ok"
        assert any("not JSON-RPC" in line for line in manager.log_tail("junky"))


async def test_a_5_mb_result_is_kept_whole_and_cut_for_the_model_with_a_note() -> None:
    async with running(hostile("h")) as manager:
        result = await manager.call_tool("h__big", {})
    assert len(_text(result)) == 5 * 1024 * 1024
    cut = result_text(result, 1000)
    assert len(cut) <= 1000
    assert cut.endswith(f"of {5 * 1024 * 1024} characters]")


async def test_a_flood_of_log_notifications_disturbs_no_other_server() -> None:
    async with running(hostile("flooder"), hostile("quiet")) as manager:
        echoes: list[str] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(manager.call_tool, "flooder__flood", {"count": 5000})
            for index in range(20):
                echoes.append(_text(await manager.call_tool("quiet__echo", {"text": str(index)})))
        assert echoes == [str(i) for i in range(20)]
        log = manager.log_tail("flooder")
        assert len(log) == 200  # the ring keeps the last 200
        assert log[-1].endswith("flood 4999")
        assert manager.log_tail("quiet") == ()


async def test_a_call_to_a_slowly_starting_server_waits_for_it() -> None:
    async with running(hostile("slow", "--slow-start", "1.5")) as manager:
        assert _text(await manager.call_tool("slow__echo", {"text": "worth the wait"})) == "worth the wait"


async def test_hostile_tool_names_become_unique_safe_names_of_at_most_64_characters() -> None:
    async with running(hostile("my server.v2", "--name-collisions")) as manager:
        names = [t.name for t in manager.catalog.tools]
        originals = {t.original_name for t in manager.catalog.tools}
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name) for name in names)
    assert {"a.b", "a/b", "a b", "ünïcödé", "x" * 100, "x" * 100 + "y"} <= originals
    assert "my_server_v2__echo" in names


async def test_a_tool_list_change_refreshes_the_catalog() -> None:
    async with running(hostile("h")) as manager:
        assert manager.catalog.tool("h__fresh") is None
        events: list[object] = []
        manager.add_listener(events.append)
        await manager.call_tool("h__add_tool", {})
        await wait_for(manager, lambda: manager.catalog.tool("h__fresh") is not None)
        assert any(isinstance(e, CatalogChanged) for e in events)
        assert _text(await manager.call_tool("h__fresh", {})) == "fresh"


async def test_disabling_a_server_stops_it_and_persists_the_flag() -> None:
    saved: list[list[str]] = []
    settings = Settings()
    async with running(
        hostile("h"), settings=settings, on_settings_changed=lambda s: saved.append(list(s.disabled_servers))
    ) as manager:
        events: list[object] = []
        manager.add_listener(events.append)
        manager.set_server_enabled("h", False)
        await wait_for(manager, lambda: manager.status("h").status is ServerStatus.DISABLED)
        assert saved[-1] == ["h"]
        assert ServerStatusChanged("h", ServerStatus.DISABLED, None) in events
        with pytest.raises(UnknownTool):
            await manager.call_tool("h__echo", {"text": "x"})
        manager.set_server_enabled("h", True)
        await wait_for(manager, lambda: manager.status("h").status is ServerStatus.READY)
        assert _text(await manager.call_tool("h__echo", {"text": "x"})) == "x"
        assert saved[-1] == []


async def test_a_disabled_tool_is_refused_and_filters_apply() -> None:
    settings = Settings()
    settings.set_tool_enabled("h__big", False)
    server = hostile("h", allowed_tools=["echo", "big", "hang"], excluded_tools=["hang"])
    async with running(server, settings=settings) as manager:
        assert {t.original_name for t in manager.catalog.tools} == {"echo", "big"}
        assert manager.catalog.tool("h__big").enabled is False  # type: ignore[union-attr]
        with pytest.raises(ToolDisabled):
            await manager.call_tool("h__big", {})
        manager.set_tool_enabled("h__big", True)
        assert manager.catalog.tool("h__big").enabled is True  # type: ignore[union-attr]


async def test_restart_reconnects_a_server() -> None:
    async with running(hostile("h")) as manager:
        statuses: list[ServerStatus] = []
        manager.add_listener(
            lambda e: statuses.append(e.status) if isinstance(e, ServerStatusChanged) else None
        )
        manager.restart("h")
        await wait_for(manager, lambda: statuses[-2:] == [ServerStatus.STARTING, ServerStatus.READY])
        assert _text(await manager.call_tool("h__echo", {"text": "again"})) == "again"
    assert manager.status("h").status is ServerStatus.STOPPED


async def test_calls_to_one_server_run_at_once_unless_its_max_concurrent_calls_says_otherwise() -> None:
    async with running(
        hostile("many"), hostile("one", max_concurrent_calls=1), auto_restart=False
    ) as manager:
        many = await asyncio.gather(*(manager.call_tool("many__overlap", {}) for _ in range(3)))
        one = await asyncio.gather(*(manager.call_tool("one__overlap", {}) for _ in range(3)))
    assert max(int(_text(r)) for r in many) == 3  # JSON-RPC multiplexes: all three at once
    assert max(int(_text(r)) for r in one) == 1  # one after another
