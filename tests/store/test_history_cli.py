"""`edgehost history` and `edgehost history export`, run through the real entry point."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from edgehost.cli.main import main
from edgehost.store import Store


@pytest.fixture
def recorded(data_dir: Path) -> dict[str, int]:
    """A history with two conversations and three executions (ok, denied, error)."""
    with Store.open(data_dir / "history.db") as store:
        first = store.create_conversation("first")
        second = store.create_conversation("second")
        store.record_execution(
            server="files",
            tool="files__read",
            arguments={"path": "/tmp/a.txt"},
            status="ok",
            conversation_id=first,
            duration_ms=4.0,
            result="hello",
        )
        store.record_execution(
            server="files",
            tool="files__delete",
            arguments={"path": "/tmp/a.txt"},
            status="denied",
            conversation_id=first,
            decision="denied",
            decided_by="user",
            chosen_by="host",
        )
        store.record_execution(
            server="memory",
            tool="memory__create_entities",
            arguments={"entities": [{"name": "Lyon"}]},
            status="error",
            conversation_id=second,
            error="bad entity",
            duration_ms=1.5,
        )
    return {"first": first, "second": second}


def _run(data_dir: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--data-dir", str(data_dir), "history", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_history_json_lists_executions_newest_first(
    data_dir: Path, recorded: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(data_dir, capsys, "--json")
    assert code == 0
    items = json.loads(out)
    assert [item["tool"] for item in items] == ["memory__create_entities", "files__delete", "files__read"]
    assert {"tool", "status", "arguments", "started", "duration_ms"} <= set(items[0])
    assert items[2]["arguments"] == {"path": "/tmp/a.txt"}
    assert items[2]["duration_ms"] == 4.0


def test_history_filters_by_conversation_tool_and_status(
    data_dir: Path, recorded: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    def tools(*args: str) -> list[str]:
        code, out, _ = _run(data_dir, capsys, *args, "--json")
        assert code == 0
        return [item["tool"] for item in json.loads(out)]

    assert tools("--status", "denied") == ["files__delete"]
    assert tools("--tool", "files__*") == ["files__delete", "files__read"]
    assert tools("--conversation", str(recorded["second"])) == ["memory__create_entities"]
    assert tools("--conversation", str(recorded["first"]), "--status", "ok") == ["files__read"]


def test_history_without_json_prints_a_readable_table(
    data_dir: Path,
    recorded: dict[str, int],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "110")  # the table fits the terminal: this one, whatever runs the test
    code, out, _ = _run(data_dir, capsys)
    assert code == 0
    header, *rows = out.splitlines()
    assert header.split() == [
        "ID",
        "STARTED",
        "TOOL",
        "STATUS",
        "CHOSEN",
        "BY",
        "DECIDED",
        "BY",
        "MS",
        "ARGUMENTS",
    ]
    assert len(rows) == 3
    assert "files__delete" in rows[1] and "denied" in rows[1] and '{"path": "/tmp/a.txt"}' in rows[1]
    # EdgeHost chose the call (routing, for a small model), and you refused it, not a policy such as --yes.
    assert rows[1].split()[5:7] == ["host", "user"]


def test_an_empty_history_says_so(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(data_dir, capsys)
    assert (code, out) == (0, "No tool executions recorded.\n")
    code, out, _ = _run(data_dir, capsys, "--json")
    assert (code, json.loads(out)) == (0, [])


def test_export_csv_to_stdout_parses_back(
    data_dir: Path, recorded: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(data_dir, capsys, "export", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [row["tool"] for row in rows] == ["files__read", "files__delete", "memory__create_entities"]
    assert json.loads(rows[2]["arguments"]) == {"entities": [{"name": "Lyon"}]}


@pytest.mark.parametrize(
    "args",
    [
        ("--tool", "files__*", "export", "--format", "json", "--output", "{out}"),
        ("export", "--format", "json", "--output", "{out}", "--tool", "files__*"),
    ],
    ids=["filters-before-export", "filters-after-export"],
)
def test_export_json_to_a_file_with_filters_on_either_side(
    data_dir: Path,
    recorded: dict[str, int],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: tuple[str, ...],
) -> None:
    target = tmp_path / "calls.json"
    code, out, err = _run(data_dir, capsys, *(a.format(out=target) for a in args))
    assert (code, out) == (0, "")
    assert "exported 2" in err
    assert [item["tool"] for item in json.loads(target.read_text())] == ["files__read", "files__delete"]


def test_export_defaults_to_json_on_stdout(
    data_dir: Path, recorded: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(data_dir, capsys, "export", "--status", "error")
    assert code == 0
    assert [item["error"] for item in json.loads(out)] == ["bad entity"]


def test_an_unknown_status_is_a_usage_error(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--data-dir", str(data_dir), "history", "--status", "sideways"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("limit", ["-5", "ten"])
def test_a_negative_or_non_numeric_limit_is_a_usage_error(
    data_dir: Path, capsys: pytest.CaptureFixture[str], limit: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        _run(data_dir, capsys, "--limit", limit)
    assert exited.value.code == 2
    assert "--limit" in capsys.readouterr().err
