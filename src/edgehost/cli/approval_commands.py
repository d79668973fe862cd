"""`edgehost approvals`: the user's approval rules (the servers file's ``approval`` list) and the calls
answered "Always" (kept in the history), and `approvals forget` to take such an answer back."""

from __future__ import annotations

import argparse
from fnmatch import fnmatchcase

from edgehost.cli.context import CliContext, print_json
from edgehost.errors import UsageError
from edgehost.host.history_view import HistoryView
from edgehost.mcp.catalog import SEPARATOR

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    approvals = sub.add_parser(
        "approvals",
        help="your approval rules and the tools you answered Always for; `approvals forget` takes one back",
        description="List your approval rules (the servers file's `approval` list; the Tools panel sets "
        "them too) and the tools you answered Always for in an approval, which run without asking. "
        "`approvals forget NAME` takes an Always answer back: the tool asks again.",
    )
    approvals.add_argument("--json", action="store_true", help='print {"rules": [...], "always": [...]}')
    approvals.set_defaults(handler=list_approvals)
    actions = approvals.add_subparsers(dest="approvals_action", metavar="ACTION")
    forget = actions.add_parser(
        "forget",
        help="take back an Always answer: NAME is server__tool as listed (a glob: files__*), or --all",
    )
    forget.add_argument(
        "name", metavar="NAME", nargs="?", help="server__tool, as `edgehost approvals` lists it"
    )
    forget.add_argument("--all", action="store_true", help="take back every Always answer")
    forget.set_defaults(handler=forget_approval)


def _name(rule: dict[str, str]) -> str:
    return f"{rule['server']}{SEPARATOR}{rule['tool']}"


def list_approvals(ctx: CliContext) -> int:
    rules = list(ctx.servers_config().approval)
    with HistoryView.opened(ctx.paths.history_db) as history:
        always = history.always_allowed()
    if ctx.args.json:
        print_json({"rules": rules, "always": [{**rule, "name": _name(rule)} for rule in always]})
        return 0
    print(f"Your rules ({ctx.paths.servers_file}):" if rules else "No approval rules in the servers file.")
    for rule in rules:
        print(f"  {rule.get('action', '?'):<6} {rule.get('server', '*')}{SEPARATOR}{rule.get('tool', '*')}")
    print("Answered Always (they run without asking):" if always else "No tool was answered Always.")
    for rule in always:
        print(f"  {_name(rule)}")
    if always:
        print("`edgehost approvals forget NAME` takes one back.")
    return 0


def forget_approval(ctx: CliContext) -> int:
    args = ctx.args
    if bool(args.name) == bool(args.all):
        raise UsageError("give the NAME of a tool answered Always (see `edgehost approvals`), or --all")
    with HistoryView.opened(ctx.paths.history_db) as history:
        always = history.always_allowed()
        chosen = [rule for rule in always if args.all or fnmatchcase(_name(rule), args.name)]
        if not chosen:
            known = ", ".join(_name(rule) for rule in always) or "none"
            raise UsageError(f"no tool answered Always matches {args.name!r} (answered Always: {known})")
        for rule in chosen:
            history.forget_always(rule)
    for rule in chosen:
        print(f"{_name(rule)} asks again before it runs")
    return 0
