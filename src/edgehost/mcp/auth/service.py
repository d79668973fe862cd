"""OAuth for the remote servers of one host: which auth each connection gets, sign-in, sign-out, status.

A server's background connection (its supervisor's) gets a provider that sends stored tokens and
refreshes them but never opens a browser: when the server wants a person to sign in, the connection
fails with ``SignInRequired`` and the server is marked as needing sign-in. ``sign_in`` then runs the
whole flow with an ``Authorizer`` (the browser and a loopback port in the GUI and `auth login`, an HTTP
client following the redirect in `probe` and the tests), over a short connection of its own.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import anyio
import httpx2
from mcp.client import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import AnyUrl

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
from edgehost.mcp.auth._store import CredentialStore, ServerCredentials, credential_key
from edgehost.mcp.config import ServerConfig

__all__ = ["AuthStatus", "ServerAuth", "uses_oauth"]

log = logging.getLogger(__name__)


class _QuietSignInRequired(logging.Filter):
    """The SDK logs every failed flow with its traceback; "sign-in required" is a state the server's
    status shows, not an error to log again on each reconnection attempt."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], SignInRequired))


_QUIET = _QuietSignInRequired()

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
    state: str  # "not used" | "signed in" | "expired" | "sign-in required" | "not signed in" | "client credentials"
    store: str
    client_id: str | None = None  # public (it is in the authorization URL); never the secret
    registered: str | None = None  # "configured" | "dynamic" | "metadata document" | None
    scope: str | None = None
    expires_at: float | None = None
    refreshable: bool = False

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
        self._sign_in_needed: set[str] = set()
        logging.getLogger("mcp.client.auth.oauth2").addFilter(_QUIET)  # once: a filter is added once

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
            authorizer = NoAuthorizer(server.name, redirect, on_needed=lambda: self._mark_needed(server.name))
        return HostOAuthProvider(
            server.url,
            credentials,
            authorizer,
            grant=grant,
            client_metadata_url=server.client_metadata_url or self.client_metadata_url,
        )

    def _mark_needed(self, name: str) -> None:
        self._sign_in_needed.add(name)

    async def sign_in(self, server: ServerConfig, authorizer: Authorizer) -> AuthStatus:
        """Run the whole flow for ``server`` with ``authorizer`` doing the browser step, over a connection
        of its own; the tokens land in the store. Stored tokens are dropped first (the registration is
        kept). Raises ValueError for a server that does not use OAuth, and what the flow raises
        (OAuthFlowError, OAuthTokenError, OAuthRegistrationError, AuthorizationDenied, OSError, ...)."""
        if not uses_oauth(server):
            raise ValueError(
                f"server {server.name!r} does not use OAuth (not http/sse, or has an Authorization header)"
            )
        assert server.url is not None
        credentials = self.credentials(server, authorizer.redirect_uri)
        await anyio.to_thread.run_sync(credentials.forget_tokens)
        registered = self._registered_redirect(credentials)
        if (
            registered is not None
            and registered != authorizer.redirect_uri
            and credentials.configured_client is None
        ):
            # Registered with another redirect URI (its port was taken): register again with this one.
            await anyio.to_thread.run_sync(credentials.forget)
        provider = HostOAuthProvider(
            server.url,
            credentials,
            authorizer,
            grant=cast(GrantChoice, server.oauth_grant),
            client_metadata_url=server.client_metadata_url or self.client_metadata_url,
        )
        with anyio.fail_after(_SIGN_IN_CONNECT_TIMEOUT_S + SIGN_IN_TIMEOUT_S):
            await _connect_once(server, provider)
        if credentials.tokens() is None and server.oauth_grant != "client_credentials":
            # The server never asked for authorization: nothing to sign in to.
            log.info("server %r accepted the connection without signing in", server.name)
        self._sign_in_needed.discard(server.name)
        return self.status(server)

    def browser_authorizer(
        self, server: ServerConfig, open_url: Callable[[str], object]
    ) -> BrowserAuthorizer:
        """The authorizer of an interactive sign-in to ``server``: its loopback port is the configured
        ``callbackPort``, else the one its registration has, else any free one."""
        if server.callback_port:
            return BrowserAuthorizer(open_url, server.callback_port)
        registered = self._registered_redirect(self.credentials(server))
        port = int(AnyUrl(registered).port or 0) if registered is not None else 0
        return BrowserAuthorizer(open_url, port, any_port_if_taken=True)

    def sign_out(self, server: ServerConfig) -> bool:
        """Forget the server's tokens and registration; False when there were none."""
        self._sign_in_needed.discard(server.name)
        return self.credentials(server).forget()

    # -- status -------------------------------------------------------------------------------------

    def status(self, server: ServerConfig) -> AuthStatus:
        """What is known about the server's sign-in, without any network request. Raises
        CredentialStoreError when the store cannot be read."""
        if not uses_oauth(server):
            return AuthStatus(server.name, server.url, "not used", self.store.where)
        credentials = self.credentials(server)
        client = credentials.client_info()
        registered = None
        if credentials.configured_client is not None:
            registered = "configured"
        elif client is not None:
            documents = {server.client_metadata_url, self.client_metadata_url} - {None}
            registered = "metadata document" if client.client_id in documents else "dynamic"
        tokens = credentials.tokens()
        expires_at = credentials.expires_at()
        if tokens is None:
            if server.oauth_grant == "client_credentials":
                state = "client credentials"
            elif server.name in self._sign_in_needed:
                state = "sign-in required"
            else:
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
        )

    def sign_in_needed(self, name: str) -> bool:
        """Whether the last background connection to ``name`` stopped because it needs a sign-in."""
        return name in self._sign_in_needed
