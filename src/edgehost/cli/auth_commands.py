"""`edgehost auth login SERVER | logout SERVER | status [--json]`: OAuth sign-in for remote servers.

Login opens the authorization page in the browser and catches the redirect on a loopback port; the
tokens go to the OS keyring (or a 0600 file in the data folder). Every command drives a Host without a
model and without connecting the servers.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time
import urllib.parse
import webbrowser
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from edgehost.cli.context import CliContext, print_json
from edgehost.errors import EdgeHostError, UsageError
from edgehost.mcp.auth import AuthStatus

if TYPE_CHECKING:
    from edgehost.host.host import Host


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("auth", help="sign in to remote servers that use OAuth (login, logout, status)")
    auth_sub = p.add_subparsers(dest="auth_command", metavar="ACTION", required=True)

    login = auth_sub.add_parser(
        "login",
        help="sign in to a server: opens the browser, catches the redirect on a localhost port",
        description="Sign in to SERVER (an http/sse server of your config that uses OAuth). The authorization "
        "page opens in your browser; after you approve, the browser is sent back to a port on 127.0.0.1 where "
        "EdgeHost reads the answer. The tokens are kept in the OS keyring (or a private file in the data "
        "folder) and refreshed as needed.",
    )
    login.add_argument("server", metavar="SERVER")
    login.add_argument(
        "--no-browser", action="store_true", help="print the authorization URL instead of opening the browser"
    )
    login.set_defaults(handler=login_command)

    logout = auth_sub.add_parser("logout", help="forget a server's tokens and client registration")
    logout.add_argument("server", metavar="SERVER")
    logout.set_defaults(handler=logout_command)

    status = auth_sub.add_parser(
        "status", help="show which remote servers are signed in (tokens are never shown)"
    )
    status.add_argument("server", metavar="SERVER", nargs="?", help="only this server")
    status.add_argument("--json", action="store_true", help="print a JSON list")
    status.set_defaults(handler=status_command)


@asynccontextmanager
async def _host(ctx: CliContext) -> AsyncIterator[Host]:
    from edgehost.host.host import Host
    from edgehost.host.options import HostOptions

    host = Host(
        ctx.paths, ctx.settings, HostOptions(with_model=False, with_servers=False), ctx.profile_override
    )
    await host.start()
    try:
        yield host
    finally:
        await host.aclose()


def _open_url(no_browser: bool) -> Callable[[str], None]:
    def show(url: str) -> None:
        print(f"Open this page to sign in:\n  {url}", file=sys.stderr, flush=True)
        if no_browser:
            _say_how_to_forward(url)
            return
        # webbrowser may wait for the browser program to exit: off the loop, which must go on serving
        # the loopback port the browser comes back to.
        threading.Thread(target=_open_browser, args=(url,), name="edgehost-browser", daemon=True).start()

    return show


def _open_browser(url: str) -> None:
    """Open ``url`` in the browser; say so when none could be (no display, no $BROWSER, a browser that
    refuses to start), so that the person opens the page printed above themselves."""
    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened:
        print(
            "No browser could be opened here: open the page above in a browser yourself"
            " (or use --no-browser next time).",
            file=sys.stderr,
            flush=True,
        )
        _say_how_to_forward(url)


def _say_how_to_forward(url: str) -> None:
    port = _callback_port(url)
    if port is not None:
        print(
            f"The page sends your browser back to port {port} of this machine. From another computer,"
            f" forward that port first: ssh -L {port}:127.0.0.1:{port} THIS-MACHINE",
            file=sys.stderr,
            flush=True,
        )


def _callback_port(authorization_url: str) -> int | None:
    """The loopback port of the redirect URI an authorization URL carries (None: not a loopback one)."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(authorization_url).query)
    redirect = urllib.parse.urlsplit(query.get("redirect_uri", [""])[0])
    return redirect.port if redirect.hostname in ("127.0.0.1", "localhost", "::1") else None


async def login_command(ctx: CliContext) -> int:
    async with _host(ctx) as host:
        try:
            host.auth_status(ctx.args.server)
        except EdgeHostError as exc:
            raise UsageError(str(exc)) from None
        print(f"Signing in to {ctx.args.server} ...", file=sys.stderr, flush=True)
        try:
            status = await host.sign_in(ctx.args.server, _open_url(ctx.args.no_browser))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        except EdgeHostError as exc:  # SignInFailed says why; or the credential store, an unknown server
            raise EdgeHostError(f"sign-in to {ctx.args.server!r} failed: {exc}") from None
        except asyncio.CancelledError:  # Ctrl-C
            print("Sign-in cancelled; the earlier sign-in, if any, is kept.", file=sys.stderr, flush=True)
            raise
    print(f"{status.server}: {status.state}" + (f" (scope {status.scope})" if status.scope else ""))
    return 0


async def logout_command(ctx: CliContext) -> int:
    async with _host(ctx) as host:
        try:
            forgotten = host.sign_out(ctx.args.server)
        except EdgeHostError as exc:
            raise UsageError(str(exc)) from None
    print(f"{ctx.args.server}: signed out" if forgotten else f"{ctx.args.server}: was not signed in")
    return 0


def _when(seconds: float | None) -> str:
    if seconds is None:
        return ""
    left = seconds - time.time()
    if left <= 0:
        return "expired"
    return f"expires in {int(left // 60)} min" if left < 7200 else f"expires in {left / 3600:.0f} h"


def _line(status: AuthStatus) -> str:
    parts = [f"{status.server}: {status.state}"]
    if status.state == "not used":
        return parts[0]
    details = [
        f"client {status.client_id} ({status.registered})" if status.client_id else "",
        f"scope {status.scope}" if status.scope else "",
        _when(status.expires_at) if status.state == "signed in" else "",
        "refreshable" if status.refreshable else "",
    ]
    shown = [d for d in details if d]
    return parts[0] + (f"  [{', '.join(shown)}]" if shown else "")


async def status_command(ctx: CliContext) -> int:
    async with _host(ctx) as host:
        if ctx.args.server:
            try:
                statuses = [host.auth_status(ctx.args.server)]
            except EdgeHostError as exc:
                raise UsageError(str(exc)) from None
        else:
            statuses = host.auth_statuses()
        where = host.auth().store.where
    if ctx.args.json:
        print_json([s.to_json() for s in statuses])
        return 0
    if not statuses:
        print("no servers configured")
    for status in statuses:
        print(_line(status))
    print(f"(credentials kept in {where})", file=sys.stderr)
    return 0
