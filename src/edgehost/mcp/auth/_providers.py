"""The SDK's OAuth providers, as EdgeHost builds them for one server.

Everything protocol-level (protected-resource and authorization-server metadata discovery, client ID
metadata documents, dynamic registration, PKCE, ``resource``, scope selection and step-up, ``iss``
checks, refresh, re-registration when the authorization server changes) is the SDK's
``OAuthClientProvider``. What is added here is what a desktop host needs around it:

- the discovered metadata and the token's expiry are kept with the tokens, so that after a restart an
  expired token is refreshed at the right token endpoint instead of being sent and refused;
- an access token the server refuses (401) while a refresh token is held is refreshed once before the
  whole flow starts over (the SDK goes straight to a new authorization, which for a background
  connection means asking the user to sign in again);
- a client configured with a secret uses the client-credentials grant when its authorization server
  offers only that grant (or when the entry says ``"oauthGrant": "client_credentials"``);
- a dynamic registration the token endpoint no longer knows (``invalid_client``: the authorization
  server was reset, the registration expired) is forgotten, so that the next sign-in registers again
  instead of sending the person to a page that only says "Client ID not found".
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Callable
from typing import Any, Literal

import anyio
import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import OAuthClientMetadata, OAuthMetadata, OAuthToken, ProtectedResourceMetadata

from edgehost.mcp.auth._interaction import Authorizer, NoAuthorizer, SignInRequired
from edgehost.mcp.auth._store import ServerCredentials

__all__ = ["CLIENT_NAME", "GrantChoice", "HostOAuthProvider", "client_metadata"]

log = logging.getLogger(__name__)

CLIENT_NAME = "EdgeHost"

GrantChoice = Literal["auto", "authorization_code", "client_credentials"]


def client_metadata(redirect_uri: str | None, grant: GrantChoice) -> OAuthClientMetadata:
    """What EdgeHost registers as: a native app with a loopback redirect (RFC 8252)."""
    if grant == "client_credentials":
        return OAuthClientMetadata(
            client_name=CLIENT_NAME, redirect_uris=None, grant_types=["client_credentials"]
        )
    return OAuthClientMetadata.model_validate(
        {
            "client_name": CLIENT_NAME,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        }
    )


class HostOAuthProvider(OAuthClientProvider):
    """``OAuthClientProvider`` with its discovery kept across restarts and the client-credentials grant
    for a configured confidential client (see the module's docstring)."""

    def __init__(
        self,
        server_url: str,
        credentials: ServerCredentials,
        authorizer: Authorizer | None,
        *,
        grant: GrantChoice = "auto",
        client_metadata_url: str | None = None,
        on_accepted: Callable[[], None] | None = None,
    ) -> None:
        """``on_accepted`` is called each time the server accepts a request this auth sent."""
        redirect_uri = authorizer.redirect_uri if authorizer is not None else None
        super().__init__(
            server_url,
            client_metadata(redirect_uri, grant),
            credentials,
            redirect_handler=authorizer.redirect if authorizer is not None else None,
            callback_handler=authorizer.callback if authorizer is not None else None,
            client_metadata_url=client_metadata_url if grant != "client_credentials" else None,
        )
        self.credentials = credentials
        self.grant = grant
        self._authorizer = authorizer
        self._on_accepted = on_accepted
        self.loaded_tokens: OAuthToken | None = None  # the stored tokens this auth last started from
        self._refused_mark = False  # the record says the server refused them

    async def _initialize(self) -> None:
        await super()._initialize()
        self.loaded_tokens = self.context.current_tokens
        record: dict[str, Any] = await anyio.to_thread.run_sync(
            lambda: self.credentials.store.load(self.credentials.key) or {}
        )
        self._refused_mark = "refusedTokens" in record
        expires_at = record.get("expiresAt")
        if self.context.current_tokens is not None and isinstance(expires_at, int | float):
            self.context.token_expiry_time = float(expires_at)
        discovered = record.get("discovered")
        if self.context.current_tokens is not None and isinstance(discovered, dict):
            self._restore_discovery(discovered)

    def _restore_discovery(self, discovered: dict[str, Any]) -> None:
        """Metadata found when the tokens were issued: a refresh goes to that token endpoint, a step-up to
        that server. A 401 discovers everything again, as the SDK always does."""
        try:
            if isinstance(discovered.get("authorizationServer"), dict):
                self.context.oauth_metadata = OAuthMetadata.model_validate(discovered["authorizationServer"])
            if isinstance(discovered.get("protectedResource"), dict):
                self.context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                    discovered["protectedResource"]
                )
            if isinstance(discovered.get("authorizationServerUrl"), str):
                self.context.auth_server_url = discovered["authorizationServerUrl"]
        except ValueError:  # metadata saved by another version: discovery will run again
            self.context.oauth_metadata = None
            self.context.protected_resource_metadata = None

    async def _save_discovery(self) -> None:
        context = self.context
        discovered = {
            "authorizationServer": context.oauth_metadata.model_dump(mode="json", exclude_none=True)
            if context.oauth_metadata
            else None,
            "protectedResource": context.protected_resource_metadata.model_dump(
                mode="json", exclude_none=True
            )
            if context.protected_resource_metadata
            else None,
            "authorizationServerUrl": context.auth_server_url,
        }
        credentials = self.credentials

        def save() -> None:
            record = credentials.store.load(credentials.key) or {}
            record["discovered"] = discovered
            credentials.store.save(credentials.key, record)

        await anyio.to_thread.run_sync(save)

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super()._auth_flow(request)
        refreshed_once = False
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if (
                    outgoing is request
                    and response.status_code == 401
                    and not refreshed_once
                    and self._refreshable()
                ):
                    refreshed_once = True
                    refresh_response = yield await self._refresh_token()
                    if await self._handle_refresh_response(refresh_response):
                        self._add_auth_header(request)
                        response = yield request
                    # Refused again, or the refresh failed (tokens cleared): the SDK's flow takes the 401.
                if outgoing is request and response.status_code not in (401, 403):
                    await self._accepted()
                try:
                    outgoing = await flow.asend(response)
                except StopAsyncIteration:
                    return
        except SignInRequired:
            if self.loaded_tokens is not None:  # refused, and so was their refresh: every process says so
                tokens = self.loaded_tokens
                await anyio.to_thread.run_sync(lambda: self.credentials.mark_refused(tokens))
            raise
        finally:
            await flow.aclose()  # it holds the provider's lock while suspended

    async def _accepted(self) -> None:
        """The server took a request with this auth's token: nothing waits for a sign-in any more."""
        if self._refused_mark:
            self._refused_mark = False
            await anyio.to_thread.run_sync(self.credentials.clear_refused)
        if self._on_accepted is not None:
            self._on_accepted()

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        client = self.context.client_info
        if await super()._handle_refresh_response(response):
            return True
        if (
            client is not None
            and _refused_client(response)
            and self._registered_dynamically(client.client_id)
        ):
            # RFC 6749 §5.2: the token endpoint does not know this client (any more). Keeping it would
            # send the next sign-in to an authorization page that only says "Client ID not found".
            log.info(
                "the authorization server no longer knows client %s (HTTP %d); it is forgotten and the "
                "next sign-in registers again",
                client.client_id,
                response.status_code,
            )
            self.context.client_info = None
            await anyio.to_thread.run_sync(lambda: self.credentials.forget_client(client.client_id))
        return False

    def _registered_dynamically(self, client_id: str) -> bool:
        """Whether ``client_id`` came from dynamic registration: not the entry's ``clientId``, not a
        client ID metadata document (their IDs do not depend on what the server remembers)."""
        configured = self.credentials.configured_client
        if configured is not None and configured.client_id == client_id:
            return False
        return client_id != self.context.client_metadata_url

    def _refreshable(self) -> bool:
        tokens = self.context.current_tokens
        return bool(tokens is not None and tokens.refresh_token and self.context.client_info is not None)

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        await super()._handle_token_response(response)
        await self._save_discovery()

    def _expected_issuer(self) -> str:
        # Called on every full flow (a 401, a step-up 403) right after the resource's metadata is
        # found, before any registration. A background connection that would need a person stops here:
        # registering a client it cannot use would only leave one more registration behind, each retry.
        if isinstance(self._authorizer, NoAuthorizer) and not self._may_finish_alone():
            self._authorizer.refuse()
        return super()._expected_issuer()

    def _may_finish_alone(self) -> bool:
        """Whether a full flow may end without a person: the client-credentials grant, or a configured
        secret that the authorization server may turn out to want that grant for."""
        client = self.context.client_info
        return self.grant == "client_credentials" or (
            self.grant == "auto" and client is not None and bool(client.client_secret)
        )

    def _uses_client_credentials(self) -> bool:
        if self.grant == "client_credentials":
            return True
        if self.grant == "authorization_code":
            return False
        client = self.context.client_info
        metadata = self.context.oauth_metadata
        supported = metadata.grant_types_supported if metadata is not None else None
        return bool(
            client is not None
            and client.client_secret
            and supported
            and "client_credentials" in supported
            and "authorization_code" not in supported
        )

    async def _perform_authorization(self) -> httpx2.Request:
        if not self._uses_client_credentials():
            return await super()._perform_authorization()
        # RFC 6749 §4.4: the client authenticates as itself; no person, no redirect.
        data: dict[str, str] = {"grant_type": "client_credentials"}
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        data, headers = self.context.prepare_token_auth(data, headers)
        if self.context.should_include_resource_param(self.context.protocol_version):
            data["resource"] = self.context.get_resource_url()
        if self.context.client_metadata.scope:
            data["scope"] = self.context.client_metadata.scope
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)


def _refused_client(response: httpx2.Response) -> bool:
    """Whether a token endpoint's error response says the client itself is refused (``invalid_client``,
    RFC 6749 §5.2, which comes with 401 when the client tried to authenticate; a public client's
    refresh refused with 401 means the same)."""
    if response.status_code == 401:
        return True
    if response.status_code != 400:
        return False
    try:
        body = json.loads(response.content)
    except (ValueError, httpx2.ResponseNotRead):
        return False
    return isinstance(body, dict) and body.get("error") == "invalid_client"
