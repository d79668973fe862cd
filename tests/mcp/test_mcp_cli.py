"""`edgehost servers | tools | call | resources | read | prompts | prompt`.

One test runs the real `python -m edgehost` process; the others call the same entry point in-process
(``edgehost.cli.main.main``), which saves an interpreter start per command on this slow machine.
`probe` is exercised by the conformance tests.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp_support import EVERYTHING, HOSTILE, free_port, node_binary, write_config
from tests.conftest import peer_path

from edgehost import __version__
from edgehost.cli.main import main
from edgehost.slow_machine import scaled_wait

# A CLI run starts Python, connects, lists and closes; bounded well above what it needs.
CLI_TIMEOUT_S = round(scaled_wait(120))
# Listings wait 10 s by default; node servers on this shared machine may need longer.
WAIT_S = scaled_wait(60)
RISKY = Path(__file__).resolve().parent / "risky_server.py"


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def edgehost(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    def run(data_dir: Path, config: Path, *args: str) -> Run:
        capsys.readouterr()
        code = main(["--config", str(config), "--data-dir", str(data_dir), *args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def test_servers_json_in_a_real_process_shows_ready_and_failed_servers(data_dir: Path, config: Path) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "edgehost",
            "--config",
            str(config),
            "--data-dir",
            str(data_dir),
            "servers",
            "--json",
            "--wait",
            str(WAIT_S),
        ],
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
    )
    assert completed.returncode == 1, completed.stderr  # a server failed
    servers = {s["name"]: s for s in json.loads(completed.stdout)}
    assert servers["hostile"]["status"] == "ready"
    assert servers["hostile"]["tools"] >= 5
    assert servers["broken"]["status"] == "failed"
    assert "broken" in servers["broken"]["error"]
    assert any("cannot open /dev/npu0" in line for line in servers["broken"]["stderrTail"])
    assert servers["board"]["status"] == "disabled"


@pytest.fixture
def config(data_dir: Path) -> Path:
    return write_config(
        data_dir,
        {
            "hostile": {"command": sys.executable, "args": [str(HOSTILE)], "timeout": 2},
            "broken": {"command": sys.executable, "args": [str(HOSTILE), "--exit-at-start"]},
            "everything": {"command": node_binary(), "args": [str(peer_path(*EVERYTHING)), "stdio"]},
            "board": {"enabled": False},
            "files": {"enabled": False},
        },
    )


def test_tools_json_lists_namespaced_tools_of_one_server(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    completed = edgehost(data_dir, config, "tools", "--server", "everything", "--json", "--wait", str(WAIT_S))
    assert completed.returncode == 0, completed.stderr
    tools = json.loads(completed.stdout)
    assert {t["server"] for t in tools} == {"everything"}
    echo = next(t for t in tools if t["name"] == "everything__echo")
    assert echo["enabled"] is True and "description" in echo and "annotations" in echo
    ranked = edgehost(
        data_dir,
        config,
        "tools",
        "--server",
        "everything",
        "--query",
        "sum of two numbers",
        "--top",
        "3",
        "--json",
        "--wait",
        str(WAIT_S),
    )
    assert ranked.returncode == 0, ranked.stderr
    top = [t["name"] for t in json.loads(ranked.stdout)]
    assert len(top) == 3 and "everything__get-sum" in top


def test_call_prints_content_and_saves_images(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    completed = edgehost(data_dir, config, "call", "everything__get-tiny-image", "{}")
    assert completed.returncode == 0, completed.stderr
    saved = list((data_dir / "outputs").glob("*.png"))
    assert len(saved) == 1 and saved[0].read_bytes().startswith(b"\x89PNG")
    assert str(saved[0]) in completed.stdout


def test_call_of_a_task_tool_shows_the_tasks_states_and_prints_its_result(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    completed = edgehost(
        data_dir, config, "call", "everything__simulate-research-query", '{"topic": "ferns"}'
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("# Research Report: ferns")
    states = [line for line in completed.stderr.splitlines() if line.startswith("[task ")]
    assert states[0].endswith(": working — Gathering sources...]"), completed.stderr
    assert ": completed" in states[-1]


def _statuses(history: Path) -> list[str]:
    """The executions' statuses in a history file another process is writing (WAL: readers see commits)."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{history}?mode=ro", uri=True, timeout=5)) as db:
            return [row[0] for row in db.execute("SELECT status FROM executions")]
    except sqlite3.OperationalError:  # not created yet
        return []


def test_a_task_call_whose_process_is_killed_is_interrupted_in_the_history_not_running(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    command = [sys.executable, "-m", "edgehost", "--config", str(config), "--data-dir", str(data_dir)]
    process = subprocess.Popen(
        [*command, "call", "everything__simulate-research-query", '{"topic": "ferns"}'],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:  # the task is running on the server once its first state is printed
            if line.startswith("[task "):
                break
        # The history is written behind the call, on a thread: kill once the running call is in the file.
        deadline = time.monotonic() + CLI_TIMEOUT_S
        while _statuses(data_dir / "history.db") != ["running"] and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        process.kill()
        process.communicate(timeout=CLI_TIMEOUT_S)
    listed = edgehost(data_dir, config, "history", "--json")
    (execution,) = json.loads(listed.stdout)
    assert execution["tool"] == "everything__simulate-research-query"
    assert execution["status"] == "interrupted"


def test_call_json_gives_content_structured_content_and_is_error(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    completed = edgehost(data_dir, config, "call", "hostile__echo", '{"text": "hi"}', "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert result["content"] == [{"type": "text", "text": "hi"}]
    assert result["isError"] is False
    assert "structuredContent" in result


def test_call_exit_codes_say_what_went_wrong(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    timeout = edgehost(data_dir, config, "call", "hostile__hang", "{}")
    assert timeout.returncode == 1 and "timed out" in timeout.stderr
    dead = edgehost(data_dir, config, "call", "hostile__die", '{"message": "goodbye"}')
    assert dead.returncode == 1 and "dropped its connection" in dead.stderr and "goodbye" in dead.stderr
    broken = edgehost(data_dir, config, "call", "broken__echo", '{"text": "x"}')
    assert broken.returncode == 1 and "failed" in broken.stderr
    tool_error = edgehost(data_dir, config, "call", "hostile__echo", "{}")  # missing argument: isError result
    assert tool_error.returncode == 1 and "returned an error" in tool_error.stderr
    assert edgehost(data_dir, config, "call", "hostile__echo", "not json").returncode == 2
    assert edgehost(data_dir, config, "call", "nobody__echo", "{}").returncode == 2


def test_resources_read_prompts_and_prompt(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    listed = edgehost(
        data_dir, config, "resources", "--server", "everything", "--json", "--wait", str(WAIT_S)
    )
    assert listed.returncode == 0, listed.stderr
    uri = next(r["uri"] for r in json.loads(listed.stdout) if r["kind"] == "resource")
    read = edgehost(data_dir, config, "read", uri, "--server", "everything", "--json")
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["contents"][0]["uri"] == uri
    prompts = edgehost(data_dir, config, "prompts", "--server", "everything", "--json", "--wait", str(WAIT_S))
    assert "everything__args-prompt" in {p["name"] for p in json.loads(prompts.stdout)}
    got = edgehost(data_dir, config, "prompt", "everything__args-prompt", "city=Lyon")
    assert got.returncode == 0, got.stderr
    assert "Lyon" in got.stdout
    # A required argument left out is named, with how to give it (not the server's -32602).
    missing = edgehost(data_dir, config, "prompt", "everything__args-prompt")
    assert missing.returncode != 0
    assert "the prompt everything__args-prompt needs city (" in missing.stderr, missing.stderr
    assert "(give city=...)" in missing.stderr and "-32602" not in missing.stderr


def test_a_server_that_never_starts_is_listed_as_starting_after_wait(
    data_dir: Path, edgehost: Callable[..., Run]
) -> None:
    config = write_config(
        data_dir,
        {
            "slow": {"command": sys.executable, "args": [str(HOSTILE), "--slow-start", "600"]},
            "board": {"enabled": False},
            "files": {"enabled": False},
        },
    )
    listed = edgehost(data_dir, config, "servers", "--json", "--wait", "2")
    assert listed.returncode == 1, listed.stderr  # not ready: a script waiting on it must not go on
    statuses = {s["name"]: s["status"] for s in json.loads(listed.stdout)}
    assert statuses == {"slow": "starting", "board": "disabled", "files": "disabled"}
    text = edgehost(data_dir, config, "servers", "--wait", "1")
    assert "slow: starting" in text.stdout and "--wait" in text.stdout


def test_servers_exits_1_when_the_servers_file_cannot_be_read_and_config_check_says_where(
    data_dir: Path, tmp_path: Path, edgehost: Callable[..., Run]
) -> None:
    broken = tmp_path / "servers.json"
    broken.write_text('{"mcpServers": {"a": {"command": "x"} "b": {}}}')
    listed = edgehost(data_dir, broken, "servers", "--wait", str(WAIT_S))
    assert listed.returncode == 1  # the built-ins run, but the user's servers do not
    assert "board: ready" in listed.stdout
    checked = edgehost(data_dir, broken, "config", "check")  # what `edgehost --help` calls it
    assert checked.returncode == 1 and f"{broken}:1:" in checked.stderr


def test_a_failed_server_makes_servers_exit_1_with_one_clear_error(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    listed = edgehost(data_dir, config, "servers", "--wait", str(WAIT_S))
    assert listed.returncode == 1
    assert "broken: failed" in listed.stdout
    called = edgehost(data_dir, config, "call", "broken__echo", '{"text": "x"}')
    first_line = called.stderr.strip().splitlines()[0]
    assert called.returncode == 1 and "failed to start" in first_line
    assert first_line.count("broken") == 1 and " is failed" not in first_line, first_line


@pytest.fixture
def risky(data_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A config with the risky server (untrusted) and the built-in board server; and the marker folder."""
    markers = tmp_path / "called"
    markers.mkdir()
    config = write_config(
        data_dir,
        {"risky": {"command": sys.executable, "args": [str(RISKY), str(markers)]}, "board": {}},
    )
    return config, markers


def test_probe_of_a_configured_server_calls_only_safe_tools(
    data_dir: Path, risky: tuple[Path, Path], edgehost: Callable[..., Run]
) -> None:
    config, markers = risky
    probed = edgehost(data_dir, config, "probe", "--server", "risky", "--json")
    assert probed.returncode == 0, probed.stderr
    outcomes = {t["tool"]: (t["risk"], t["outcome"]) for t in json.loads(probed.stdout)["tools"]}
    assert outcomes["read_note"] == ("safe", "ok")
    assert outcomes["delete_everything"][0] == "destructive"
    assert outcomes["delete_everything"][1].startswith("skipped (destructive")
    assert outcomes["count_words"][1].startswith("skipped (caution")
    assert sorted(p.name for p in markers.iterdir()) == ["read_note"]
    risky_too = edgehost(data_dir, config, "probe", "--server", "risky", "--call-risky", "--json")
    assert risky_too.returncode == 0, risky_too.stderr
    assert sorted(p.name for p in markers.iterdir()) == ["count_words", "read_note"]
    everything = edgehost(data_dir, config, "probe", "--server", "risky", "--call-destructive")
    assert everything.returncode == 0, everything.stderr
    assert (markers / "delete_everything").exists()


def test_tools_listing_tags_risk_from_names_too(
    data_dir: Path, risky: tuple[Path, Path], edgehost: Callable[..., Run]
) -> None:
    config, _ = risky
    listed = edgehost(data_dir, config, "tools", "--server", "risky", "--wait", str(WAIT_S))
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if line.startswith("risky__delete_everything"))
    assert line.endswith("[destructive]")
    as_json = edgehost(data_dir, config, "tools", "--server", "risky", "--json", "--wait", str(WAIT_S))
    risks = {t["name"]: t["risk"] for t in json.loads(as_json.stdout)}
    assert risks["risky__delete_everything"] == "destructive"
    assert risks["risky__read_note"] == "safe"


def test_empty_listings_say_so_and_the_built_in_server_has_the_app_version(
    data_dir: Path, risky: tuple[Path, Path], edgehost: Callable[..., Run]
) -> None:
    config, _ = risky
    resources = edgehost(data_dir, config, "resources", "--server", "risky", "--wait", str(WAIT_S))
    assert resources.returncode == 0 and "(no resources)" in resources.stdout
    prompts = edgehost(data_dir, config, "prompts", "--server", "risky", "--wait", str(WAIT_S))
    assert prompts.returncode == 0 and "(no prompts)" in prompts.stdout
    servers = edgehost(data_dir, config, "servers", "--json", "--wait", str(WAIT_S))
    assert servers.returncode == 0, servers.stdout
    board = next(s for s in json.loads(servers.stdout) if s["name"] == "board")
    assert board["serverInfo"] == {"name": "board", "version": __version__}


def test_call_prints_structured_content_once(
    data_dir: Path, risky: tuple[Path, Path], edgehost: Callable[..., Run]
) -> None:
    config, _ = risky
    called = edgehost(data_dir, config, "call", "risky__summary")
    assert called.returncode == 0, called.stderr
    assert called.stdout.count("notes.txt") == 1, called.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("tools", "--query", "x", "--top", "-1"),
        ("tools", "--query", "x", "--top", "0"),
        ("call", "risky__summary", "--timeout", "-1"),
        ("call", "risky__summary", "--timeout", "nan"),
        ("servers", "--wait", "0"),
    ],
)
def test_numbers_out_of_range_are_usage_errors(
    data_dir: Path, risky: tuple[Path, Path], capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    config, _ = risky
    with pytest.raises(SystemExit) as exited:
        main(["--config", str(config), "--data-dir", str(data_dir), *args])
    assert exited.value.code == 2
    assert "expected" in capsys.readouterr().err


def test_a_call_from_the_command_line_is_recorded_and_a_deny_rule_refuses_it(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    from edgehost.store import Store

    called = edgehost(data_dir, config, "call", "hostile__echo", '{"text": "hi"}')
    assert called.returncode == 0, called.stderr
    document = json.loads(config.read_text())
    document["approval"] = [{"server": "hostile", "tool": "echo", "action": "deny"}]
    config.write_text(json.dumps(document))
    refused = edgehost(data_dir, config, "call", "hostile__echo", '{"text": "again"}')
    assert refused.returncode != 0 and "was not called" in refused.stderr
    with Store.open(data_dir / "history.db") as store:
        rows = [(e.tool, e.status, e.decided_by, e.arguments) for e in store.list_executions()]
    assert rows == [
        ("hostile__echo", "denied", "rule", {"text": "again"}),
        ("hostile__echo", "ok", "user", {"text": "hi"}),
    ]


def test_a_sampling_request_during_call_is_declined_at_once_saying_where_it_is_answered(
    data_dir: Path, config: Path, edgehost: Callable[..., Run]
) -> None:
    # Seen by a new user: `call` loaded the model, then waited 60 s for an approval nobody could give.
    completed = edgehost(
        data_dir,
        config,
        "call",
        "everything__trigger-sampling-request",
        '{"prompt": "Say hello", "maxTokens": 30}',
    )
    output = completed.stdout + completed.stderr
    assert "this command runs no model" in output and "`edgehost chat` answer sampling requests" in output, (
        output
    )
    assert "timed out" not in output


def test_a_remote_server_that_does_not_answer_is_named_by_its_address(
    data_dir: Path, edgehost: Callable[..., Run]
) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"  # nothing listens there
    config = write_config(
        data_dir, {"gone": {"url": url}, "board": {"enabled": False}, "files": {"enabled": False}}
    )
    listed = edgehost(data_dir, config, "servers", "--wait", str(WAIT_S))
    assert listed.returncode == 1
    assert f"server 'gone' failed to start: could not connect to {url} (" in listed.stdout, listed.stdout


NOTES = Path(__file__).resolve().parent / "note_server.py"


def _json_line(process: subprocess.Popen[str], timeout: float = CLI_TIMEOUT_S) -> dict[str, object]:
    """The next line of the process's stdout, as JSON (bounded: the reading thread is left if it hangs)."""
    import threading

    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(process.stdout.readline() if process.stdout else ""))
    reader.start()
    reader.join(timeout)
    assert line and line[0], f"no line within {timeout:g} s"
    return dict(json.loads(line[0]))


def test_read_watch_reads_a_resource_again_each_time_its_server_says_it_changed(tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("buy milk", encoding="utf-8")
    config = write_config(tmp_path, {"notes": {"command": sys.executable, "args": [str(NOTES), str(note)]}})
    process = subprocess.Popen(
        [sys.executable, "-m", "edgehost", "--config", str(config), "--data-dir", str(tmp_path / "data")]
        + ["read", "note://today", "--watch", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = _json_line(process)
        assert first["contents"] == [{"uri": "note://today", "mimeType": "text/plain", "text": "buy milk"}]
        before = note.stat().st_mtime
        note.write_text("buy milk and bread", encoding="utf-8")
        os.utime(note, (before + 2, before + 2))  # a file system whose times are coarse sees a change too
        second = _json_line(process)
        assert second["contents"][0]["text"] == "buy milk and bread"  # type: ignore[index]
        assert process.poll() is None  # it stays for the next change
    finally:
        process.terminate()
        process.wait(CLI_TIMEOUT_S)


def test_read_watch_of_a_server_that_sends_no_updates_says_so(
    data_dir: Path, tmp_path: Path, edgehost: Callable[..., Run]
) -> None:
    note = tmp_path / "note.txt"
    note.write_text("x", encoding="utf-8")
    script = tmp_path / "static_notes.py"
    # The same server without its subscriptions/listen handler: it cannot tell anyone of a change.
    script.write_text(
        NOTES.read_text(encoding="utf-8").replace("subscriptions=bus", "subscriptions=False"),
        encoding="utf-8",
    )
    config = write_config(tmp_path, {"notes": {"command": sys.executable, "args": [str(script), str(note)]}})
    done = edgehost(data_dir, config, "read", "note://today", "--watch")
    assert done.returncode == 1
    assert "server 'notes'" in done.stderr and "updates" in done.stderr, done.stderr
