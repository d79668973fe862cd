"""`edgehost servers search QUERY` and `edgehost servers add NAME`: servers from the MCP Registry.

`add` shows the exact command that will run and asks before it writes the entry (``--yes`` for scripts);
the values the entry needs are asked on the terminal (secrets unseen) or given with ``--set KEY=VALUE``;
then the server is started once, so the person sees its tools or why it failed.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from edgehost.cli.context import CliContext, parse_pairs, positive_float, print_json
from edgehost.errors import UsageError

if TYPE_CHECKING:
    from edgehost.registry.client import Listing, RegistryClient
    from edgehost.registry.install import InstallOption

# The first start of a registry server downloads its package (npx, uvx, docker pull): it may take a while.
FIRST_START_WAIT_S = 120.0


def register(servers: argparse.ArgumentParser) -> None:
    """`search` and `add` under `edgehost servers`."""
    sub = servers.add_subparsers(dest="servers_command", metavar="SUBCOMMAND")
    p = sub.add_parser(
        "search",
        help="search the MCP Registry (registry_url setting, EDGEHOST_REGISTRY_URL over it)",
        description="Search the MCP Registry for servers; without a query, list them.",
    )
    p.add_argument("query", nargs="?", default="", help="words of the server's name")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(handler=search_command)

    p = sub.add_parser(
        "add",
        help="add a server from the MCP Registry to the servers file",
        description=(
            "Add a server from the MCP Registry: choose how it runs here, ask the values it needs, show the"
            " command and ask before it is added; then start it once and show its tools."
        ),
    )
    p.add_argument(
        "name", metavar="REGISTRY_NAME", help="the server's registry name (io.github.owner/server)"
    )
    p.add_argument("--as", dest="as_name", metavar="NAME", help="its name in the servers file")
    p.add_argument(
        "--via",
        metavar="KIND",
        help="how to run it: npm, pypi, oci, nuget or remote (default: the first this machine can run)",
    )
    p.add_argument(
        "--set", dest="values", action="append", default=[], metavar="KEY=VALUE", help="a value it asks for"
    )
    p.add_argument("--yes", action="store_true", help="add without asking (values not given take defaults)")
    p.add_argument(
        "--wait",
        type=positive_float,
        default=FIRST_START_WAIT_S,
        metavar="SECONDS",
        help=f"how long its first start may take (default {FIRST_START_WAIT_S:g})",
    )
    p.set_defaults(handler=add_command)


def _client(ctx: CliContext) -> RegistryClient:
    from edgehost.registry.client import RegistryClient, registry_url

    return RegistryClient(registry_url(ctx.settings.registry_url), ctx.paths.cache_dir / "registry")


def _age(seconds: float) -> str:
    minutes = seconds / 60
    if minutes < 90:
        return f"{minutes:.0f} minutes"
    hours = minutes / 60
    return f"{hours:.0f} hours" if hours < 36 else f"{hours / 24:.0f} days"


def _offline_note(client: RegistryClient, why: str | None, fetched_at: float) -> None:
    if why is not None:
        print(
            f"(the registry {client.base_url} cannot be reached: {why}; shown as it was {_age(time.time() - fetched_at)}"
            " ago)",
            file=sys.stderr,
        )


async def search_command(ctx: CliContext) -> int:
    from edgehost.registry.install import install_options, run_labels

    client = _client(ctx)
    listing: Listing = await client.search(ctx.args.query)
    rows: list[dict[str, Any]] = []
    for entry in listing.entries:
        kinds, here = run_labels(install_options(entry))
        rows.append(
            {
                "name": entry.name,
                "title": entry.display_name,
                "version": entry.version,
                "description": entry.description,
                "runs_as": kinds,
                "runs_here": here,
            }
        )
    if ctx.args.json:
        print_json(rows)
        _offline_note(client, listing.offline, listing.fetched_at)
        return 0
    if not rows:
        print(f"no server in {client.base_url} matches {ctx.args.query!r}")
    for row in rows:
        runs_here = ", ".join(row["runs_here"]) or "not on this machine yet"
        runs_as = ", ".join(row["runs_as"]) or "nothing to run"
        print(f"{row['name']} {row['version']}  [{runs_as}; here: {runs_here}]")
        if row["description"]:
            print(f"  {row['description']}")
    if listing.next_cursor:
        print("(more on the registry: make the query longer)")
    _offline_note(client, listing.offline, listing.fetched_at)
    return 0


def _choose(options: Sequence[InstallOption], via: str | None, name: str) -> InstallOption:
    if not options:
        raise UsageError(f"{name} lists no package or remote to run")
    if via is not None:
        chosen = [o for o in options if o.kind == via.lower()]
        if not chosen:
            kinds = ", ".join(dict.fromkeys(o.kind for o in options))
            raise UsageError(f"{name} does not run as {via}; it runs as {kinds}")
        return chosen[0]
    for option in options:
        if option.why_not_here() is None:
            return option
    reasons = "\n".join(f"  {o.label}: {o.why_not_here()}" for o in options)
    raise UsageError(f"this machine cannot run {name} yet:\n{reasons}")


async def read_line(prompt: str) -> str:
    return await asyncio.to_thread(input, prompt)


async def _read_unseen(prompt: str) -> str:
    return await asyncio.to_thread(getpass.getpass, prompt)


def _write(text: str) -> None:
    print(text, end="", flush=True)


async def form_values(ctx: CliContext, schema: dict[str, Any], what: str, asking: bool) -> dict[str, Any]:
    """The values of the form ``schema`` (``what`` asks them): ``--set KEY=VALUE`` first, the defaults,
    then (``asking``: on a terminal, without --yes) each field not set, asked."""
    from edgehost.cli.terminal_elicitation import ask_field
    from edgehost.form_fields import form_fields, parse_field_text

    fields = form_fields(schema)
    given = parse_pairs(ctx.args.values)
    unknown = sorted(set(given) - {f.name for f in fields})
    if unknown:
        known = ", ".join(f.name for f in fields) or "none"
        raise UsageError(f"{what} asks for no {', '.join(unknown)} (it asks for: {known})")
    answers: dict[str, Any] = {}
    for field in fields:
        if field.name in given:
            try:
                answers[field.name] = parse_field_text(field, given[field.name])
            except ValueError as exc:
                raise UsageError(f"--set {field.name}: {exc}") from None
        elif field.has_default:
            answers[field.name] = field.default
    if asking:
        for field in fields:
            if field.name not in given:
                await ask_field(
                    field, answers, read_line, _write, "please answer, or Ctrl-C to stop", _read_unseen
                )
    return answers


async def add_command(ctx: CliContext) -> int:
    from edgehost.mcp.auth import default_credential_store
    from edgehost.mcp.inputs import InputValues
    from edgehost.registry.adding import add_to_servers_file, free_server_name
    from edgehost.registry.install import install_options

    client = _client(ctx)
    entry, offline = await client.latest(ctx.args.name)
    if offline is not None:
        print(f"(the registry {client.base_url} cannot be reached: {offline}; using what it said before)")
    option = _choose(install_options(entry), ctx.args.via, entry.name)
    image_problem = option.image_problem()
    if image_problem is not None:
        raise UsageError(f"{entry.name} would not run here: {image_problem}")
    if option.kind == "mcpb":
        return await _add_bundle(ctx, option)
    name = ctx.args.as_name or free_server_name(ctx.paths, entry.short_name)
    if ctx.args.as_name:
        free_server_name(ctx.paths, name)  # checks the name; an entry of that name is replaced
    on_terminal = sys.stdin.isatty() and not ctx.args.yes
    print(f"{entry.display_name} {entry.version} ({entry.name}), as {option.label}")
    if entry.status == "deprecated":
        print(f"  deprecated by its publisher: {entry.status_message or 'no reason given'}")
    values = await form_values(ctx, option.form_schema(), option.entry.name, on_terminal)
    try:
        plan = option.plan(name, values)
    except ValueError as exc:
        raise UsageError(f"{exc}: give it with --set KEY=VALUE") from None
    why_not = option.why_not_here()
    command, *more = plan.summary()
    print(f"It will run as {name!r}: {command}")
    for line in more:
        print(f"  with the {line}")
    if why_not is not None:
        print(f"  (not on this machine yet: {why_not})")
    if not ctx.args.yes:
        if not on_terminal:
            raise UsageError("nothing was added: add --yes to add a server without a terminal to ask on")
        if (await read_line("Add it? [y/N] ")).strip().lower() not in ("y", "yes"):
            print("nothing was added")
            return 1

    def input_values() -> InputValues:
        return InputValues(default_credential_store(ctx.paths.data_dir))

    add_to_servers_file(ctx.paths, plan, input_values)
    print(f"added {name} to {ctx.paths.servers_file}")
    if plan.secrets:
        print(f"  its secrets are kept in {input_values().store.where}, not in the file")
    if why_not is not None:
        return 0
    return await first_start(ctx, name)


async def _add_bundle(ctx: CliContext, option: InstallOption) -> int:
    """A registry entry's MCPB package: downloaded, its SHA-256 checked, then installed as
    `edgehost install` does (its options asked, its command shown)."""
    from edgehost.cli.bundle_commands import install_file
    from edgehost.registry.bundle_download import download_bundle

    assert option.package is not None
    print(f"{option.entry.display_name} {option.entry.version} ({option.entry.name}), as a bundle")
    print(f"downloading {option.package.identifier} …", flush=True)
    path = await asyncio.to_thread(download_bundle, option, ctx.paths.cache_dir / "bundles")
    print(f"its SHA-256 is the registry's ({option.package.file_sha256})")
    return await install_file(ctx, path, ctx.args.as_name)


async def first_start(ctx: CliContext, name: str) -> int:
    """Start the new server once: its tools, or why it failed."""
    from edgehost.cli.servers_host import connected, state_of
    from edgehost.mcp.server_state import ServerStatus

    print(f"starting {name} (its first start may download it) …", flush=True)
    config = ctx.servers_config()
    async with connected(ctx, config, [name], ctx.args.wait) as host:
        state = state_of(host, name)
        tools = [t.name for t in host.tools() if t.server == name]
    if state.status is ServerStatus.READY:
        print(f"{name}: ready, {len(tools)} tool{'' if len(tools) == 1 else 's'}: {', '.join(tools)}")
        return 0
    if state.status is ServerStatus.STARTING:
        print(f"{name}: still starting after {ctx.args.wait:g} s; `edgehost servers` shows it later")
        return 1
    print(f"{name}: {state.status.value}: {state.error or 'no reason given'}")
    for line in state.stderr_tail[-10:]:
        print(f"  {line}")
    return 1
