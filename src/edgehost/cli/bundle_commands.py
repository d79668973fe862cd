"""`edgehost install FILE.mcpb`, `edgehost uninstall NAME` and `edgehost bundles`: MCPB bundles.

`install` checks the bundle (its manifest, its platforms, a binary's architecture), asks its options on
the terminal (secrets unseen) or takes them from ``--set KEY=VALUE``, shows the command it will run and
asks (``--yes`` for scripts), unpacks it into the data folder and starts it once.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from edgehost.cli.context import CliContext, print_json
from edgehost.cli.registry_commands import first_start, form_values, read_line
from edgehost.errors import UsageError

if TYPE_CHECKING:
    from edgehost.mcp.inputs import InputValues

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "install",
        help="install an MCPB bundle (.mcpb) as a server",
        description="Install an MCPB bundle: check it, ask its options, show its command, unpack it, start it.",
    )
    p.add_argument("file", metavar="FILE.mcpb", type=Path, help="the bundle")
    p.add_argument(
        "--as", dest="as_name", metavar="NAME", help="its server name (default: the bundle's name)"
    )
    p.add_argument(
        "--set", dest="values", action="append", default=[], metavar="KEY=VALUE", help="an option it asks for"
    )
    p.add_argument(
        "--yes", action="store_true", help="install without asking (options not given take defaults)"
    )
    p.add_argument(
        "--wait", type=float, default=120.0, metavar="SECONDS", help="how long its first start may take"
    )
    p.set_defaults(handler=install_command)

    p = sub.add_parser("uninstall", help="remove an installed MCPB bundle and its server")
    p.add_argument("name", metavar="NAME", help="the bundle's server name (see `edgehost bundles`)")
    p.set_defaults(handler=uninstall_command)

    p = sub.add_parser("bundles", help="list the installed MCPB bundles")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(handler=list_command)


def _input_values(ctx: CliContext) -> Callable[[], InputValues]:
    """The credential store's input values, opened when first needed (a bundle may have no secrets)."""
    from edgehost.mcp.auth import default_credential_store
    from edgehost.mcp.inputs import InputValues

    return lambda: InputValues(default_credential_store(ctx.paths.data_dir))


async def install_command(ctx: CliContext) -> int:
    return await install_file(ctx, ctx.args.file, ctx.args.as_name)


async def install_file(ctx: CliContext, path: Path, as_name: str | None) -> int:
    """`edgehost install` of the bundle at ``path`` (a registry entry's, once downloaded, too)."""
    from edgehost.bundles.installing import (
        bundles_folder,
        install_bundle,
        open_bundle,
        previous_values,
        stored_secrets,
    )
    from edgehost.mcp.config import server_name_problem

    bundle = open_bundle(path)
    manifest = bundle.manifest
    name = as_name or bundle.server_name
    problem = server_name_problem(name)
    if problem is not None:
        raise UsageError(f"{name!r} cannot name a server: {problem}")
    print(f"{manifest.title} {manifest.version} by {manifest.author.name} ({manifest.server.type} server)")
    print(f"  {manifest.description}")
    why_not = bundle.why_not_here()
    if why_not is not None:
        print(f"edgehost: {manifest.title} cannot run here: {why_not}", file=sys.stderr)
        return 1
    values = _input_values(ctx)
    kept = stored_secrets(bundle, name, values)
    previous = previous_values(ctx.paths.data_dir, name)
    if previous or kept:
        print(f"  (installed before as {name}: its options are kept unless you change them)")
    on_terminal = sys.stdin.isatty() and not ctx.args.yes
    answers = await form_values(ctx, bundle.form_schema(previous, kept), manifest.name, on_terminal)
    folder = bundles_folder(ctx.paths.data_dir) / name
    try:
        plan = bundle.plan(name, folder, answers, kept)
    except ValueError as exc:
        raise UsageError(f"{exc}: give it with --set KEY=VALUE") from None
    command, *more = plan.summary()
    print(f"It will run as {name!r}: {command}")
    for line in more:
        print(f"  with the {line}")
    if not ctx.args.yes:
        if not on_terminal:
            raise UsageError(
                "nothing was installed: add --yes to install a bundle without a terminal to ask on"
            )
        if (await read_line("Install it? [y/N] ")).strip().lower() not in ("y", "yes"):
            print("nothing was installed")
            return 1
    install_bundle(ctx.paths, bundle, name, answers, values)
    print(
        f"installed {manifest.title} {manifest.version} in {folder}; added {name} to {ctx.paths.servers_file}"
    )
    return await first_start(ctx, name)


def uninstall_command(ctx: CliContext) -> int:
    from edgehost.bundles.installing import uninstall_bundle

    removed = uninstall_bundle(ctx.paths, ctx.args.name, _input_values(ctx))
    print(
        f"uninstalled {removed.title} {removed.version} ({removed.name}): its folder, options and server entry"
    )
    return 0


def list_command(ctx: CliContext) -> int:
    from edgehost.bundles.installing import installed_bundles

    bundles = installed_bundles(ctx.paths.data_dir)
    if ctx.args.json:
        print_json(
            [
                {"name": b.name, "title": b.title, "version": b.version, "folder": str(b.folder)}
                for b in bundles
            ]
        )
        return 0
    if not bundles:
        print("no bundles are installed (edgehost install FILE.mcpb)")
    for bundle in bundles:
        print(f"{bundle.name} {bundle.version}  {bundle.title}  ({bundle.folder})")
    return 0
