"""`edgehost chat`: the terminal chat (a REPL over the same Host the GUI drives)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from typing import Any

from edgehost.cli.context import CliContext, print_json
from edgehost.cli.terminal import (
    EventPrinter,
    LineReader,
    add_approval_options,
    add_model_options,
    host_for_cli,
)
from edgehost.errors import UsageError
from edgehost.host import events as ev

HELP = """commands:
  /tools               list the enabled tools
  /servers             show the servers and their status
  /tool NAME           pin a tool for the next turn (forces a call to it)
  /prompt NAME k=v ... insert an MCP prompt
  /resource URI        attach a resource to the next message
  /new                 start a new conversation
  /history             the tool executions of this conversation
  /quit                leave (also Ctrl-D); Ctrl-C stops the running turn"""


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("chat", help="chat in the terminal, with tools")
    parser.add_argument("--conversation", type=int, metavar="ID", help="continue a stored conversation")
    add_model_options(parser)
    add_approval_options(parser)
    parser.set_defaults(handler=run_chat)


async def run_chat(ctx: CliContext) -> int:
    reader = LineReader()
    host = host_for_cli(ctx, reader=reader)
    printer = EventPrinter(sys.stdout)
    host.subscribe(printer)
    await host.start()
    loop = asyncio.get_running_loop()
    turn: asyncio.Task[Any] | None = None

    def on_interrupt() -> None:
        if turn is not None and not turn.done():
            turn.cancel()
        else:
            print("\n(Ctrl-D or /quit leaves)", flush=True)

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, on_interrupt)
    conversation: int | None = ctx.args.conversation
    pinned: str | None = None
    attachments: list[str] = []
    print("EdgeHost chat. /help for commands.", flush=True)
    try:
        while True:
            line = await reader.readline("> ")
            if line is None:
                break
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                command, _, rest = line.partition(" ")
                if command in ("/quit", "/exit"):
                    break
                if command == "/help":
                    print(HELP)
                elif command == "/new":
                    conversation = None
                    print("(new conversation)")
                elif command == "/tools":
                    for tool in host.tools():
                        mark = " " if tool.enabled else "x"
                        print(
                            f" [{mark}] {tool.name}: {tool.description.splitlines()[0] if tool.description else ''}"
                        )
                elif command == "/servers":
                    for status in host.server_states():
                        print(
                            f" {status.name}: {status.status}"
                            + (f" — {status.error}" if status.error else "")
                        )
                elif command == "/tool":
                    pinned = rest.strip() or None
                    print(f"(next turn calls {pinned})" if pinned else "(no tool pinned)")
                elif command == "/resource":
                    text = await host.read_resource_text(rest.strip())
                    attachments.append(f"Attached resource {rest.strip()}:\n{text}")
                    print(f"(attached {rest.strip()}, {len(text)} characters)")
                elif command == "/prompt":
                    name, _, args_text = rest.partition(" ")
                    arguments = dict(part.split("=", 1) for part in args_text.split() if "=" in part)
                    text = await host.prompt_text(name, arguments)
                    print(f"(prompt {name}:)\n{text}")
                    line = text
                elif command == "/history":
                    if conversation is None:
                        print("(nothing yet)")
                    for row in host.executions(conversation) if conversation else []:
                        print(f" {row.tool} {row.status} {row.duration_ms or 0:.0f} ms")
                else:
                    print(f"unknown command {command}; /help lists them")
                if command != "/prompt":
                    continue
            turn = asyncio.create_task(
                host.submit(line, conversation, pinned_tool=pinned, attachments=tuple(attachments))
            )
            pinned, attachments = None, []
            result = await _await_turn(turn)
            printer.end_turn()
            if isinstance(result, ev.TurnCompleted):
                conversation = result.conversation_id
            elif printer.last_conversation is not None:
                conversation = printer.last_conversation
            turn = None
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)
        await host.aclose()
        reader.close()
    return 0


async def _await_turn(turn: asyncio.Task[Any]) -> Any:
    """Wait for a turn; Ctrl-C cancels the turn (not the chat)."""
    try:
        result = await turn
    except asyncio.CancelledError:
        result = None
    if result is None or (isinstance(result, ev.TurnCompleted) and result.cancelled):
        print("\n(stopped)", flush=True)
    return result


SERVERS_READY_S = 60.0  # servers start concurrently; a slow one should not hold a question forever


async def ask_with_tools(ctx: CliContext) -> int:
    """`edgehost ask` with tools: one turn, approvals on the terminal (or --yes / --yes-all)."""
    args = ctx.args
    reader = LineReader() if sys.stdin.isatty() else None
    host = host_for_cli(ctx, reader=reader)
    host.options.agent.max_tokens_per_round = args.max_tokens
    printer = EventPrinter(sys.stderr if args.json else sys.stdout, show_text=not args.json)
    host.subscribe(printer)
    try:
        await host.start()
        assert host.manager is not None
        await host.manager.wait_ready(SERVERS_READY_S)
        if args.tool and args.tool not in {t.name for t in host.tools()}:
            raise UsageError(f"no tool named {args.tool!r}; `edgehost tools` lists them")
        failures: list[str] = []
        host.subscribe(lambda e: failures.append(e.error) if isinstance(e, ev.TurnFailed) else None)
        result = await host.submit(args.question, pinned_tool=args.tool)
        printer.end_turn()
    finally:
        await host.aclose()
        if reader is not None:
            reader.close()
    if result is None:
        if failures:
            print(f"edgehost: {failures[-1]}", file=sys.stderr)
        return 1
    if args.json:
        print_json(
            {
                "text": result.text,
                "executions": [
                    {
                        k: e.get(k)
                        for k in ("tool", "status", "arguments", "duration_ms", "decision", "dialect")
                    }
                    for e in result.executions
                ],
                "perf": result.perf.as_dict(),
            }
        )
    return 0
