"""Secrets stay with their server and out of logs; saving keeps ${VAR} references and skips built-ins."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from edgehost.errors import ConfigError
from edgehost.mcp.config import (
    ServerConfig,
    load_servers_config,
    looks_like_secret_name,
    redact,
    save_servers_config,
    stdio_environment,
)
from edgehost.paths import Paths
from edgehost.programs import bundled_dirs
from edgehost.redaction import REDACTED, redactor

PARENT_ENV = {
    "PATH": "/usr/bin",
    "HOME": "/home/ada",
    "LANG": "C.UTF-8",
    "OPENAI_API_KEY": "sk-parent-secret",
    "AWS_SECRET_ACCESS_KEY": "aws-parent-secret",
    "BASH_FUNC_x%%": "() { evil; }",
}


def write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document, indent=2))
    return path


def test_a_stdio_server_gets_a_safe_base_and_only_its_own_secrets(tmp_path: Path, data_dir: Path) -> None:
    path = write(
        tmp_path / "servers.json",
        {
            "mcpServers": {
                "a": {"command": "a", "env": {"A_TOKEN": "${A_TOKEN}"}},
                "b": {"command": "b", "env": {"B_MODE": "fast"}},
            }
        },
    )
    environ = {**PARENT_ENV, "A_TOKEN": "token-of-a"}
    config = load_servers_config(Paths.resolve(path, data_dir), environ=environ)
    env_a = stdio_environment(config.get("a") or ServerConfig(name="?"), environ)
    env_b = stdio_environment(config.get("b") or ServerConfig(name="?"), environ)
    # The PATH ends with the folder of the uvx that comes with EdgeHost (edgehost.programs).
    path_ = os.pathsep.join(["/usr/bin", *bundled_dirs()])
    assert env_a == {"PATH": path_, "HOME": "/home/ada", "LANG": "C.UTF-8", "A_TOKEN": "token-of-a"}
    assert env_b == {"PATH": path_, "HOME": "/home/ada", "LANG": "C.UTF-8", "B_MODE": "fast"}
    assert shutil.which("uvx", path=env_a["PATH"]) is not None
    assert "token-of-a" not in env_b.values()
    assert not {"OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "A_TOKEN"} & env_b.keys()


def test_a_servers_env_overrides_the_base() -> None:
    server = ServerConfig(name="s", command="x", env={"PATH": "/opt/bin"})
    assert stdio_environment(server, PARENT_ENV)["PATH"] == "/opt/bin"


def test_redact_hides_every_secret_even_when_one_contains_another() -> None:
    text = "Authorization: Bearer abcd1234efgh, key=abcd1234, other=fine"
    assert redact(text, {"abcd1234", "abcd1234efgh", ""}) == (
        f"Authorization: Bearer {REDACTED}, key={REDACTED}, other=fine"
    )


def test_header_values_and_their_bearer_tokens_are_secrets(tmp_path: Path, data_dir: Path) -> None:
    path = write(
        tmp_path / "servers.json",
        {"mcpServers": {"r": {"url": "https://x/mcp", "headers": {"Authorization": "Bearer ${T}"}}}},
    )
    config = load_servers_config(Paths.resolve(path, data_dir), environ={"T": "tok-123456"})
    assert {"Bearer tok-123456", "tok-123456"} <= config.secret_values()
    assert redact("sent Bearer tok-123456, echoed tok-123456", config.secret_values()) == (
        f"sent {REDACTED}, echoed {REDACTED}"
    )


@pytest.mark.parametrize(
    "name", ["GITHUB_TOKEN", "OPENAI_API_KEY", "DB_PASSWORD", "aws_secret_access_key", "SESSION_ID", "Cookie"]
)
def test_a_variable_named_like_a_credential_looks_secret(name: str) -> None:
    assert looks_like_secret_name(name)


@pytest.mark.parametrize("name", ["DEBUG", "DATA", "LOG_LEVEL", "PORT", "HOME", "NODE_OPTIONS", "MODE"])
def test_an_ordinary_variable_does_not_look_secret(name: str) -> None:
    assert not looks_like_secret_name(name)


def test_only_secret_named_env_values_and_references_of_eight_characters_or_more_are_secrets(
    tmp_path: Path, data_dir: Path
) -> None:
    path = write(
        tmp_path / "servers.json",
        {
            "mcpServers": {
                "s": {
                    "command": "s",
                    "args": ["--token", "${GH_TOKEN}", "--db=postgres://ada:${DB_PASS}@db/x", "${WORKDIR}"],
                    "env": {
                        "DEBUG": "true",
                        "DATA": "/home/user/data",
                        "LOG_LEVEL": "info",
                        "PORT": "8080",
                        "OPENAI_API_KEY": "sk-proj-0123456789",
                        "PIN_CODE_KEY": "1234",
                        "GH": "${env:GITHUB_TOKEN}",
                        "BACKUP": "${BACKUP_AUTH:-default-auth-value}",
                    },
                }
            }
        },
    )
    environ = {
        "GH_TOKEN": "ghp_args0123456789",
        "DB_PASS": "hunter2hunter2",
        "WORKDIR": "/home/user/projects",
        "GITHUB_TOKEN": "ghp_env0123456789",
    }
    config = load_servers_config(Paths.resolve(path, data_dir), environ=environ)
    server = config.get("s")
    assert server is not None and server.error is None
    assert server.secret_values() == {
        "sk-proj-0123456789",
        "ghp_args0123456789",
        "hunter2hunter2",
        "ghp_env0123456789",
        "default-auth-value",
    }
    assert server.secret_values() <= config.secret_values()


def test_ordinary_values_survive_redaction_with_the_configs_secrets() -> None:
    server = ServerConfig(name="s", command="s", env={"DEBUG": "true", "DATA": "/home/user/data"})
    text = '{"recursive": true} read /home/user/data/notes.txt'
    assert redactor(server.secret_values())(text) == text


def test_saving_writes_references_not_their_secret_values_and_no_built_ins(
    tmp_path: Path, data_dir: Path
) -> None:
    path = write(
        tmp_path / "servers.json",
        {
            "mcpServers": {
                "gh": {"command": "npx", "args": ["-y", "gh"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
                "files": {"enabled": False},
                "broken": {"args": ["no command"]},
            },
            "approval": [{"tool": "*delete*", "decision": "ask"}],
        },
    )
    config = load_servers_config(Paths.resolve(path, data_dir), environ={"GITHUB_TOKEN": "ghp_real"})
    assert config.get("gh") is not None and config.get("gh").env == {"GITHUB_TOKEN": "ghp_real"}  # type: ignore[union-attr]
    target = tmp_path / "saved.json"
    save_servers_config(config, target)
    saved = json.loads(target.read_text())
    assert "ghp_real" not in target.read_text()
    assert saved == {
        "mcpServers": {
            "files": {"enabled": False},
            "gh": {"command": "npx", "args": ["-y", "gh"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
            "broken": {"args": ["no command"]},
        },
        "approval": [{"tool": "*delete*", "decision": "ask"}],
    }
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file left behind


def test_a_value_changed_after_loading_is_saved_as_changed(tmp_path: Path, data_dir: Path) -> None:
    path = write(tmp_path / "servers.json", {"mcpServers": {"s": {"command": "x", "args": ["${DIR}"]}}})
    config = load_servers_config(Paths.resolve(path, data_dir), environ={"DIR": "/a"})
    server = config.get("s")
    assert server is not None
    server.args = ["/b"]
    server.enabled = False
    save_servers_config(config, path)
    assert json.loads(path.read_text())["mcpServers"]["s"] == {
        "command": "x",
        "args": ["/b"],
        "enabled": False,
    }


def test_a_saved_config_loads_back_the_same(tmp_path: Path, data_dir: Path) -> None:
    toml = Path(__file__).parent.parent / "fixtures" / "configs" / "servers.toml"
    config = load_servers_config(Paths.resolve(toml, data_dir), environ={})
    path = tmp_path / "servers.json"
    save_servers_config(config, path)
    again = load_servers_config(Paths.resolve(path, data_dir), environ={})

    def without_source(servers: list[ServerConfig]) -> dict[str, ServerConfig]:
        return {server.name: replace(server, source=None) for server in servers}

    assert without_source(again.servers) == without_source(config.servers)
    assert again.approval == config.approval


def test_the_built_in_defaults_are_never_written(tmp_path: Path, data_dir: Path) -> None:
    config = load_servers_config(Paths.resolve(None, data_dir))
    path = tmp_path / "servers.json"
    save_servers_config(config, path)
    assert json.loads(path.read_text()) == {"mcpServers": {}}


def test_edgehost_does_not_write_toml(tmp_path: Path, data_dir: Path) -> None:
    with pytest.raises(ConfigError, match="JSON only"):
        save_servers_config(load_servers_config(Paths.resolve(None, data_dir)), tmp_path / "servers.toml")


def test_home_and_relative_paths_are_saved_as_written(tmp_path: Path, data_dir: Path) -> None:
    path = write(
        tmp_path / "servers.json",
        {"mcpServers": {"s": {"command": "~/bin/srv", "cwd": "~/work", "roots": ["docs", "${HOME}/x"]}}},
    )
    config = load_servers_config(Paths.resolve(path, data_dir), environ={"HOME": "/home/ada"})
    server = config.get("s")
    assert server is not None and server.cwd == str(Path("~/work").expanduser())
    assert server.roots == [str(tmp_path / "docs"), "/home/ada/x"]
    save_servers_config(config, path)
    assert json.loads(path.read_text())["mcpServers"]["s"] == {
        "command": "~/bin/srv",
        "cwd": "~/work",
        "roots": ["docs", "${HOME}/x"],
    }


def test_what_a_password_input_expands_to_is_a_secret_whatever_its_id(tmp_path: Path, data_dir: Path) -> None:
    # A registry entry's or a bundle's secret: its input's id ("srv-target") does not look secret.
    document = {
        "inputs": [{"id": "srv-target", "type": "promptString", "password": True}, {"id": "srv-dir"}],
        "mcpServers": {
            "srv": {"command": "x", "args": ["--target", "${input:srv-target}", "${input:srv-dir}"]}
        },
    }
    path = write(tmp_path / "servers.json", document)
    environ = {
        **PARENT_ENV,
        "EDGEHOST_INPUT_SRV_TARGET": "opensesame-value",
        "EDGEHOST_INPUT_SRV_DIR": "/srv/data/x",
    }
    config = load_servers_config(Paths.resolve(path, data_dir), environ=environ)
    server = config.get("srv")
    assert server is not None and server.args == ["--target", "opensesame-value", "/srv/data/x"]
    assert server.secret_values() == {"opensesame-value"}  # the plain input's path is no secret
