"""A real OAuth round trip: a Streamable HTTP MCP server behind the mcp SDK's authorization-server support
(tests/mcp/oauth_server.py), signed into through the Host exactly as the GUI's "Sign in" does - the
authorization page handed to a browser, the redirect caught on a loopback port - with the browser
replaced by an HTTP client that follows the redirects. Tokens land in the store; refresh works.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import stat
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import keyring
import mcp_types as types
import pytest
from tests.mcp.dict_keyring import DictKeyring
from tests.mcp.oauth_server import (
    InMemoryAuthorizationServer,
    ProtectedServer,
    ScriptedBrowser,
    protected_server,
)

from edgehost.host import events as ev
from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.mcp.auth import (
    AuthStatus,
    BrowserAuthorizer,
    CredentialStore,
    FileCredentialStore,
    ServerAuth,
    SignInFailed,
    default_credential_store,
)
from edgehost.mcp.auth._store import CREDENTIALS_FILE
from edgehost.mcp.config import ServerConfig, ServersConfig, Transport
from edgehost.mcp.server_state import ServerStatus
from edgehost.paths import Paths
from edgehost.settings import Settings
from edgehost.slow_machine import scaled_wait

# A start, a sign-in and a listing over loopback take well under a second; this bounds each wait.
WAIT_S = scaled_wait(20.0)


def _server(protected: ProtectedServer, transport: Transport = "http") -> ServerConfig:
    return ServerConfig(name="remote", transport=transport, url=protected.url, timeout=WAIT_S)


@asynccontextmanager
async def _host(
    data_dir: Path, server: ServerConfig, store: CredentialStore | None = None
) -> AsyncIterator[Host]:
    paths = Paths.resolve(None, data_dir)
    auth = ServerAuth(store or FileCredentialStore(paths.data_dir / CREDENTIALS_FILE))
    host = Host(
        paths,
        Settings(),
        HostOptions(servers=ServersConfig(servers=[server]), with_model=False, auth=auth),
    )
    await host.start()
    try:
        yield host
    finally:
        await host.aclose()


async def _settled(host: Host, status: ServerStatus) -> None:
    """Wait until the server's status is ``status`` (its events say so), within WAIT_S."""
    reached = asyncio.Event()
    seen: list[ev.ServerStatusChanged] = []

    def on_event(event: object) -> None:
        if isinstance(event, ev.ServerStatusChanged):
            seen.append(event)
            if event.status == status.value:
                reached.set()

    unsubscribe = host.subscribe(on_event)
    try:
        if host.server_states()[0].status is status and status is not ServerStatus.FAILED:
            return
        async with asyncio.timeout(WAIT_S):
            await reached.wait()
    except TimeoutError:
        raise AssertionError(f"no {status.value} within {WAIT_S} s: {seen}") from None
    finally:
        unsubscribe()


def _stored(data_dir: Path) -> dict[str, dict[str, object]]:
    records: dict[str, dict[str, object]] = json.loads((data_dir / CREDENTIALS_FILE).read_text())
    return records


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_a_server_that_needs_sign_in_says_so_then_sign_in_through_the_browser_flow_connects_it(
    tmp_path: Path, transport: Transport
) -> None:
    async with protected_server(transport=transport) as protected:
        server = _server(protected, transport)
        async with _host(tmp_path, server) as host:
            # No tokens: the background connection must not open a browser; it stops and says why.
            await host.wait_servers_ready(WAIT_S)
            state = host.server_states()[0]
            assert state.status is ServerStatus.FAILED
            assert "sign-in required" in (state.error or "")
            assert "edgehost auth login remote" in (state.error or "")
            assert "restarting" not in (state.error or "")  # retrying cannot sign in; it waits for one
            assert host.auth_status("remote").state == "sign-in required"
            assert protected.authorization_server.authorizations == []

            browser = ScriptedBrowser()
            status = await host.sign_in("remote", browser)

            assert status.state == "signed in" and status.refreshable and status.registered == "dynamic"
            (opened,) = browser.opened
            params = protected.authorization_server.authorizations[0]
            assert opened.startswith(f"{protected.issuer}/authorize?")
            assert "code_challenge_method=S256" in opened
            assert params.resource == protected.url  # RFC 8707: the token is for this server only
            assert str(params.redirect_uri).startswith("http://127.0.0.1:")
            (landed,) = browser.landed
            assert landed.status_code == 200 and "Signed in" in landed.text
            assert protected.authorization_server.grants == ["authorization_code"]

            # The sign-in restarted the server: it connects with the stored token and its tools work.
            await _settled(host, ServerStatus.READY)
            result = await host.call_tool("remote__whoami", {})
            assert isinstance(result.content[0], types.TextContent)
            assert result.content[0].text.endswith(" mcp")
            shown = json.dumps([s.to_json() for s in host.server_states()])  # `servers --json`
            assert not any(token in shown for token in protected.authorization_server.access_tokens)

    credentials_file = tmp_path / CREDENTIALS_FILE
    assert stat.S_IMODE(credentials_file.stat().st_mode) == 0o600
    (record,) = _stored(tmp_path).values()
    tokens = record["tokens"]
    assert isinstance(tokens, dict) and tokens["access_token"] in protected.authorization_server.access_tokens
    # Never in the history: the database holds no token.
    assert str(tokens["access_token"]).encode() not in (tmp_path / "history.db").read_bytes()


async def test_an_expired_token_is_refreshed_after_a_restart_without_a_new_sign_in(tmp_path: Path) -> None:
    provider = InMemoryAuthorizationServer()
    async with protected_server(provider) as protected:
        server = _server(protected)
        async with _host(tmp_path, server) as host:
            await host.sign_in("remote", ScriptedBrowser())
        (before,) = _stored(tmp_path).values()

        # The host is gone; while it is, the access token runs out (the refresh token does not).
        provider.expire_access_tokens()
        key = next(iter(_stored(tmp_path)))
        records = _stored(tmp_path)
        records[key]["expiresAt"] = time.time() - 60  # as the record says once its lifetime has passed
        (tmp_path / CREDENTIALS_FILE).write_text(json.dumps(records))

        async with _host(tmp_path, server) as host:
            await _settled(host, ServerStatus.READY)
            assert host.auth_status("remote").state == "signed in"
            result = await host.call_tool("remote__whoami", {})
            assert not result.is_error

    assert provider.grants == ["authorization_code", "refresh_token"]
    assert len(provider.authorizations) == 1  # no second trip through the authorization page
    (after,) = _stored(tmp_path).values()
    assert isinstance(after["tokens"], dict) and isinstance(before["tokens"], dict)
    assert after["tokens"]["access_token"] != before["tokens"]["access_token"]
    assert after["tokens"]["refresh_token"] != before["tokens"]["refresh_token"]  # rotated


async def test_sign_out_forgets_the_tokens_and_the_server_needs_sign_in_again(tmp_path: Path) -> None:
    async with protected_server() as protected, _host(tmp_path, _server(protected)) as host:
        await host.sign_in("remote", ScriptedBrowser())
        await _settled(host, ServerStatus.READY)

        assert host.sign_out("remote") is True
        assert host.auth_status("remote").state in ("not signed in", "sign-in required")
        assert _stored(tmp_path) == {}
        await _settled(host, ServerStatus.FAILED)
        assert "sign-in required" in (host.server_states()[0].error or "")
        assert host.sign_out("remote") is False


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_probe_signs_in_headless_and_keeps_nothing(tmp_path: Path, transport: str) -> None:
    """`edgehost probe URL` follows the authorization redirect itself (the suite's way) and stores nothing."""
    async with protected_server(transport=transport) as protected:
        sse = ["--sse"] if transport == "sse" else []
        process = await asyncio.create_subprocess_exec(
            *_edgehost(tmp_path, "probe", protected.url, "--json", *sse),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        async with asyncio.timeout(WAIT_S * 3):
            out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    report = json.loads(out)
    (whoami,) = report["tools"]
    assert whoami["outcome"] == "ok"
    assert protected.authorization_server.grants == ["authorization_code"]
    assert not (tmp_path / CREDENTIALS_FILE).exists()


def _edgehost(data_dir: Path, *args: str) -> list[str]:
    import sys

    return [sys.executable, "-m", "edgehost", "--data-dir", str(data_dir), *args]


async def test_signing_in_again_while_the_registered_port_is_taken_registers_with_another_port(
    tmp_path: Path,
) -> None:
    async with protected_server() as protected, _host(tmp_path, _server(protected)) as host:
        await host.sign_in("remote", ScriptedBrowser())
        (record,) = _stored(tmp_path).values()
        client = record["client"]
        assert isinstance(client, dict)
        first_redirect = client["redirect_uris"][0]
        with socket.socket() as squatter:
            squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # the last callback's TIME_WAIT
            squatter.bind(("127.0.0.1", int(first_redirect.rsplit(":", 1)[1].split("/")[0])))
            squatter.listen(1)
            status = await host.sign_in("remote", ScriptedBrowser())
        assert status.state == "signed in"
        (record,) = _stored(tmp_path).values()
        client = record["client"]
        assert isinstance(client, dict) and client["redirect_uris"][0] != first_redirect
        assert len(protected.authorization_server.clients) == 2


async def test_a_token_the_server_stops_accepting_early_is_refreshed_not_signed_in_again(
    tmp_path: Path,
) -> None:
    """The server refuses the access token before its recorded expiry (revoked, a clock apart): the held
    refresh token gets a new one, while connected and on the next start, without the user."""
    provider = InMemoryAuthorizationServer()
    async with protected_server(provider) as protected:
        server = _server(protected)
        async with _host(tmp_path, server) as host:
            await host.sign_in("remote", ScriptedBrowser())
            await _settled(host, ServerStatus.READY)
            provider.expire_access_tokens()
            result = await host.call_tool("remote__whoami", {})  # 401, refresh, the same call again
            assert not result.is_error
            assert provider.grants == ["authorization_code", "refresh_token"]

        provider.expire_access_tokens()
        async with _host(tmp_path, server) as host:
            await _settled(host, ServerStatus.READY)
    assert provider.grants == ["authorization_code", "refresh_token", "refresh_token"]
    assert len(provider.authorizations) == 1


class BrowserThatWaits:
    """A browser whose person never finishes: it records the page and says when it was shown."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.shown = asyncio.Event()

    def __call__(self, url: str) -> bool:
        self.opened.append(url)
        self.shown.set()
        return True


def _redirect_port(authorization_url: str) -> int | None:
    query = parse_qs(urlsplit(authorization_url).query)
    return urlsplit(query["redirect_uri"][0]).port


async def _sign_in(host: Host, browser: object) -> AuthStatus:
    """host.sign_in, bounded: a flow stuck on an error page in the browser fails the test, not hangs it."""
    async with asyncio.timeout(WAIT_S):
        return await host.sign_in("remote", browser)  # type: ignore[arg-type]


async def test_a_sign_in_refused_in_the_browser_keeps_the_earlier_sign_in_and_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    provider = InMemoryAuthorizationServer()
    async with protected_server(provider) as protected, _host(tmp_path, _server(protected)) as host:
        await _sign_in(host, ScriptedBrowser())
        await _settled(host, ServerStatus.READY)
        (before,) = _stored(tmp_path).values()

        provider.refuse_consent = True  # the person clicks "Deny" this time
        caplog.set_level(logging.INFO)
        with pytest.raises(SignInFailed) as failed:
            await _sign_in(host, ScriptedBrowser())

        assert str(failed.value) == "the sign-in was refused in the browser (access_denied: The user refused)"
        (after,) = _stored(tmp_path).values()
        assert after["tokens"] == before["tokens"] and after["client"] == before["client"]
        assert host.auth_status("remote").state == "signed in"
        result = await host.call_tool("remote__whoami", {})
        assert not result.is_error
        # Said once, in words, in the log file; no SDK traceback at ERROR (the terminal shows those).
        assert any(
            "sign-in to 'remote' failed: the sign-in was refused" in r.getMessage() for r in caplog.records
        )
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_cancelled_sign_in_keeps_the_earlier_sign_in_and_the_next_one_listens_on_the_same_port(
    tmp_path: Path,
) -> None:
    provider = InMemoryAuthorizationServer()
    async with protected_server(provider) as protected, _host(tmp_path, _server(protected)) as host:
        first = ScriptedBrowser()
        await _sign_in(host, first)
        await _settled(host, ServerStatus.READY)
        (before,) = _stored(tmp_path).values()

        browser = BrowserThatWaits()  # the person walks away; Ctrl-C, or Cancel in the window
        attempt = asyncio.create_task(host.sign_in("remote", browser))
        async with asyncio.timeout(WAIT_S):
            await browser.shown.wait()
        attempt.cancel()
        with pytest.raises(asyncio.CancelledError):
            await attempt

        (after,) = _stored(tmp_path).values()
        assert after["tokens"] == before["tokens"]
        assert host.auth_status("remote").state == "signed in"
        assert not (await host.call_tool("remote__whoami", {})).is_error
        assert _redirect_port(browser.opened[0]) == _redirect_port(first.opened[0])


async def test_a_sign_in_while_the_server_is_down_says_it_could_not_connect_and_keeps_the_tokens(
    tmp_path: Path,
) -> None:
    auth = ServerAuth(FileCredentialStore(tmp_path / CREDENTIALS_FILE))
    async with protected_server() as protected:
        server = _server(protected)
        async with auth.browser_authorizer(server, ScriptedBrowser()) as authorizer:
            await auth.sign_in(server, authorizer)
    (before,) = _stored(tmp_path).values()

    async with auth.browser_authorizer(server, ScriptedBrowser()) as authorizer:
        with pytest.raises(SignInFailed) as failed:
            await auth.sign_in(server, authorizer)

    message = str(failed.value)
    assert message.startswith(f"could not connect to {server.url} (") and "is it running" in message
    assert "TaskGroup" not in message
    (after,) = _stored(tmp_path).values()
    assert after["tokens"] == before["tokens"]
    assert auth.status(server).state == "signed in"


async def test_a_sign_in_at_a_wrong_path_says_the_address_answered_404(tmp_path: Path) -> None:
    auth = ServerAuth(FileCredentialStore(tmp_path / CREDENTIALS_FILE))
    async with protected_server() as protected:
        server = ServerConfig(name="remote", transport="http", url=f"{protected.issuer}/nope")
        async with auth.browser_authorizer(server, ScriptedBrowser()) as authorizer:
            with pytest.raises(SignInFailed) as failed:
                await auth.sign_in(server, authorizer)
    assert str(failed.value).startswith(f"{server.url} answered 404 Not Found: is the address right")


async def test_no_sign_in_in_time_says_so(tmp_path: Path) -> None:
    auth = ServerAuth(FileCredentialStore(tmp_path / CREDENTIALS_FILE))
    async with protected_server() as protected:
        server = _server(protected)
        async with BrowserAuthorizer(BrowserThatWaits(), timeout=0.2) as authorizer:
            with pytest.raises(SignInFailed) as failed:
                await auth.sign_in(server, authorizer)
    assert str(failed.value).startswith("no sign-in within 0.2 s")
    assert auth.status(server).state == "not signed in"


async def test_after_the_authorization_server_forgot_the_client_signing_in_again_registers_anew(
    tmp_path: Path,
) -> None:
    """The authorization server restarted with new keys: tokens and client registration are gone. The
    background refresh is refused (invalid_client); the next sign-in must not send the person to a page
    that says "Client ID not found", and keeps the redirect port (an `ssh -L` forward relies on it)."""
    provider = InMemoryAuthorizationServer()
    async with protected_server(provider) as protected, _host(tmp_path, _server(protected)) as host:
        first = ScriptedBrowser()
        await _sign_in(host, first)
        await _settled(host, ServerStatus.READY)
        (record,) = _stored(tmp_path).values()
        old_client = record["client"]
        assert isinstance(old_client, dict)

        provider.restart_with_new_keys()
        host.restart_server("remote")
        await _settled(host, ServerStatus.FAILED)
        assert "sign-in required" in (host.server_states()[0].error or "")
        (record,) = _stored(tmp_path).values()
        assert "client" not in record  # refused by the token endpoint: forgotten
        status = host.auth_status("remote")
        assert status.state == "sign-in required" and status.stored  # its tokens are still kept

        second = ScriptedBrowser()
        status = await _sign_in(host, second)
        assert status.state == "signed in"
        (landed,) = second.landed
        assert landed.status_code == 200 and "Signed in" in landed.text
        (record,) = _stored(tmp_path).values()
        new_client = record["client"]
        assert isinstance(new_client, dict) and new_client["client_id"] != old_client["client_id"]
        assert new_client["redirect_uris"] == old_client["redirect_uris"]
        assert _redirect_port(second.opened[0]) == _redirect_port(first.opened[0])
        await _settled(host, ServerStatus.READY)


async def test_signing_in_again_registers_anew_even_when_no_refresh_found_the_client_forgotten(
    tmp_path: Path,
) -> None:
    provider = InMemoryAuthorizationServer()
    async with protected_server(provider) as protected, _host(tmp_path, _server(protected)) as host:
        await _sign_in(host, ScriptedBrowser())
        provider.clients.clear()  # the registration expired; the tokens still work for now
        status = await _sign_in(host, ScriptedBrowser())
        assert status.state == "signed in" and status.registered == "dynamic"
        assert list(provider.clients) == [status.client_id]


async def _signed_in_then_revoked(host: Host, provider: InMemoryAuthorizationServer) -> None:
    """The "remote" server signed in and connected, then its tokens revoked and the server restarted:
    it stops, waiting for a sign-in."""
    await _sign_in(host, ScriptedBrowser())
    await _settled(host, ServerStatus.READY)
    provider.revoke_all()
    host.restart_server("remote")
    await _settled(host, ServerStatus.FAILED)


async def test_revoked_tokens_say_sign_in_required_until_a_sign_in_elsewhere_is_noticed(
    tmp_path: Path,
) -> None:
    """The user revoked EdgeHost's access: the stored tokens and their refresh are refused. The status
    says "sign-in required" (here and in another process), not "signed in"; a sign-in made meanwhile by
    another process (`edgehost auth login`) is noticed, once, so the server can be reconnected."""
    provider = InMemoryAuthorizationServer()
    async with protected_server(provider) as protected, _host(tmp_path, _server(protected)) as host:
        server = _server(protected)
        await _signed_in_then_revoked(host, provider)
        status = host.auth_status("remote")
        assert status.state == "sign-in required" and status.stored and status.refreshable
        elsewhere = ServerAuth(FileCredentialStore(tmp_path / CREDENTIALS_FILE))  # `edgehost auth status`
        assert elsewhere.status(server).state == "sign-in required"
        assert not host.auth().signed_in_elsewhere(server)

        async with elsewhere.browser_authorizer(server, ScriptedBrowser()) as authorizer:
            await elsewhere.sign_in(server, authorizer)  # `edgehost auth login remote` in a terminal
        assert host.auth_status("remote").state == "signed in"
        # The server waiting for it notices it and connects again, with no window asking it to.
        await _settled(host, ServerStatus.READY)
        assert not host.auth().signed_in_elsewhere(server)  # noticed once
        assert elsewhere.status(server).state == "signed in"


class CountingKeyring(DictKeyring):
    """A DictKeyring that counts its reads (each one a D-Bus round trip, or a prompt to unlock, with the
    Secret Service)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.reads += 1
        return super().get_password(service, username)


@pytest.fixture
def counting_keyring() -> Iterator[CountingKeyring]:
    before = keyring.get_keyring()
    backend = CountingKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(before)


async def test_a_server_waiting_for_a_sign_in_elsewhere_reads_the_keyring_only_once_it_changed(
    tmp_path: Path, counting_keyring: CountingKeyring
) -> None:
    """A server waiting for a sign-in read the keyring every 2 s to look for one made elsewhere; it now
    reads it when a sign-in (or any change of the stored credentials) happened since its last look."""
    provider = InMemoryAuthorizationServer()
    store = default_credential_store(tmp_path)
    async with protected_server(provider) as protected, _host(tmp_path, _server(protected), store) as host:
        server = _server(protected)
        await _signed_in_then_revoked(host, provider)
        assert host.auth_status("remote").state == "sign-in required"

        assert not host.auth().signed_in_elsewhere(server)  # a first look reads the keyring
        reads = counting_keyring.reads
        for _ in range(5):  # as the waiting server looks again and again
            assert not host.auth().signed_in_elsewhere(server)
        assert counting_keyring.reads == reads

        elsewhere = ServerAuth(default_credential_store(tmp_path))  # `edgehost auth login remote`
        async with elsewhere.browser_authorizer(server, ScriptedBrowser()) as authorizer:
            await elsewhere.sign_in(server, authorizer)
        await _settled(host, ServerStatus.READY)  # noticed without a window asking for it
        assert host.auth_status("remote").state == "signed in"
