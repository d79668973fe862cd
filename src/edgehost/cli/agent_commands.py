"""Agent commands: `calls` (find tool calls in model transcripts)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from edgehost.agent.detector import (
    ALL_DIALECTS,
    DetectorEvent,
    ProseDelta,
    ToolCallIncomplete,
    ToolCallMalformed,
    ToolCallParsed,
    detect_calls,
)
from edgehost.cli.context import CliContext, positive_int, print_json
from edgehost.errors import UsageError

_PREVIEW = 160


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calls",
        help="find tool calls in model transcripts, as if streamed",
        description="Run the tool-call detector over transcripts (stdin when no FILE), fed in N-character chunks.",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="transcript files (default: stdin)")
    p.add_argument(
        "--dialect",
        default="auto",
        choices=["auto", *ALL_DIALECTS],
        help="accept only this dialect (default: auto, all of them)",
    )
    p.add_argument(
        "--chunk-size",
        type=positive_int,
        metavar="N",
        help="feed N characters at a time (default: all at once)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=run_calls)


def calls_report(events: list[DetectorEvent]) -> dict[str, Any]:
    """The `calls --json` object for one transcript's events."""
    return {
        "calls": [
            {"name": e.name, "arguments": e.arguments, "dialect": e.dialect}
            for e in events
            if isinstance(e, ToolCallParsed)
        ],
        "text": "".join(e.text for e in events if isinstance(e, ProseDelta)),
        "incomplete": [
            {"dialect": e.dialect, "reason": e.reason, "raw": e.raw}
            for e in events
            if isinstance(e, ToolCallIncomplete)
        ],
        "errors": [
            {"dialect": e.dialect, "error": e.error, "raw": e.raw}
            for e in events
            if isinstance(e, ToolCallMalformed)
        ],
    }


def run_calls(ctx: CliContext) -> int:
    args = ctx.args
    dialects = ALL_DIALECTS if args.dialect == "auto" else (args.dialect,)
    inputs = [(path, _read(path)) for path in args.files] if args.files else [("-", sys.stdin.read())]
    reports = {
        name: calls_report(detect_calls(text, dialects=dialects, chunk_size=args.chunk_size or 0))
        for name, text in inputs
    }
    if args.json:
        print_json(
            reports["-"] if not args.files else reports if len(args.files) > 1 else reports[args.files[0]]
        )
        return 0
    for name, report in reports.items():
        if len(reports) > 1:
            print(f"== {name}")
        _print_summary(report)
    return 0


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read transcript {path}: {exc}") from exc


def _print_summary(report: dict[str, Any]) -> None:
    calls = report["calls"]
    print(f"calls: {len(calls)}")
    for number, call in enumerate(calls):
        arguments = json.dumps(call["arguments"], ensure_ascii=False)
        print(f"  [{number}] {call['name']} ({call['dialect']}) {_preview(arguments)}")
    for item in report["incomplete"]:
        print(f"incomplete ({item['dialect']}): {item['reason']}\n    {_preview(item['raw'])}")
    for item in report["errors"]:
        print(f"error ({item['dialect']}): {item['error']}\n    {_preview(item['raw'])}")
    text = report["text"].strip()
    print(f"text: {_preview(text)}" if text else "text: (none)")


def _preview(text: str) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"
