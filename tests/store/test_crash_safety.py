"""A SIGKILL in the middle of a turn loses at most the answer text since its last checkpoint, and
two processes (the GUI and a CLI command) use the database at once."""

from __future__ import annotations

import select
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from edgehost.slow_machine import scaled_wait
from edgehost.store import Store, StoreError

# Every wait on the child is bounded by this; a loaded 2-core CI machine starts Python in ~1 s.
CHILD_WAIT_S = scaled_wait(60.0)
CHECKPOINTS_BEFORE_KILL = 3

# One turn as the host writes it: the user message, a finished tool call, one still running, and
# the answer streamed token by token with a checkpoint every ~100 ms. Between checkpoints it keeps
# recording executions in a tight loop, so that the kill lands inside SQLite writes.
_TURN = """
import sys, time
from edgehost.store import Store

store = Store.open(sys.argv[1])
conversation = store.create_conversation("crash")
store.add_message(conversation, "user", "What is in /tmp?")
answer = store.begin_message(conversation, model="m", backend="scripted")
done = store.record_execution_started(
    server="files", tool="files__list", arguments={"path": "/tmp"}, conversation_id=conversation, message_id=answer
)
store.record_execution_finished(done, status="ok", result="a.txt\\nb.txt")
running = store.record_execution_started(
    server="files", tool="files__read", arguments={"path": "/tmp/a.txt"}, conversation_id=conversation
)
print("ready", conversation, answer, done, running, flush=True)
text, n, last = "", 0, time.monotonic()
while True:
    text += f"tok{n} "
    n += 1
    busy = store.record_execution_started(server="s", tool="s__busy", arguments={"n": n}, conversation_id=conversation)
    store.record_execution_finished(busy, status="ok", result="x" * 200)
    if time.monotonic() - last >= 0.1:
        store.update_partial(answer, text)
        last = time.monotonic()
        print("checkpoint", len(text), flush=True)
"""


def _read_line(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], CHILD_WAIT_S)
    assert ready, f"the child said nothing for {CHILD_WAIT_S} s"
    line = process.stdout.readline()
    assert line, f"the child exited early: {process.stderr.read() if process.stderr else ''}"
    return line


def _reap(process: subprocess.Popen) -> None:  # type: ignore[type-arg]
    """Kill the child if it still runs and close its pipes."""
    if process.poll() is None:
        process.kill()
        process.wait(timeout=CHILD_WAIT_S)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def _tokens(count: int) -> str:
    return "".join(f"tok{n} " for n in range(count))


def test_sigkill_mid_turn_keeps_the_database_sound_and_the_answer_up_to_its_last_checkpoint(
    db_path: Path,
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", _TURN, str(db_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    try:
        _, *ids = _read_line(process).split()
        conversation, answer, done, running = map(int, ids)
        for _ in range(CHECKPOINTS_BEFORE_KILL):
            kind, length = _read_line(process).split()
            assert kind == "checkpoint"
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=CHILD_WAIT_S) == -signal.SIGKILL
    finally:
        _reap(process)
    checkpointed = int(length)

    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()

    with Store.open(db_path) as store:
        assert store.integrity_check()
        user, partial = store.list_messages(conversation)
        assert (user.role, user.content, user.status) == ("user", "What is in /tmp?", "complete")
        assert (partial.id, partial.role, partial.status) == (answer, "assistant", "partial")
        # At least what the child reported before the kill; maybe one checkpoint more, never torn.
        assert len(partial.content) >= checkpointed
        assert partial.content == _tokens(partial.content.count("tok"))

        finished = store.get_execution(done)
        assert finished is not None and (finished.status, finished.result) == ("ok", "a.txt\nb.txt")
        in_flight = store.get_execution(running)
        assert in_flight is not None and in_flight.status == "interrupted"
        busy = store.list_executions(tool_glob="s__busy", limit=None)
        assert busy, "the child recorded executions before the kill"
        assert {e.status for e in busy} <= {"ok", "interrupted"}
        assert sum(e.status == "interrupted" for e in busy) <= 1
        # The store keeps working on the recovered file.
        store.complete_message(answer, partial.content + "[interrupted]")


def test_a_reader_holding_a_snapshot_does_not_block_a_writer(db_path: Path) -> None:
    with Store.open(db_path, busy_timeout_s=0.05) as gui, Store.open(db_path) as cli:
        gui.record_execution(server="s", tool="s__t", arguments={}, status="ok")
        reader = sqlite3.connect(db_path, isolation_level=None)
        try:
            reader.execute("BEGIN")
            assert reader.execute("SELECT count(*) FROM executions").fetchone() == (1,)
            gui.record_execution(server="s", tool="s__t", arguments={}, status="ok")  # no wait in WAL mode
            assert reader.execute("SELECT count(*) FROM executions").fetchone() == (1,)  # its snapshot
            reader.execute("COMMIT")
            assert len(cli.list_executions()) == 2
        finally:
            reader.close()


def test_two_stores_writing_at_once_both_succeed(db_path: Path) -> None:
    per_writer = 100
    start = threading.Barrier(2, timeout=CHILD_WAIT_S)
    errors: list[BaseException] = []

    def write(name: str) -> None:
        try:
            with Store.open(db_path) as store:
                start.wait()
                for n in range(per_writer):
                    execution_id = store.record_execution_started(
                        server=name, tool=f"{name}__t", arguments={"n": n}
                    )
                    store.record_execution_finished(execution_id, status="ok")
        except BaseException as exc:  # reported below
            errors.append(exc)

    Store.open(db_path).close()  # migrate once before the race
    threads = [threading.Thread(target=write, args=(name,)) for name in ("gui", "cli")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(CHILD_WAIT_S)
        assert not thread.is_alive()
    assert errors == []
    with Store.open(db_path) as store:
        assert len(store.list_executions(tool_glob="gui__t", status="ok", limit=None)) == per_writer
        assert len(store.list_executions(tool_glob="cli__t", status="ok", limit=None)) == per_writer


def test_a_write_lock_held_past_the_busy_timeout_fails_with_store_error(db_path: Path) -> None:
    with Store.open(db_path, busy_timeout_s=0.05) as store:
        holder = sqlite3.connect(db_path, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            with pytest.raises(StoreError, match="locked"):
                store.create_conversation("blocked")
            holder.execute("ROLLBACK")
            assert store.create_conversation("after") > 0
        finally:
            holder.close()


def test_the_cli_lists_what_the_gui_is_running_right_now(db_path: Path) -> None:
    with Store.open(db_path) as gui:
        execution_id = gui.record_execution_started(
            server="files", tool="files__read", arguments={"path": "a"}
        )
        listed = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from edgehost.store import Store; s = Store.open(sys.argv[1]);"
                " print(*[f'{e.id}:{e.status}' for e in s.list_executions()]); s.close()",
                str(db_path),
            ],
            capture_output=True,
            text=True,
            timeout=CHILD_WAIT_S,
        )
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.split() == [f"{execution_id}:running"]


def test_sigkill_of_a_real_ask_mid_answer_keeps_the_question_and_the_answer_so_far(tmp_path: Path) -> None:
    """`edgehost ask` on the embedded model, killed while it streams: the history (written behind the
    turn, checkpointed a second into the answer) has the question and a prefix of what was printed."""
    import os
    import time

    question = "Write a long story about a dragon who learns to cook. Give every chapter a title."
    process = subprocess.Popen(
        [sys.executable, "-m", "edgehost", "--data-dir", str(tmp_path), "ask", question]
        + ["--no-tools", "--max-tokens", "3000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    printed = b""
    first_text_at = None
    try:
        deadline = time.monotonic() + 4 * CHILD_WAIT_S  # a cold model load on a loaded 2-core machine
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 1.0)
            if ready:
                chunk = os.read(process.stdout.fileno(), 4096)
                if not chunk:
                    break  # the answer ended before the kill: it must then be complete
                printed += chunk
                if first_text_at is None and printed.strip():
                    first_text_at = time.monotonic()
            if first_text_at is not None and time.monotonic() - first_text_at > 2.5:
                process.send_signal(signal.SIGKILL)
                break
        else:
            pytest.fail(f"no answer in time: {process.stderr.read() if process.stderr else ''}")
        killed = process.wait(timeout=CHILD_WAIT_S) == -signal.SIGKILL
    finally:
        _reap(process)
    shown = printed.decode("utf-8", errors="replace")
    with Store.open(tmp_path / "history.db") as store:
        assert store.integrity_check()
        [conversation] = store.list_conversations()
        user, answer = store.list_messages(conversation.id)
        assert (user.role, user.content, user.status) == ("user", question, "complete")
        assert answer.role == "assistant" and answer.content.strip()
        if killed:
            assert answer.status == "partial"
            assert shown.strip().startswith(answer.content.strip())  # what it wrote had been shown
        else:
            assert answer.status == "complete"
