"""`edgehost history`: the tool executions recorded in the history, as a table, JSON, or an export file."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from typing import Any, get_args

from edgehost.cli.context import CliContext, non_negative_int, print_json
from edgehost.host.history_view import HistoryView
from edgehost.store import EXPORT_FORMATS, Execution, ExecutionStatus

__all__ = ["export_history", "format_table", "list_history", "register"]

STATUSES = get_args(ExecutionStatus)
DEFAULT_LIST_LIMIT = 50


def register(sub: argparse._SubParsersAction) -> None:
    history = sub.add_parser(
        "history",
        help="list the tool executions recorded in the history (or export them)",
        description="List recorded tool executions, newest first. `history export` writes them all as JSON or CSV.",
    )
    _add_filters(history, keep_unset=False)
    history.add_argument(
        "--limit",
        type=non_negative_int,
        metavar="N",
        default=DEFAULT_LIST_LIMIT,
        help=f"at most N rows, 0 for all (default {DEFAULT_LIST_LIMIT})",
    )
    history.add_argument("--json", action="store_true", help="print a JSON array instead of a table")
    history.set_defaults(handler=list_history)

    # `history` alone lists; `history export` exports. The filters are accepted on either side of
    # `export`; on the export parser they default to SUPPRESS so that they do not overwrite filters
    # given before it.
    actions = history.add_subparsers(dest="history_action", metavar="ACTION")
    export = actions.add_parser(
        "export",
        help="write every matching execution, oldest first, as JSON or CSV",
        description="Write the matching executions, oldest first, as JSON (an array) or CSV (arguments as JSON text).",
    )
    export.add_argument("--format", choices=EXPORT_FORMATS, default="json", help="default json")
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of standard output")
    _add_filters(export, keep_unset=True)
    export.set_defaults(handler=export_history)


def list_history(ctx: CliContext) -> int:
    args = ctx.args
    with HistoryView.opened(ctx.paths.history_db) as history:
        executions = history.executions(
            conversation_id=args.conversation,
            tool_glob=args.tool,
            status=args.status,
            limit=args.limit or None,
        )
    if args.json:
        print_json([execution.to_dict() for execution in executions])
    elif executions:
        sys.stdout.write(format_table(executions, shutil.get_terminal_size((110, 24)).columns))
    else:
        print("No tool executions recorded" + (" match these filters." if _filtered(args) else "."))
    return 0


def export_history(ctx: CliContext) -> int:
    args = ctx.args
    filters: dict[str, Any] = {
        "conversation_id": getattr(args, "conversation", None),
        "tool_glob": getattr(args, "tool", None),
        "status": getattr(args, "status", None),
    }
    with HistoryView.opened(ctx.paths.history_db) as history:
        if args.output is None:
            history.export(args.format, sys.stdout, **filters)
            sys.stdout.flush()
            return 0
        with open(args.output, "w", encoding="utf-8", newline="") as file:
            count = history.export(args.format, file, **filters)
    print(f"exported {count} execution(s) to {args.output}", file=sys.stderr)
    return 0


def format_table(executions: list[Execution], width: int) -> str:
    """A fixed-width table: id, local start time, tool, status, who chose the call (the model, EdgeHost's
    routing, you), who decided (you, a policy such as --yes, a rule, a timeout), duration, arguments cut
    to fit ``width``."""
    header = ("ID", "STARTED", "TOOL", "STATUS", "CHOSEN BY", "DECIDED BY", "MS", "ARGUMENTS")
    rows = [
        (
            str(e.id),
            time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.started)),
            e.tool,
            e.status,
            e.chosen_by or "",
            e.decided_by or "",
            "" if e.duration_ms is None else f"{e.duration_ms:.0f}",
            json.dumps(e.arguments, ensure_ascii=False),
        )
        for e in executions
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    room = max(width - sum(widths) - 2 * len(widths), 20)
    lines = []
    for row in [header, *rows]:
        cells = [
            cell.ljust(w) if i != header.index("MS") else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row[:-1], widths, strict=True))
        ]
        arguments = row[-1] if len(row[-1]) <= room else row[-1][: room - 1] + "…"
        lines.append("  ".join([*cells, arguments]).rstrip())
    return "\n".join(lines) + "\n"


def _add_filters(parser: argparse.ArgumentParser, *, keep_unset: bool) -> None:
    unset: dict[str, Any] = {"default": argparse.SUPPRESS} if keep_unset else {}
    parser.add_argument("--conversation", type=int, metavar="ID", help="only this conversation", **unset)
    parser.add_argument(
        "--tool", metavar="GLOB", help="only tools matching GLOB (namespaced: files__*, *delete*)", **unset
    )
    parser.add_argument("--status", choices=STATUSES, help="only executions with this status", **unset)


def _filtered(args: argparse.Namespace) -> bool:
    return any(getattr(args, name, None) is not None for name in ("conversation", "tool", "status"))
