"""The work behind `edgehost models`: the catalog fitted to this board, `pull` with a progress line,
`use` and `rm` (by the rules of host/model_library.py, which the window's Models page follows too)."""

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
from edgehost.host.model_cards import duration
from edgehost.host.model_library import download_target, find_installed, plan_removal, settings_to_use
from edgehost.models.catalog import (
    BoardFacts,
    board_facts,
    catalog_rows,
    describe_board,
    load_catalog,
    why_not,
)
from edgehost.models.downloads import DownloadCancelled, Progress, download, partial_sizes
from edgehost.models.files import installed_names

__all__ = ["fitted_catalog", "pull", "remove", "use"]


def _board(ctx: CliContext) -> tuple[BoardProfile, BoardFacts]:
    info, profile = current_profile(ctx.profile_override or ctx.settings.profile, paths=ctx.paths)
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


def pull(ctx: CliContext) -> int:
    target, entry = download_target(ctx.args.model)
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
    except DownloadCancelled as stopped:
        line.end()
        print(
            f"Stopped at {stopped.done_bytes / 1e6:,.0f} of {stopped.total_bytes / 1e6:,.0f} MB: "
            f"`edgehost models pull {ctx.args.model}` resumes from there.",
            file=sys.stderr,
        )
        return 130
    except EdgeHostError:
        line.end()
        raise
    finally:
        signal.signal(signal.SIGINT, previous)
    line.end()
    print(f"{path.name} is in {path.parent}")
    if ctx.args.use or (sys.stdin.isatty() and _ask(f"Use {path.name} from now on? [Y/n] ")):
        _switch(ctx, path)
    else:
        print(f"To use it: edgehost models use {path.name}")
    return 0


def use(ctx: CliContext) -> int:
    """`edgehost models use NAME`: the settings name that model from now on. Raises UsageError for a
    name that means no model here, or a file that cannot be read."""
    model = find_installed(ctx.paths.models_dir, ctx.settings.model, ctx.args.model)
    if model.error is not None:
        raise UsageError(f"{model.path} cannot be used: {model.error}")
    _switch(ctx, Path(model.path))
    print("A window or `edgehost web` already running keeps its model until it is started again.")
    return 0


def _switch(ctx: CliContext, path: Path) -> None:
    for key, value in settings_to_use(path).items():
        setattr(ctx.settings, key, value)
    ctx.save_settings()
    print(f"EdgeHost now uses {path.name} ({ctx.settings.backend}).")


def remove(ctx: CliContext) -> int:
    """`edgehost models rm NAME`. Raises UsageError for the model in use (saying how to switch), the
    built-in one, a file outside the models folder or an unknown name; EdgeHostError when a file cannot
    be deleted."""
    removal = plan_removal(ctx.paths.models_dir, ctx.settings.model, ctx.args.model)
    try:
        removal.delete()
    except OSError as exc:
        raise EdgeHostError(f"cannot delete {removal.name}: {exc}") from None
    if not removal.complete:
        what = f"the unfinished download of {removal.name}"
    elif len(removal.files) > 1:
        what = f"{removal.name} and its unfinished download"
    else:
        what = removal.name
    print(f"Removed {what}. {removal.size_bytes / 1e6:,.0f} MB freed.")
    return 0


def _ask(question: str) -> bool:
    try:
        return input(question).strip().lower() in ("", "y", "yes")
    except EOFError:
        return False


class _ProgressLine:
    """One line on stderr: bytes, speed, time left; rewritten in place on a terminal. Otherwise (a pipe,
    a log) a line every 10 % of the download, and one as the sha256 check starts and one as it ends."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.tty = sys.stderr.isatty()
        self.shown = -1
        self.last = 0.0
        self.verifying = False

    def show(self, p: Progress) -> None:
        percent = int(100 * p.done_bytes / p.total_bytes) if p.total_bytes else 100
        now = time.monotonic()
        if self.tty and now - self.last < 0.2 and percent < 100:
            return
        if not self.tty and p.stage == "downloading" and percent // 10 == self.shown // 10:
            return
        if not self.tty and p.stage == "verifying":
            self._verifying_off_a_terminal(percent)
            return
        self.shown, self.last = percent, now
        if p.stage == "verifying":
            text = f"{self.name}: checking sha256 {percent}%"
        else:
            speed = f"{p.bytes_per_s / 1e6:.1f} MB/s" if p.bytes_per_s else "…"
            left = f", {duration(p.seconds_left)} left" if p.seconds_left is not None else ""
            text = f"{self.name}: {p.done_bytes / 1e6:.1f} of {p.total_bytes / 1e6:.1f} MB ({percent}%), {speed}{left}"
        print(
            f"\r{text}\033[K" if self.tty else text, end="" if self.tty else "\n", file=sys.stderr, flush=True
        )

    def _verifying_off_a_terminal(self, percent: int) -> None:
        if not self.verifying:
            self.verifying = True
            print(f"{self.name}: checking sha256", file=sys.stderr, flush=True)
        if percent >= 100:
            print(f"{self.name}: checking sha256 100%", file=sys.stderr, flush=True)

    def end(self) -> None:
        if self.tty and self.shown >= 0:
            print(file=sys.stderr)
