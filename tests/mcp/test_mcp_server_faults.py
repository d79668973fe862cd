"""The supervisor against servers that are wrong in ways a probe found (issue 30): bytes that are not
UTF-8 on stdout, no answer to initialize, a list the server's capabilities promise but it lacks."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp_support import running, wait_for

from edgehost.mcp import _transport
from edgehost.mcp.config import ServerConfig
from edgehost.mcp.errors import ServerUnavailable
from edgehost.mcp.manager import ServerStatusChanged
from edgehost.mcp.server_state import ServerStatus
from edgehost.slow_machine import scaled_wait

PARTIAL = Path(__file__).with_name("partial_server.py")
# Well under the server's call timeout below: a call that waits for it has hung.
FAST_S = 5.0
CALL_TIMEOUT_S = scaled_wait(30.0)


def _text(result) -> str:  # type: ignore[no-untyped-def]
    return "".join(getattr(block, "text", "") for block in result.content)


def partial(name: str = "partial") -> ServerConfig:
    return ServerConfig(name=name, command=sys.executable, args=[str(PARTIAL)], timeout=CALL_TIMEOUT_S)


async def test_bytes_that_are_not_utf8_on_stdout_are_junk_and_the_server_answers_on() -> None:
    async with running(partial()) as manager:
        with anyio.fail_after(FAST_S):
            assert _text(await manager.call_tool("partial__stray_bytes", {})) == "wrote stray bytes"
            assert _text(await manager.call_tool("partial__echo", {"text": "still here"})) == "still here"
        assert manager.status("partial").status is ServerStatus.READY
        log = manager.log_tail("partial")
        assert any("not JSON-RPC" in line for line in log)  # the garbage line
        assert any(line.endswith("caf\ufffd") for line in log)  # the message around the stray byte


async def test_a_failed_stdout_reader_fails_the_call_at_once_and_the_server_says_why_and_restarts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "strict", the SDK's default, is one way the reader can still die: on the first stray byte.
    monkeypatch.setattr(_transport, "STDOUT_DECODING_ERRORS", "strict")
    async with running(partial()) as manager:
        changes: list[ServerStatusChanged] = []
        manager.add_listener(lambda e: changes.append(e) if isinstance(e, ServerStatusChanged) else None)
        with anyio.fail_after(FAST_S), pytest.raises(ServerUnavailable):
            await manager.call_tool("partial__stray_bytes", {})
        # The call fails at once; the status may follow it by a moment on a loaded machine.
        await wait_for(manager, lambda: any(c.status is ServerStatus.FAILED for c in changes))
        failed = next(c for c in changes if c.status is ServerStatus.FAILED)
        assert "reading its output failed" in (failed.error or "")
        assert "can't decode byte 0xff" in (failed.error or "")
        await wait_for(manager, lambda: manager.status("partial").status is ServerStatus.READY)
        assert _text(await manager.call_tool("partial__echo", {"text": "back"})) == "back"


async def test_a_server_that_never_answers_initialize_is_failed_with_why_and_when_it_retries() -> None:
    mute = ServerConfig(name="mute", command=sys.executable, args=["-c", "import sys; sys.stdin.read()"])
    async with running(mute, startup_timeout=0.5) as manager:
        first = manager.status("mute")
        assert first.status is ServerStatus.FAILED
        assert first.error is not None and "did not complete its start within 0.5 s" in first.error
        assert first.retry_at is not None and "retrying" in first.error
        assert first.to_json()["retryAt"] is not None
        assert any("did not complete its start" in line for line in manager.log_tail("mute"))

        seen: list[ServerStatusChanged] = []
        manager.add_listener(lambda e: seen.append(e) if isinstance(e, ServerStatusChanged) else None)
        # The next attempt fails too: shown failed meanwhile, never "starting", and it waits longer next.
        await wait_for(
            manager,
            lambda: any(e.status is ServerStatus.FAILED and "retrying at" in (e.error or "") for e in seen),
            10,
        )
        assert ServerStatus.STARTING not in {e.status for e in seen}
        assert any("retrying now" in (e.error or "") for e in seen)
        second = manager.status("mute")
        # Its attempt began at first.retry_at and took 0.5 s; the wait after it is 2 s, not 1 s again.
        assert second.retry_at is not None and second.retry_at - first.retry_at > 2.0


async def test_a_server_without_resource_templates_starts_with_its_tools_and_says_so_once() -> None:
    async with running(partial()) as manager:
        state = manager.status("partial")
        assert state.status is ServerStatus.READY, state.error
        assert (state.tools, state.resources, state.resource_templates) == (2, 1, 0)
        assert _text(await manager.call_tool("partial__echo", {"text": "hi"})) == "hi"
        statuses: list[ServerStatus] = []
        manager.add_listener(
            lambda e: statuses.append(e.status) if isinstance(e, ServerStatusChanged) else None
        )
        manager.restart("partial")
        await wait_for(manager, lambda: statuses[-2:] == [ServerStatus.STARTING, ServerStatus.READY])
        said = [line for line in manager.log_tail("partial") if "resources/templates/list" in line]
        assert len(said) == 1
