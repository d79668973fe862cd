"""The work behind `edgehost models`: the catalog fitted to this board, `pull` with a progress line, `rm`."""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from edgehost.boards import BoardProfile, current_profile
from edgehost.cli.context import CliContext
from edgehost.errors import EdgeHostError, UsageError
from edgehost.llm.catalog import (
    BoardFacts,
    CatalogEntry,
    board_facts,
    catalog_rows,
    describe_board,
    find_entry,
    load_catalog,
    why_not,
)
from edgehost.llm.downloads import (
    PARTS_FOLDER,
    DownloadCancelled,
    DownloadTarget,
    Progress,
    download,
    hub_files,
    partial_sizes,
)
from edgehost.llm.models import installed_names

__all__ = ["fitted_catalog", "pull", "remove"]


def _board(ctx: CliContext) -> tuple[BoardProfile, BoardFacts]:
    info, profile = current_profile(ctx.profile_override or ctx.settings.profile)
    return profile, board_facts(info, ctx.settings.rkllm_lib, ctx.settings.rkllm_abi)


def fitted_catalog(ctx: CliContext) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """This board and every catalog entry with whether and how it fits (`edgehost models`)."""
    profile, facts = _board(ctx)
    folder = ctx.paths.models_dir
    installed = installed_names(folder, [ctx.settings.model])
    rows = catalog_rows(load_catalog(), profile, facts, installed, partial_sizes(folder))
    board = {
        "name": describe_board(profile, facts),
        "ram_gb": facts.ram_gb,
        "npu": facts.npu,
        "rkllm_runtime": facts.rkllm_runtime,
    }
    return board, [row.as_dict() for row in rows]


def _target(ctx: CliContext, spec: str) -> tuple[DownloadTarget, CatalogEntry | None]:
    entry = find_entry(load_catalog(), spec)
    if entry is not None:
        return DownloadTarget(entry.repo, entry.file, entry.revision, entry.sha256, entry.size_bytes), entry
    if "/" not in spec:
        raise UsageError(
            f"no catalog model {spec!r}: see `edgehost models --all`, or give REPO:FILE of the hub"
        )
    repo, _, file = spec.partition(":")
    if not file:
        files = hub_files(repo)
        if len(files) != 1:
            listed = "\n  ".join(files) or "(none)"
            raise UsageError(f"{repo} has {len(files)} model files; name one as {repo}:FILE:\n  {listed}")
        file = files[0]
    if not file.lower().endswith((".gguf", ".rkllm")):
        raise UsageError(f"{file} is not a model file (.gguf or .rkllm)")
    return DownloadTarget(repo, file), None


def pull(ctx: CliContext) -> int:
    target, entry = _target(ctx, ctx.args.model)
    if entry is not None and not ctx.args.force:
        _, facts = _board(ctx)
        reason = why_not(entry, facts)
        if reason is not None:
            raise UsageError(f"{entry.name} does not fit this board ({reason}); --force pulls it anyway")
    cancel = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
    line = _ProgressLine(Path(target.file).name)
    try:
        path = download(target, ctx.paths.models_dir, on_progress=line.show, cancel=cancel)
    except DownloadCancelled:
        line.end()
        print(f"Stopped. `edgehost models pull {ctx.args.model}` resumes it.", file=sys.stderr)
        return 130
    except EdgeHostError:
        line.end()
        raise
    finally:
        signal.signal(signal.SIGINT, previous)
    line.end()
    print(f"{path.name} is in {path.parent}")
    if ctx.args.use or (sys.stdin.isatty() and _ask(f"Use {path.name} from now on? [Y/n] ")):
        settings = ctx.settings
        settings.model = str(path)
        settings.backend = "rkllm" if path.suffix.lower() == ".rkllm" else "llamacpp"
        ctx.save_settings()
        print(f"EdgeHost now uses {path.name} ({settings.backend}).")
    else:
        print(f"To use it: edgehost models pull {ctx.args.model} --use, or pick it in Settings.")
    return 0


def remove(ctx: CliContext) -> int:
    folder = ctx.paths.models_dir
    entry = find_entry(load_catalog(), ctx.args.model)
    name = Path(entry.file).name if entry else Path(ctx.args.model).name
    path = folder / name
    parts = [p for p in (folder / PARTS_FOLDER).glob(f"{name}.part*")]
    if not path.is_file() and not parts:
        raise UsageError(f"no downloaded model {name} in {folder}")
    if ctx.settings.model and Path(ctx.settings.model).expanduser().resolve() == path.resolve():
        raise UsageError(
            f"{name} is the model in use: pick another in Settings (or `models pull … --use`) first"
        )
    for item in [path, *parts]:
        item.unlink(missing_ok=True)
    print(f"Removed {name}" + (" and its unfinished download" if parts else "") + ".")
    return 0


def _ask(question: str) -> bool:
    try:
        return input(question).strip().lower() in ("", "y", "yes")
    except EOFError:
        return False


class _ProgressLine:
    """One line on stderr: bytes, speed, time left; rewritten in place on a terminal, every 10 % otherwise."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.tty = sys.stderr.isatty()
        self.shown = -1
        self.last = 0.0

    def show(self, p: Progress) -> None:
        percent = int(100 * p.done_bytes / p.total_bytes) if p.total_bytes else 100
        now = time.monotonic()
        if self.tty and now - self.last < 0.2 and percent < 100:
            return
        if not self.tty and percent // 10 == self.shown // 10 and p.stage == "downloading":
            return
        self.shown, self.last = percent, now
        if p.stage == "verifying":
            text = f"{self.name}: checking sha256 {percent}%"
        else:
            speed = f"{p.bytes_per_s / 1e6:.1f} MB/s" if p.bytes_per_s else "…"
            left = f", {_duration(p.seconds_left)} left" if p.seconds_left is not None else ""
            text = f"{self.name}: {p.done_bytes / 1e6:.1f} of {p.total_bytes / 1e6:.1f} MB ({percent}%), {speed}{left}"
        print(
            f"\r{text}\033[K" if self.tty else text, end="" if self.tty else "\n", file=sys.stderr, flush=True
        )

    def end(self) -> None:
        if self.tty and self.shown >= 0:
            print(file=sys.stderr)


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"
