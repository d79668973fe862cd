"""`edgehost config import` and `config show` through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgehost.cli.main import main

CONFIGS = Path(__file__).resolve().parent.parent / "fixtures" / "configs"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_importing_claude_desktop_then_cursor_adds_and_keeps_references(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "--data-dir", str(data_dir), "config", "import", str(CONFIGS / "claude_desktop_config.json")
    )
    assert code == 0
    assert "added      filesystem" in out and "3 added, 0 replaced, 0 unchanged" in out
    saved = json.loads((data_dir / "servers.json").read_text())
    assert saved["mcpServers"]["filesystem"]["env"] == {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
    assert saved["mcpServers"]["filesystem"]["args"][-1] == "${HOME}/Documents"
    assert saved["mcpServers"]["legacy"] == {
        "type": "sse",
        "url": "http://127.0.0.1:8000/sse",
        "timeout": 5.0,
        "allowedTools": ["search"],
        "trusted": True,
    }
    assert "board" not in saved["mcpServers"] and "files" not in saved["mcpServers"]

    code, out, _ = run(
        capsys, "--data-dir", str(data_dir), "config", "import", str(CONFIGS / "cursor_mcp.json")
    )
    assert code == 0 and "3 added" in out
    assert set(json.loads((data_dir / "servers.json").read_text())["mcpServers"]) == {
        "filesystem",
        "remote",
        "legacy",
        "memory",
        "linear",
        "docs",
    }


def test_importing_again_with_replace_reports_unchanged_and_a_changed_entry_as_replaced(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "mcp.json"
    source.write_text(
        '{"servers": {"a": {"type": "stdio", "command": "one"}, "b": {"type": "sse", "url": "http://b"}}}'
    )
    assert run(capsys, "--data-dir", str(data_dir), "config", "import", str(source))[0] == 0
    source.write_text(
        '{"servers": {"a": {"type": "stdio", "command": "two"}, "b": {"type": "sse", "url": "http://b"}}}'
    )
    code, out, _ = run(
        capsys, "--data-dir", str(data_dir), "config", "import", "--replace", "--json", str(source)
    )
    assert code == 0
    report = json.loads(out)
    assert (report["added"], report["replaced"], report["unchanged"], report["written"]) == (
        [],
        ["a"],
        ["b"],
        True,
    )
    assert report["changedKeys"] == {"a": ["command"]}
    assert json.loads((data_dir / "servers.json").read_text())["mcpServers"]["a"] == {
        "type": "stdio",
        "command": "two",
    }


def test_an_existing_server_is_kept_without_replace_and_the_differing_keys_are_named(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "mcp.json"
    source.write_text('{"servers": {"a": {"type": "stdio", "command": "one", "env": {"TOKEN": "s3cret"}}}}')
    assert run(capsys, "--data-dir", str(data_dir), "config", "import", str(source))[0] == 0
    source.write_text(
        '{"servers": {"a": {"type": "stdio", "command": "two", "env": {"TOKEN": "other"}}, '
        '"c": {"type": "stdio", "command": "three"}}}'
    )
    code, out, err = run(capsys, "--data-dir", str(data_dir), "config", "import", str(source))
    assert code == 1
    assert "kept       a" in err and "command, env" in err and "--replace" in err
    assert "s3cret" not in err + out and "other" not in err + out
    assert "1 added, 0 replaced, 0 unchanged, 1 kept" in out
    saved = json.loads((data_dir / "servers.json").read_text())["mcpServers"]
    assert saved["a"] == {"type": "stdio", "command": "one", "env": {"TOKEN": "s3cret"}}
    assert saved["c"] == {"type": "stdio", "command": "three"}


def test_a_dry_run_reports_but_writes_nothing(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--data-dir", str(data_dir), "config", "import", "--dry-run", str(CONFIGS / "vscode_mcp.json")
    )
    assert code == 0
    assert "added      perplexity" in out and "dry run: 3 added" in out
    assert not (data_dir / "servers.json").exists()


def test_vscode_inputs_come_along_with_their_servers(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        run(capsys, "--data-dir", str(data_dir), "config", "import", str(CONFIGS / "vscode_mcp.json"))[0] == 0
    )
    saved = json.loads((data_dir / "servers.json").read_text())
    assert saved["inputs"][0]["id"] == "api-key"
    assert saved["mcpServers"]["perplexity"]["env"] == {"PERPLEXITY_API_KEY": "${input:api-key}"}
    code, out, _ = run(capsys, "--data-dir", str(data_dir), "config", "show")
    assert code == 1  # perplexity needs its input
    assert "EDGEHOST_INPUT_API_KEY" in out and "(Perplexity API key)" in out


def test_a_broken_file_exits_2_naming_file_line_and_column(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = CONFIGS / "broken_missing_comma.json"
    code, _, err = run(capsys, "--data-dir", str(data_dir), "config", "import", str(broken))
    assert code == 2
    assert f"{broken}:4:5: invalid JSON" in err
    assert not (data_dir / "servers.json").exists()


def test_bad_entries_are_skipped_with_their_reason(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "--data-dir", str(data_dir), "config", "import", str(CONFIGS / "one_bad_entry.json")
    )
    assert code == 1
    assert "skipped    nothing" in err and "one_bad_entry.json:4" in err
    assert "skipped    pigeon" in err
    # Variables are not expanded on import, so an unset one is no reason to skip.
    assert set(json.loads((data_dir / "servers.json").read_text())["mcpServers"]) == {
        "good",
        "unset",
        "also-good",
    }


def test_config_show_lists_built_ins_with_json(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--data-dir", str(data_dir), "config", "show", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [(row["name"], row["builtin"], row["error"]) for row in rows] == [
        ("board", True, None),
        ("files", True, None),
    ]


def test_config_show_on_a_broken_file_names_it_lists_the_built_ins_that_run_and_exits_1(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = CONFIGS / "broken_missing_comma.json"
    code, out, err = run(capsys, "--config", str(broken), "--data-dir", str(data_dir), "config", "show")
    assert code == 1
    assert f"{broken}:4:5: invalid JSON" in err and "only the built-in servers run until it is fixed" in err
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["board", "files"]


def test_a_config_file_that_does_not_exist_is_said_not_ignored(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "sevrers.json"  # a typo
    code, _, err = run(capsys, "--config", str(missing), "--data-dir", str(data_dir), "config", "show")
    assert code == 1
    assert f"{missing}: no such file (given with --config)" in err


def test_a_server_not_found_because_the_file_is_broken_says_so(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = CONFIGS / "broken_missing_comma.json"
    code, _, err = run(capsys, "--config", str(broken), "--data-dir", str(data_dir), "call", "a__x", "{}")
    assert code == 2
    assert "does not start with a configured server name" in err
    assert f"could not be read, so only the built-in servers run until it is fixed: {broken}:4:5" in err


def test_import_refuses_what_loading_would_and_warns_of_unknown_keys(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seen by a new user: "htp://" was imported as "added", and the next `config show` marked it an error.
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(
        '{"mcpServers": {"badurl": {"url": "htp://localhost/mcp"},'
        ' "later": {"url": "${REMOTE_URL}"},'
        ' "time": {"command": "uvx", "arguments": ["mcp-server-time"]}}}'
    )
    code, out, err = run(capsys, "--data-dir", str(data_dir), "config", "import", str(source))
    assert code == 1
    assert (
        "skipped    badurl" in err
        and "url must start with http:// or https://, not 'htp://localhost/mcp'" in err
    )
    assert "added      later" in out and "added      time" in out  # a variable is checked once it is set
    assert "warning    time" in err and "unknown key 'arguments' (did you mean 'args'?)" in err
    code, out, _ = run(capsys, "--data-dir", str(data_dir), "config", "show")
    assert "    warning: " in out and "unknown key 'arguments'" in out


@pytest.mark.usefixtures("no_os_keyring")
def test_a_value_entered_for_a_vscode_input_is_kept_out_of_the_file_and_used_from_then_on(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen by a new user: the only way to give ${input:api-key} was EDGEHOST_INPUT_API_KEY in the
    # environment, which an app started from the menu does not have.
    import io

    monkeypatch.delenv("EDGEHOST_INPUT_API_KEY", raising=False)
    config = tmp_path / "mcp.json"
    config.write_text((CONFIGS / "vscode_mcp.json").read_text())
    before = config.read_text()
    code, out, _ = run(capsys, "--config", str(config), "--data-dir", str(data_dir), "config", "show")
    assert code == 1 and "edgehost config input api-key" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("pplx-secret-123\n"))
    code, out, _ = run(
        capsys, "--config", str(config), "--data-dir", str(data_dir), "config", "input", "api-key"
    )
    assert code == 0 and "kept the value of api-key" in out and "it starts perplexity" in out
    assert config.read_text() == before  # the secret is not written into the servers file
    assert "pplx-secret-123" in (data_dir / "oauth-credentials.json").read_text()
    code, out, _ = run(capsys, "--config", str(config), "--data-dir", str(data_dir), "config", "show")
    assert "perplexity" in out and "needs input" not in out
    code, out, _ = run(
        capsys, "--config", str(config), "--data-dir", str(data_dir), "config", "input", "api-key", "--forget"
    )
    assert out == "forgot the value of api-key\n"
    code, out, _ = run(capsys, "--config", str(config), "--data-dir", str(data_dir), "config", "show")
    assert "needs input 'api-key'" in out


def test_a_stdio_entry_that_differs_only_by_its_type_is_unchanged(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data_dir / "servers.json").write_text('{"mcpServers": {"a": {"command": "one"}}}')
    source = tmp_path / "mcp.json"
    source.write_text('{"servers": {"a": {"type": "stdio", "command": "one"}}}')
    code, out, _ = run(capsys, "--data-dir", str(data_dir), "config", "import", "--json", str(source))
    assert code == 0 and json.loads(out)["unchanged"] == ["a"]
