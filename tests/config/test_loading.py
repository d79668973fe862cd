"""Loading servers configs: every accepted shape, ${VAR} expansion, built-ins, and the messages for broken files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from edgehost.errors import ConfigError
from edgehost.mcp.config import ServersConfig, load_servers_config
from edgehost.paths import Paths

CONFIGS = Path(__file__).resolve().parent.parent / "fixtures" / "configs"
ENV = {"HOME": "/home/ada", "GITHUB_TOKEN": "ghp_secret123"}


def load(name: str | Path, data_dir: Path, environ: dict[str, str] | None = None) -> ServersConfig:
    path = name if isinstance(name, Path) else CONFIGS / name
    return load_servers_config(Paths.resolve(path, data_dir), environ=ENV if environ is None else environ)


def user_servers(config: ServersConfig) -> dict[str, object]:
    return {server.name: server for server in config.servers if not server.builtin}


def test_claude_desktop_config_gives_stdio_http_and_sse_servers(data_dir: Path) -> None:
    config = load("claude_desktop_config.json", data_dir)
    fs, remote, legacy = (config.get(name) for name in ("filesystem", "remote", "legacy"))
    assert fs is not None and remote is not None and legacy is not None
    assert (fs.transport, fs.command) == ("stdio", "npx")
    assert fs.args == ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/Documents"]
    assert fs.env == {"GITHUB_TOKEN": "ghp_secret123"}
    assert fs.cwd == str(Path("~/work").expanduser())
    assert fs.source == f"{CONFIGS / 'claude_desktop_config.json'}:3"
    assert (remote.transport, remote.url) == (
        "http",
        "https://mcp.example.com/mcp",
    )  # a bare url is Streamable HTTP
    assert remote.headers == {"Authorization": "Bearer anonymous"}
    assert (legacy.transport, legacy.timeout, legacy.allowed_tools, legacy.trusted) == (
        "sse",
        5.0,
        ["search"],
        True,
    )
    assert all(server.error is None for server in config.servers)
    assert fs.timeout == 60.0 and fs.trusted is False and fs.enabled is True


def test_vscode_config_with_comments_trailing_commas_and_inputs(data_dir: Path) -> None:
    config = load("vscode_mcp.json", data_dir, {**ENV, "EDGEHOST_INPUT_API_KEY": "pplx-123"})
    perplexity, github, events = (config.get(name) for name in ("perplexity", "github", "events"))
    assert perplexity is not None and github is not None and events is not None
    assert perplexity.error is None and perplexity.env == {"PERPLEXITY_API_KEY": "pplx-123"}
    assert (github.transport, github.headers) == ("http", {"X-Home": "/home/ada"})
    assert (events.transport, events.url) == ("sse", "http://localhost:3001/sse")
    assert config.extra["inputs"][0]["id"] == "api-key"


def test_an_unanswered_vscode_input_fails_only_its_server_and_says_how_to_give_it(data_dir: Path) -> None:
    config = load("vscode_mcp.json", data_dir)
    perplexity = config.get("perplexity")
    assert perplexity is not None and perplexity.error is not None
    assert "vscode_mcp.json:11" in perplexity.error
    assert "'api-key' (Perplexity API key)" in perplexity.error
    assert "EDGEHOST_INPUT_API_KEY" in perplexity.error
    assert "env['PERPLEXITY_API_KEY']" in perplexity.error
    assert config.get("github") is not None and config.get("github").error is None  # type: ignore[union-attr]


def test_a_vscode_input_with_a_default_takes_it_and_the_workspace_folder_is_the_one_above_dot_vscode(
    tmp_path: Path, data_dir: Path
) -> None:
    # Seen by a new user: an input's "default" was ignored, and ${workspaceFolder} was taken for an unset
    # environment variable.
    project = tmp_path / "project"
    (project / ".vscode").mkdir(parents=True)
    mcp_json = project / ".vscode" / "mcp.json"
    mcp_json.write_text(
        """{
  "inputs": [{"id": "tz", "type": "pickString", "description": "Time zone",
              "options": ["UTC", "Europe/Paris"], "default": "Europe/Paris"}],
  "servers": {
    "time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time", "--local-timezone", "${input:tz}"]},
    "git": {"command": "uvx", "args": ["mcp-server-git", "--repository", "${workspaceFolder}"],
            "cwd": "${workspaceFolder}/tools"}
  }
}"""
    )
    config = load(mcp_json, data_dir, ENV)
    time, git = config.get("time"), config.get("git")
    assert time is not None and time.error is None and time.args[-1] == "Europe/Paris"
    assert config.inputs["tz"].options == ("UTC", "Europe/Paris")  # what the window offers
    assert git is not None and git.error is None
    assert git.args[-1] == str(project) and git.cwd == str(project / "tools")
    # The environment still wins over the default, as for any input.
    chosen = load(mcp_json, data_dir, {**ENV, "EDGEHOST_INPUT_TZ": "UTC"}).get("time")
    assert chosen is not None and chosen.args[-1] == "UTC"
    # Outside a .vscode folder there is no workspace: said as such, not as a missing variable.
    elsewhere = tmp_path / "servers.json"
    elsewhere.write_text('{"mcpServers": {"git": {"command": "uvx", "args": ["${workspaceFolder}"]}}}')
    lone = load(elsewhere, data_dir, ENV).get("git")
    assert lone is not None and lone.error is not None
    assert (
        "${workspaceFolder} is VS Code's workspace folder, known only for a file in a .vscode folder"
        in lone.error
    )


def test_cursor_config_and_every_spelling_of_streamable_http(data_dir: Path) -> None:
    config = load("cursor_mcp.json", data_dir)
    assert {s.name: s.transport for s in config.servers if not s.builtin} == {
        "memory": "stdio",
        "linear": "http",
        "docs": "http",
    }


def test_toml_servers_tables_with_snake_case_keys_and_approval_rules(data_dir: Path) -> None:
    config = load("servers.toml", data_dir, {})
    time, search, git = (config.get(name) for name in ("time", "search", "git"))
    assert time is not None and search is not None and git is not None
    assert (time.command, time.args, time.enabled, time.excluded_tools) == (
        "python",
        ["-m", "mcp_server_time"],
        False,
        ["convert_time"],
    )
    assert (search.transport, search.url, search.timeout, search.roots) == (
        "http",
        "http://localhost:8080/mcp",
        120.0,
        ["/srv/data"],
    )
    assert git.allowed_tools == ["git_status"]
    assert (time.source or "").endswith("servers.toml:4")
    assert (git.source or "").endswith("servers.toml:18")
    assert config.approval == [{"tool": "files__delete_file", "decision": "ask"}]


def test_variables_expand_with_defaults_and_empty_values(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text(
        '{"mcpServers": {"s": {"command": "${TOOL:-uvx}", "args": ["${A}", "${B:-b-default}", "${C:-c-default}", '
        '"$HOME stays", "${EMPTY}"]}}}'
    )
    server = load(path, data_dir, {"A": "a", "C": "", "EMPTY": ""}).get("s")
    assert server is not None and server.error is None
    assert server.command == "uvx"
    assert server.args == ["a", "b-default", "c-default", "$HOME stays", ""]


def test_an_undefined_variable_names_file_line_and_field(data_dir: Path) -> None:
    config = load("one_bad_entry.json", data_dir, {})
    unset = config.get("unset")
    assert unset is not None and unset.error is not None
    assert "one_bad_entry.json:13" in unset.error
    assert "EDGEHOST_TEST_SURELY_UNSET is not set" in unset.error
    assert "env['TOKEN']" in unset.error


def test_one_bad_entry_does_not_stop_the_others(data_dir: Path) -> None:
    config = load("one_bad_entry.json", data_dir, {})
    errors = {s.name: s.error for s in config.servers if not s.builtin}
    assert errors["good"] is None and errors["also-good"] is None
    assert errors["nothing"] is not None and "one_bad_entry.json:4" in errors["nothing"]
    assert 'needs "command"' in errors["nothing"]
    assert errors["wrong-args"] is not None and "one_bad_entry.json:7" in errors["wrong-args"]
    assert "item 1 must be a string" in errors["wrong-args"] and "field 'args[1]'" in errors["wrong-args"]
    assert errors["pigeon"] is not None and "unknown transport 'carrier-pigeon'" in errors["pigeon"]
    assert "one_bad_entry.json:9" in errors["pigeon"] and "field 'type'" in errors["pigeon"]
    assert [s.name for s in config.servers] == [
        "board",
        "files",
        "good",
        "nothing",
        "wrong-args",
        "pigeon",
        "unset",
        "also-good",
    ]


@pytest.mark.parametrize(
    ("name", "where", "words"),
    [
        ("broken_missing_comma.json", "broken_missing_comma.json:4:5", "Expecting ',' delimiter"),
        ("broken.toml", "broken.toml:4:", "invalid TOML"),
        ("top_level_list.json", "top_level_list.json:2", "top level must be an object"),
        ("servers_not_an_object.json", "servers_not_an_object.json:2", "field 'mcpServers'"),
    ],
)
def test_a_broken_file_raises_with_file_line_and_column(
    name: str, where: str, words: str, data_dir: Path
) -> None:
    with pytest.raises(ConfigError) as raised:
        load(name, data_dir)
    assert where in str(raised.value)
    assert words in str(raised.value)
    assert "(at line" not in str(raised.value)  # the position is said once, where the file is named
    assert raised.value.path == str(CONFIGS / name)
    assert raised.value.line is not None


DEEP = 100_000  # levels, as an adversarial probe wrote them (issue 30)
UTF8_SERVERS = '{\n  "mcpServers": {\n    "cafe": {"command": "caf\u00e9"}\n  }\n}\n'

# (file name, its bytes, where the message says the problem is, words of the message). Every one was a
# traceback (RecursionError), or an error without a line, before.
UNREADABLE_FILES = [
    ("deep_array.json", b"[" * DEEP + b"]" * DEEP, ":1:101: ", "nested more than 100 levels deep"),
    (
        "deep_object.json",
        b'{"a":' * DEEP + b"1" + b"}" * DEEP,
        ":1:501: ",
        "nested more than 100 levels deep",
    ),
    (
        "deep_under_servers.json",
        b'{"mcpServers": {"s": {"command": "x", "dev":\n' + b"[" * 200 + b"]" * 200 + b"}}}",
        ":2:98: ",
        "nested more than 100 levels deep",
    ),
    ("deep_array.toml", b"a = " + b"[" * DEEP + b"]" * DEEP + b"\n", ":1:105: ", "nested more than 100"),
    (
        "deep_inline_tables.toml",
        b"a = " + b"{b = " * DEEP + b"1" + b"}" * DEEP,
        ":1:",
        "nested more than 100",
    ),
    ("deep_dotted_key.toml", b"a" + b".a" * DEEP + b" = 1\n", ":1:202: ", "nested more than 100 levels deep"),
    (  # each part below the limit, the whole above it
        "deep_table_and_key.toml",
        b"[" + b".".join([b"t"] * 60) + b"]\n" + b".".join([b"k"] * 60) + b" = 1\n",
        ":2: ",
        "nested more than 100 levels deep",
    ),
    (
        "latin1.json",
        UTF8_SERVERS.encode("latin-1"),
        ":3:29: ",
        "not UTF-8 text: byte 0xE9 (byte 49 of the file): invalid continuation byte; save the file as UTF-8",
    ),
    (
        "cut_short.json",
        UTF8_SERVERS.encode()[:49],
        ":3:29: ",
        "byte 0xC3 (byte 49 of the file): unexpected end",
    ),
    (
        "bom_and_latin1.json",
        b"\xef\xbb\xbf" + UTF8_SERVERS.encode("latin-1"),
        ":3:29: ",
        "(byte 52 of the file)",
    ),
    ("utf16.json", UTF8_SERVERS.encode("utf-16"), ":1: ", "saved as UTF-16; save it as UTF-8"),
    ("utf16_big_endian.json", b"\xfe\xff" + UTF8_SERVERS.encode("utf-16-be"), ":1: ", "saved as UTF-16;"),
    (
        "utf16_without_bom.json",
        UTF8_SERVERS.encode("utf-16-le"),
        ":1: ",
        "saved as UTF-16 (it has NUL bytes)",
    ),
    ("utf32.json", UTF8_SERVERS.encode("utf-32"), ":1: ", "saved as UTF-32; save it as UTF-8"),
    ("utf16.toml", '[servers.a]\ncommand = "x"\n'.encode("utf-16"), ":1: ", "saved as UTF-16"),
]


@pytest.mark.parametrize(
    ("name", "data", "where", "words"), UNREADABLE_FILES, ids=[case[0] for case in UNREADABLE_FILES]
)
def test_a_file_too_deep_or_not_utf8_is_refused_with_its_line_and_only_the_built_ins_run(
    name: str, data: bytes, where: str, words: str, tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ConfigError) as raised:
        load(path, data_dir)
    assert str(raised.value).startswith(f"{path}{where}"), str(raised.value)
    assert words in str(raised.value)
    config = load_servers_config(Paths.resolve(path, data_dir), fall_back=True)  # what the app does
    assert [s.name for s in config.servers] == ["board", "files"]
    assert config.file_error == str(raised.value)


def test_nesting_is_counted_in_levels_not_in_brackets_inside_strings_or_dots_inside_values(
    tmp_path: Path, data_dir: Path
) -> None:
    # Python itself reads 101 levels; the limit is EdgeHost's, so it must count only what nests.
    too_deep = tmp_path / "too_deep.json"
    too_deep.write_text('{"mcpServers": {"s": {"command": "x", "dev": ' + "[" * 98 + "]" * 98 + "}}}")
    with pytest.raises(ConfigError, match=r"too_deep.json:1:143: nested more than 100 levels deep"):
        load(too_deep, data_dir)
    not_deep = {
        "brackets_in_strings.json": '{"mcpServers": {"s": {"command": "' + "[{" * 500 + '"}}}',
        "deep_enough.json": '{"mcpServers": {"s": {"command": "x", "dev": ' + "[" * 97 + "]" * 97 + "}}}",
        "brackets_in_strings.toml": "[servers.s]\ncommand = '" + "[{." * 500 + "'\n",
        "dots_in_values.toml": '[servers.s]\ncommand = "x"\ntimeout = 1.5\nargs = [' + '"a.b",' * 200 + "]\n",
    }
    for name, text in not_deep.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        server = load(path, data_dir).get("s")
        assert server is not None and server.error is None, name


def test_a_file_saved_as_utf16_loads_once_saved_as_utf8_as_the_message_says(
    tmp_path: Path, data_dir: Path
) -> None:
    path = tmp_path / "servers.json"
    path.write_bytes(UTF8_SERVERS.encode("utf-16"))
    with pytest.raises(ConfigError, match="saved as UTF-16; save it as UTF-8"):
        load(path, data_dir)
    # As a Windows editor saves UTF-8: with a byte order mark and CRLF line endings.
    path.write_bytes(b"\xef\xbb\xbf" + UTF8_SERVERS.replace("\n", "\r\n").encode())
    server = load(path, data_dir).get("cafe")
    assert server is not None and server.command == "caf\u00e9"


def test_a_missing_file_means_only_the_built_in_servers(data_dir: Path) -> None:
    config = load_servers_config(Paths.resolve(None, data_dir))  # none written yet
    assert [(s.name, s.builtin, s.trusted) for s in config.servers] == [
        ("board", True, True),
        ("files", True, True),
    ]
    files = config.get("files")
    assert files is not None
    assert (files.command, files.args) == (
        sys.executable,
        ["-m", "edgehost", "serve", "files", "--root", str(data_dir / "files")],
    )


def test_a_file_given_with_config_that_does_not_exist_is_an_error_not_an_empty_file(data_dir: Path) -> None:
    missing = data_dir / "sevrers.json"  # a typo on the command line
    with pytest.raises(ConfigError, match="sevrers.json: no such file \\(given with --config\\)"):
        load(missing, data_dir)
    config = load_servers_config(Paths.resolve(missing, data_dir), fall_back=True)  # what the app does
    assert [s.name for s in config.servers] == ["board", "files"]
    assert config.file_error == f"{missing}: no such file (given with --config)"


def test_a_frozen_bundle_runs_its_built_in_servers_with_its_own_executable(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    board = load_servers_config(Paths.resolve(None, data_dir)).get("board")
    assert board is not None and (board.command, board.args[:2]) == (sys.executable, ["serve", "board"])


def test_a_user_entry_overrides_or_adjusts_a_built_in(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text(
        '{"mcpServers": {"board": {"command": "my-board", "args": ["--x"]},'
        ' "files": {"enabled": false, "args": ["--root", "/srv/share"], "timeout": 10}}}'
    )
    config = load(path, data_dir)
    board, files = config.servers[0], config.servers[1]
    assert (board.name, board.command, board.args, board.builtin) == ("board", "my-board", ["--x"], False)
    assert (files.name, files.builtin, files.enabled, files.timeout) == ("files", True, False, 10.0)
    assert files.args[-4:] == ["serve", "files", "--root", "/srv/share"]
    assert len(config.servers) == 2


def test_a_server_defined_twice_is_marked_failed(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "servers.toml"
    path.write_text('[[servers]]\nname = "a"\ncommand = "x"\n\n[[servers]]\nname = "a"\ncommand = "y"\n')
    config = load(path, data_dir)
    first, second = (s for s in config.servers if s.name == "a")
    assert first.error is None and first.command == "x"
    assert second.error is not None and "defined twice" in second.error and "servers.toml:5" in second.error


def test_a_toml_entry_without_a_name_is_marked_failed(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "servers.toml"
    path.write_text('[[servers]]\ncommand = "x"\n\n[[servers]]\nname = "ok"\ncommand = "y"\n')
    errors = {s.name: s.error for s in load(path, data_dir).servers if not s.builtin}
    assert errors["ok"] is None
    assert errors["servers[0]"] is not None and 'needs a "name"' in errors["servers[0]"]
    assert "servers.toml:1" in errors["servers[0]"]


def test_vscode_settings_json_nests_servers_under_mcp(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"editor.fontSize": 14, "mcp": {"servers": {"t": {"type": "stdio", "command": "t"}}}}')
    assert user_servers(load(path, data_dir)).keys() == {"t"}


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ('{"command": "x", "url": "http://y"}', 'both "command" and "url"'),
        ('{"url": "ftp://y"}', "must start with http://"),
        ('{"command": "x", "timeout": -1}', "positive number of seconds"),
        ('{"command": "x", "enabled": "yes"}', "must be true or false"),
        ('{"command": "x", "env": ["A=1"]}', "must be an object of strings"),
        ('{"type": "stdio"}', 'a stdio server needs "command"'),
        ('"npx server"', "must be an object/table"),
        ('{"command": "${NOT SET}"}', "is not a variable reference"),
    ],
)
def test_invalid_fields_are_explained(entry: str, words: str, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text('{"mcpServers": {\n"s": ' + entry + "\n}}")
    server = load(path, data_dir).get("s")
    assert server is not None and server.error is not None
    assert words in server.error and "servers.json:2" in server.error


def test_a_server_written_twice_in_one_json_object_is_marked_failed(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text(
        '{"mcpServers": {\n"a": {"command": "x"},\n"b": {"command": "b"},\n"a": {"command": "y"}\n}}'
    )
    errors = {s.name: s.error for s in load(path, data_dir).servers if not s.builtin}
    assert errors["b"] is None
    assert errors["a"] is not None and "written twice in this object (lines 2 and 4)" in errors["a"]


def test_a_command_written_with_its_arguments_is_told_to_move_them_to_args() -> None:
    from edgehost.mcp.config import ServerConfig

    whole = ServerConfig(name="time", command=f"{Path(sys.executable).name} -m mcp_server_time", args=["--x"])
    whole.env = {"PATH": str(Path(sys.executable).parent)}
    assert whole.missing_program() == (
        f"the program '{Path(sys.executable).name} -m mcp_server_time' was not found on the PATH: the words"
        f' after the program go in "args" ("command": "{Path(sys.executable).name}",'
        ' "args": ["-m", "mcp_server_time", "--x"])'
    )
    assert ServerConfig(name="x", command="no-such-program-here --flag").missing_program() == (
        "the program 'no-such-program-here --flag' was not found on the PATH (is it installed?)"
    )
