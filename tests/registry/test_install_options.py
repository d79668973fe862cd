"""A registry entry becomes a server entry as the reference hosts make it: the command, its arguments
in order, the values asked, and secrets that never reach the servers file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.registry_standin import FILESYSTEM, TIME, TIME_VERSION, WEATHER, remote_entry

from edgehost.form_fields import form_fields
from edgehost.mcp.auth import FileCredentialStore
from edgehost.mcp.inputs import InputValues
from edgehost.paths import Paths
from edgehost.registry.adding import add_to_servers_file, remove_entry
from edgehost.registry.install import install_options
from edgehost.registry.server_json import read_entry


def options_of(server: dict) -> dict:
    entry = read_entry({"server": server})
    assert entry is not None
    return {option.kind: option for option in install_options(entry)}


def test_an_npm_package_runs_with_npx_yes_at_its_version_with_its_arguments_and_environment() -> None:
    npm = options_of(FILESYSTEM)["npm"]
    plan = npm.plan("filesystem", {"target_dir": "/srv/share"})
    assert plan.command_line() == ["npx", "-y", "@modelcontextprotocol/server-filesystem@1.0.2", "/srv/share"]
    assert plan.server.env == {"LOG_LEVEL": "info"}  # the default, as the entry gives it
    assert plan.secrets == {} and plan.inputs == ()


def test_an_image_runs_in_docker_with_its_variables_filled_and_the_environment_passed_by_name() -> None:
    oci = options_of(FILESYSTEM)["oci"]
    fields = {f.name: f for f in form_fields(oci.form_schema())}
    assert set(fields) == {"source_path", "target_path", "LOG_LEVEL"}  # the fixed positional is not asked
    assert fields["source_path"].required and fields["target_path"].default == "/project"
    plan = oci.plan("fs", {"source_path": "/home/ada"})
    assert plan.command_line() == [
        "docker", "run", "-i", "--rm",
        "--mount", "type=bind,src=/home/ada,dst=/project",
        "-e", "LOG_LEVEL",
        "docker.io/mcp/filesystem:1.0.2",  # the tag is in the identifier: not added twice
        "/project",
    ]  # fmt: skip
    assert plan.server.env == {"LOG_LEVEL": "info"}


def test_a_pypi_package_runs_with_uvx_and_a_named_argument_is_its_flag_then_its_value() -> None:
    plan = options_of(TIME)["pypi"].plan("time", {"local-timezone": "Europe/Paris"})
    assert plan.command_line() == [
        "uvx",
        f"mcp-server-time=={TIME_VERSION}",
        "--local-timezone",
        "Europe/Paris",
    ]


def test_a_secret_goes_to_the_credential_store_and_the_entry_holds_only_a_reference_to_it() -> None:
    pypi = options_of(WEATHER)["pypi"]
    fields = {f.name: f for f in form_fields(pypi.form_schema())}
    assert fields["WEATHER_API_KEY"].secret and fields["WEATHER_API_KEY"].required
    assert [c.value for c in fields["WEATHER_UNITS"].choices] == ["celsius", "fahrenheit"]
    plan = pypi.plan("weather", {"WEATHER_API_KEY": "sk-live-0123456789", "WEATHER_UNITS": "fahrenheit"})
    assert plan.server.env == {
        "WEATHER_API_KEY": "${input:weather__WEATHER_API_KEY}",
        "WEATHER_UNITS": "fahrenheit",
    }
    assert plan.secrets == {"weather__WEATHER_API_KEY": "sk-live-0123456789"}
    [declared] = plan.inputs
    assert declared["id"] == "weather__WEATHER_API_KEY" and declared["password"] is True
    assert "sk-live" not in repr(plan.servers_config().servers) + repr(plan.servers_config().extra)


def test_a_required_value_without_a_default_is_named_when_it_is_missing() -> None:
    with pytest.raises(ValueError, match="WEATHER_API_KEY"):
        options_of(WEATHER)["pypi"].plan("weather", {})


def test_a_remote_becomes_a_streamable_http_entry_with_its_header_kept_secret() -> None:
    remote = options_of(remote_entry("https://mcp.example.com/{tenant}/mcp"))["remote"]
    plan = remote.plan("everything", {"X-API-Key": "key-0123456789"})
    assert (plan.server.transport, plan.server.url) == ("http", "https://mcp.example.com/{tenant}/mcp")
    assert plan.server.headers == {"X-API-Key": "${input:everything__X-API-Key}"}
    assert plan.secrets == {"everything__X-API-Key": "key-0123456789"}


def test_a_machine_without_node_is_told_what_to_install_and_still_runs_pypi_servers_with_the_bundled_uvx(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on the PATH: no npx, no uvx of the system's
    npm = options_of(FILESYSTEM)["npm"]
    assert npm.why_not_here() == (
        "it needs Node.js (npx), which is not installed: edgehost runtimes install node (or sudo apt install nodejs npm)"
    )
    assert options_of(TIME)["pypi"].why_not_here() is None  # uv comes with EdgeHost
    assert (options_of(FILESYSTEM)["oci"].why_not_here() or "").startswith("it needs Docker (docker)")


def test_a_bundle_needs_its_sha256_and_a_package_serving_http_says_why_it_is_not_run() -> None:
    bundle = {
        **TIME,
        "packages": [
            {
                "registryType": "mcpb",
                "identifier": "https://github.com/example/releases/download/v1.0.0/package.mcpb",
                "fileSha256": "fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce",
                "transport": {"type": "stdio"},
            },
            {
                "registryType": "npm",
                "identifier": "some-http-server",
                "version": "1.0.0",
                "transport": {"type": "streamable-http", "url": "http://localhost:{port}/mcp"},
            },
        ],
    }
    options = options_of(bundle)
    assert options["mcpb"].why_not_here() is None  # downloaded and checked by its fileSha256, then run
    unchecked = {**bundle, "packages": [{**bundle["packages"][0], "fileSha256": None}]}
    assert options_of(unchecked)["mcpb"].why_not_here() == "its bundle has no fileSha256 to check it by"
    assert "streamable-http" in (options["npm"].why_not_here() or "")


def test_a_name_that_is_no_server_name_is_refused_before_it_names_a_folder() -> None:
    # A bundle's folder is <data>/bundles/NAME: "..", from the window's Name field or the page, was the
    # data folder itself, deleted to make room.
    time = options_of(TIME)["pypi"]
    for name in ("..", "../../x", "my server", "a__b"):
        with pytest.raises(ValueError, match="cannot name a server"):
            time.plan(name, {})


def test_the_variables_of_a_secret_value_are_secret_and_a_blank_optional_one_leaves_its_value_out() -> None:
    header = {
        "name": "Authorization",
        "value": "Bearer {api_key}",
        "isSecret": True,
        "variables": {"api_key": {"description": "Your key", "isRequired": True}},
    }
    optional_dir = {
        "type": "named",
        "name": "--dir",
        "value": "{folder}",
        "variables": {"folder": {"description": "Where it works"}},
    }
    server = {
        **TIME,
        "packages": [{**TIME["packages"][0], "packageArguments": [optional_dir]}],
        "remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/mcp", "headers": [header]}],
    }
    options = options_of(server)
    fields = {f.name: f for f in form_fields(options["remote"].form_schema())}
    assert fields["api_key"].secret  # typed unseen, kept in the credential store
    plan = options["remote"].plan("remote", {"api_key": "sk-SECRET-0123"})
    assert "sk-SECRET" not in repr(plan.server.headers) and plan.secrets == {
        "remote__api_key": "sk-SECRET-0123"
    }
    assert plan.server.headers == {"Authorization": "Bearer ${input:remote__api_key}"}
    assert options["pypi"].plan("time", {}).command_line() == ["uvx", f"mcp-server-time=={TIME_VERSION}"]


def test_a_typed_value_may_not_refer_to_a_variable_the_servers_file_would_expand() -> None:
    # The page could otherwise route another server's secret (${input:...}) or EdgeHost's environment
    # into the command line of a server it adds.
    with pytest.raises(ValueError, match=r"local-timezone may not contain \$\{"):
        options_of(TIME)["pypi"].plan("time", {"local-timezone": "${input:github__token}"})
    plan = options_of(WEATHER)["pypi"].plan("weather", {"WEATHER_API_KEY": "${odd}but-secret"})
    assert plan.secrets == {"weather__WEATHER_API_KEY": "${odd}but-secret"}  # a secret is kept apart


def test_removing_a_server_forgets_its_secrets_and_their_inputs_and_no_other_servers(tmp_path: Path) -> None:
    paths = Paths.resolve(None, tmp_path)
    store = FileCredentialStore(tmp_path / "credentials.json")
    weather = options_of(WEATHER)["pypi"]
    for name in ("foo", "foo-api"):  # "foo" + "api-KEY" and "foo-api" + "KEY" once made one id
        add_to_servers_file(
            paths, weather.plan(name, {"WEATHER_API_KEY": f"key-of-{name}"}), lambda: InputValues(store)
        )
    remove_entry(paths, "foo", lambda: InputValues(store))
    written = json.loads(paths.servers_file.read_text())
    assert list(written["mcpServers"]) == ["foo-api"]
    assert [i["id"] for i in written["inputs"]] == ["foo-api__WEATHER_API_KEY"]
    assert InputValues(store).values() == {"foo-api__WEATHER_API_KEY": "key-of-foo-api"}
