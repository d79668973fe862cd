"""Why a sign-in failed, in words, with what to do: the real cause found inside the exception groups
the SDK's transports raise ("unhandled errors in a TaskGroup (1 sub-exception)" says nothing)."""

from __future__ import annotations

import json

from mcp.client.auth import OAuthFlowError, OAuthRegistrationError, OAuthTokenError

from edgehost.errors import EdgeHostError
from edgehost.mcp._failures import connection_failure, describe_failure, first_cause
from edgehost.mcp.auth._interaction import (
    AuthorizationDenied,
    AuthorizationRefused,
    LoopbackPortError,
    SignInTimedOut,
)

__all__ = ["SignInFailed", "describe_sign_in_failure"]


class SignInFailed(EdgeHostError):
    """A sign-in did not complete; the message says why and what to do. The cause is ``__cause__``."""


def _oauth_error(text: str) -> str:
    """``error: description`` from an OAuth error body inside ``text`` (RFC 6749 §5.2), else ``text``."""
    start = text.find("{")
    if start >= 0:
        try:
            body = json.loads(text[start:])
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("error"), str):
            description = body.get("error_description")
            return f"{body['error']}: {description}" if description else str(body["error"])
    return text


def describe_sign_in_failure(exc: BaseException, url: str | None = None) -> str:
    """One sentence: why a sign-in to the server at ``url`` failed, and what to do about it."""
    where = url or "the server"
    found = first_cause(exc, LoopbackPortError)
    if found is not None:
        return str(found)
    found = first_cause(exc, SignInTimedOut)
    if isinstance(found, SignInTimedOut):
        return f"no sign-in within {found.seconds:g} s: sign in again and finish in the browser"
    found = first_cause(exc, AuthorizationRefused)
    if isinstance(found, AuthorizationRefused):
        if found.error == "access_denied":
            return f"the sign-in was refused in the browser ({found})"
        return f"the authorization server answered with an error ({found})"
    found = first_cause(exc, AuthorizationDenied)
    if found is not None:
        return str(found)
    found = first_cause(exc, OAuthRegistrationError)
    if found is not None:
        return (
            f"the authorization server did not register EdgeHost ({_oauth_error(str(found))}); if it "
            'only accepts clients registered beforehand, set "clientId" in the server\'s entry'
        )
    found = first_cause(exc, OAuthTokenError)
    if found is not None:
        return f"the authorization server did not issue tokens ({_oauth_error(str(found))})"
    found = first_cause(exc, OAuthFlowError)
    if found is not None:
        return f"the sign-in stopped: {found}"
    connection = connection_failure(exc, where)
    if connection is not None:
        return connection
    found = first_cause(exc, TimeoutError)
    if found is not None:
        return f"{where} did not complete the sign-in in time"
    found = first_cause(exc, EdgeHostError)
    if found is not None:
        return str(found)
    return describe_failure(exc)
