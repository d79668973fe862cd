"""A real OAuth-protected Streamable HTTP MCP server for the tests: the mcp SDK's authorization-server
support (mcp.server.auth: metadata, dynamic registration, /authorize, /token with PKCE, refresh) and its
bearer-token check in front of an MCPServer, run by uvicorn on a loopback port in the test's loop.

The provider behind the SDK's routes keeps everything in memory and consents at once (the page a person
would see is the one thing scripted); it records every grant so tests can see a refresh happen.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import httpx2
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl

from edgehost.slow_machine import scaled_wait

SCOPE = "mcp"
# Long enough for a sign-in and a listing; tests that need an expired token make one.
ACCESS_TOKEN_S = 3600
# The scripted browser's page loads (authorization page, redirects, the loopback callback).
BROWSER_TIMEOUT_S = scaled_wait(20.0)
# uvicorn closes its connections and the app's lifespan within this.
SHUTDOWN_S = scaled_wait(10.0)


@dataclass
class InMemoryAuthorizationServer:
    """OAuthAuthorizationServerProvider of the SDK, in memory, consenting at once."""

    access_token_s: int = ACCESS_TOKEN_S
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    access_tokens: dict[str, AccessToken] = field(default_factory=dict)
    refresh_tokens: dict[str, RefreshToken] = field(default_factory=dict)
    grants: list[str] = field(default_factory=list)  # "authorization_code" / "refresh_token", in order
    authorizations: list[AuthorizationParams] = field(default_factory=list)
    refuse_consent: bool = False  # the person clicks "Deny": the browser comes back with access_denied

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        assert client.client_id is not None
        self.authorizations.append(params)
        if self.refuse_consent:
            return construct_redirect_uri(
                str(params.redirect_uri),
                error="access_denied",
                error_description="The user refused",
                state=params.state,
            )
        code = AuthorizationCode(
            code=f"code_{secrets.token_hex(16)}",
            client_id=client.client_id,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = f"access_{secrets.token_hex(16)}"
        refresh = f"refresh_{secrets.token_hex(16)}"
        self.access_tokens[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.access_token_s,
            resource=resource,
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            expires_in=self.access_token_s,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        self.grants.append("authorization_code")
        return self._issue(
            authorization_code.client_id, authorization_code.scopes, authorization_code.resource
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access_tokens.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        found = self.refresh_tokens.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh_tokens[refresh_token.token]  # rotated, as OAuth 2.1 asks of public clients
        self.grants.append("refresh_token")
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access_tokens.pop(token.token, None)
        self.refresh_tokens.pop(token.token, None)

    def expire_access_tokens(self) -> None:
        """Every access token issued so far stops working (as at the end of its lifetime)."""
        self.access_tokens.clear()

    def revoke_all(self) -> None:
        """Every token issued so far stops working, refresh tokens too (the user revoked the app)."""
        self.access_tokens.clear()
        self.refresh_tokens.clear()

    def restart_with_new_keys(self) -> None:
        """What a restart without its database does: every client registration and token is forgotten."""
        self.clients.clear()
        self.codes.clear()
        self.revoke_all()


class ScriptedBrowser:
    """Stands in for webbrowser.open: loads the authorization page and follows its redirects, which
    end at EdgeHost's loopback callback - what a browser does once the person has consented."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.landed: list[httpx2.Response] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def __call__(self, url: str) -> bool:
        self.opened.append(url)
        task = asyncio.get_running_loop().create_task(self._visit(url))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _visit(self, url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=True, timeout=BROWSER_TIMEOUT_S) as http:
            self.landed.append(await http.get(url))


@dataclass
class ProtectedServer:
    url: str  # the MCP endpoint
    issuer: str
    authorization_server: InMemoryAuthorizationServer


def build_server(base: str, provider: InMemoryAuthorizationServer, endpoint: str = "/mcp") -> MCPServer:
    mcp = MCPServer(
        "oauth-protected",
        auth=AuthSettings(
            issuer_url=AnyHttpUrl(base),
            resource_server_url=AnyHttpUrl(f"{base}{endpoint}"),
            required_scopes=[SCOPE],
            validate_token_resource=True,  # a token issued for another resource is refused
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
        ),
        auth_server_provider=provider,
    )

    @mcp.tool(description="Who the bearer token belongs to: its client ID and scopes.")
    def whoami() -> str:
        token = get_access_token()
        assert token is not None
        return f"{token.client_id} {' '.join(token.scopes)}"

    return mcp


@asynccontextmanager
async def protected_server(
    provider: InMemoryAuthorizationServer | None = None, transport: str = "http"
) -> AsyncIterator[ProtectedServer]:
    """The server on 127.0.0.1:<free port>, serving until the block ends: Streamable HTTP at /mcp, or
    with ``transport="sse"`` the legacy SSE transport at /sse."""
    provider = provider or InMemoryAuthorizationServer()
    # Listening before uvicorn runs: a client's first request waits in the backlog, no polling needed.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    endpoint = "/sse" if transport == "sse" else "/mcp"
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    try:
        mcp = build_server(base, provider, endpoint)
        if transport == "sse":
            app = mcp.sse_app(transport_security=security)
        else:
            app = mcp.streamable_http_app(transport_security=security)
    except BaseException:
        sock.close()
        raise
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield ProtectedServer(url=f"{base}{endpoint}", issuer=base, authorization_server=provider)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, SHUTDOWN_S)
        sock.close()
