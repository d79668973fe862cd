"""A bad servers entry is reported by file, line and key, in words; the key positions behind that."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgehost.key_locations import Position, json_locations, toml_locations
from edgehost.mcp.config import SERVER_NAME_RULE, ServerConfig, parse_servers_file

CLAUDE_DESKTOP = """\
{
  "mcpServers": {
    "git": {
      "command": "uvx",
      "args": ["mcp-server-git", "--repository",
               3, true]
    },
    "fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "timeout": "soon"},
    "ok": {"command": "uvx", "args": ["mcp-server-time", "--port", 8080]}
  }
}
"""


def servers(tmp_path: Path, name: str, text: str) -> dict[str, ServerConfig]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return {server.name: server for server in parse_servers_file(path, environ={}).servers}


def test_a_wrong_list_item_is_named_by_file_line_column_and_key(tmp_path: Path) -> None:
    git = servers(tmp_path, "servers.json", CLAUDE_DESKTOP)["git"]
    assert git.error == (
        f"{tmp_path / 'servers.json'}:6:19: server 'git': item 3 must be a string, not true (field 'args[3]')"
    )


def test_a_wrong_value_says_what_the_key_takes_and_what_it_got(tmp_path: Path) -> None:
    fetch = servers(tmp_path, "servers.json", CLAUDE_DESKTOP)["fetch"]
    assert fetch.error is not None
    assert "servers.json:8:63: server 'fetch': " in fetch.error
    assert "must be a positive number of seconds, not \"soon\" (field 'timeout')" in fetch.error


def test_numbers_in_args_are_taken_as_text_and_the_good_entry_loads(tmp_path: Path) -> None:
    ok = servers(tmp_path, "servers.json", CLAUDE_DESKTOP)["ok"]
    assert ok.error is None
    assert (ok.command, ok.args) == ("uvx", ["mcp-server-time", "--port", "8080"])


def test_keys_other_hosts_write_are_tolerated_and_kept(tmp_path: Path) -> None:
    text = """{
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "gallery": true,
      "version": "1.0.0",
      "dev": {"watch": "src/**/*.ts"}
    }
  },
  "inputs": []
}"""
    github = servers(tmp_path, "mcp.json", text)["github"]
    assert github.error is None and (github.transport, github.url) == (
        "http",
        "https://api.githubcopilot.com/mcp/",
    )
    assert github.extra == {"gallery": True, "version": "1.0.0", "dev": {"watch": "src/**/*.ts"}}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('"env": {"A": ["x"]}', "must be a string, not a list (field \"env['A']\")"),
        ('"headers": "Bearer x"', "must be an object of strings, not \"Bearer x\" (field 'headers')"),
        ('"disabled": "yes"', "must be true or false, not \"yes\" (field 'disabled')"),
        ('"allowedTools": "read"', "must be a list of strings, not \"read\" (field 'allowedTools')"),
        ('"allowed_tools": [1.5, null]', "item 1 must be a string, not null (field 'allowed_tools[1]')"),
        ('"type": 3', "must be a string, not 3 (field 'type')"),
    ],
)
def test_each_kind_of_wrong_value_is_explained(tmp_path: Path, entry: str, message: str) -> None:
    text = '{"mcpServers": {\n  "s": {"command": "x",\n    ' + entry + "}\n}}"
    error = servers(tmp_path, "servers.json", text)["s"].error
    assert error is not None and "servers.json:3:" in error and error.endswith(message)


def test_a_toml_entry_is_named_by_its_key_line_inside_its_table(tmp_path: Path) -> None:
    text = (
        "# my servers\n"
        "[[servers]]\n"
        'name = "first"\n'
        'command = "a"\n'
        "\n"
        "[[servers]]\n"
        'name = "second"\n'
        'command = "b"\n'
        "args = [\n"
        '  "--x",\n'
        "  false,\n"
        "]\n"
        "\n"
        "[mcp_servers.git]\n"
        'command = "python"\n'
        "timeout = -1\n"
    )
    found = servers(tmp_path, "servers.toml", text)
    assert found["first"].error is None
    assert found["second"].error == (
        f"{tmp_path / 'servers.toml'}:9:1: server 'second': item 1 must be a string, not false (field 'args[1]')"
    )
    assert found["git"].error is not None
    assert (
        "servers.toml:16:1: server 'git': must be a positive number of seconds, not -1" in found["git"].error
    )


def test_valid_entries_load_to_the_same_server_configs(tmp_path: Path) -> None:
    text = """{"mcpServers": {
  "files": {"command": "npx", "args": ["-y", "server-files"], "env": {"DEBUG": 1}, "cwd": "/srv",
            "enabled": false, "timeout": 5, "allowedTools": ["read"], "excludedTools": ["write"],
            "roots": ["/srv/a"], "trusted": true},
  "remote": {"type": "streamable-http", "url": "https://x.example/mcp", "headers": {"A": "b"}}
}}"""
    found = servers(tmp_path, "servers.json", text)
    assert found["files"] == ServerConfig(
        name="files",
        command="npx",
        args=["-y", "server-files"],
        env={"DEBUG": "1"},
        cwd="/srv",
        enabled=False,
        timeout=5.0,
        allowed_tools=["read"],
        excluded_tools=["write"],
        roots=["/srv/a"],
        trusted=True,
        source=f"{tmp_path / 'servers.json'}:2",
    )
    assert found["remote"] == ServerConfig(
        name="remote",
        transport="http",
        url="https://x.example/mcp",
        headers={"A": "b"},
        source=f"{tmp_path / 'servers.json'}:5",
    )


# --- where keys are -----------------------------------------------------------------------------


def test_json_positions_name_keys_and_list_items_and_their_columns() -> None:
    found = json_locations('{\n  "a": {"b": [1,\n    {"c": 2}]},\n  "d~/": null\n}')
    assert found.position_of(("a",)) == Position(2, 3)
    assert found.position_of(("a", "b", 0)) == Position(2, 15)
    assert found.position_of(("a", "b", 1, "c")) == Position(3, 6)
    assert found.position_of(("d~/",)) == Position(4, 3)
    assert found.position_of(("a", "missing", 3)) == Position(2, 3)  # the nearest written parent
    assert found.position_of(("nowhere",)) is None


def test_json_keys_written_twice_are_listed_with_both_lines() -> None:
    assert json_locations('{"s": {\n"a": 1,\n"a": 2}}').repeated == {("s", "a"): [2, 3]}


def test_toml_positions_follow_tables_arrays_of_tables_and_dotted_keys() -> None:
    text = (
        'title = "x"\n'
        "[[servers]]\n"
        'name = "a"\n'
        "[[servers]]\n"
        '  name = "b"\n'
        "[servers.env]\n"
        'TOKEN = "t"\n'
        '[mcp_servers."my.server"]\n'
        "sampling.repeat_penalty = 1.2\n"
    )
    found = toml_locations(text)
    assert found.position_of(("title",)) == Position(1, 1)
    assert found.position_of(("servers", 0)) == Position(2, 1)
    assert found.position_of(("servers", 0, "name")) == Position(3, 1)
    assert found.position_of(("servers", 1, "name")) == Position(5, 3)
    assert found.position_of(("servers", 1, "env", "TOKEN")) == Position(7, 1)
    assert found.position_of(("mcp_servers", "my.server", "sampling", "repeat_penalty")) == Position(9, 1)


def test_toml_lines_inside_multi_line_strings_and_arrays_are_not_keys() -> None:
    text = 'notes = """\nname = not a key\n"""\nargs = [\n  "a = b",\n  [1, 2],\n]\nname = "real"\n'
    found = toml_locations(text)
    assert found.line_of(("name",)) == 8
    assert found.line_of(("args", 1)) == 4  # items of a multi-line array map to its key


def test_toml_arrays_of_tables_inside_arrays_of_tables_count_from_zero_in_each_element() -> None:
    found = toml_locations("[[a]]\n[[a.b]]\ny = 1\n[[a.b]]\ny = 2\n[[a]]\n[[a.b]]\ny = 3\n")
    assert found.line_of(("a", 0, "b", 1, "y")) == 5
    assert found.line_of(("a", 1, "b", 0, "y")) == 8


def test_max_concurrent_calls_is_read_saved_back_and_checked(tmp_path: Path) -> None:
    from edgehost.mcp.config import server_to_entry

    [server] = parse_servers_file(
        _write(
            tmp_path / "servers.json",
            '{"mcpServers": {"slow": {"command": "slow-server", "maxConcurrentCalls": 2}}}',
        )
    ).servers
    assert server.max_concurrent_calls == 2
    assert (server_to_entry(server) or {})["maxConcurrentCalls"] == 2
    [broken] = parse_servers_file(
        _write(
            tmp_path / "bad.json",
            '{"mcpServers": {"slow": {"command": "slow-server", "maxConcurrentCalls": 0}}}',
        )
    ).servers
    assert broken.error is not None and "maxConcurrentCalls" in broken.error


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_misspelt_key_is_a_warning_with_its_line_and_the_key_meant_and_the_server_still_loads(
    tmp_path: Path,
) -> None:
    # Seen by a new user: "arguments" and "enviroment" were dropped without a word, and Python started
    # without its module and sat there.
    text = """\
{
  "mcpServers": {
    "time": {
      "command": "python3",
      "arguments": ["-m", "mcp_server_time"],
      "enviroment": {"TZ": "UTC"},
      "disable": true,
      "excludeTool": ["convert_time"],
      "envFile": "${workspaceFolder}/.env",
      "autoApprove": ["get_current_time"]
    },
    "typo": {"comand": "uvx"}
  }
}
"""
    loaded = servers(tmp_path, "servers.json", text)
    file = tmp_path / "servers.json"
    time = loaded["time"]
    assert time.error is None and time.args == []  # loaded as written: the keys do nothing
    assert time.warnings == [
        f"{file}:5:7: server 'time': unknown key 'arguments' (did you mean 'args'?); EdgeHost ignores it"
        " (field 'arguments')",
        f"{file}:6:7: server 'time': unknown key 'enviroment' (did you mean 'env'?); EdgeHost ignores it"
        " (field 'enviroment')",
        f"{file}:7:7: server 'time': unknown key 'disable' (did you mean 'disabled'?); EdgeHost ignores it"
        " (field 'disable')",
        f"{file}:8:7: server 'time': unknown key 'excludeTool' (did you mean 'excludeTools'?); EdgeHost"
        " ignores it (field 'excludeTool')",
    ]  # VS Code's envFile and Cline's autoApprove are other hosts' settings: no warning
    typo = loaded["typo"]
    assert typo.error is not None and 'needs "command"' in typo.error
    assert typo.warnings == [
        f"{file}:12:14: server 'typo': unknown key 'comand' (did you mean 'command'?); EdgeHost ignores it"
        " (field 'comand')"
    ]


def test_other_hosts_names_for_our_settings_are_read() -> None:
    text = """\
{"mcpServers": {
  "windsurf": {"serverUrl": "https://example.org/mcp", "disabledTools": ["drop"]},
  "gemini": {"command": "uvx", "includeTools": ["get"], "excludeTools": ["put"], "trust": true},
  "cline": {"url": "https://example.org/sse", "transportType": "sse"}
}}
"""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        loaded = servers(Path(folder), "mcp.json", text)
    windsurf, gemini, cline = loaded["windsurf"], loaded["gemini"], loaded["cline"]
    assert (windsurf.transport, windsurf.url, windsurf.excluded_tools) == (
        "http",
        "https://example.org/mcp",
        ["drop"],
    )
    assert (gemini.allowed_tools, gemini.excluded_tools, gemini.trusted) == (["get"], ["put"], True)
    assert cline.transport == "sse"
    assert not (windsurf.warnings or gemini.warnings or cline.warnings)


def test_a_toml_server_table_written_inside_another_server_is_named_as_such(tmp_path: Path) -> None:
    # [servers.everything] after [[servers]] is valid TOML: a table inside the last [[servers]] entry.
    text = """\
[[servers]]
name = "time"
command = "uvx"
args = ["mcp-server-time"]

[servers.everything]
command = "npx"
"""
    loaded = servers(tmp_path, "servers.toml", text)
    assert list(loaded) == ["time"]
    [warning] = loaded["time"].warnings
    assert "unknown key 'everything'; it looks like a server of its own" in warning
    assert "Write every server as [[servers]] with name" in warning


# --- server names -------------------------------------------------------------------------------

# Names an adversarial probe gave servers (issue 30), each accepted without a word before, and what the
# message says of it.
HOSTILE_NAMES = [
    ("", "the name is empty"),
    ("a__b", "the name has '__', which separates a server's name from its tools' names"),
    ("../x", "the name has '.', '/'"),
    ("n" * 300, "the name is 300 characters long"),
    ("trailing_", "the name ends in '_'"),
    ("my server", "the name has ' '"),
    ("caf\u00e9", "the name has 'é'"),
    ("tab\there", "the name has '\\t'"),
]


FINE_NAMES = ["a", "board", "brave-search", "mcp_server_2", "A-b_C", "_private", "n" * 48]
FINE_ENTRIES = ",\n".join(f'  "{name}": {{"command": "x"}}' for name in FINE_NAMES)


@pytest.mark.parametrize(("name", "problem"), HOSTILE_NAMES, ids=[repr(n[:12]) for n, _ in HOSTILE_NAMES])
def test_a_server_name_tools_cannot_be_namespaced_with_fails_with_its_line_and_the_rule(
    tmp_path: Path, name: str, problem: str
) -> None:
    text = '{"mcpServers": {\n  ' + json.dumps(name) + ': {"command": "x"},\n' + FINE_ENTRIES + "}}"
    loaded = servers(tmp_path, "servers.json", text)
    error = loaded[name].error
    assert error is not None and error.startswith(f"{tmp_path / 'servers.json'}:2:3: server ")
    assert f": {problem}" in error and error.endswith(f"; {SERVER_NAME_RULE}")
    assert loaded[name].unparsed == {"command": "x"}  # saved back as written, for the user to rename
    assert all(loaded[fine].error is None for fine in FINE_NAMES)


def test_a_long_name_is_shortened_in_its_message(tmp_path: Path) -> None:
    loaded = servers(tmp_path, "servers.json", '{"mcpServers": {"' + "n" * 300 + '": {"command": "x"}}}')
    error = loaded["n" * 300].error
    assert error is not None and "server '" + "n" * 60 + "'...: the name is 300" in error
    assert "n" * 61 not in error


def test_a_name_with_double_underscores_cannot_take_the_tool_names_of_another_server(tmp_path: Path) -> None:
    # Server a__b's tool c and server a's tool b__c would both be a__b__c.
    text = '{"mcpServers": {"a": {"command": "x"}, "a__b": {"command": "y"}}}'
    loaded = servers(tmp_path, "servers.json", text)
    assert loaded["a"].error is None
    assert loaded["a__b"].error is not None and "'__'" in loaded["a__b"].error


def test_a_toml_server_name_is_checked_as_a_json_one(tmp_path: Path) -> None:
    text = '[[servers]]\nname = "ok"\ncommand = "x"\n\n[[servers]]\nname = "../up"\ncommand = "y"\n'
    loaded = servers(tmp_path, "servers.toml", text)
    assert loaded["ok"].error is None
    error = loaded["../up"].error
    assert error is not None and error.startswith(f"{tmp_path / 'servers.toml'}:5:1: server '../up': ")


# --- addresses ----------------------------------------------------------------------------------

GOOD_ADDRESSES = ",\n".join(
    f'  "good{number}": {{"url": {json.dumps(url)}}}'
    for number, url in enumerate(
        [
            "http://[::1]:8080/mcp",
            "https://example.org/mcp?x=1",
            "ws://127.0.0.1:3000",
            "http://host:${PORT}/",
        ]
    )
)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://[::1", "is not a valid address: Invalid IPv6 URL"),
        ("https://[zz]/mcp", "is not a valid address: 'zz' does not appear to be an IPv4 or IPv6 address"),
        ("http://localhost:99999/mcp", "is not a valid address: Port out of range 0-65535"),
        ("http://localhost:port/mcp", "is not a valid address: Port could not be cast to integer value"),
        ("http:///mcp", "has no host name or address"),
        ("https://", "has no host name or address"),
        ("http://exa\u0000mple.org/", "has a control character"),
        ("ws://[::1/socket", "is not a valid address: Invalid IPv6 URL"),
    ],
)
def test_an_address_that_cannot_be_connected_to_fails_with_its_line(
    tmp_path: Path, url: str, words: str
) -> None:
    text = (
        '{"mcpServers": {\n  "remote": {\n    "url": ' + json.dumps(url) + "\n  },\n" + GOOD_ADDRESSES + "}}"
    )
    path = tmp_path / "servers.json"
    path.write_text(text, encoding="utf-8")
    loaded = {server.name: server for server in parse_servers_file(path, environ={"PORT": "8080"}).servers}
    error = loaded["remote"].error
    assert error is not None and error.startswith(f"{path}:3:5: server 'remote': url ")
    assert words in error and error.endswith("(field 'url')")
    assert [name for name, server in loaded.items() if server.error is not None] == ["remote"]
