"""Exporting executions as JSON and CSV: both parse back to what was stored."""

from __future__ import annotations

import csv
import io
import json
import threading

import pytest

from edgehost.slow_machine import scaled_wait
from edgehost.store import CSV_COLUMNS, Store

WAIT_S = scaled_wait(30.0)  # bound on every wait for the other thread


def _record_some(store: Store) -> list[int]:
    conversation = store.create_conversation("c")
    return [
        store.record_execution(
            server="files",
            tool="files__read",
            arguments={"path": '/tmp/naïve, "quoted"\nfile.txt'},
            status="ok",
            conversation_id=conversation,
            result='line 1\nline 2, with comma; and "quotes"',
            duration_ms=3.5,
            dialect="bracket",
            decision="auto",
            decided_by="policy",
        ),
        store.record_execution(
            server="shell",
            tool="shell__exec",
            arguments={"cmd": "ls"},
            status="denied",
            decision="denied",
            decided_by="user",
        ),
    ]


def test_json_export_is_an_array_of_execution_dicts_oldest_first(store: Store) -> None:
    ids = _record_some(store)
    out = io.StringIO()
    assert store.export_executions("json", out) == 2
    exported = json.loads(out.getvalue())
    expected = [e.to_dict() for e in reversed(store.list_executions())]
    assert exported == expected
    assert [item["id"] for item in exported] == ids
    assert exported[0]["started"].endswith("Z")


def test_csv_export_parses_back_with_the_arguments_as_json(store: Store) -> None:
    _record_some(store)
    out = io.StringIO()
    assert store.export_executions("csv", out) == 2
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert tuple(rows[0]) == CSV_COLUMNS
    stored = list(reversed(store.list_executions()))
    for row, execution in zip(rows, stored, strict=True):
        assert json.loads(row["arguments"]) == execution.arguments
        assert row["tool"] == execution.tool
        assert row["status"] == execution.status
        assert row["result"] == (execution.result or "")
        assert float(row["duration_ms"]) == execution.duration_ms
        assert row["result_truncated"] == "false"
    assert rows[1]["result"] == "" and rows[1]["decided_by"] == "user"


def test_export_applies_the_filters(store: Store) -> None:
    _record_some(store)
    out = io.StringIO()
    assert store.export_executions("json", out, status="denied") == 1
    assert [item["tool"] for item in json.loads(out.getvalue())] == ["shell__exec"]
    out = io.StringIO()
    assert store.export_executions("csv", out, tool_glob="files__*") == 1


def test_an_empty_export_is_still_valid(store: Store) -> None:
    out = io.StringIO()
    assert store.export_executions("json", out) == 0
    assert json.loads(out.getvalue()) == []
    out = io.StringIO()
    store.export_executions("csv", out)
    assert list(csv.reader(io.StringIO(out.getvalue()))) == [list(CSV_COLUMNS)]


def test_an_unknown_format_is_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="json or csv"):
        store.export_executions("xml", io.StringIO())


class _GatedFile(io.StringIO):
    """A file whose first write waits until the test lets it go, to catch an export mid-way."""

    def __init__(self) -> None:
        super().__init__()
        self.writing = threading.Event()
        self.release = threading.Event()

    def write(self, text: str) -> int:
        self.writing.set()
        assert self.release.wait(WAIT_S)
        return super().write(text)


def test_an_export_in_a_thread_neither_blocks_writes_nor_sees_them(store: Store) -> None:
    store.record_execution(server="s", tool="s__before", arguments={}, status="ok")
    out = _GatedFile()
    counts: list[int] = []
    exporter = threading.Thread(target=lambda: counts.append(store.export_executions("json", out)))
    exporter.start()
    try:
        assert out.writing.wait(WAIT_S)
        writer = threading.Thread(
            target=store.record_execution,
            kwargs={"server": "s", "tool": "s__during", "arguments": {}, "status": "ok"},
        )
        writer.start()
        writer.join(WAIT_S)
        assert not writer.is_alive(), "a write waited for the export"
    finally:
        out.release.set()
        exporter.join(WAIT_S)
    assert counts == [1]
    assert [item["tool"] for item in json.loads(out.getvalue())] == ["s__before"]
    assert len(store.list_executions()) == 2
