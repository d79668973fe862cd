"""The Host and the servers file while it runs: a server taken out of the file stops with a last status
event, and the file read again (reload_servers_file) starts what is new, stops what is gone and keeps
the rest, or, still unreadable, changes nothing. The real built-in servers and a real board server."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from edgehost.host import events as ev
from edgehost.llm.scripted import ScriptedBackend
from edgehost.paths import Paths

SENSORS = {"command": sys.executable, "args": ["-m", "edgehost", "serve", "board"]}


def _write_servers(data_dir: Path, servers: dict[str, Any], approval: list[Any] | None = None) -> Path:
    path = Paths.resolve(None, data_dir).servers_file
    path.parent.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {"mcpServers": servers}
    if approval is not None:
        document["approval"] = approval
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def _status(host: Any, name: str) -> str | None:
    return next((s.status.value for s in host.server_states() if s.name == name), None)


async def test_a_server_taken_out_of_the_file_stops_with_its_last_event_and_no_traceback(
    make_host: Any, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _write_servers(data_dir, {"sensors": SENSORS})
    host, recorder = await make_host(ScriptedBackend([]))
    host.remove_server_entry("sensors")
    with caplog.at_level(logging.ERROR):
        await host.reload_server("sensors")
    last = [e for e in recorder.of(ev.ServerStatusChanged) if e.name == "sensors"][-1]
    assert (last.status, last.tools) == ("stopped", 0)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert _status(host, "sensors") is None


async def test_reloading_the_servers_file_starts_new_entries_stops_removed_ones_and_keeps_the_rest(
    make_host: Any, data_dir: Path
) -> None:
    path = _write_servers(data_dir, {"sensors": SENSORS})
    host, recorder = await make_host(ScriptedBackend([]))
    board_connections = len([e for e in recorder.of(ev.ServerStatusChanged) if e.name == "board"])
    rule = {"server": "board", "tool": "uptime", "action": "deny"}
    _write_servers(data_dir, {"gauges": SENSORS}, approval=[rule])
    outcome = await host.reload_servers_file()
    assert (outcome.started, outcome.stopped, outcome.file_error) == (("gauges",), ("sensors",), None)
    await recorder.wait_for(
        lambda e: isinstance(e, ev.ServerStatusChanged) and (e.name, e.status) == ("gauges", "ready")
    )
    assert _status(host, "sensors") is None
    assert [s.name for s in host.servers_config.servers] == ["board", "files", "gauges"]
    assert any(t.name == "gauges__uptime" for t in host.tools())
    # The built-in servers, unchanged in the file, were not restarted.
    assert len([e for e in recorder.of(ev.ServerStatusChanged) if e.name == "board"]) == board_connections
    uptime = next(t for t in host.tools() if t.name == "board__uptime")
    assert host.policy.evaluate(uptime, {}, None).action == "deny"  # the file's rules apply now
    path.write_text('{"mcpServers": {', encoding="utf-8")
    broken = await host.reload_servers_file()
    assert broken.file_error is not None and str(path) in broken.file_error
    assert host.servers_config.file_error == broken.file_error
    assert _status(host, "gauges") == "ready"  # what runs goes on
