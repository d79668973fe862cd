"""Cost of recording one tool execution (start + finish) in the history, against a bare SQLite INSERT.

Prints ``RESULT store_execution_us``, ``RESULT store_bare_insert_us``, ``RESULT store_execution_ratio``
(store / bare, same run, same pragmas) and ``RESULT store_checkpoint_us`` (one partial-answer
checkpoint of a 4 KB answer). Rounds alternate between the two so that machine noise hits both.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from edgehost.store import Store

ARGUMENTS = {"path": "/home/user/notes/todo.txt", "encoding": "utf-8"}
RESULT_TEXT = "line of a file\n" * 40


def store_round(store: Store, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        execution_id = store.record_execution_started(
            server="files", tool="files__read", arguments=ARGUMENTS, decision="auto", decided_by="policy"
        )
        store.record_execution_finished(execution_id, status="ok", result=RESULT_TEXT)
    return (time.perf_counter() - started) / count


def bare_round(conn: sqlite3.Connection, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        conn.execute(
            "INSERT INTO executions (server, tool, arguments, started, status, result) VALUES (?, ?, ?, ?, ?, ?)",
            ("files", "files__read", '{"path": "/home/user/notes/todo.txt"}', time.time(), "ok", RESULT_TEXT),
        )
    return (time.perf_counter() - started) / count


def checkpoint_round(store: Store, message_id: int, count: int) -> float:
    text = "token " * 700  # ~4 KB: a long answer by an edge model's standards
    started = time.perf_counter()
    for n in range(count):
        store.update_partial(message_id, text + str(n))
    return (time.perf_counter() - started) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--per-round", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = Store.open(Path(folder) / "history.db")
        bare = sqlite3.connect(Path(folder) / "bare.db", isolation_level=None)
        bare.execute("PRAGMA journal_mode=WAL")
        bare.execute("PRAGMA synchronous=NORMAL")
        bare.execute(
            "CREATE TABLE executions (id INTEGER PRIMARY KEY, server TEXT, tool TEXT, arguments TEXT,"
            " started REAL, status TEXT, result TEXT)"
        )
        conversation = store.create_conversation("bench")
        message_id = store.begin_message(conversation)
        store_round(store, 50)  # warm the caches of both
        bare_round(bare, 50)
        store_times, bare_times, checkpoint_times = [], [], []
        for _ in range(args.rounds):
            store_times.append(store_round(store, args.per_round))
            bare_times.append(bare_round(bare, args.per_round))
            checkpoint_times.append(checkpoint_round(store, message_id, args.per_round // 3))
        store.close()
        bare.close()
    store_us = statistics.median(store_times) * 1e6
    bare_us = statistics.median(bare_times) * 1e6
    print(f"RESULT store_execution_us {store_us:.1f}")
    print(f"RESULT store_bare_insert_us {bare_us:.1f}")
    print(f"RESULT store_execution_ratio {store_us / bare_us:.2f}")
    print(f"RESULT store_checkpoint_us {statistics.median(checkpoint_times) * 1e6:.1f}")


if __name__ == "__main__":
    main()
