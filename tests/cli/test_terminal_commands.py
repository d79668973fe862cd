"""`edgehost ask` and `edgehost chat` run as a person runs them, with the real default model."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from cli_helpers import Terminal, edgehost_command, run_edgehost

from edgehost.slow_machine import scaled_wait

pytestmark = pytest.mark.slow


def test_ask_with_a_pinned_tool_prints_the_call_and_records_it_in_the_history(home: Path) -> None:
    done = run_edgehost(
        home,
        "ask",
        "How long has the board been up?",
        "--tool",
        "board__uptime",
        "--yes",
        "--json",
        "--max-tokens",
        "96",
        "--temperature",
        "0",
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert isinstance(answer["text"], str) and answer["text"].strip()
    first = answer["executions"][0]
    assert (first["tool"], first["status"]) == ("board__uptime", "ok")
    assert answer["perf"]["generated_tokens"] > 0
    assert "[MCP: calling board__uptime" in done.stderr  # --json keeps stdout for the JSON

    history = run_edgehost(home, "history", "--json")
    assert history.returncode == 0, history.stderr
    assert [(e["tool"], e["status"]) for e in json.loads(history.stdout)] == [("board__uptime", "ok")]


def test_a_destructive_call_without_yes_and_without_a_terminal_is_denied(home: Path) -> None:
    done = run_edgehost(
        home,
        "ask",
        "delete notes.txt",
        "--tool",
        "files__delete_file",
        "--json",
        "--max-tokens",
        "96",
        "--temperature",
        "0",
    )
    # The question is not answered, and a script can tell: exit 1, and why on stderr.
    assert done.returncode == 1, done.stderr
    assert (
        "edgehost: files__delete_file was not run: files__delete_file needs approval:"
        " run with --yes / --yes-all or add an approval rule"
    ) in done.stderr
    answer = json.loads(done.stdout)
    assert answer["executions"], done.stdout + done.stderr
    first = answer["executions"][0]
    assert (first["tool"], first["status"], first["decided_by"]) == ("files__delete_file", "denied", "policy")
    assert (home / "files" / "notes.txt").read_text() == "keep me"


SERVERS_READY_S = scaled_wait(60.0)


def wait_servers_ready(terminal: Terminal, **statuses: str) -> None:
    """Ask /servers until both built-in servers are ready (chat does not wait for them itself), or in
    the ``statuses`` given by name."""
    expected = {"board": "ready", "files": "ready", **statuses}
    deadline = time.monotonic() + SERVERS_READY_S
    while True:
        screen = terminal.command("/servers")
        last = screen[screen.rindex("> /servers") :]
        if all(re.search(rf"^ {name}: {status}$", last, re.MULTILINE) for name, status in expected.items()):
            return
        if time.monotonic() > deadline:
            pytest.fail(f"the servers were not {expected} within {SERVERS_READY_S:g} s:\n{screen}")


def test_chat_lists_tools_calls_a_pinned_tool_shows_its_history_and_quits_cleanly(
    home: Path, terminal: Terminal
) -> None:
    terminal.start(edgehost_command(home, "chat"))
    terminal.wait_for(lambda s: s.rstrip().endswith(">"), "the first prompt")
    wait_servers_ready(terminal)
    screen = terminal.command("/tools")
    assert re.search(r"\[x\] board__uptime: ", screen)  # enabled
    assert re.search(r"\[ \] board__cpu_status: ", screen)  # switched off in this test's settings
    assert "(next turn calls board__uptime)" in terminal.command("/tool board__uptime")
    screen = terminal.command("How long has the board been up?")
    assert "[MCP: calling board__uptime …]" in screen
    assert re.search(r"\[MCP: board__uptime ok in \d+ ms\]", screen)
    screen = terminal.command("/history")
    assert re.search(r"^ board__uptime ok \d+ ms$", screen[screen.rindex("> /history") :], re.MULTILINE)
    terminal.type_line("/quit")
    assert terminal.wait_exit() == 0, terminal.screen()


def test_chat_with_piped_input_sees_the_tools_from_its_first_line(home: Path) -> None:
    done = run_edgehost(home, "chat", stdin="/tools\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "board__uptime" in done.stdout


def test_chat_servers_shows_each_server_and_its_status(home: Path, terminal: Terminal) -> None:
    terminal.start(edgehost_command(home, "chat"))
    terminal.wait_for(lambda s: s.rstrip().endswith(">"), "the first prompt")
    wait_servers_ready(terminal)
    screen = terminal.command("/servers")
    last = screen[screen.rindex("> /servers") :]
    assert re.search(r"^ board: ready$", last, re.MULTILINE)
    assert re.search(r"^ files: ready$", last, re.MULTILINE)
    terminal.type_line("/quit")
    terminal.wait_exit()


def test_chat_disable_and_enable_switch_a_whole_server(home: Path, terminal: Terminal) -> None:
    terminal.start(edgehost_command(home, "chat"))
    terminal.wait_for(lambda s: s.rstrip().endswith(">"), "the first prompt")
    wait_servers_ready(terminal)
    assert "(the server files is off)" in terminal.command("/disable files")
    wait_servers_ready(terminal, files="disabled")
    assert "(the server files is on: connecting)" in terminal.command("/enable files")
    wait_servers_ready(terminal)
    terminal.type_line("/quit")
    terminal.wait_exit()
    settings = json.loads((home / "settings.json").read_text())
    assert "files" not in settings.get("disabled_servers", [])  # remembered


def test_chat_refuses_to_pin_a_tool_that_does_not_exist(home: Path, terminal: Terminal) -> None:
    terminal.start(edgehost_command(home, "chat"))
    terminal.wait_for(lambda s: s.rstrip().endswith(">"), "the first prompt")
    wait_servers_ready(terminal)
    screen = terminal.command("/tool board__no_such_tool")
    assert "no tool named 'board__no_such_tool'" in screen
    assert "(next turn calls board__no_such_tool)" not in screen
    terminal.type_line("/quit")
    terminal.wait_exit()


def test_chat_refuses_to_pin_a_switched_off_tool_until_enable_switches_it_on(
    home: Path, terminal: Terminal
) -> None:
    terminal.start(edgehost_command(home, "chat"))
    terminal.wait_for(lambda s: s.rstrip().endswith(">"), "the first prompt")
    wait_servers_ready(terminal)
    screen = terminal.command("/tool board__board_info")  # switched off in the home's settings
    assert "board__board_info is switched off, so it would not be called: /enable board__board_info" in screen
    assert "(next turn calls board__board_info)" not in screen
    assert "(board__board_info is on)" in terminal.command("/enable board__board_info")
    assert "(next turn calls board__board_info)" in terminal.command("/tool board__board_info")
    terminal.type_line("/quit")
    terminal.wait_exit()
    settings = json.loads((home / "settings.json").read_text())
    assert "board__board_info" not in settings.get("disabled_tools", [])  # remembered


def test_ctrl_c_in_chat_stops_the_turn_and_the_chat_goes_on(home: Path, terminal: Terminal) -> None:
    terminal.start(edgehost_command(home, "chat"))
    terminal.wait_for(lambda s: s.rstrip().endswith(">"), "the first prompt")
    terminal.type_line("Write a very long story about a robot who learns to paint, in many chapters.")
    terminal.wait_for(lambda s: bool(re.search(r"chapters\.\n\s*\S", s)), "the answer to start streaming")
    terminal.press("C-c")
    terminal.wait_for_text("(stopped)")
    wait_servers_ready(terminal)
    terminal.command("/tool board__uptime")
    screen = terminal.command("How long has the board been up?")
    assert re.search(r"\[MCP: board__uptime ok in \d+ ms\]", screen)
    terminal.type_line("/quit")
    assert terminal.wait_exit() == 0, terminal.screen()


ASK_TO_DELETE = (
    "ask",
    "delete notes.txt",
    "--tool",
    "files__delete_file",
    "--max-tokens",
    "96",
    "--temperature",
    "0",
)


def test_an_approval_on_the_terminal_shows_the_call_and_a_denial_with_a_reason_keeps_the_file(
    home: Path, terminal: Terminal
) -> None:
    terminal.start(edgehost_command(home, *ASK_TO_DELETE))
    screen = terminal.wait_for_text("[d]eny? ")
    assert "Approve a tool call (destructive)?" in screen
    assert "server:    files" in screen
    assert "tool:      files__delete_file" in screen
    assert "why asked: the server says it may destroy or overwrite data (destructiveHint)" in screen
    assert re.search(r'arguments: \{\s*"path": ', screen)
    assert "[a]lways" not in screen  # never offered for a destructive tool without a user rule
    terminal.type_line("d")
    terminal.wait_for_text("Reason for the model (optional): ")
    terminal.type_line("I still need it")
    assert terminal.wait_exit() == 0, terminal.screen()
    assert (home / "files" / "notes.txt").read_text() == "keep me"
    history = run_edgehost(home, "history", "--json")
    [execution] = json.loads(history.stdout)
    assert (execution["tool"], execution["status"], execution["decided_by"]) == (
        "files__delete_file",
        "denied",
        "user",
    )
