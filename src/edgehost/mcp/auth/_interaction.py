"""The person's part of the authorization-code flow: open the authorization page, get the redirect back.

Three ways, one interface (``Authorizer``):

- ``BrowserAuthorizer``: opens the page in the user's browser and catches the redirect on a loopback
  port (RFC 8252 §7.3) - what `edgehost auth login` and the GUI's "Sign in" do;
- ``HeadlessAuthorizer``: requests the page itself and reads the redirect's ``Location`` - for an
  authorization server that redirects at once (`edgehost probe`, tests, the conformance suite);
- ``NoAuthorizer``: a background connection that must not open anything; it says sign-in is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import socket
from collections.abc import Callable
from typing import NoReturn, Protocol
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp.shared.auth import AuthorizationCodeResult

from edgehost.awaiting import WaitTimedOut, wait_done

__all__ = [
    "CALLBACK_PATH",
    "AuthorizationDenied",
    "AuthorizationRefused",
    "Authorizer",
    "BrowserAuthorizer",
    "HeadlessAuthorizer",
    "LoopbackPortError",
    "NoAuthorizer",
    "SignInRequired",
    "SignInTimedOut",
    "free_loopback_port",
    "loopback_redirect_uri",
]

CALLBACK_PATH = "/callback"
# A person signs in within this; after it the login command gives up (and the port is closed).
SIGN_IN_TIMEOUT_S = 300.0
# Reading one callback request from the browser on the loopback port.
_CALLBACK_READ_TIMEOUT_S = 10.0
# The authorization endpoint answers a headless request at once or not at all.
_HEADLESS_TIMEOUT_S = 30.0


class SignInRequired(Exception):
    """The server needs the user to sign in (a browser step), and this connection may not start one."""

    def __init__(self, server: str) -> None:
        super().__init__(
            f"sign-in required: run `edgehost auth login {server}` (or use Sign in in the servers panel)"
        )
        self.server = server


def loopback_redirect_uri(port: int) -> str:
    return f"http://127.0.0.1:{port}{CALLBACK_PATH}"


def free_loopback_port() -> int:
    """A port nobody listens on now, to register as the redirect URI's port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _code_result(location: str) -> AuthorizationCodeResult:
    """The authorization response carried by a redirect URL. Raises AuthorizationDenied on an error
    response (RFC 6749 §4.1.2.1) or a URL without a code."""
    query = parse_qs(urlparse(location).query)

    def first(name: str) -> str | None:
        values = query.get(name)
        return values[0] if values else None

    code = first("code")
    if code is None:
        raise AuthorizationRefused(
            first("error") or "no authorization code in the redirect", first("error_description")
        )
    return AuthorizationCodeResult(code=code, state=first("state"), iss=first("iss"))


class LoopbackPortError(OSError):
    """The loopback port the browser is to come back to cannot be listened on."""


class AuthorizationDenied(Exception):
    """The authorization step did not give a code (the user declined, a bad request, no answer)."""


class AuthorizationRefused(AuthorizationDenied):
    """The authorization server sent the browser back with an error (RFC 6749 §4.1.2.1): ``error`` is
    its code (``access_denied`` when the user declined), ``description`` its words if any."""

    def __init__(self, error: str, description: str | None = None) -> None:
        super().__init__(f"{error}: {description}" if description else error)
        self.error = error
        self.description = description


class SignInTimedOut(AuthorizationDenied):
    """Nobody came back from the authorization page within the sign-in's time."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no sign-in within {seconds:g} s")
        self.seconds = seconds


class Authorizer(Protocol):
    """Carries out the browser step of one authorization-code flow."""

    redirect_uri: str

    async def redirect(self, authorization_url: str) -> None:
        """Send the person (or a client) to ``authorization_url``."""
        ...

    async def callback(self) -> AuthorizationCodeResult:
        """The authorization response that came back to ``redirect_uri``."""
        ...


class NoAuthorizer:
    """A background connection's authorizer: refreshing works, anything needing a person raises
    SignInRequired."""

    def __init__(self, server: str, redirect_uri: str, on_needed: Callable[[], None] | None = None) -> None:
        self.server = server
        self.redirect_uri = redirect_uri
        self._on_needed = on_needed

    def refuse(self) -> NoReturn:
        """Say that a person is needed: mark it, raise SignInRequired."""
        if self._on_needed is not None:
            self._on_needed()
        raise SignInRequired(self.server)

    async def redirect(self, authorization_url: str) -> None:
        self.refuse()

    async def callback(self) -> AuthorizationCodeResult:  # pragma: no cover - redirect() raised
        raise SignInRequired(self.server)


class HeadlessAuthorizer:
    """Follows the authorization URL with an HTTP client and reads the code from the redirect.

    Works with an authorization server that redirects without a login page (already signed in, a test
    server, the conformance suite's mock); one that shows a page needs a person, which is said."""

    def __init__(self, redirect_uri: str = "http://localhost:3000/callback") -> None:
        self.redirect_uri = redirect_uri
        self._result: AuthorizationCodeResult | None = None

    async def redirect(self, authorization_url: str) -> None:
        async with httpx2.AsyncClient(timeout=_HEADLESS_TIMEOUT_S, follow_redirects=False) as http:
            response = await http.get(authorization_url)
            # Hops inside the authorization server (a login step that needs no person) are followed;
            # the hop to our redirect URI is where the answer is.
            for _ in range(10):
                location = response.headers.get("location")
                if not response.is_redirect or not location:
                    break
                target = str(response.url.join(location))
                if target.startswith(self.redirect_uri.split("?")[0]):
                    self._result = _code_result(target)
                    return
                response = await http.get(target)
        raise AuthorizationDenied(
            f"the authorization page needs a person (HTTP {response.status_code} from "
            f"{urlparse(authorization_url).netloc}): sign in with `edgehost auth login`"
        )

    async def callback(self) -> AuthorizationCodeResult:
        result, self._result = self._result, None
        if result is None:
            raise AuthorizationDenied("no authorization response was received")
        return result


_PAGE = (
    "<!doctype html><meta charset=utf-8><title>EdgeHost</title>"
    "<body style='font-family:sans-serif;margin:3em'><h2>{title}</h2><p>{text}</p></body>"
)


class BrowserAuthorizer:
    """Opens the authorization page in the browser and catches the redirect on 127.0.0.1:port.

    Use as ``async with BrowserAuthorizer(...) as authorizer`` so that the port is listening before the
    page opens and closed after. ``port`` 0 picks a free one; a pre-registered client needs the one it
    registered (``callbackPort`` in the server's entry). With ``any_port_if_taken`` a port in use is
    replaced by a free one (the client then registers again with that redirect URI).
    """

    def __init__(
        self,
        open_url: Callable[[str], object],
        port: int = 0,
        timeout: float = SIGN_IN_TIMEOUT_S,
        *,
        any_port_if_taken: bool = False,
    ) -> None:
        self._open_url = open_url
        self._requested_port = port
        self._any_port_if_taken = any_port_if_taken
        self._timeout = timeout
        self._server: asyncio.Server | None = None
        self._answer: asyncio.Future[AuthorizationCodeResult] | None = None
        self.redirect_uri = ""

    async def __aenter__(self) -> BrowserAuthorizer:
        self._answer = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._requested_port)
        except OSError as exc:
            if not (self._any_port_if_taken and self._requested_port):
                raise LoopbackPortError(
                    f"cannot listen on 127.0.0.1:{self._requested_port} for the browser to come back to "
                    f"({exc.strerror or exc}): stop what uses that port, or change the server's callbackPort"
                ) from None
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.redirect_uri = loopback_redirect_uri(port)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def redirect(self, authorization_url: str) -> None:
        self._open_url(authorization_url)

    async def callback(self) -> AuthorizationCodeResult:
        assert self._answer is not None, "use BrowserAuthorizer in `async with`"
        try:
            return await wait_done(self._answer, self._timeout)
        except WaitTimedOut:
            raise SignInTimedOut(self._timeout) from None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = await asyncio.wait_for(reader.readline(), _CALLBACK_READ_TIMEOUT_S)
            parts = request_line.decode("latin-1").split()
            target = parts[1] if len(parts) >= 2 else "/"
            if urlparse(target).path != CALLBACK_PATH:
                await _respond(writer, 404, "Not found", "This is EdgeHost's sign-in callback.")
                return
            try:
                result = _code_result(target)
            except AuthorizationDenied as exc:
                await _respond(writer, 400, "Sign-in failed", str(exc))
                if self._answer is not None and not self._answer.done():
                    self._answer.set_exception(exc)
                return
            await _respond(writer, 200, "Signed in", "You can close this tab and return to EdgeHost.")
            if self._answer is not None and not self._answer.done():
                self._answer.set_result(result)
        except (TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


async def _respond(writer: asyncio.StreamWriter, status: int, title: str, text: str) -> None:
    body = _PAGE.format(title=html.escape(title), text=html.escape(text)).encode()
    head = (
        f"HTTP/1.1 {status} {title}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode() + body)
    await writer.drain()
