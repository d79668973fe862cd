"""`edgehost servers search` and `edgehost servers add` as a person runs them, against a stand-in registry
(EDGEHOST_REGISTRY_URL): the PyPI time server is fetched by the uvx that comes with EdgeHost and
started; a remote's secret header is kept out of the servers file."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.bundles.mcpb_support import FIXTURES, packed
from tests.cli.cli_helpers import Terminal, edgehost_command, run_edgehost
from tests.mcp.mcp_support import everything_on_a_port
from tests.registry_standin import FILESYSTEM, TIME, WEATHER, StandInRegistry, bundle_entry, remote_entry

pytestmark = pytest.mark.peers

TIME_NAME = "io.github.modelcontextprotocol/time"


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInRegistry]:
    standin = StandInRegistry()
    for server in (FILESYSTEM, TIME):
        standin.add(server)
    standin.add(WEATHER, "deleted")
    standin.start()
    monkeypatch.setenv("EDGEHOST_REGISTRY_URL", standin.url)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")  # the data folder's file
    yield standin
    standin.stop()


def test_search_lists_what_each_server_runs_as_and_what_runs_here(
    registry: StandInRegistry, data_dir: Path
) -> None:
    done = run_edgehost(data_dir, "servers", "search", "modelcontextprotocol", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert set(rows) == {FILESYSTEM["name"], TIME_NAME}
    assert rows[FILESYSTEM["name"]]["runs_as"] == ["npm", "container"]
    assert "PyPI" in rows[TIME_NAME]["runs_here"]  # uvx comes with EdgeHost
    registry.stop()
    offline = run_edgehost(data_dir, "servers", "search", "modelcontextprotocol")
    assert offline.returncode == 0, offline.stderr
    assert f"{TIME_NAME} {TIME['version']}" in offline.stdout
    assert "cannot be reached" in offline.stderr and "shown as it was 0 minutes ago" in offline.stderr


def test_add_shows_the_command_adds_the_pypi_server_and_starts_it_with_the_bundled_uvx(
    registry: StandInRegistry, data_dir: Path
) -> None:
    refused = run_edgehost(data_dir, "servers", "add", TIME_NAME)
    assert refused.returncode == 2 and "add --yes" in refused.stderr
    assert not (data_dir / "servers.json").exists()

    added = run_edgehost(
        data_dir, "servers", "add", TIME_NAME, "--yes", "--set", "local-timezone=Europe/Paris"
    )
    assert added.returncode == 0, added.stdout + added.stderr
    command = f"uvx mcp-server-time=={TIME['version']} --local-timezone Europe/Paris"
    assert f"It will run as 'time': {command}" in added.stdout
    assert "time: ready, 2 tools: time__get_current_time, time__convert_time" in added.stdout
    entry = json.loads((data_dir / "servers.json").read_text())["mcpServers"]["time"]
    assert entry == {"command": "uvx", "args": command.split()[1:]}

    called = run_edgehost(
        data_dir, "call", "time__get_current_time", '{"timezone": "Europe/Paris"}', "--json"
    )
    assert called.returncode == 0, called.stderr
    assert "Europe/Paris" in called.stdout


def test_a_remote_servers_secret_header_is_kept_apart_and_reaches_the_server(
    registry: StandInRegistry, data_dir: Path
) -> None:
    with everything_on_a_port("streamableHttp", b"listening on port", "/mcp") as (url, _process):
        registry.add(remote_entry(url))
        added = run_edgehost(
            data_dir, "servers", "add", "io.example.anonymous/everything-remote", "--as", "remote", "--yes",
            "--set", "X-API-Key=key-0123456789abcdef",
        )  # fmt: skip
        assert added.returncode == 0, added.stdout + added.stderr
        assert "remote: ready" in added.stdout
    written = (data_dir / "servers.json").read_text()
    assert "key-0123456789abcdef" not in written and "key-0123456789abcdef" not in added.stdout
    config = json.loads(written)
    assert config["mcpServers"]["remote"]["headers"] == {"X-API-Key": "${input:remote__X-API-Key}"}
    assert config["inputs"] == [
        {"id": "remote__X-API-Key", "type": "promptString", "description": "Your API key", "password": True}
    ]


def test_on_a_terminal_add_asks_each_value_keeps_the_secret_unseen_and_asks_before_adding(
    registry: StandInRegistry, data_dir: Path, tmp_path: Path
) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (apt-get install tmux)")
    registry.add({**WEATHER, "name": "io.github.example/weather-now"})
    terminal = Terminal(tmp_path)
    try:
        terminal.start(edgehost_command(data_dir, "servers", "add", "io.github.example/weather-now"))
        terminal.wait_for_text("WEATHER_API_KEY * — API key for weather service")
        terminal.type_line("sk-very-secret-123")
        terminal.wait_for_text("1) celsius  2) fahrenheit")
        terminal.type_line("2")
        screen = terminal.wait_for_text("Add it? [y/N] ")
        assert "sk-very-secret" not in screen  # typed unseen, shown nowhere
        assert "It will run as 'weather-now': uvx weather-mcp-server==0.5.0" in screen
        assert (
            "with the environment: WEATHER_API_KEY=${input:weather-now__WEATHER_API_KEY} WEATHER_UNITS=fahrenheit"
            in screen
        )
        terminal.type_line("n")
        assert terminal.wait_exit() == 1
        assert "nothing was added" in terminal.screen()
    finally:
        terminal.close()
    assert not (data_dir / "servers.json").exists()


def test_a_deleted_or_unknown_server_is_not_added(registry: StandInRegistry, data_dir: Path) -> None:
    done = run_edgehost(data_dir, "servers", "add", WEATHER["name"], "--yes")
    assert done.returncode != 0 and "was deleted from the registry" in done.stderr
    done = run_edgehost(data_dir, "servers", "add", "io.example/nothing", "--yes")
    assert done.returncode != 0 and "has no io.example/nothing" in done.stderr


def test_an_entrys_bundle_is_downloaded_checked_by_its_sha256_and_installed(
    registry: StandInRegistry, data_dir: Path, tmp_path: Path
) -> None:
    bundle = packed(FIXTURES / "hello-uv", tmp_path / "hello-uv.mcpb").read_bytes()
    registry.files["hello-uv.mcpb"] = bundle
    registry.add(bundle_entry(f"{registry.url}/files/hello-uv.mcpb", "0" * 64))
    refused = run_edgehost(data_dir, "servers", "add", "io.example/hello-uv", "--yes")
    assert refused.returncode != 0
    assert "is not the one the registry describes: its SHA-256 is" in refused.stderr
    assert not (data_dir / "bundles").exists()

    registry.entries.clear()
    registry.add(bundle_entry(f"{registry.url}/files/hello-uv.mcpb", hashlib.sha256(bundle).hexdigest()))
    done = run_edgehost(data_dir, "servers", "add", "io.example/hello-uv", "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "its SHA-256 is the registry's" in done.stdout
    assert "hello-uv: ready, 1 tool: hello-uv__python_version" in done.stdout
    assert json.loads(run_edgehost(data_dir, "bundles", "--json").stdout)[0]["name"] == "hello-uv"


def test_adding_a_server_again_keeps_what_was_set_on_it(registry: StandInRegistry, data_dir: Path) -> None:
    assert run_edgehost(data_dir, "servers", "add", TIME_NAME, "--yes").returncode == 0
    config_file = data_dir / "servers.json"
    config = json.loads(config_file.read_text())
    config["mcpServers"]["time"] |= {"disabled": True, "timeout": 12, "alwaysAllow": ["get_current_time"]}
    config_file.write_text(json.dumps(config))
    again = run_edgehost(
        data_dir, "servers", "add", TIME_NAME, "--as", "time", "--yes", "--set", "local-timezone=Asia/Tokyo"
    )
    assert "It will run as 'time'" in again.stdout, again.stderr
    entry = json.loads(config_file.read_text())["mcpServers"]["time"]
    assert entry["args"][-1] == "Asia/Tokyo"  # the new version's values
    assert entry.get("disabled") is True or entry.get("enabled") is False  # still switched off
    assert (entry["timeout"], entry["alwaysAllow"]) == (12, ["get_current_time"])  # another host's key too
