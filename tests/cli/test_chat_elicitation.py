"""`edgehost chat` in a real terminal asks a real server's elicitation (server-everything's
trigger-elicitation-request, a form of every field kind) field by field; piped input keeps the headless
answer. The default model runs the turn; `/tool` pins the call."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import Terminal, edgehost_command, run_edgehost
from tests.mcp.mcp_support import everything_stdio

pytestmark = [pytest.mark.slow, pytest.mark.peers]

TOOL = "everything__trigger-elicitation-request"


@pytest.fixture
def everything_home(home: Path) -> Path:
    """The chat's home with server-everything configured next to the built-in servers, offering only the
    tool these tests call: its other dozen tools would only lengthen the prompt each chat prefills (as
    the settings of conftest.py keep the built-in tools the tests do not use out)."""
    server = everything_stdio()
    only = [TOOL.split("__", 1)[1]]
    config = {
        "mcpServers": {"everything": {"command": server.command, "args": server.args, "allowedTools": only}}
    }
    (home / "servers.json").write_text(json.dumps(config))
    return home


def start_elicitation(terminal: Terminal, home: Path) -> str:
    """Start a chat, pin the tool, ask, allow the call once; the screen once the first field is asked."""
    terminal.start(edgehost_command(home, "chat"))
    terminal.wait_for(lambda s: s.rstrip().endswith(">"), "the first prompt")
    assert f"(next turn calls {TOOL})" in terminal.command(f"/tool {TOOL}")
    terminal.type_line("ask me for my details")
    terminal.wait_for_text("[d]eny? ")
    terminal.type_line("o")
    return terminal.wait_for_text("  text: ")


def last_result(home: Path) -> str:
    history = run_edgehost(home, "history", "--json")
    assert history.returncode == 0, history.stderr
    [execution] = json.loads(history.stdout)
    assert (execution["tool"], execution["status"]) == (TOOL, "ok")
    return str(execution["result"])


def test_chat_asks_each_field_of_a_servers_form_rechecks_bad_answers_and_sends_them(
    everything_home: Path, terminal: Terminal
) -> None:
    screen = start_elicitation(terminal, everything_home)
    assert "everything asks: Please provide inputs for the following fields:" in screen
    assert "/decline refuses to answer, /cancel stops without answering" in screen
    assert "String * — Your full, legal name\n  text: " in screen
    answers = [
        ("Ada Lovelace", "y/n: "),
        ("y", "text [It was a dark and stormy night.]: "),  # Enter keeps the default
        ("", "email address (like name@example.com): "),
        ("ada@", "(must be an email address, like name@example.com; try again)"),
        ("ada@example.com", "address (like https://example.com): "),
        ("", "date (like 2025-01-31): "),  # the optional homepage is left out
        ("1815-12-10", "whole number, 1 to 100 [42]: "),
        ("500", "(must be at most 100; try again)"),
        ("7", "number, 0 to 1000 [3.14]: "),
        ("", "1) Monica  2) Rachel  3) Joey"),
        ("3", "numbers or names, separated by commas, 1 to 3 choices [Guitar]: "),
        ("piano, 4", "1) Superman  2) Green Lantern  3) Wonder Woman"),
        ("wonder woman", "[Tuna]: "),
        ("", "1) Cats  2) Dogs"),
        ("Dogs", "Send these answers? [s]end, [e]dit them, [d]ecline, [c]ancel: "),
    ]
    for answer, next_question in answers:
        count = terminal.screen().count(next_question) + 1
        terminal.type_line(answer)
        terminal.wait_for_text(next_question, count=count)
    terminal.command("s")  # sent: the turn ends, the chat reads its next line
    terminal.type_line("/quit")
    assert terminal.wait_exit() == 0, terminal.screen()
    result = last_result(everything_home)
    assert "User provided the requested information" in result
    content = json.loads(result[result.index("{") :])["content"]
    assert content == {
        "name": "Ada Lovelace",
        "check": True,
        "firstLine": "It was a dark and stormy night.",
        "email": "ada@example.com",
        "birthdate": "1815-12-10",
        "integer": 7,
        "number": 3.14,
        "untitledSingleSelectEnum": "Joey",
        "untitledMultipleSelectEnum": ["Piano", "Drums"],
        "titledSingleSelectEnum": "hero-3",
        "titledMultipleSelectEnum": ["fish-1"],
        "legacyTitledEnum": "pet-2",
    }


def test_decline_at_a_field_tells_the_server_and_the_chat_reads_its_next_line(
    everything_home: Path, terminal: Terminal
) -> None:
    start_elicitation(terminal, everything_home)
    assert "(declined: everything gets no answer)" in terminal.command("/decline")
    screen = terminal.command("/history")
    assert re.search(rf"^ {TOOL} ok \d+ ms$", screen[screen.rindex("> /history") :], re.MULTILINE)
    terminal.type_line("/quit")
    assert terminal.wait_exit() == 0, terminal.screen()
    assert "User declined to provide the requested information" in last_result(everything_home)


def test_chat_with_piped_input_answers_an_elicitation_as_without_a_terminal(everything_home: Path) -> None:
    done = run_edgehost(everything_home, "chat", stdin=f"/tool {TOOL}\nask me for my details\no\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "everything asks" not in done.stdout  # nobody to ask: the name is required and has no default
    assert "User declined to provide the requested information" in last_result(everything_home)


def test_ctrl_d_at_a_field_cancels_the_form_and_the_chat_still_reads_its_next_line(
    everything_home: Path, terminal: Terminal
) -> None:
    # Ctrl-D ended the reading thread: the chat then ignored every line and had to be killed.
    start_elicitation(terminal, everything_home)
    terminal.press("C-d")
    terminal.wait_for_text("(cancelled: everything gets no answer)")
    terminal.wait_for(
        lambda s: f"[MCP: {TOOL} ok" in s and s.rstrip().endswith("\n>"), "the chat's prompt after the turn"
    )
    screen = terminal.command("/history")
    assert re.search(rf"^ {TOOL} ok \d+ ms$", screen[screen.rindex("> /history") :], re.MULTILINE)
    terminal.type_line("/quit")
    assert terminal.wait_exit() == 0, terminal.screen()


def test_ask_on_a_terminal_asks_a_servers_question_too(everything_home: Path, terminal: Terminal) -> None:
    # `ask` answered every form with the schema's defaults, even with a person at the terminal.
    terminal.start(edgehost_command(everything_home, "ask", "--tool", TOOL, "ask me for my details"))
    terminal.wait_for_text("[d]eny? ")
    terminal.type_line("o")
    screen = terminal.wait_for_text("  text: ")
    assert "everything asks: Please provide inputs for the following fields:" in screen
    terminal.type_line("/decline")
    terminal.wait_for_text("(declined: everything gets no answer)")
    assert terminal.wait_exit() == 0, terminal.screen()
    assert "User declined to provide the requested information" in last_result(everything_home)
