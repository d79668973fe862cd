"""`edgehost models` (list, pull, use, rm) and `edgehost ask`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from edgehost.cli.context import CliContext, print_json
from edgehost.cli.terminal import add_approval_options, add_model_options
from edgehost.errors import UsageError
from edgehost.models.catalog import RECOMMEND_MIN_TOKENS_PER_S
from edgehost.models.downloads import partial_downloads
from edgehost.models.files import ModelFile, find_models


def register(sub: argparse._SubParsersAction) -> None:
    models = sub.add_parser(
        "models",
        help="the models installed, the catalog's that fit this board; pull, use and remove them",
        description="Without a subcommand: the installed models, then the catalog's models that fit this "
        "board (RAM, NPU, RKLLM runtime) with their expected speed.",
    )
    models.add_argument("--json", action="store_true", help="print JSON")
    models.add_argument("--all", action="store_true", help="every catalog entry, with why one does not fit")
    models.set_defaults(handler=list_models)
    actions = models.add_subparsers(dest="models_command", metavar="ACTION")
    pull_parser = actions.add_parser(
        "pull",
        help="download a model into the models folder (resumes an interrupted download)",
        description="NAME is a catalog entry (edgehost models --all); REPO:FILE any file on the Hugging "
        "Face Hub; REPO alone its only model file. HF_ENDPOINT names a mirror, HF_TOKEN a token.",
    )
    pull_parser.add_argument("model", metavar="NAME|REPO[:FILE]")
    pull_parser.add_argument("--force", action="store_true", help="pull even when it does not fit this board")
    pull_parser.add_argument("--use", action="store_true", help="switch to it when it is downloaded")
    pull_parser.set_defaults(handler=pull_model)
    use_parser = actions.add_parser(
        "use",
        help="switch to a model on this machine",
        description="NAME as `edgehost models` lists it (or its file's name, or the catalog entry it was "
        "pulled as), `default` for the model built into EdgeHost, or the path of a model file.",
    )
    use_parser.add_argument("model", metavar="NAME")
    use_parser.set_defaults(handler=use_model)
    rm_parser = actions.add_parser(
        "rm",
        aliases=["remove"],
        help="delete a downloaded model (and any unfinished download of it)",
        description="NAME as `edgehost models` lists it, its file's name or its catalog name. The model in "
        "use is kept: switch first with `edgehost models use`.",
    )
    rm_parser.add_argument("model", metavar="NAME")
    rm_parser.set_defaults(handler=remove_model)

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
    from edgehost.cli.model_pull import fitted_catalog
    from edgehost.host.model_library import BUILT_IN, is_in_use

    models = find_models(ctx.paths.models_dir, [ctx.settings.model])
    in_use = {m.path for m in models if is_in_use(m.path, ctx.settings.model)}
    board, rows = fitted_catalog(ctx)
    partial = partial_downloads(ctx.paths.models_dir)
    shown = rows if ctx.args.all else [row for row in rows if row["fits"]]
    if ctx.args.json:
        print_json(
            {
                "installed": [m.as_dict() | {"in_use": m.path in in_use} for m in models],
                "partial": partial,
                "board": board,
                "catalog": shown,
            }
        )
        return 0
    if models:
        for line in _model_table(models, in_use):
            print(line)
    else:
        print(f"no models found (models folder: {ctx.paths.models_dir})")
    if partial:
        print()
        print("Interrupted downloads (`edgehost models pull NAME` resumes one, `models rm NAME` drops it):")
        for line in _partial_table(partial):
            print(line)
    print()
    print(f"Catalog for {board['name']}{'' if ctx.args.all else ', what fits'}:")
    for line in _catalog_table(shown):
        print(line)
    if any(row["estimated_tokens_per_s"] for row in shown):
        print(
            "est. = estimated from the CPU cores; the suggested model is the biggest at "
            f"{RECOMMEND_MIN_TOKENS_PER_S:.0f} tok/s or more."
        )
    if not ctx.args.all:
        print(f"{len(rows) - len(shown)} more do not fit: edgehost models --all says why.")
    print("Download one: edgehost models pull NAME")
    print(
        f"Switch: edgehost models use NAME ({BUILT_IN}: the built-in one). Delete one: edgehost models rm NAME"
    )
    return 0


def pull_model(ctx: CliContext) -> int:
    from edgehost.cli.model_pull import pull

    return pull(ctx)


def use_model(ctx: CliContext) -> int:
    from edgehost.cli.model_pull import use

    return use(ctx)


def remove_model(ctx: CliContext) -> int:
    from edgehost.cli.model_pull import remove

    return remove(ctx)


async def ask(ctx: CliContext) -> int:
    """One question, one streamed answer. Raises UsageError for options that do not fit together."""
    if ctx.args.max_tokens < 1:
        raise UsageError("--max-tokens must be at least 1")
    if ctx.args.no_tools and ctx.args.tool:
        raise UsageError("--tool needs tools: drop --no-tools")
    from edgehost.cli.chat_commands import run_ask

    return await run_ask(ctx)


def _model_table(models: list[ModelFile], in_use: set[str]) -> list[str]:
    """The installed models; the one in use (its path in ``in_use``) says so after where it was found."""
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
                f"{m.source}, in use" if m.path in in_use else m.source,
                m.path if m.error is None else f"{m.path} ({m.error})",
            )
        )
    return _aligned(rows)


def _partial_table(partial: list[dict[str, Any]]) -> list[str]:
    rows: list[tuple[Any, ...]] = [("FILE", "DONE", "REPOSITORY")]
    for p in partial:
        size = int(p.get("size") or 0)
        done = (
            f"{p['done_bytes'] / 1e6:.0f} of {size / 1e6:.0f} MB"
            if size
            else f"{p['done_bytes'] / 1e6:.0f} MB"
        )
        rows.append((Path(str(p.get("file", ""))).name, done, p.get("repo", "")))
    return _aligned(rows)


def _catalog_table(entries: list[dict[str, Any]]) -> list[str]:
    rows: list[tuple[Any, ...]] = [("NAME", "SIZE", "PARAMS", "RAM", "SPEED", "BACKEND", "")]
    for e in entries:
        if e["expected_tokens_per_s"]:
            speed = _tokens_per_s(e["expected_tokens_per_s"])
        elif e["estimated_tokens_per_s"]:
            speed = f"{_tokens_per_s(e['estimated_tokens_per_s'])} est."
        else:
            speed = "-"
        state = "installed" if e["installed"] else "recommended" if e["recommended"] else ""
        if e["partial_bytes"] and not e["installed"]:
            state = f"{100 * e['partial_bytes'] // max(e['size_mb'] * 1_000_000, 1):.0f} % downloaded, pull resumes"
        if e["why_not"]:
            state = f"does not fit: {e['why_not']}"
        rows.append(
            (
                e["name"],
                f"{e['size_mb'] / 1000:.2f} GB",
                f"{e['params_b']:g}B",
                f"{e['ram_gb']:g} GB",
                speed,
                e["backend"],
                state,
            )
        )
    return _aligned(rows)


def _tokens_per_s(speed: float) -> str:
    return f"~{speed:.0f} tok/s" if speed >= 1 else "<1 tok/s"


def _aligned(rows: list[tuple[Any, ...]]) -> list[str]:
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        ("  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=False)) + "  " + str(row[-1])).rstrip()
        for row in rows
    ]
