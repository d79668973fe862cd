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


def test_after_a_call_edgehost_chose_the_answer_waits_for_the_turns_end() -> None:
    """A small model's answer is often replaced; the terminal cannot take back what it printed."""
    started = ev.ToolExecutionStarted(1, "c1", "board", "board__memory_usage", {}, chosen_by="host")
    finished = ev.ToolExecutionFinished(1, "c1", "board__memory_usage", "ok", "{}", 3.0)
    reply = "You have 2307.2 MB free."
    replacement = "**board__memory_usage** returned:\n\n- available_mb: 22101.8\n\n*The model's reply …*"
    replaced = printed(
        started,
        finished,
        ev.TextDelta(1, reply),
        ev.AnswerUngrounded(1, "it has numbers the result does not: 2307.2", replacement, reply, ""),
        ev.TurnCompleted(1, replacement),
    )
    assert reply not in replaced  # never printed on its own
    assert replaced[-3:] == ["- available_mb: 22101.8", "", "*The model's reply …*"]
    kept = printed(started, finished, ev.TextDelta(1, "22101.8 MB "), ev.TextDelta(1, "are free."))
    assert kept == [
        "[MCP: calling board__memory_usage … (chosen by EdgeHost)]",
        "[MCP: board__memory_usage ok in 3 ms]",
    ]
    kept = printed(started, finished, ev.TextDelta(1, "22101.8 MB are free."), ev.TurnCompleted(1, ""))
    assert kept[-1] == "22101.8 MB are free."
    # A grounded answer is printed after the results, once.
    with_results = "**board__memory_usage** returned:\n\n- available_mb: 22101.8\n\n22101.8 MB are free."
    grounded = printed(
        started,
        finished,
        ev.TextDelta(1, "22101.8 MB are free."),
        ev.AnswerWithResults(1, with_results),
        ev.TurnCompleted(1, with_results),
    )
    assert grounded[-3:] == ["- available_mb: 22101.8", "", "22101.8 MB are free."]
    assert grounded.count("22101.8 MB are free.") == 1
    # A model that chose its own call streams its answer at once.
    own = ev.ToolExecutionStarted(1, "c1", "board", "board__memory_usage", {})
    assert printed(own, finished, ev.TextDelta(1, "22101.8 MB are free."))[-1] == "22101.8 MB are free."
