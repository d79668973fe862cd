"""`edgehost config import|show|input` and `edgehost serve board|files`."""

from __future__ import annotations

import argparse
import getpass
import importlib
import sys
from pathlib import Path
from typing import Any

from edgehost.cli.context import CliContext, print_json
from edgehost.errors import UsageError
from edgehost.mcp.auth import default_credential_store
from edgehost.mcp.config import BUILT_INS_ONLY, ServerConfig
from edgehost.mcp.config.edits import import_servers
from edgehost.mcp.inputs import InputValues

# `edgehost serve NAME` runs edgehost.servers.NAME:main(argv) -> int
SERVABLE = ("board", "files")


def register(sub: argparse._SubParsersAction) -> None:
    config = sub.add_parser("config", help="import servers, or show (and check) the servers config")
    config_sub = config.add_subparsers(dest="config_command", metavar="ACTION", required=True)

    imp = config_sub.add_parser(
        "import",
        help="merge a Claude Desktop / VS Code / Cursor servers config into ours",
        description="Merge the servers of FILE (Claude Desktop or Cursor 'mcpServers', VS Code 'servers', "
        "or TOML) into EdgeHost's servers config. ${VAR} references are kept as written. A server we "
        "already have is replaced only with --replace. Exits 1 when an entry was skipped or kept.",
    )
    imp.add_argument(
        "file", metavar="FILE", help="e.g. ~/.config/Claude/claude_desktop_config.json, .vscode/mcp.json"
    )
    imp.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    imp.add_argument(
        "--replace",
        action="store_true",
        help="replace servers we already have under the same name (without it they are kept and the "
        "keys that differ are listed)",
    )
    imp.add_argument("--json", action="store_true", help="print the result as JSON")
    imp.set_defaults(handler=import_command)

    show = config_sub.add_parser(
        "show",
        aliases=["check"],
        help="list the configured servers, with the errors and warnings of their entries (alias: check)",
        description="List the configured servers, with the errors and warnings of their entries. Exits 1 when"
        " the file cannot be read or an entry has an error.",
    )
    show.add_argument("--json", action="store_true", help="print the servers as JSON")
    show.set_defaults(handler=show_command)

    entered = config_sub.add_parser(
        "input",
        help="enter the value of a VS Code ${input:ID} (kept in the OS keyring, as sign-ins are)",
        description="Enter the value of a VS Code-style ${input:ID} reference of the servers file, as VS Code"
        " asks for it; it is kept in the OS keyring (else a 0600 file in the data folder) and used from"
        " the next start. Reads the value without echo from the terminal, or a line from standard input."
        " EDGEHOST_INPUT_<ID> in the environment still wins.",
    )
    entered.add_argument("input_id", metavar="ID", help="the input's id, as in ${input:ID}")
    entered.add_argument("--forget", action="store_true", help="forget the value entered for ID")
    entered.set_defaults(handler=input_command)

    serve = sub.add_parser(
        "serve",
        help="run a built-in MCP server over stdio (board, files)",
        description="Run one of EdgeHost's own MCP servers over stdin/stdout. "
        "files takes --root DIR (default: <data dir>/files).",
    )
    serve.add_argument("server", choices=SERVABLE, help="which built-in server")
    serve.add_argument("server_args", nargs=argparse.REMAINDER, help="options of that server")
    serve.set_defaults(handler=serve_command)


# --- serve --------------------------------------------------------------------------------------


def serve_command(ctx: CliContext) -> int:
    name: str = ctx.args.server
    argv: list[str] = list(ctx.args.server_args)
    if name == "files" and not any(arg == "--root" or arg.startswith("--root=") for arg in argv):
        argv += ["--root", str(ctx.paths.files_root)]  # honours the global --data-dir
    if name == "board" and not any(a == "--config-dir" or a.startswith("--config-dir=") for a in argv):
        argv += ["--config-dir", str(ctx.paths.config_dir)]  # its board_profiles/: the global --data-dir
    profile = ctx.profile_override or ctx.settings.profile
    if name == "board" and profile and not any(a == "--profile" or a.startswith("--profile=") for a in argv):
        argv += ["--profile", profile]  # honours the global --profile
    module = importlib.import_module(f"edgehost.servers.{name}")
    return int(module.main(argv))


# --- config import ------------------------------------------------------------------------------


def import_command(ctx: CliContext) -> int:
    source = Path(ctx.args.file).expanduser()
    target = ctx.paths.servers_file
    plan = import_servers(ctx.paths, source, replace=ctx.args.replace, dry_run=ctx.args.dry_run)
    written = bool(plan.added or plan.replaced) and not ctx.args.dry_run
    exit_code = 1 if plan.skipped or plan.kept else 0
    if ctx.args.json:
        print_json(
            {
                "source": str(source),
                "file": str(target),
                "dry_run": bool(ctx.args.dry_run),
                "written": written,
                "added": plan.added,
                "replaced": plan.replaced,
                "unchanged": plan.unchanged,
                "changedKeys": plan.changes,
                "kept": [{"name": name, "changedKeys": keys} for name, keys in plan.kept.items()],
                "skipped": [{"name": name, "error": error} for name, error in plan.skipped],
                "warnings": [
                    w for name in (*plan.added, *plan.replaced) for w in plan.incoming[name].warnings
                ],
            }
        )
        return exit_code
    by_name = plan.incoming
    for label, names in (("added", plan.added), ("replaced", plan.replaced), ("unchanged", plan.unchanged)):
        for name in names:
            changes = f" (changes {', '.join(plan.changes[name])})" if name in plan.changes else ""
            print(f"{label:<10} {name:<24} {_describe(by_name[name])}{changes}")
    for name, keys in plan.kept.items():
        print(
            f"{'kept':<10} {name:<24} ours differs in {', '.join(keys) or 'its entry'}; "
            "not replaced without --replace",
            file=sys.stderr,
        )
    for name, error in plan.skipped:
        print(f"{'skipped':<10} {name:<24} {error}", file=sys.stderr)
    for name in (*plan.added, *plan.replaced):
        for warning in by_name[name].warnings:
            print(f"{'warning':<10} {name:<24} {warning}", file=sys.stderr)
    counts = f"{len(plan.added)} added, {len(plan.replaced)} replaced, {len(plan.unchanged)} unchanged"
    if plan.kept:
        counts += f", {len(plan.kept)} kept (see --replace)"
    if plan.skipped:
        counts += f", {len(plan.skipped)} skipped"
    if ctx.args.dry_run:
        print(f"dry run: {counts}; {target} was not changed")
    elif written:
        print(f"{counts}; wrote {target}")
    else:
        print(f"{counts}; {target} is already up to date")
    return exit_code


def _describe(server: ServerConfig) -> str:
    """Transport and program or URL, without args, env or headers (they may hold secrets)."""
    if server.transport == "stdio":
        return f"stdio: {server.command}"
    return f"{server.transport}: {(server.url or '').split('?')[0]}"


# --- config input -------------------------------------------------------------------------------


def input_command(ctx: CliContext) -> int:
    input_id: str = ctx.args.input_id
    values = InputValues(default_credential_store(ctx.paths.data_dir))
    if ctx.args.forget:
        forgotten = values.forget(input_id)
        print(f"forgot the value of {input_id}" if forgotten else f"no value was entered for {input_id}")
        return 0
    config = ctx.servers_config()
    spec = config.inputs.get(input_id)
    what = f"{spec.description} ({input_id})" if spec and spec.description else input_id
    value = getpass.getpass(f"{what}: ") if sys.stdin.isatty() else sys.stdin.readline().rstrip("\n")
    if not value:
        raise UsageError(f"no value given for {input_id}: nothing was kept")
    values.set(input_id, value)
    waiting = [s.name for s in config.servers if s.missing_input == input_id]
    print(
        f"kept the value of {input_id} ({values.store.where})"
        + (f"; it starts {', '.join(waiting)}" if waiting else "")
    )
    return 0


# --- config show --------------------------------------------------------------------------------


def show_command(ctx: CliContext) -> int:
    """The servers EdgeHost will run and each entry's problem; exits 1 when the file or an entry has one."""
    # As the app and every command that runs servers: a file that cannot be read leaves the built-ins.
    config = ctx.servers_config()
    rows = [_server_row(server) for server in config.servers]
    if config.file_error:
        print(f"edgehost: {config.file_error}; {BUILT_INS_ONLY}", file=sys.stderr)
    if ctx.args.json:
        print_json(rows)
    else:
        exists = ctx.paths.servers_file.exists()
        print(
            f"servers config: {ctx.paths.servers_file}{'' if exists or config.file_error else ' (none yet)'}"
        )
        for row in rows:
            state = "error" if row["error"] else ("enabled" if row["enabled"] else "disabled")
            tags = " (built-in)" if row["builtin"] else ""
            print(f"{row['name']:<24} {state:<9} {row['transport']:<6} {row['target'] or ''}{tags}")
            if row["error"]:
                print(f"    {row['error']}")
            for warning in row["warnings"]:
                print(f"    warning: {warning}")
    return 1 if config.file_error or any(row["error"] for row in rows) else 0


def _server_row(server: ServerConfig) -> dict[str, Any]:
    return {
        "name": server.name,
        "transport": server.transport,
        "target": server.url if server.transport != "stdio" else server.command,
        "enabled": server.enabled,
        "builtin": server.builtin,
        "trusted": server.trusted,
        "timeout": server.timeout,
        "env": sorted(server.env),  # names only: the values may be secrets
        "source": server.source,
        "error": server.error,
        "warnings": list(server.warnings),
    }
