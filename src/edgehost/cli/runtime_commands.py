"""`edgehost runtimes`: the programs servers run with (Node.js, uv, Docker, Python), found here or not;
`edgehost runtimes install node` puts Node into the data folder after showing its download size and
asking (``--yes`` for scripts); `edgehost runtimes remove node` takes it out."""

from __future__ import annotations

import argparse
import sys

from edgehost.cli.context import CliContext, print_json
from edgehost.errors import UsageError

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "runtimes",
        help="the runtimes servers need (Node.js, uv, Docker, Python): found here or not",
        description="List the runtimes servers run with, or install Node.js into the data folder.",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(handler=list_command)
    actions = p.add_subparsers(dest="runtimes_command", metavar="ACTION")
    install = actions.add_parser("install", help="install Node.js into the data folder (from PyPI)")
    install.add_argument("name", choices=["node"], help="the runtime: node")
    install.add_argument("--yes", action="store_true", help="install without asking")
    install.set_defaults(handler=install_command)
    remove = actions.add_parser("remove", help="remove the Node.js of the data folder")
    remove.add_argument("name", choices=["node"], help="the runtime: node")
    remove.set_defaults(handler=remove_command)


def list_command(ctx: CliContext) -> int:
    from edgehost.mcp.node_runtime import installed_node
    from edgehost.mcp.runtimes import runtime_inventory

    node = installed_node(ctx.paths.data_dir)
    rows = runtime_inventory()
    if ctx.args.json:
        print_json({"runtimes": rows, "node_in_data_folder": node})
        return 0
    for row in rows:
        where = row["found"] or f"MISSING - {row['install']}"
        print(f"{row['runtime']:8} {row['program']:8} {where}")
    if node:
        print(f"(Node.js {node} is installed in the data folder; `edgehost runtimes remove node` removes it)")
    return 0


def install_command(ctx: CliContext) -> int:
    from edgehost.mcp.node_runtime import NODE_VERSION, install_node, installed_node, node_wheel

    present = installed_node(ctx.paths.data_dir)
    if present == NODE_VERSION:
        print(f"Node.js {present} is already installed in {ctx.paths.data_dir}")
        return 0
    wheel = node_wheel()
    print(
        f"Node.js {NODE_VERSION} from PyPI ({wheel.filename}): a {wheel.size / 1e6:.0f} MB download,"
        f" about {wheel.size * 3.4 / 1e6:.0f} MB in {ctx.paths.data_dir}"
    )
    if not ctx.args.yes:
        if not sys.stdin.isatty():
            raise UsageError("nothing was installed: add --yes to install without a terminal to ask on")
        if input("Install it? [y/N] ").strip().lower() not in ("y", "yes"):
            print("nothing was installed")
            return 1
    version = install_node(ctx.paths.data_dir)
    print(f"installed Node.js {version}: servers that run npx or node now find it")
    return 0


def remove_command(ctx: CliContext) -> int:
    from edgehost.mcp.node_runtime import remove_node

    removed = remove_node(ctx.paths.data_dir)
    print(
        "removed the Node.js of the data folder" if removed else "no Node.js is installed in the data folder"
    )
    return 0
