"""The recorded-transcript corpus through `edgehost calls --json`, at several chunkings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgehost.cli.main import main

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
NAMES = sorted(path.stem for path in TRANSCRIPTS.glob("*.txt"))


def run_calls(capsys: pytest.CaptureFixture[str], *args: str) -> object:
    assert main(["calls", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_corpus_has_every_dialect_and_kind_of_damage() -> None:
    assert len(NAMES) >= 20
    for name in NAMES:
        assert (TRANSCRIPTS / f"{name}.expected.json").is_file(), name


@pytest.mark.parametrize("chunk_size", [1, 3, 7, 0], ids=["chunk1", "chunk3", "chunk7", "whole"])
@pytest.mark.parametrize("name", NAMES)
def test_a_transcript_gives_the_same_calls_and_text_at_every_chunking(
    capsys: pytest.CaptureFixture[str], name: str, chunk_size: int
) -> None:
    expected = json.loads((TRANSCRIPTS / f"{name}.expected.json").read_text(encoding="utf-8"))
    chunking = ["--chunk-size", str(chunk_size)] if chunk_size else []
    result = run_calls(capsys, *chunking, str(TRANSCRIPTS / f"{name}.txt"))
    assert result == expected


def test_several_files_give_an_object_keyed_by_path(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(TRANSCRIPTS / "hermes_two_calls.txt"), str(TRANSCRIPTS / "marker_in_prose.txt")]
    result = run_calls(capsys, *paths)
    assert isinstance(result, dict) and list(result) == paths
    assert [call["arguments"]["city"] for call in result[paths[0]]["calls"]] == ["Paris", "Rome"]
    assert result[paths[1]]["calls"] == []


def test_stdin_is_read_when_no_file_is_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr(
        "sys.stdin", io.StringIO('Hi [TOOL_CALL]{"name": "a", "arguments": {}}[END_TOOL_CALL]')
    )
    result = run_calls(capsys, "--chunk-size", "2")
    assert result == {
        "calls": [{"name": "a", "arguments": {}, "dialect": "bracket"}],
        "text": "Hi ",
        "incomplete": [],
        "errors": [],
    }


def test_a_single_dialect_leaves_the_others_as_prose(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_calls(capsys, "--dialect", "hermes", str(TRANSCRIPTS / "mixed_dialects_and_prose.txt"))
    assert isinstance(result, dict)
    assert [call["name"] for call in result["calls"]] == ["everything__echo"]
    assert "[TOOL_CALL]" in result["text"]


def test_the_readable_summary_names_calls_and_problems(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["calls", str(TRANSCRIPTS / "bracket_cut_off.txt"), str(TRANSCRIPTS / "mistral_multi_call.txt")])
        == 0
    )
    out = capsys.readouterr().out
    assert "incomplete (bracket): generation ended before the closing marker [END_TOOL_CALL]" in out
    assert "[1] everything__add (mistral)" in out


def test_a_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["calls", str(tmp_path / "nope.txt")]) == 2
    assert "nope.txt" in capsys.readouterr().err


@pytest.mark.parametrize("size", ["0", "-3", "two"])
def test_a_chunk_size_that_is_not_positive_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, size: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["calls", "--chunk-size", size, str(TRANSCRIPTS / "hermes_two_calls.txt")])
    assert exited.value.code == 2
    assert "--chunk-size" in capsys.readouterr().err


def test_the_readable_summary_escapes_a_newline_of_the_text_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    transcript = tmp_path / "two_lines.txt"
    transcript.write_text("first line\nsecond line", encoding="utf-8")
    assert main(["calls", str(transcript)]) == 0
    out = capsys.readouterr().out
    assert "text: first line\\nsecond line" in out
    assert "\\\\n" not in out
