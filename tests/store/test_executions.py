"""Tool executions: running, finished, recorded in one step, cut, filtered, interrupted by a dead process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from edgehost.store import REDACTED, RecordNotFoundError, Store, redactor


def test_a_running_execution_is_listed_as_running_then_finished(store: Store) -> None:
    conversation = store.create_conversation("c")
    answer = store.begin_message(conversation)
    execution_id = store.record_execution_started(
        server="files",
        tool="files__read",
        arguments={"path": "/tmp/a.txt"},
        conversation_id=conversation,
        message_id=answer,
        dialect="hermes",
        decision="allowed",
        decided_by="user",
    )
    [running] = store.list_executions()
    assert (running.id, running.status, running.duration_ms, running.result) == (
        execution_id,
        "running",
        None,
        None,
    )
    store.record_execution_finished(execution_id, status="ok", result="hello", duration_ms=12.5)
    finished = store.get_execution(execution_id)
    assert finished is not None
    assert finished.status == "ok"
    assert finished.duration_ms == 12.5
    assert (finished.result, finished.result_size, finished.result_truncated) == ("hello", 5, False)
    assert (finished.server, finished.tool, finished.arguments) == (
        "files",
        "files__read",
        {"path": "/tmp/a.txt"},
    )
    assert (finished.conversation_id, finished.message_id, finished.dialect) == (
        conversation,
        answer,
        "hermes",
    )
    assert (finished.decision, finished.decided_by) == ("allowed", "user")


def test_the_duration_defaults_to_the_time_since_the_start(db_path: Path) -> None:
    now = [1000.0]
    with Store.open(db_path, clock=lambda: now[0]) as store:
        execution_id = store.record_execution_started(server="s", tool="s__t", arguments={})
        now[0] = 1000.25
        store.record_execution_finished(execution_id, status="error", error="boom")
        execution = store.get_execution(execution_id)
    assert execution is not None and execution.duration_ms == pytest.approx(250.0)
    assert (execution.status, execution.error) == ("error", "boom")


def test_a_denied_call_is_recorded_in_one_step(store: Store) -> None:
    execution_id = store.record_execution(
        server="shell",
        tool="shell__exec",
        arguments={"cmd": "rm -rf /"},
        status="denied",
        decision="denied",
        decided_by="timeout",
        error="no answer in time",
    )
    execution = store.get_execution(execution_id)
    assert execution is not None
    assert (execution.status, execution.decided_by, execution.duration_ms) == ("denied", "timeout", 0.0)


def test_a_result_over_the_cap_is_cut_on_a_character_boundary_and_flagged(db_path: Path) -> None:
    with Store.open(db_path, result_cap=10) as store:
        execution_id = store.record_execution_started(server="s", tool="s__t", arguments={})
        store.record_execution_finished(execution_id, status="ok", result="ééééééé")  # 14 bytes
        execution = store.get_execution(execution_id)
    assert execution is not None
    assert (execution.result, execution.result_size, execution.result_truncated) == ("ééééé", 14, True)


def test_a_structured_result_is_kept_whole_redacted_or_not_at_all(db_path: Path) -> None:
    """A view renders it (MCP Apps): a structure cut short is no structure, so one over the cap is not
    kept; a secret in it is redacted as in the text."""
    with Store.open(db_path, result_cap=60, redact=redactor({"s3cret"})) as store:
        kept = store.record_execution_started(server="s", tool="s__t", arguments={})
        store.record_execution_finished(
            kept, status="ok", result="{}", structured_result={"count": 1, "key": "s3cret"}
        )
        large = store.record_execution_started(server="s", tool="s__t", arguments={})
        store.record_execution_finished(
            large, status="ok", result="{}", structured_result={"rows": ["x" * 80]}
        )
        repeated = store.record_execution(
            server="s", tool="s__t", arguments={}, status="ok", result="{}", structured_result=[1, 2]
        )
        shown = [store.get_execution(i) for i in (kept, large, repeated)]
    assert [e.structured_result for e in shown if e is not None] == [
        {"count": 1, "key": REDACTED},
        None,
        [1, 2],
    ]
    assert shown[0] is not None and shown[0].to_dict()["structured_result"] == {"count": 1, "key": REDACTED}


def test_a_caller_that_already_cut_the_result_gives_its_whole_size(store: Store) -> None:
    execution_id = store.record_execution(
        server="s", tool="s__t", arguments={}, status="ok", result="first 10 c", result_size=5000
    )
    execution = store.get_execution(execution_id)
    assert execution is not None and (execution.result_size, execution.result_truncated) == (5000, True)


def test_huge_arguments_are_kept_as_valid_json_that_says_it_was_cut(db_path: Path) -> None:
    with Store.open(db_path, result_cap=100) as store:
        execution_id = store.record_execution_started(
            server="files", tool="files__write", arguments={"path": "a", "content": "x" * 1000}
        )
        execution = store.get_execution(execution_id)
    assert execution is not None
    assert execution.arguments["$size"] > 1000
    assert execution.arguments["$truncated"].startswith('{"path": "a", "content": "xxx')


def test_finishing_twice_or_an_unknown_execution_raises(store: Store) -> None:
    execution_id = store.record_execution_started(server="s", tool="s__t", arguments={})
    store.record_execution_finished(execution_id, status="cancelled")
    with pytest.raises(RecordNotFoundError):
        store.record_execution_finished(execution_id, status="ok")
    with pytest.raises(RecordNotFoundError):
        store.record_execution_finished(999, status="ok")


def test_bad_statuses_and_decisions_are_refused(store: Store) -> None:
    execution_id = store.record_execution_started(server="s", tool="s__t", arguments={})
    with pytest.raises(ValueError, match="ends as one of"):
        store.record_execution_finished(execution_id, status="running")
    with pytest.raises(ValueError, match="ends as one of"):
        store.record_execution(server="s", tool="s__t", arguments={}, status="maybe")
    with pytest.raises(ValueError, match="decision"):
        store.record_execution_started(server="s", tool="s__t", arguments={}, decision="perhaps")


def test_executions_are_filtered_by_conversation_tool_glob_and_status(store: Store) -> None:
    first = store.create_conversation("first")
    second = store.create_conversation("second")
    store.record_execution(
        server="files", tool="files__read", arguments={}, status="ok", conversation_id=first
    )
    store.record_execution(
        server="files", tool="files__delete", arguments={}, status="denied", conversation_id=first
    )
    store.record_execution(
        server="memory", tool="memory__create_entities", arguments={}, status="error", conversation_id=second
    )
    running = store.record_execution_started(
        server="files", tool="files__write", arguments={}, conversation_id=second
    )

    def tools(**filters: object) -> list[str]:
        return [e.tool for e in store.list_executions(**filters)]  # type: ignore[arg-type]

    assert tools() == [
        "files__write",
        "memory__create_entities",
        "files__delete",
        "files__read",
    ]  # newest first
    assert tools(conversation_id=first) == ["files__delete", "files__read"]
    assert tools(tool_glob="files__*") == ["files__write", "files__delete", "files__read"]
    assert tools(tool_glob="*delete*") == ["files__delete"]
    assert tools(status="denied") == ["files__delete"]
    assert tools(status=["ok", "error"]) == ["memory__create_entities", "files__read"]
    assert tools(tool_glob="files__*", status="running", conversation_id=second) == ["files__write"]
    assert tools(limit=2) == ["files__write", "memory__create_entities"]
    assert tools(limit=2, offset=2) == ["files__delete", "files__read"]
    assert running


_DIE_WHILE_RUNNING = """
import os, sys
from edgehost.store import Store
store = Store.open(sys.argv[1])
print(store.record_execution_started(server="files", tool="files__read", arguments={}), flush=True)
os._exit(0)
"""


def test_a_call_left_running_by_a_dead_process_is_marked_interrupted_on_the_next_open(db_path: Path) -> None:
    child = subprocess.run(
        [sys.executable, "-c", _DIE_WHILE_RUNNING, str(db_path)], capture_output=True, text=True, timeout=60
    )
    assert child.returncode == 0, child.stderr
    execution_id = int(child.stdout)
    with Store.open(db_path) as store:
        execution = store.get_execution(execution_id)
    assert execution is not None and execution.status == "interrupted"


def test_opening_a_second_store_leaves_a_live_process_running_call_alone(db_path: Path) -> None:
    with Store.open(db_path) as gui:
        execution_id = gui.record_execution_started(server="files", tool="files__read", arguments={})
        with Store.open(db_path) as cli:
            execution = cli.get_execution(execution_id)
            assert execution is not None and execution.status == "running"
        gui.record_execution_finished(execution_id, status="ok")
