"""Where OAuth credentials live and how a server's entry configures OAuth: the OS keyring through the
keyring package's own API (a backend registered with it), the 0600 file where there is none, the
``clientId`` / ``clientSecret`` / ``oauthGrant`` / ``callbackPort`` keys with ``${VAR}``, and what the
CLI shows (never a token or a secret)."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from tests.mcp.dict_keyring import DictKeyring

from edgehost.cli.main import main
from edgehost.errors import ConfigError
from edgehost.mcp.auth import (
    FileCredentialStore,
    KeyringCredentialStore,
    MemoryCredentialStore,
    ServerAuth,
    ServerCredentials,
    default_credential_store,
)
from edgehost.mcp.auth._store import CHANGES_FILE, CREDENTIALS_FILE, KEYRING_SERVICE, credential_key
from edgehost.mcp.config import ServerConfig, parse_servers_file, server_to_entry
from edgehost.redaction import redact


@pytest.fixture
def use_keyring() -> Iterator[Callable[[KeyringBackend], None]]:
    before = keyring.get_keyring()
    yield keyring.set_keyring
    keyring.set_keyring(before)


REMOTE = ServerConfig(name="remote", transport="http", url="https://mcp.example.com/mcp")
TOKEN = OAuthToken(access_token="access-abcdefgh-123", refresh_token="refresh-abcdefgh-456", expires_in=3600)


async def test_tokens_go_to_the_os_keyring_when_it_has_a_backend(
    tmp_path: Path, use_keyring: Callable[[KeyringBackend], None]
) -> None:
    backend = DictKeyring()
    use_keyring(backend)
    store = default_credential_store(tmp_path)
    assert isinstance(store, KeyringCredentialStore)
    credentials = ServerCredentials(store, credential_key(REMOTE))
    await credentials.set_tokens(TOKEN)

    saved = json.loads(backend.passwords[(KEYRING_SERVICE, "remote https://mcp.example.com/mcp")])
    assert saved["tokens"]["access_token"] == TOKEN.access_token
    assert await credentials.get_tokens() == TOKEN
    assert not (tmp_path / CREDENTIALS_FILE).exists()
    assert credentials.forget() is True and credentials.forget() is False
    assert backend.passwords == {}


async def test_without_a_keyring_backend_tokens_go_to_a_file_only_the_owner_can_read(
    tmp_path: Path, use_keyring: Callable[[KeyringBackend], None]
) -> None:
    use_keyring(fail.Keyring())
    store = default_credential_store(tmp_path)
    assert isinstance(store, FileCredentialStore)
    credentials = ServerCredentials(store, credential_key(REMOTE))
    await credentials.set_tokens(TOKEN)
    client = OAuthClientInformationFull.model_validate(
        {"client_id": "dyn-1", "redirect_uris": ["http://127.0.0.1:5/callback"]}
    )
    await credentials.set_client_info(client)

    path = tmp_path / CREDENTIALS_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert await credentials.get_tokens() == TOKEN
    assert (await credentials.get_client_info()) == client
    # A second server's record does not disturb the first; forgetting one leaves the other.
    other = ServerCredentials(
        store, credential_key(ServerConfig(name="b", transport="http", url="https://b/mcp"))
    )
    await other.set_tokens(OAuthToken(access_token="other-token-xyz"))
    assert credentials.forget() is True
    assert await credentials.get_tokens() is None
    assert (await other.get_tokens()) is not None


def test_a_server_entry_configures_a_pre_registered_client_with_its_secret_from_the_environment(
    tmp_path: Path,
) -> None:
    path = tmp_path / "servers.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "linear": {
                        "url": "https://mcp.linear.example/mcp",
                        "clientId": "edgehost-desktop",
                        "clientSecret": "${LINEAR_CLIENT_SECRET}",
                        "callbackPort": 33418,
                    },
                    "robot": {
                        "type": "http",
                        "url": "https://robot.example/mcp",
                        "client_id": "robot-1",
                        "client_secret": "s3cr3t-robot-value",
                        "oauthGrant": "client_credentials",
                    },
                    "notes": {
                        "url": "https://notes.example/mcp",
                        "clientMetadataUrl": "https://edgehost.example.org/oauth/client.json",
                    },
                }
            }
        )
    )
    config = parse_servers_file(path, environ={"LINEAR_CLIENT_SECRET": "very-secret-value-1"})
    linear, robot, notes = config.get("linear"), config.get("robot"), config.get("notes")
    assert linear is not None and robot is not None and notes is not None
    assert (linear.client_id, linear.client_secret, linear.callback_port) == (
        "edgehost-desktop",
        "very-secret-value-1",
        33418,
    )
    assert robot.oauth_grant == "client_credentials"
    assert notes.client_metadata_url == "https://edgehost.example.org/oauth/client.json"
    assert server_to_entry(notes)["clientMetadataUrl"] == notes.client_metadata_url  # type: ignore[index]
    # The secret is redacted wherever a server's text goes, and saved back as the reference.
    assert redact("token=very-secret-value-1", config.secret_values()) == "token=[REDACTED]"
    assert server_to_entry(linear)["clientSecret"] == "${LINEAR_CLIENT_SECRET}"  # type: ignore[index]

    auth = ServerAuth(FileCredentialStore(tmp_path / CREDENTIALS_FILE))
    client = auth.credentials(linear).client_info()
    assert client is not None and client.client_id == "edgehost-desktop"
    assert [str(u) for u in client.redirect_uris or []] == ["http://127.0.0.1:33418/callback"]
    assert client.token_endpoint_auth_method == "client_secret_basic"
    assert auth.status(robot).state == "client credentials"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"url": "https://x/mcp", "clientSecret": "abcdefgh"}, '"clientSecret" needs "clientId"'),
        ({"url": "https://x/mcp", "oauthGrant": "password"}, "oauthGrant is one of"),
        ({"url": "https://x/mcp", "clientId": "a", "oauthGrant": "client_credentials"}, "needs"),
        ({"url": "https://x/mcp", "callbackPort": 70000}, "callbackPort"),
        (
            {"url": "https://x/mcp", "clientMetadataUrl": "http://x/client.json"},
            "clientMetadataUrl is the https",
        ),
    ],
)
def test_a_bad_oauth_setting_is_named_in_the_servers_error(
    tmp_path: Path, entry: dict[str, Any], message: str
) -> None:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"x": entry}}))
    try:
        server = parse_servers_file(path).get("x")
    except ConfigError as exc:  # pragma: no cover - entries fail one by one, not the file
        raise AssertionError(exc) from None
    assert server is not None and server.error is not None
    assert message in server.error


def test_auth_status_json_shows_the_state_and_never_a_token(
    tmp_path: Path, use_keyring: Callable[[KeyringBackend], None], capsys: pytest.CaptureFixture[str]
) -> None:
    use_keyring(fail.Keyring())
    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "remote": {"url": REMOTE.url},
                    "fixed": {"url": "https://f/mcp", "headers": {"Authorization": "Bearer static-token-1"}},
                    "local": {"command": "true"},
                }
            }
        )
    )
    data = tmp_path / "data"
    data.mkdir()
    store = FileCredentialStore(data / CREDENTIALS_FILE)
    store.save(
        credential_key(REMOTE),
        {
            "tokens": TOKEN.model_dump(mode="json"),
            "expiresAt": 4102444800.0,
            "client": {"client_id": "dyn-9"},
        },
    )

    assert main(["--config", str(config), "--data-dir", str(data), "auth", "status", "--json"]) == 0
    out = capsys.readouterr().out
    rows = {row["server"]: row for row in json.loads(out)}
    assert rows["remote"]["state"] == "signed in" and rows["remote"]["clientId"] == "dyn-9"
    assert rows["remote"]["refreshable"] is True
    assert rows["fixed"]["state"] == "not used" and rows["local"]["state"] == "not used"
    assert TOKEN.access_token not in out and "refresh-abcdefgh" not in out

    assert main(["--config", str(config), "--data-dir", str(data), "auth", "logout", "remote"]) == 0
    assert "signed out" in capsys.readouterr().out
    assert json.loads((data / CREDENTIALS_FILE).read_text()) == {}
    assert main(["--config", str(config), "--data-dir", str(data), "auth", "login", "nosuch"]) == 2


def test_claude_codes_oauth_block_gives_the_pre_registered_client(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    entry = {
        "type": "http",
        "url": "https://mcp.example/mcp",
        "oauth": {"clientId": "cc-1", "callbackPort": 8080},
    }
    path.write_text(json.dumps({"mcpServers": {"linear": entry}}))
    server = parse_servers_file(path).get("linear")
    assert server is not None and server.error is None
    assert (server.client_id, server.callback_port) == ("cc-1", 8080)
    path.write_text(json.dumps({"mcpServers": {"linear": {**entry, "oauth": {"callbackPort": "x"}}}}))
    broken = parse_servers_file(path).get("linear")
    assert broken is not None and broken.error is not None and "callbackPort" in broken.error


def test_auth_status_says_sign_in_required_when_the_server_refused_the_stored_tokens(
    tmp_path: Path, use_keyring: Callable[[KeyringBackend], None], capsys: pytest.CaptureFixture[str]
) -> None:
    """Another process's connection found the stored tokens (and their refresh) refused: `auth status`
    says so rather than "signed in", until other tokens are stored."""
    use_keyring(fail.Keyring())
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"remote": {"url": REMOTE.url}}}))
    data = tmp_path / "data"
    data.mkdir()
    credentials = ServerCredentials(FileCredentialStore(data / CREDENTIALS_FILE), credential_key(REMOTE))
    credentials.store.save(
        credentials.key, {"tokens": TOKEN.model_dump(mode="json"), "client": {"client_id": "d"}}
    )
    credentials.mark_refused(TOKEN)

    assert main(["--config", str(config), "--data-dir", str(data), "auth", "status", "--json"]) == 0
    (row,) = [r for r in json.loads(capsys.readouterr().out) if r["server"] == "remote"]
    assert row["state"] == "sign-in required" and row["stored"] is True

    other = OAuthToken(access_token="access-new-one-789", refresh_token="refresh-new-one-000")
    credentials.store.save(
        credentials.key,
        {**(credentials.store.load(credentials.key) or {}), "tokens": other.model_dump(mode="json")},
    )
    assert ServerAuth(credentials.store).status(REMOTE).state == "signed in"


def test_a_refused_client_is_forgotten_only_while_it_is_still_the_stored_one(tmp_path: Path) -> None:
    credentials = ServerCredentials(FileCredentialStore(tmp_path / CREDENTIALS_FILE), credential_key(REMOTE))
    credentials.store.save(
        credentials.key, {"tokens": TOKEN.model_dump(mode="json"), "client": {"client_id": "new"}}
    )
    assert credentials.forget_client("old") is False  # re-registered meanwhile: kept
    assert credentials.forget_client("new") is True
    assert credentials.client_info() is None and credentials.tokens() == TOKEN


@pytest.mark.parametrize("backend", ["keyring", "file", "memory"])
async def test_every_change_of_the_stored_credentials_changes_the_stores_stamp(
    tmp_path: Path, use_keyring: Callable[[KeyringBackend], None], backend: str
) -> None:
    """What a server waiting for a sign-in elsewhere compares instead of reading the keyring each time."""
    use_keyring(DictKeyring() if backend == "keyring" else fail.Keyring())
    store = MemoryCredentialStore() if backend == "memory" else default_credential_store(tmp_path)
    credentials = ServerCredentials(store, credential_key(REMOTE))
    stamps = [store.change_stamp()]
    assert store.change_stamp() == stamps[0]  # nothing changed, nothing read
    for change in (lambda: credentials.set_tokens(TOKEN), lambda: credentials.set_tokens(TOKEN)):
        await change()
        stamps.append(store.change_stamp())
    credentials.forget()
    stamps.append(store.change_stamp())
    assert None not in stamps and len(set(stamps)) == len(stamps)
    if backend == "keyring":  # the marker beside the data, with no secret in it
        marker = (tmp_path / CHANGES_FILE).read_text()
        assert TOKEN.access_token not in marker and not (tmp_path / CREDENTIALS_FILE).exists()
