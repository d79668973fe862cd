"""OAuth for the remote servers of one host: which auth each connection gets, sign-in, sign-out, status.

A server's background connection (its supervisor's) gets a provider that sends stored tokens and
refreshes them but never opens a browser: when the server wants a person to sign in, the connection
fails with ``SignInRequired`` and the server is marked as needing sign-in. ``sign_in`` then runs the
whole flow with an ``Authorizer`` (the browser and a loopback port in the GUI and `auth login`, an HTTP
client following the redirect in `probe` and the tests), over a short connection of its own.

A sign-in runs on a copy of the server's record without its tokens, and writes what it got (tokens,
registration, discovered metadata) to the store only once it has succeeded: one that fails or is
cancelled leaves the sign-in that was there. A sign-in in another process (`edgehost auth login` while
the window runs) is noticed with ``signed_in_elsewhere``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, cast

import anyio
import httpx2
from mcp.client import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from edgehost.mcp.auth._failures import SignInFailed, describe_sign_in_failure
from edgehost.mcp.auth._interaction import (
    SIGN_IN_TIMEOUT_S,
    Authorizer,
    BrowserAuthorizer,
    HeadlessAuthorizer,
    NoAuthorizer,
    SignInRequired,
    free_loopback_port,
    loopback_redirect_uri,
)
from edgehost.mcp.auth._providers import GrantChoice, HostOAuthProvider
from edgehost.mcp.auth._store import (
    CredentialStore,
    MemoryCredentialStore,
    ServerCredentials,
    credential_key,
    token_fingerprint,
)
from edgehost.mcp.config import ServerConfig

__all__ = ["AuthStatus", "ServerAuth", "uses_oauth"]

log = logging.getLogger(__name__)


class _FlowErrorsToTheLog(logging.Filter):
    """The SDK logs every failed flow as an ERROR with its traceback, which reached the terminal under
    the one-line reason EdgeHost gives. The reason is given by whoever started the flow (a sign-in says
    it and logs it; a background connection shows it as the server's error): the SDK's record only
    leaves a line in the log file, and none at all for "sign-in required", a state the server's status
    shows, not an error to log again on each reconnection attempt."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.exc_info or record.exc_info[1] is None:
            return True
        if not isinstance(record.exc_info[1], SignInRequired):
            log.info("OAuth flow stopped: %s", describe_sign_in_failure(record.exc_info[1]))
        return False


_FLOW_ERRORS = _FlowErrorsToTheLog()

# Where a sign-in's loopback port is remembered when no registration holds it (a first sign-in that
# did not finish): the next one listens there again, so an `ssh -L` set up for it still works.
_REDIRECT_PORT = "redirectPort"
# What a sign-in writes from its copy of the record to the store once it has succeeded.
_SIGNED_IN_FIELDS = ("tokens", "expiresAt", "client", "discovered")


# Connecting for a sign-in: the person's part is not on this clock (the SDK pauses it), the rest is
# a few HTTP round trips.
_SIGN_IN_CONNECT_TIMEOUT_S = 60.0
_HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)


async def _connect_once(server: ServerConfig, auth: httpx2.Auth) -> None:
    """Connect to ``server`` through ``auth`` and close again: the server's 401 starts the flow."""
    assert server.url is not None
    if server.transport == "sse":
        async with Client(sse_client(server.url, headers=server.headers or None, auth=auth), mode="auto"):
            return
    async with (
        httpx2.AsyncClient(auth=auth, headers=server.headers or None, timeout=_HTTP_TIMEOUT) as http,
        Client(streamable_http_client(server.url, http_client=http), mode="auto"),
    ):
        return


def uses_oauth(server: ServerConfig) -> bool:
    """Whether a server's connection may sign in with OAuth: an http/sse server that is not given a
    fixed ``Authorization`` header (a static token wins; OAuth would only replace it)."""
    if server.transport not in ("http", "sse") or not server.url:
        return False
    return not any(name.lower() == "authorization" for name in server.headers)


@dataclass(frozen=True)
class AuthStatus:
    """What `auth status` and the servers panel show for one server. Holds no secret."""

    server: str
    url: str | None
    # "not used" | "signed in" | "expired" | "sign-in required" | "not signed in" | "client credentials".
    # "sign-in required": the server's last connection needed a person, even with tokens stored (the
    # server no longer accepts them, nor their refresh).
    state: str
    store: str
    client_id: str | None = None  # public (it is in the authorization URL); never the secret
    registered: str | None = None  # "configured" | "dynamic" | "metadata document" | None
    scope: str | None = None
    expires_at: float | None = None
    refreshable: bool = False
    stored: bool = False  # tokens or a registration are kept: what signing out forgets

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "url": self.url,
            "state": self.state,
            "store": self.store,
            "clientId": self.client_id,
            "registration": self.registered,
            "scope": self.scope,
            "expiresAt": self.expires_at,
            "refreshable": self.refreshable,
            "stored": self.stored,
        }


class ServerAuth:
    """The OAuth side of a host's remote servers.

    ``store`` keeps tokens and registrations (``default_credential_store``, or a memory store for a
    one-look probe). ``headless`` lets background connections follow the authorization redirect
    themselves (`probe`); otherwise they never start a sign-in. ``client_metadata_url`` is the HTTPS URL
    of a client ID metadata document describing this host, used where the authorization server
    supports them instead of dynamic registration.
    """

    def __init__(
        self,
        store: CredentialStore,
        *,
        headless: bool = False,
        client_metadata_url: str | None = None,
    ) -> None:
        self.store = store
        self.headless = headless
        self.client_metadata_url = client_metadata_url
        # Server name -> the fingerprint of the tokens its connection had when it found a person needed.
        self._sign_in_needed: dict[str, str | None] = {}
        # Server name -> the store's change stamp when signed_in_elsewhere last read its tokens.
        self._looked_at: dict[str, Hashable] = {}
        logging.getLogger("mcp.client.auth.oauth2").addFilter(_FLOW_ERRORS)  # once: a filter is added once

    # -- credentials --------------------------------------------------------------------------------

    def credentials(self, server: ServerConfig, redirect_uri: str | None = None) -> ServerCredentials:
        configured = None
        if server.client_id:
            port = server.callback_port
            uri = redirect_uri or (loopback_redirect_uri(port) if port else None)
            configured = OAuthClientInformationFull.model_validate(
                {
                    "client_id": server.client_id,
                    "client_secret": server.client_secret,
                    "redirect_uris": [uri] if uri else None,
                    "token_endpoint_auth_method": "client_secret_basic" if server.client_secret else "none",
                    "grant_types": ["client_credentials"]
                    if server.oauth_grant == "client_credentials"
                    else ["authorization_code", "refresh_token"],
                }
            )
        return ServerCredentials(self.store, credential_key(server), configured_client=configured)

    def _registered_redirect(self, credentials: ServerCredentials) -> str | None:
        client = credentials.client_info()
        if client is not None and client.redirect_uris:
            return str(client.redirect_uris[0])
        return None

    def _registration(self, server: ServerConfig, credentials: ServerCredentials) -> str | None:
        """How the server's client came to be: "configured", "metadata document", "dynamic", or None."""
        if credentials.configured_client is not None:
            return "configured"
        client = credentials.client_info()
        if client is None:
            return None
        documents = {server.client_metadata_url, self.client_metadata_url} - {None}
        return "metadata document" if client.client_id in documents else "dynamic"

    # -- connections --------------------------------------------------------------------------------

    def http_auth(self, server: ServerConfig) -> httpx2.Auth | None:
        """The auth of a background connection to ``server``; None when it does not use OAuth."""
        if not uses_oauth(server):
            return None
        assert server.url is not None
        credentials = self.credentials(server)
        grant = cast(GrantChoice, server.oauth_grant)
        authorizer: Authorizer | None
        if grant == "client_credentials":
            authorizer = None
        elif self.headless:
            authorizer = HeadlessAuthorizer(
                self._registered_redirect(credentials) or loopback_redirect_uri(server.callback_port or 3000)
            )
        else:
            # The redirect URI a later sign-in will listen on: the registered one, else a port free now.
            redirect = self._registered_redirect(credentials) or loopback_redirect_uri(
                server.callback_port or free_loopback_port()
            )
            authorizer = NoAuthorizer(
                server.name,
                redirect,
                on_needed=lambda: self._mark_needed(server.name, provider.loaded_tokens),
            )
        provider = HostOAuthProvider(
            server.url,
            credentials,
            authorizer,
            grant=grant,
            client_metadata_url=server.client_metadata_url or self.client_metadata_url,
            on_accepted=lambda: self._accepted(server.name),
        )
        return provider

    def _mark_needed(self, name: str, tokens: OAuthToken | None) -> None:
        self._sign_in_needed[name] = token_fingerprint(tokens)
        self._looked_at.pop(name, None)

    def _accepted(self, name: str) -> None:
        """The server accepted the connection's token: it no longer waits for a sign-in."""
        self._sign_in_needed.pop(name, None)

    async def sign_in(self, server: ServerConfig, authorizer: Authorizer) -> AuthStatus:
        """Run the whole flow for ``server`` with ``authorizer`` doing the browser step, over a connection
        of its own; the new tokens land in the store once it has succeeded, replacing the old ones.

        The flow starts without the stored tokens (else the server would just accept them) and, for a
        dynamically registered client, without its registration: the authorization server may have
        forgotten it (restarted, expired), and a forgotten client ID only shows the person an error page,
        never a redirect back. The new registration has the same redirect URI when its port is free.
        Until the flow succeeds nothing stored changes: a sign-in that fails or is cancelled leaves the
        earlier one working.

        Raises ValueError for a server that does not use OAuth, SignInFailed (its message says why and
        what to do) when the flow fails, CredentialStoreError when the store cannot be read or written.
        """
        if not uses_oauth(server):
            raise ValueError(
                f"server {server.name!r} does not use OAuth (not http/sse, or has an Authorization header)"
            )
        assert server.url is not None
        credentials = self.credentials(server, authorizer.redirect_uri)
        attempt = await anyio.to_thread.run_sync(lambda: self._attempt(server, credentials, authorizer))
        provider = HostOAuthProvider(
            server.url,
            attempt,
            authorizer,
            grant=cast(GrantChoice, server.oauth_grant),
            client_metadata_url=server.client_metadata_url or self.client_metadata_url,
        )
        try:
            with anyio.fail_after(_SIGN_IN_CONNECT_TIMEOUT_S + SIGN_IN_TIMEOUT_S):
                await _connect_once(server, provider)
        except Exception as exc:
            reason = describe_sign_in_failure(exc, server.url)
            log.info("sign-in to %r failed: %s", server.name, reason, exc_info=exc)
            raise SignInFailed(reason) from exc
        signed_in = attempt.store.load(attempt.key) or {}
        if "tokens" in signed_in:
            await anyio.to_thread.run_sync(lambda: self._keep(credentials, signed_in))
            log.info("signed in to %r", server.name)
        elif server.oauth_grant != "client_credentials":
            # The server never asked for authorization: nothing to sign in to.
            log.info("server %r accepted the connection without signing in", server.name)
        self._sign_in_needed.pop(server.name, None)
        return self.status(server)

    def _attempt(
        self, server: ServerConfig, credentials: ServerCredentials, authorizer: Authorizer
    ) -> ServerCredentials:
        """The credentials a sign-in works on: in memory, a copy of the stored record without its tokens
        (nor a dynamic registration). The redirect port is remembered in the store for the next one."""
        record = credentials.store.load(credentials.key) or {}
        port = AnyUrl(authorizer.redirect_uri).port if authorizer.redirect_uri else None
        if port and record.get(_REDIRECT_PORT) != port and credentials.configured_client is None:
            credentials.store.save(credentials.key, {**record, _REDIRECT_PORT: port})
        copy = {
            name: value
            for name, value in record.items()
            if name not in ("tokens", "expiresAt", "refusedTokens")
        }
        if self._registration(server, credentials) == "dynamic":
            copy.pop("client", None)
        store = MemoryCredentialStore()
        store.save(credentials.key, copy)
        return ServerCredentials(store, credentials.key, configured_client=credentials.configured_client)

    def _keep(self, credentials: ServerCredentials, signed_in: dict[str, Any]) -> None:
        """Write what a successful sign-in got over the stored record (other fields are kept)."""
        record = credentials.store.load(credentials.key) or {}
        for name in _SIGNED_IN_FIELDS:
            if name in signed_in:
                record[name] = signed_in[name]
        record.pop("refusedTokens", None)
        record["updatedAt"] = time.time()
        credentials.store.save(credentials.key, record)

    def browser_authorizer(
        self, server: ServerConfig, open_url: Callable[[str], object]
    ) -> BrowserAuthorizer:
        """The authorizer of an interactive sign-in to ``server``: its loopback port is the configured
        ``callbackPort``, else the one its registration has (else the last sign-in's), else any free one:
        the same port sign-in after sign-in, which an `ssh -L` forward relies on."""
        if server.callback_port:
            return BrowserAuthorizer(open_url, server.callback_port)
        credentials = self.credentials(server)
        registered = self._registered_redirect(credentials)
        port = int(AnyUrl(registered).port or 0) if registered is not None else 0
        if not port:
            remembered = (credentials.store.load(credentials.key) or {}).get(_REDIRECT_PORT)
            port = remembered if isinstance(remembered, int) and 0 < remembered < 65536 else 0
        return BrowserAuthorizer(open_url, port, any_port_if_taken=True)

    def sign_out(self, server: ServerConfig) -> bool:
        """Forget the server's tokens and registration; False when there were none."""
        self._sign_in_needed.pop(server.name, None)
        credentials = self.credentials(server)
        record = credentials.store.load(credentials.key) or {}
        forgotten = credentials.forget()
        return forgotten and ("tokens" in record or "client" in record)

    # -- status -------------------------------------------------------------------------------------

    def status(self, server: ServerConfig) -> AuthStatus:
        """What is known about the server's sign-in, without any network request. Raises
        CredentialStoreError when the store cannot be read."""
        if not uses_oauth(server):
            return AuthStatus(server.name, server.url, "not used", self.store.where)
        credentials = self.credentials(server)
        client = credentials.client_info()
        registered = self._registration(server, credentials)
        tokens = credentials.tokens()
        expires_at = credentials.expires_at()
        if server.oauth_grant == "client_credentials" and tokens is None:
            state = "client credentials"
        elif self._still_needed(server.name, tokens) or credentials.refused():
            state = "sign-in required"
        elif tokens is None:
            state = "not signed in"
        elif expires_at is not None and expires_at < time.time() and not tokens.refresh_token:
            state = "expired"
        else:
            state = "signed in"
        return AuthStatus(
            server=server.name,
            url=server.url,
            state=state,
            store=self.store.where,
            client_id=client.client_id if client is not None else None,
            registered=registered,
            scope=tokens.scope if tokens is not None else None,
            expires_at=expires_at,
            refreshable=bool(tokens is not None and tokens.refresh_token),
            stored=tokens is not None or registered in ("dynamic", "metadata document"),
        )

    def _still_needed(self, name: str, tokens: OAuthToken | None) -> bool:
        """Marked as needing a sign-in, and the store holds the tokens the connection had then."""
        return name in self._sign_in_needed and self._sign_in_needed[name] == token_fingerprint(tokens)

    def sign_in_needed(self, name: str) -> bool:
        """Whether the last background connection to ``name`` stopped because it needs a sign-in."""
        return name in self._sign_in_needed

    def signed_in_elsewhere(self, server: ServerConfig) -> bool:
        """Whether ``server``, whose connection stopped because it needs a sign-in, has other tokens in
        the store now: a sign-in in another process (`edgehost auth login` beside the window). True once
        per such sign-in (the mark is dropped): the caller reconnects the server, which marks it again
        if those tokens do not work either. Cheap when nothing waits for a sign-in, or when nothing was
        written to the store since the last look (its change stamp): otherwise one read of the store.
        Raises CredentialStoreError."""
        if server.name not in self._sign_in_needed:
            return False
        stamp = self.store.change_stamp()  # before the read: a change during it is seen next time
        if stamp is not None and self._looked_at.get(server.name) == stamp:
            return False
        if stamp is not None:
            self._looked_at[server.name] = stamp
        tokens = self.credentials(server).tokens()
        if tokens is None or self._still_needed(server.name, tokens):
            return False
        self._sign_in_needed.pop(server.name, None)
        self._looked_at.pop(server.name, None)
        return True
