"""What the terminal commands (chat, ask) share: options, a stdin reader, an event printer."""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
from typing import TYPE_CHECKING, Any, TextIO

from edgehost.cli.context import CliContext
from edgehost.host import events as ev

if TYPE_CHECKING:  # the Host is imported by the commands that make one: `models` and `history` do not
    from edgehost.host.host import Host


def add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=["auto", "llamacpp", "rkllm", "openai"],
        default=None,
        help="model runtime (default: from settings and the board profile)",
    )
    parser.add_argument("--model", metavar="PATH", help="a .gguf or .rkllm model file")
    parser.add_argument("--rkllm-lib", metavar="PATH", help="librkllmrt.so to use")


def add_approval_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--yes", action="store_true", help="approve calls that are not destructive without asking"
    )
    group.add_argument(
        "--yes-all", action="store_true", help="approve every call without asking (for scripts)"
    )


def progress_text(event: ev.ToolExecutionProgressed) -> str:
    """A call's progress, "progress 3/10 — message", or a Task's state, "task ID: working — message"
    (`edgehost chat` and `edgehost call` print it)."""
    said = f" — {event.message}" if event.message else ""
    if event.task_status is not None:
        return f"task {event.task_id}: {event.task_status}{said}"
    total = f"/{event.total:g}" if event.total else ""
    return f"progress {event.progress:g}{total}{said}"


class LineReader:
    """Reads stdin lines in a daemon thread, so the event loop never blocks and Ctrl-C still works."""

    def __init__(self, stream: TextIO | None = None) -> None:
        """Create it on the event loop it serves (inside the command's coroutine)."""
        self._stream = stream or sys.stdin
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._thread: threading.Thread | None = None
        self._wanted = threading.Semaphore(0)

    def _run(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> None:
        # A terminal can be read after Ctrl-D (end of input for one read: a question it cancelled, and
        # the chat goes on); a pipe or file cannot.
        interactive = self._stream.isatty()
        while True:
            self._wanted.acquire()
            line = self._stream.readline()
            loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\n") if line else None)
            if not line and not interactive:
                return

    async def readline(self, prompt: str = "") -> str | None:
        """The next line, or None at end of input."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, args=(self._loop, self._queue), daemon=True, name="stdin"
            )
            self._thread.start()
        if prompt:
            sys.stdout.write(prompt)
            sys.stdout.flush()
        self._wanted.release()
        return await self._queue.get()

    def blocking_readline(self, prompt: str = "") -> str:
        """readline() for code running in another thread (the terminal approver); "" at end of input."""
        line = asyncio.run_coroutine_threadsafe(self.readline(prompt), self._loop).result()
        return line or ""

    def close(self) -> None:
        """Nothing to release: the reading thread is a daemon blocked on stdin."""


class EventPrinter:
    """Prints host events for a person: streamed text, `[MCP: calling …]` lines, errors.

    After a call EdgeHost chose (a model too small to choose, decision 11), the model's answer is held
    back until the turn ends: a terminal cannot take back what it printed, and such an answer is often
    replaced by the tool's result (AnswerUngrounded). A model that chooses its own calls streams."""

    def __init__(self, out: TextIO, *, show_text: bool = True) -> None:
        self.out = out
        self.show_text = show_text
        self.last_conversation: int | None = None
        self._at_line_start = True
        self._held: list[str] | None = None  # the answer after a call EdgeHost chose, until the turn ends

    def _write(self, text: str) -> None:
        if self.show_text and text:
            self.out.write(text)
            self.out.flush()
            self._at_line_start = text.endswith("\n")

    def _release(self, text: str | None = None) -> None:
        """Print the held answer, or ``text`` instead of it; stop holding."""
        held, self._held = self._held, None
        if held is not None:
            self._write(text if text is not None else "".join(held))

    def _line(self, text: str) -> None:
        if not self._at_line_start:
            self.out.write("\n")
        self.out.write(text + "\n")
        self.out.flush()
        self._at_line_start = True

    def end_turn(self) -> None:
        if not self._at_line_start:
            self.out.write("\n")
            self.out.flush()
            self._at_line_start = True

    def __call__(self, event: Any) -> None:
        if isinstance(event, ev.TextDelta):
            self.last_conversation = event.conversation_id
            if self._held is not None:
                self._held.append(event.text)
            else:
                self._write(event.text)
        elif isinstance(event, ev.TurnRouted) and event.needs_tool:
            self._line(f"[EdgeHost: choosing among {', '.join(event.candidates)}]")
        elif isinstance(event, ev.AnswerWithResults):
            self._release(event.text)  # held since the call EdgeHost chose: the results, then the answer
        elif isinstance(event, ev.AnswerUngrounded):
            if self._held is not None:  # nothing of it was printed: what the window shows, instead
                self._release(event.text)
            elif self.show_text:
                # The text streamed above ignored the tool's result; it stays on the screen, so only
                # the result follows (the window replaces the reply and quotes it instead).
                self._line(f"\n[EdgeHost: the reply above is not what the tool returned ({event.reason}):]")
                self._line(event.results_text)
        elif isinstance(event, (ev.TurnCompleted, ev.TurnFailed)) and self._held is not None:
            self._release()
            if isinstance(event, ev.TurnFailed):
                self._line(f"error: {event.error}")
        elif isinstance(event, ev.ToolExecutionStarted):
            chosen = " (chosen by EdgeHost)" if event.chosen_by == "host" else ""
            self._line(f"[MCP: calling {event.tool} …{chosen}]")
            if event.chosen_by == "host" and event.conversation_id is not None:
                self._held = []
        elif isinstance(event, ev.ToolExecutionProgressed):
            self._line(f"[MCP: {progress_text(event)}]")
        elif isinstance(event, ev.ToolExecutionFinished):
            detail = f" — {event.error.splitlines()[0]}" if event.error and event.status != "ok" else ""
            again = " (repeated call)" if event.repeated else ""
            self._line(f"[MCP: {event.tool} {event.status} in {event.duration_ms:.0f} ms{again}{detail}]")
        elif isinstance(event, ev.TurnFailed):
            self._line(f"error: {event.error}")
        elif isinstance(event, ev.ModelStatusChanged) and event.status in ("failed", "crashed"):
            self._line(f"model {event.status}: {event.detail}")
        elif isinstance(event, ev.ServerStatusChanged) and event.status == "failed":
            first = (event.error or "").splitlines()[0] if event.error else ""
            print(f"[server {event.name} failed: {first}]", file=sys.stderr, flush=True)


def host_for_cli(ctx: CliContext, *, reader: LineReader | None = None, **overrides: Any) -> Host:
    """A Host configured from the command's options (--backend, --model, --yes ...)."""
    from edgehost.agent.approval import auto_approver, with_timeout
    from edgehost.cli.terminal_approval import cli_approver
    from edgehost.host.host import Host
    from edgehost.host.options import HostOptions

    args = ctx.args
    yes, yes_all = getattr(args, "yes", False), getattr(args, "yes_all", False)
    if yes or yes_all or reader is None:
        approver = auto_approver(yes=yes, yes_all=yes_all)
    else:
        approver = cli_approver(read_line=reader.blocking_readline)
    options = HostOptions(
        backend_name=getattr(args, "backend", None),
        model=getattr(args, "model", None),
        rkllm_lib=getattr(args, "rkllm_lib", None),
        approver=with_timeout(approver, ctx.settings.approval_timeout_s),
        **overrides,
    )
    return Host(ctx.paths, ctx.settings, options, profile_override=ctx.profile_override)
