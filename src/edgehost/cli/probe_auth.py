"""How `edgehost probe URL` signs in: headless, nothing kept.

A probe follows the authorization redirect itself (an authorization server that shows a login page
needs `edgehost auth login` instead) and keeps its tokens in memory only. Client credentials come from
the command line, or from ``MCP_CONFORMANCE_CONTEXT`` as the MCP conformance suite passes them to the
client under test (``client_id``, ``client_secret``, ``private_key_pem`` + ``signing_algorithm``, the
``idp_*`` values of enterprise-managed authorization); ``MCP_CONFORMANCE_PROTOCOL_VERSION`` names the
protocol era to speak.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp.client.auth.extensions.client_credentials import PrivateKeyJWTOAuthProvider, SignedJWTParameters
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.auth.utils import build_protected_resource_metadata_discovery_urls

from edgehost.errors import UsageError
from edgehost.mcp.auth import MemoryCredentialStore, ServerAuth, ServerCredentials, uses_oauth
from edgehost.mcp.client_features import HttpAuthFnT
from edgehost.mcp.config import ServerConfig

__all__ = ["ProbeCredentials", "probe_credentials", "probe_http_auth"]

CONTEXT_VARIABLE = "MCP_CONFORMANCE_CONTEXT"
PROTOCOL_VARIABLE = "MCP_CONFORMANCE_PROTOCOL_VERSION"
_HTTP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class ProbeCredentials:
    """What a probe may sign in with, besides dynamic registration."""

    client_id: str | None = None
    client_secret: str | None = None
    private_key_pem: str | None = None
    signing_algorithm: str = "ES256"
    idp: Mapping[str, str] = field(default_factory=dict)  # idp_client_id, idp_id_token, idp_token_endpoint
    tool_calls: tuple[dict[str, Any], ...] = ()  # {"name", "arguments"} to make instead of example calls


def probe_credentials(
    client_id: str | None, client_secret: str | None, environ: Mapping[str, str] = os.environ
) -> ProbeCredentials:
    """The command line's credentials over those of ``MCP_CONFORMANCE_CONTEXT``. Raises UsageError when
    that variable is not a JSON object."""
    context: dict[str, Any] = {}
    text = environ.get(CONTEXT_VARIABLE)
    if text:
        try:
            context = json.loads(text)
        except ValueError:
            raise UsageError(f"{CONTEXT_VARIABLE} is not valid JSON") from None
        if not isinstance(context, dict):
            raise UsageError(f"{CONTEXT_VARIABLE} is not a JSON object")
    calls = context.get("toolCalls")
    return ProbeCredentials(
        client_id=client_id or _text(context, "client_id"),
        client_secret=client_secret or _text(context, "client_secret"),
        private_key_pem=_text(context, "private_key_pem"),
        signing_algorithm=_text(context, "signing_algorithm") or "ES256",
        idp={k: v for k, v in context.items() if k.startswith("idp_") and isinstance(v, str)},
        tool_calls=tuple(c for c in calls if isinstance(c, dict) and "name" in c)
        if isinstance(calls, list)
        else (),
    )


def _text(context: Mapping[str, Any], key: str) -> str | None:
    value = context.get(key)
    return value if isinstance(value, str) and value else None


def probe_http_auth(credentials: ProbeCredentials, client_metadata_url: str | None) -> HttpAuthFnT:
    """The auth of a probe's connection: private_key_jwt client credentials when given a key, the
    enterprise-managed (ID-JAG) grant when given an identity provider's token, otherwise the
    authorization-code flow (or client credentials, where the authorization server offers only that)
    with a pre-registered client when one is given and dynamic registration when not."""
    auth = ServerAuth(MemoryCredentialStore(), headless=True, client_metadata_url=client_metadata_url)

    def http_auth(server: ServerConfig) -> httpx2.Auth | None:
        if not uses_oauth(server):
            return None
        assert server.url is not None
        storage = ServerCredentials(auth.store, f"probe {server.url}")
        if credentials.private_key_pem and credentials.client_id:
            jwt_params = SignedJWTParameters(
                issuer=credentials.client_id,
                subject=credentials.client_id,
                signing_algorithm=credentials.signing_algorithm,
                signing_key=credentials.private_key_pem,
            )
            # The issuer is not known before discovery: the first authorization server the resource names.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return PrivateKeyJWTOAuthProvider(
                    server_url=server.url,
                    storage=storage,
                    client_id=credentials.client_id,
                    assertion_provider=jwt_params.create_assertion_provider(),
                )
        if credentials.idp.get("idp_id_token") and credentials.client_id:
            return _IdentityAssertion(server.url, storage, credentials)
        entry = ServerConfig(
            name=server.name,
            transport=server.transport,
            url=server.url,
            client_id=credentials.client_id,
            client_secret=credentials.client_secret,
        )
        return auth.http_auth(entry)

    return http_auth


class _IdentityAssertion(httpx2.Auth):
    """SEP-990 enterprise-managed authorization: an identity provider's ID token exchanged there for an
    ID-JAG (RFC 8693), presented to the MCP authorization server (RFC 7523), by the SDK's provider.

    That provider takes the authorization server as configuration; a probe learns it from the
    resource's protected-resource metadata (RFC 9728) on the first request."""

    requires_response_body = True

    def __init__(self, server_url: str, storage: ServerCredentials, credentials: ProbeCredentials) -> None:
        self._server_url = server_url
        self._storage = storage
        self._credentials = credentials
        self._inner: IdentityAssertionOAuthProvider | None = None

    async def _provider(self) -> IdentityAssertionOAuthProvider:
        if self._inner is None:
            idp = self._credentials.idp
            prm_url = build_protected_resource_metadata_discovery_urls(None, self._server_url)[0]
            async with httpx2.AsyncClient(timeout=_HTTP_TIMEOUT_S) as http:
                prm = (await http.get(prm_url)).raise_for_status().json()

            async def fetch_id_jag(audience: str, resource: str) -> str:
                async with httpx2.AsyncClient(timeout=_HTTP_TIMEOUT_S) as http:
                    response = await http.post(
                        idp["idp_token_endpoint"],
                        data={
                            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                            "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                            "subject_token": idp["idp_id_token"],
                            "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                            "audience": audience,
                            "resource": resource,
                            "client_id": idp.get("idp_client_id", ""),
                        },
                    )
                    token: str = response.raise_for_status().json()["access_token"]
                    return token

            assert self._credentials.client_id is not None
            self._inner = IdentityAssertionOAuthProvider(
                server_url=self._server_url,
                storage=self._storage,
                client_id=self._credentials.client_id,
                client_secret=self._credentials.client_secret or "",
                issuer=prm["authorization_servers"][0],
                assertion_provider=fetch_id_jag,
                token_endpoint_auth_method="client_secret_basic",
            )
        return self._inner

    async def async_auth_flow(self, request: httpx2.Request) -> Any:
        provider = await self._provider()
        flow = provider.async_auth_flow(request)
        outgoing = await flow.__anext__()
        while True:
            response = yield outgoing
            try:
                outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
