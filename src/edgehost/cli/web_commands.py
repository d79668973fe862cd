"""`edgehost web`: the chat page for headless boards, served on the LAN by the same Host the window uses."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from pathlib import Path

from edgehost.cli.context import CliContext
from edgehost.cli.terminal import add_model_options
from edgehost.errors import EdgeHostError, UsageError

__all__ = ["register"]

DEFAULT_PORT = 8765


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "web",
        help="serve the chat page on the network (for boards without a screen)",
        description=(
            "Serve the chat page. On 127.0.0.1 (the default) only this machine can reach it; on any other "
            "address, the LAN. Either way the page needs a token, made on the first start, kept in the "
            "data folder and printed here as a link; a request must name this machine (its address or "
            "name), so a web site pointed at it is refused."
        ),
    )
    parser.add_argument(
        "--host", default="127.0.0.1", metavar="ADDRESS", help="listen on ADDRESS (0.0.0.0: every one)"
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"listen on PORT (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--token-file", metavar="FILE", help="read the token from FILE, writing a new one when it is absent"
    )
    add_model_options(parser)
    parser.set_defaults(handler=run_web)


def parse_address(text: str) -> tuple[str, int]:
    """ADDRESS or ADDRESS:PORT (an IPv6 address in brackets: [::]:8765). Raises UsageError."""
    host, port = text, DEFAULT_PORT
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest:
            if not rest.startswith(":"):
                raise UsageError(f"--web takes ADDRESS[:PORT], got {text!r}")
            port = _port(rest[1:], text)
    elif text.count(":") == 1:
        host, _, number = text.partition(":")
        port = _port(number, text)
    if not host:
        raise UsageError(f"--web takes ADDRESS[:PORT], got {text!r}")
    return host, port


def _port(number: str, text: str) -> int:
    if not number.isdigit() or not 0 <= int(number) < 65536:  # 0: any free port
        raise UsageError(f"--web takes ADDRESS[:PORT] with a port from 0 to 65535, got {text!r}")
    return int(number)


async def run_web(ctx: CliContext) -> int:
    from edgehost.host.host import Host
    from edgehost.host.options import HostOptions
    from edgehost.web.serve import serving

    args = ctx.args
    options = HostOptions(backend_name=args.backend, model=args.model, rkllm_lib=args.rkllm_lib)
    host = Host(ctx.paths, ctx.settings, options, profile_override=ctx.profile_override)
    token_file = Path(args.token_file) if args.token_file else ctx.paths.data_dir / "web-token"
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    try:
        await host.start()
        try:
            async with serving(host, args.host, args.port, token_file) as server:
                print(f"EdgeHost is serving the chat page at {server.url}", flush=True)
                if server.token_created:
                    print(f"A new token was made and kept in {token_file} (0600).", flush=True)
                else:
                    print(f"The token is the one kept in {token_file}.", flush=True)
                print("Ctrl-C stops it.", flush=True)
                await stop.wait()
        except OSError as exc:
            raise EdgeHostError(str(exc)) from None
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)
        await host.aclose()
    print("stopped", file=sys.stderr, flush=True)
    return 0
