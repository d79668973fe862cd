"""OAuth 2.1 for remote (Streamable HTTP, SSE) MCP servers, through the mcp SDK's providers."""

from edgehost.mcp.auth._interaction import (
    AuthorizationDenied,
    Authorizer,
    BrowserAuthorizer,
    HeadlessAuthorizer,
    NoAuthorizer,
    SignInRequired,
)
from edgehost.mcp.auth._providers import HostOAuthProvider
from edgehost.mcp.auth._store import (
    CredentialStore,
    CredentialStoreError,
    FileCredentialStore,
    KeyringCredentialStore,
    MemoryCredentialStore,
    ServerCredentials,
    default_credential_store,
)
from edgehost.mcp.auth.service import AuthStatus, ServerAuth, uses_oauth

__all__ = [
    "AuthStatus",
    "AuthorizationDenied",
    "Authorizer",
    "BrowserAuthorizer",
    "CredentialStore",
    "CredentialStoreError",
    "FileCredentialStore",
    "HeadlessAuthorizer",
    "HostOAuthProvider",
    "KeyringCredentialStore",
    "MemoryCredentialStore",
    "NoAuthorizer",
    "ServerAuth",
    "ServerCredentials",
    "SignInRequired",
    "default_credential_store",
    "uses_oauth",
]
