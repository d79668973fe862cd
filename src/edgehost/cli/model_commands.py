"""`edgehost models` and `edgehost ask`."""

from __future__ import annotations

import argparse
from typing import Any

from edgehost.cli.context import CliContext, print_json
from edgehost.cli.terminal import add_approval_options, add_model_options
from edgehost.errors import UsageError
from edgehost.llm.models import ModelFile, find_models


def register(sub: argparse._SubParsersAction) -> None:
    models = sub.add_parser(
        "models", help="list model files: the embedded default, the models folder, settings"
    )
    models.add_argument("--json", action="store_true", help="print JSON")
    models.set_defaults(handler=list_models)

    ask_parser = sub.add_parser("ask", help="ask the model one question and stream the answer")
    ask_parser.add_argument("question", help="the question")
    ask_parser.add_argument(
        "--no-tools", action="store_true", help="answer from the model alone, without MCP tools"
    )
    add_model_options(ask_parser)
    add_approval_options(ask_parser)
    ask_parser.add_argument("--tool", metavar="NAME", help="pin a tool: the first round must call it")
    ask_parser.add_argument(
        "--routing",
        choices=("auto", "host", "model"),
        help="who decides whether and which tool to call (default: the routing setting, auto)",
    )
    ask_parser.add_argument("--max-tokens", type=int, default=512, metavar="N", help="default: 512")
    ask_parser.add_argument(
        "--temperature", type=float, metavar="T", help="sampling temperature (0 = greedy)"
    )
    ask_parser.add_argument(
        "--json",
        action="store_true",
        help='print {"text": ..., "executions": [...], "perf": {...}} at the end',
    )
    ask_parser.set_defaults(handler=ask)


def list_models(ctx: CliContext) -> int:
    models = find_models(ctx.paths.models_dir, [ctx.settings.model])
    if ctx.args.json:
        print_json([m.as_dict() for m in models])
        return 0
    if not models:
        print(f"no models found (models folder: {ctx.paths.models_dir})")
        return 0
    for line in _model_table(models):
        print(line)
    return 0


async def ask(ctx: CliContext) -> int:
    """One question, one streamed answer. Raises UsageError for options that do not fit together."""
    if ctx.args.max_tokens < 1:
        raise UsageError("--max-tokens must be at least 1")
    if ctx.args.no_tools and ctx.args.tool:
        raise UsageError("--tool needs tools: drop --no-tools")
    from edgehost.cli.chat_commands import run_ask

    return await run_ask(ctx)


def _model_table(models: list[ModelFile]) -> list[str]:
    rows: list[tuple[Any, ...]] = [("NAME", "FORMAT", "SIZE", "CONTEXT", "TEMPLATE", "SOURCE", "PATH")]
    for m in models:
        template = "-" if m.chat_template is None else ("yes" if m.chat_template else "no")
        rows.append(
            (
                m.name,
                m.format,
                f"{m.size_bytes / 1_000_000:.0f} MB",
                m.context_length or "-",
                template,
                m.source,
                m.path if m.error is None else f"{m.path} ({m.error})",
            )
        )
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=False)) + "  " + str(row[-1])
        for row in rows
    ]
