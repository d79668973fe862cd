"""Writing executions as JSON or CSV, streamed (an export never holds the whole history in memory)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import IO

from edgehost.store._records import Execution

__all__ = ["CSV_COLUMNS", "EXPORT_FORMATS", "write_executions"]

EXPORT_FORMATS = ("json", "csv")

# The keys of Execution.to_dict(), in that order; the arguments are written as JSON text.
CSV_COLUMNS = (
    "id",
    "started",
    "conversation_id",
    "message_id",
    "server",
    "tool",
    "arguments",
    "proposed_arguments",
    "dialect",
    "chosen_by",
    "decision",
    "decided_by",
    "status",
    "duration_ms",
    "result_size",
    "result_truncated",
    "result",
    "error",
    "structured_result",  # added last: a reader by column position keeps its columns
)


def write_executions(fmt: str, executions: Iterable[Execution], file: IO[str]) -> int:
    """Write ``executions`` to ``file`` as "json" or "csv"; return how many. Raises ``ValueError`` for another format."""
    if fmt == "json":
        return _write_json(executions, file)
    if fmt == "csv":
        return _write_csv(executions, file)
    raise ValueError(f"unknown export format {fmt!r} (choose {' or '.join(EXPORT_FORMATS)})")


def _write_json(executions: Iterable[Execution], file: IO[str]) -> int:
    count = 0
    file.write("[")
    for execution in executions:
        file.write(",\n  " if count else "\n  ")
        file.write(json.dumps(execution.to_dict(), ensure_ascii=False))
        count += 1
    file.write("\n]\n" if count else "]\n")
    return count


def _write_csv(executions: Iterable[Execution], file: IO[str]) -> int:
    writer = csv.DictWriter(file, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    count = 0
    for execution in executions:
        row = execution.to_dict()
        row["arguments"] = json.dumps(row["arguments"], ensure_ascii=False)
        if row["proposed_arguments"] is not None:
            row["proposed_arguments"] = json.dumps(row["proposed_arguments"], ensure_ascii=False)
        if row["structured_result"] is not None:
            row["structured_result"] = json.dumps(row["structured_result"], ensure_ascii=False)
        row["result_truncated"] = "true" if row["result_truncated"] else "false"
        writer.writerow(row)
        count += 1
    return count
