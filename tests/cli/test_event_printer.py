"""How `edgehost chat` prints a call's progress and a Task's states (`edgehost call` prints the same text)."""

from __future__ import annotations

import io

from edgehost.cli.terminal import EventPrinter
from edgehost.host import events as ev


def printed(*events: object) -> list[str]:
    out = io.StringIO()
    printer = EventPrinter(out)
    for event in events:
        printer(event)
    return out.getvalue().splitlines()


def test_progress_and_task_states_are_one_line_each_with_the_servers_message() -> None:
    assert printed(
        ev.ToolExecutionProgressed(1, "c1", 3, 10, "Indexing"),
        ev.ToolExecutionProgressed(1, "c1", 0.5, None, None),
        ev.ToolExecutionProgressed(
            1, "c2", 0, None, "Gathering sources...", task_id="t-9", task_status="working"
        ),
        ev.ToolExecutionProgressed(1, "c2", 0, None, None, task_id="t-9", task_status="completed"),
    ) == [
        "[MCP: progress 3/10 — Indexing]",
        "[MCP: progress 0.5]",
        "[MCP: task t-9: working — Gathering sources...]",
        "[MCP: task t-9: completed]",
    ]


def test_a_replaced_reply_is_not_printed_twice_only_the_result_follows_it() -> None:
    """The terminal cannot take back the reply it streamed: the result follows it, unquoted."""
    reply = "You have 2307.2 MB free."
    results = "**board__memory_usage** returned:\n\n- available_mb: 22101.8"
    lines = printed(
        ev.TextDelta(1, reply),
        ev.AnswerUngrounded(
            1, "it has numbers the result does not: 2307.2", f"{results}\n\n> {reply}", reply, results
        ),
    )
    assert lines.count(reply) == 1 and not any(line.startswith(">") for line in lines)
    assert (
        "[EdgeHost: the reply above is not what the tool returned (it has numbers the result does not: 2307.2):]"
        in lines
    )
    assert lines[-1] == "- available_mb: 22101.8"
