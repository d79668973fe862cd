"""Saving the servers file (config import, the window's server and approval edits) edits it in place:
the user's comments, order and formatting stay; only what changed is rewritten."""

from __future__ import annotations

import json
import logging
import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from edgehost.cli.main import main
from edgehost.errors import ConfigError
from edgehost.mcp.config import (
    ServerConfig,
    ServersConfig,
    _writer,
    load_servers_config,
    parse_servers_file,
    save_servers_config,
    servers_config_to_json,
)
from edgehost.mcp.config.edits import edit_servers_file, merge_servers
from edgehost.paths import Paths

CONFIGS = Path(__file__).resolve().parent.parent / "fixtures" / "configs"

GITHUB = """\
    /* the GitHub one
       runs in docker */
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server",],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}" }, // from the shell
    },
"""
MEMORY = """\
    // notes live here
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] },
"""
TIME = """\
    "time": {
      "command": "uvx", // the Python one
      "args": ["mcp-server-time"]
    }, // after time
"""
HEAD = '{\n  // my work servers -- keep the token in the env!\n  "mcpServers": {\n'
TAIL = '  },\n  "approval": [{ "tool": "*delete*", "decision": "ask" }], // ask before deleting\n}\n'
USER_FILE = HEAD + GITHUB + MEMORY + TIME + TAIL


def save_server(paths: Paths, server: ServerConfig) -> None:
    """What the window's server form does on Save (Host.save_server)."""
    edit_servers_file(paths, lambda config: merge_servers(config, ServersConfig(servers=[server])))


def remove_server(paths: Paths, name: str) -> None:
    """What the window's Remove does (Host.remove_server_entry)."""

    def remove(config: ServersConfig) -> None:
        config.servers = [s for s in config.servers if s.name != name]

    edit_servers_file(paths, remove)


def user_file(folder: Path, text: str = USER_FILE, name: str = "servers.json") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_config_import_keeps_comments_and_trailing_commas_and_adds_at_the_end(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = user_file(data_dir)
    source = CONFIGS / "claude_desktop_config.json"
    assert main(["--data-dir", str(data_dir), "config", "import", str(source)]) == 0
    assert "3 added" in capsys.readouterr().out
    saved = path.read_text(encoding="utf-8")
    assert saved.startswith(HEAD + GITHUB + MEMORY + TIME)  # every comment, byte for byte
    assert saved.endswith(TAIL)
    added = saved[len(HEAD + GITHUB + MEMORY + TIME) : -len(TAIL)]
    assert added.startswith('    "filesystem": {\n      "command": "npx",\n      "args": [\n')
    assert added.endswith('      "trusted": true\n    },\n')  # the file's trailing commas, kept up
    config = load_servers_config(Paths.resolve(None, data_dir), environ={"GITHUB_TOKEN": "t", "HOME": "/h"})
    assert [s.name for s in config.servers if not s.builtin] == [
        "github",
        "memory",
        "time",
        "filesystem",
        "remote",
        "legacy",
    ]
    assert not list(data_dir.glob("*.bak"))


def test_a_changed_entry_is_rewritten_and_the_others_stay_byte_identical(
    tmp_path: Path, data_dir: Path
) -> None:
    path = user_file(tmp_path)
    os.chmod(path, 0o600)
    paths = Paths.resolve(path, data_dir)
    save_server(
        paths, ServerConfig(name="time", command="uvx", args=["mcp-server-time", "--local-timezone=UTC"])
    )
    rewritten = """\
    "time": {
      "command": "uvx",
      "args": [
        "mcp-server-time",
        "--local-timezone=UTC"
      ]
    }, // after time
"""
    assert path.read_text(encoding="utf-8") == HEAD + GITHUB + MEMORY + rewritten + TAIL
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_removed_entry_goes_with_its_own_comments(tmp_path: Path, data_dir: Path) -> None:
    path = user_file(tmp_path)
    paths = Paths.resolve(path, data_dir)
    remove_server(paths, "memory")
    assert path.read_text(encoding="utf-8") == HEAD + GITHUB + TIME + TAIL
    remove_server(paths, "time")  # the last one: the comma before it stays, as the file ends lists with one
    assert path.read_text(encoding="utf-8") == HEAD + GITHUB + TAIL


def test_removing_the_last_entry_of_a_strict_json_file_keeps_it_strict_json(
    tmp_path: Path, data_dir: Path
) -> None:
    text = (
        "{\n"
        '  "mcpServers": {\n'
        '    "a": {"command": "a"}, // first\n'
        "\n"
        "    // the second one, to go\n"
        '    "b": {"command": "b"}\n'
        "  }\n"
        "}\n"
    )
    path = user_file(tmp_path, text)
    remove_server(Paths.resolve(path, data_dir), "b")
    assert path.read_text() == '{\n  "mcpServers": {\n    "a": {"command": "a"} // first\n  }\n}\n'


@pytest.mark.parametrize("unit", ["    ", "\t"], ids=["four spaces", "tabs"])
def test_an_added_server_goes_at_the_end_in_the_files_indentation(
    unit: str, tmp_path: Path, data_dir: Path
) -> None:
    text = f'{{\n{unit}"mcpServers": {{\n{unit * 2}"a": {{\n{unit * 3}"command": "a"\n{unit * 2}}}\n{unit}}}\n}}\n'
    path = user_file(tmp_path, text)
    save_server(
        Paths.resolve(path, data_dir), ServerConfig(name="b", command="b", env={"B_TOKEN": "${B_TOKEN}"})
    )
    assert path.read_text() == text.replace(
        f"{unit * 2}}}\n{unit}}}",
        f"{unit * 2}}},\n"
        f'{unit * 2}"b": {{\n'
        f'{unit * 3}"command": "b",\n'
        f'{unit * 3}"env": {{\n'
        f'{unit * 4}"B_TOKEN": "${{B_TOKEN}}"\n'
        f"{unit * 3}}}\n"
        f"{unit * 2}}}\n"
        f"{unit}}}",
    )


def test_a_vscode_file_keeps_its_servers_key_inputs_and_comments(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = (CONFIGS / "vscode_mcp.json").read_text(encoding="utf-8")
    path = user_file(tmp_path, original, "mcp.json")
    source = tmp_path / "other.json"
    source.write_text('{"servers": {"search": {"type": "stdio", "command": "uvx", "args": ["search-mcp"]}}}')
    assert main(["--config", str(path), "--data-dir", str(data_dir), "config", "import", str(source)]) == 0
    capsys.readouterr()
    saved = path.read_text(encoding="utf-8")
    last_entry = '    "events": {"type": "sse", "url": "http://localhost:3001/sse"}'
    assert saved.startswith(original[: original.index(last_entry) + len(last_entry)])
    assert saved.endswith(  # with its "type" as the imported file wrote it
        '    "search": {\n      "type": "stdio",\n      "command": "uvx",\n      "args": [\n        "search-mcp"\n      ]\n'
        "    }\n  }\n}\n"
    )
    assert "mcpServers" not in saved

    # A new input declaration changes the top-level "inputs": that list is rewritten, the rest stays.
    source.write_text(
        '{"inputs": [{"type": "promptString", "id": "key", "password": true}],'
        ' "servers": {"keyed": {"type": "stdio", "command": "k", "env": {"K": "${input:key}"}}}}'
    )
    assert main(["--config", str(path), "--data-dir", str(data_dir), "config", "import", str(source)]) == 0
    capsys.readouterr()
    again = path.read_text(encoding="utf-8")
    assert again.startswith(
        '{\n  // VS Code writes comments and trailing commas in mcp.json\n  "inputs": [\n'
    )
    assert again.count("/* a block comment */") == 1
    config = load_servers_config(
        Paths.resolve(path, data_dir), environ={"HOME": "/h", "EDGEHOST_INPUT_KEY": "v"}
    )
    assert json.loads(json.dumps(config.extra["inputs"]))[1]["id"] == "key"
    assert [s.name for s in config.servers if not s.builtin] == [
        "perplexity",
        "github",
        "events",
        "search",
        "keyed",
    ]


def test_a_vscode_settings_file_keeps_its_other_settings(tmp_path: Path, data_dir: Path) -> None:
    text = (
        "{\n"
        '  "editor.fontSize": 14, // big\n'
        '  "mcp": {\n'
        '    "servers": {\n'
        '      "a": {"type": "stdio", "command": "a"}\n'
        "    }\n"
        "  }\n"
        "}\n"
    )
    path = user_file(tmp_path, text, "settings.json")
    save_server(Paths.resolve(path, data_dir), ServerConfig(name="b", command="b"))
    # Written on one line, as the entries beside it are.
    assert path.read_text() == text.replace(
        '"command": "a"}\n', '"command": "a"},\n      "b": {"command": "b"}\n'
    )


def test_a_changed_approval_list_is_rewritten_and_the_servers_stay(tmp_path: Path, data_dir: Path) -> None:
    path = user_file(tmp_path)

    def add_rule(config: ServersConfig) -> None:  # as Host.set_approval_rule does
        config.approval = [*config.approval, {"tool": "github__*", "decision": "allow"}]

    edit_servers_file(Paths.resolve(path, data_dir), add_rule)
    assert path.read_text(encoding="utf-8") == HEAD + GITHUB + MEMORY + TIME + TAIL.replace(
        '[{ "tool": "*delete*", "decision": "ask" }]',
        '[{"tool": "*delete*", "decision": "ask"}, {"tool": "github__*", "decision": "allow"}]',
    )


def test_a_file_edgehost_wrote_stays_as_it_would_write_it(tmp_path: Path, data_dir: Path) -> None:
    document = {
        "mcpServers": {"a": {"command": "a"}, "b": {"command": "b", "args": ["x"]}},
        "approval": [{"tool": "*", "decision": "ask"}],
    }
    path = tmp_path / "servers.json"
    path.write_text(json.dumps(document, indent=2) + "\n")
    paths = Paths.resolve(path, data_dir)
    save_server(paths, ServerConfig(name="c", command="c"))
    save_server(paths, ServerConfig(name="a", command="a2"))
    remove_server(paths, "b")
    expected = {
        "mcpServers": {"a": {"command": "a2"}, "c": {"command": "c"}},
        "approval": document["approval"],
    }
    assert path.read_text() == json.dumps(expected, indent=2) + "\n"


def test_a_save_that_changes_nothing_leaves_the_file_untouched(tmp_path: Path, data_dir: Path) -> None:
    path = user_file(tmp_path)
    before = path.stat()
    edit_servers_file(Paths.resolve(path, data_dir), lambda config: None)
    assert path.stat().st_ino == before.st_ino and path.stat().st_mtime_ns == before.st_mtime_ns


def test_windows_line_endings_are_kept(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_bytes(
        b'{\r\n  // mine\r\n  "mcpServers": {\r\n    "a": {\r\n      "command": "a"\r\n    }\r\n  }\r\n}\r\n'
    )
    save_server(Paths.resolve(path, data_dir), ServerConfig(name="b", command="b"))
    assert path.read_bytes() == (
        b'{\r\n  // mine\r\n  "mcpServers": {\r\n    "a": {\r\n      "command": "a"\r\n    },\r\n'
        b'    "b": {\r\n      "command": "b"\r\n    }\r\n  }\r\n}\r\n'
    )


def test_a_file_broken_since_it_was_loaded_is_never_replaced(tmp_path: Path, data_dir: Path) -> None:
    path = user_file(tmp_path)
    config = load_servers_config(Paths.resolve(path, data_dir), environ={"GITHUB_TOKEN": "t"})
    broken = USER_FILE.replace('"command": "uvx", //', '"command": "uvx" //')  # a missing comma
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid JSON"):
        save_servers_config(config, path)
    assert path.read_text(encoding="utf-8") == broken


@pytest.mark.parametrize(
    ("encoding", "words"),
    [
        ("latin-1", ":4:22: not UTF-8 text: byte 0xE9 (byte 93 of the file): invalid continuation byte"),
        ("utf-16", ":1: saved as UTF-16; save it as UTF-8"),
    ],
)
def test_a_file_saved_in_another_encoding_since_it_was_loaded_is_never_replaced_and_the_message_says_where(
    tmp_path: Path, data_dir: Path, encoding: str, words: str
) -> None:
    path = user_file(tmp_path)
    config = load_servers_config(Paths.resolve(path, data_dir), environ={"GITHUB_TOKEN": "t"})
    resaved = USER_FILE.replace("the GitHub one", "the GitHub caf\u00e9").encode(encoding)
    path.write_bytes(resaved)
    with pytest.raises(ConfigError) as raised:
        save_servers_config(config, path)
    assert str(raised.value).startswith(f"{path}{words}")
    assert path.read_bytes() == resaved


def test_an_edit_that_would_not_read_back_as_intended_is_written_plain_with_a_backup(
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = user_file(data_dir)

    def losing_splicer(text: str, *args: object) -> str:  # stands for a layout the splicer gets wrong
        return text.replace(MEMORY, "")

    monkeypatch.setattr(_writer, "edit_json_text", losing_splicer)
    with caplog.at_level(logging.WARNING):
        assert main(["--data-dir", str(data_dir), "config", "import", str(CONFIGS / "cursor_mcp.json")]) == 0
    capsys.readouterr()
    assert (data_dir / "servers.json.bak").read_text(encoding="utf-8") == USER_FILE
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert {"github", "memory", "time"} <= set(saved["mcpServers"])
    assert "servers.json.bak" in caplog.text


def test_a_server_written_twice_in_one_object_is_kept_as_written_when_the_file_is_written_anew(
    tmp_path: Path,
) -> None:
    path = tmp_path / "servers.json"
    path.write_text('{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y", "args": ["--z"]}}}')
    config = parse_servers_file(path, expand_variables=False)
    assert config.servers[0].error is not None and "written twice" in config.servers[0].error
    assert servers_config_to_json(config)["mcpServers"] == {"a": {"command": "y", "args": ["--z"]}}


def test_a_changed_vscode_stdio_entry_keeps_its_type(tmp_path: Path, data_dir: Path) -> None:
    path = user_file(
        tmp_path,
        '{\n  "servers": {\n    "a": {"type": "stdio", "command": "a", "envFile": ".env"}\n  }\n}\n',
        "mcp.json",
    )
    paths = Paths.resolve(path, data_dir)
    loaded = load_servers_config(paths).get("a")
    assert loaded is not None
    save_server(paths, replace(loaded, args=["--fast"]))
    entry = json.loads(path.read_text())["servers"]["a"]
    # VS Code's own key and its type stay; the change is made.
    assert entry == {"type": "stdio", "command": "a", "envFile": ".env", "args": ["--fast"]}
    assert load_servers_config(paths).get("a").args == ["--fast"]  # type: ignore[union-attr]


def test_inputs_imported_into_a_vscode_settings_file_go_beside_its_servers(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        "{\n"
        '  "editor.fontSize": 14,\n'
        '  "mcp": {\n'
        '    "inputs": [{"type": "promptString", "id": "old", "description": "Old key"}],\n'
        '    "servers": {\n'
        '      "a": {"type": "stdio", "command": "a", "env": {"K": "${input:old}"}}\n'
        "    }\n"
        "  }\n"
        "}\n"
    )
    path = user_file(tmp_path, text, "settings.json")
    source = tmp_path / "other.json"
    source.write_text(
        '{"inputs": [{"type": "promptString", "id": "key", "description": "API key", "password": true}],'
        ' "servers": {"keyed": {"type": "stdio", "command": "k", "env": {"K": "${input:key}"}}}}'
    )
    assert main(["--config", str(path), "--data-dir", str(data_dir), "config", "import", str(source)]) == 0
    capsys.readouterr()
    saved = json.loads(path.read_text())
    assert "inputs" not in saved
    assert [item["id"] for item in saved["mcp"]["inputs"]] == ["old", "key"]
    assert saved["editor.fontSize"] == 14
    config = load_servers_config(Paths.resolve(path, data_dir), environ={"HOME": "/h"})
    assert set(config.inputs) == {"old", "key"}
    assert config.inputs["key"].description == "API key"
