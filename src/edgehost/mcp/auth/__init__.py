"""OAuth 2.1 for remote (Streamable HTTP, SSE) MCP servers, through the mcp SDK's providers."""

from edgehost.mcp.auth._failures import SignInFailed, describe_sign_in_failure
from edgehost.mcp.auth._interaction import (
    AuthorizationDenied,
    AuthorizationRefused,
    Authorizer,
    BrowserAuthorizer,
    HeadlessAuthorizer,
    NoAuthorizer,
    SignInRequired,
    SignInTimedOut,
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
    "AuthorizationRefused",
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
    "SignInFailed",
    "SignInRequired",
    "SignInTimedOut",
    "default_credential_store",
    "describe_sign_in_failure",
    "uses_oauth",
]
