"""`edgehost models` and `edgehost ask`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from edgehost.cli.context import CliContext, print_json
from edgehost.cli.terminal import add_approval_options, add_model_options
from edgehost.errors import UsageError
from edgehost.llm.base import (
    Backend,
    ChatMessage,
    GenerationFinished,
    GenerationRequest,
    NativeToolCall,
    Perf,
    TokenText,
)
from edgehost.llm.factory import create_backend
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
    if not ctx.args.no_tools:
        from edgehost.cli.chat_commands import ask_with_tools

        return await ask_with_tools(ctx)
    if ctx.args.tool:
        raise UsageError("--tool needs tools: drop --no-tools")
    return await _ask_without_tools(ctx)


async def _ask_without_tools(ctx: CliContext) -> int:
    args = ctx.args
    backend, skipped = _create_backend(ctx)
    try:
        info = await backend.load()
        request = GenerationRequest(
            messages=[ChatMessage(role="user", content=args.question)],
            max_tokens=args.max_tokens,
            temperature=args.temperature,
        )
        text, finished = await _stream_answer(backend, request, echo=not args.json)
    finally:
        await backend.close()
    perf = finished.perf if finished is not None else Perf()
    if args.json:
        print_json(
            {
                "text": text,
                "finish_reason": finished.reason if finished is not None else None,
                "backend": backend.capabilities.backend,
                "model": info.name,
                "skipped_backends": skipped,
                "perf": perf.as_dict(),
            }
        )
    else:
        sys.stdout.write("\n")
        sys.stdout.flush()
    return 0


def _create_backend(ctx: CliContext) -> tuple[Backend, dict[str, str]]:
    from edgehost.boards import current_profile

    _board, profile = current_profile(ctx.profile_override or ctx.settings.profile)
    return create_backend(
        ctx.settings,
        profile,
        ctx.paths,
        backend=ctx.args.backend or ctx.settings.backend,
        model=ctx.args.model,
        rkllm_lib=ctx.args.rkllm_lib,
    )


async def _stream_answer(
    backend: Backend, request: GenerationRequest, *, echo: bool
) -> tuple[str, GenerationFinished | None]:
    parts: list[str] = []
    finished: GenerationFinished | None = None
    async for event in backend.generate(request):
        if isinstance(event, TokenText):
            parts.append(event.text)
            if echo:
                sys.stdout.write(event.text)
                sys.stdout.flush()
        elif isinstance(event, NativeToolCall):
            parts.append(f"[tool call {event.name}]")
        elif isinstance(event, GenerationFinished):
            finished = event
    return "".join(parts), finished


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
