"""`edgehost chat`: the terminal chat (a REPL over the same Host the GUI drives)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from edgehost.agent.config import AgentConfig
from edgehost.agent.routing import ROUTING_MODES
from edgehost.agent.tool_calls import refusal_text
from edgehost.agent.tools import summary
from edgehost.cli.context import CliContext, parse_pairs, print_json
from edgehost.cli.terminal import (
    EventPrinter,
    LineReader,
    add_approval_options,
    add_model_options,
    host_for_cli,
)
from edgehost.cli.terminal_elicitation import TerminalElicitation
from edgehost.errors import EdgeHostError, UsageError
from edgehost.host import events as ev
from edgehost.host.attachments import attachment_text
from edgehost.host.host import Host
from edgehost.mcp.catalog import unknown_tool_text

SERVERS_READY_S = 60.0  # servers start concurrently; a slow one should not hold the chat forever

HELP = """commands:
  /tools               list the tools ([x] enabled, [ ] switched off)
  /enable NAME         switch a tool or a server on (remembered, as in the Tools and Servers panels)
  /disable NAME        switch a tool or a server off: the model no longer sees its tools
  /servers             show the servers and their status
  /tool NAME           pin a tool for the next turn (forces a call to it)
  /routing [MODE]      who decides tool calls in this conversation: auto, host or model
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
    # A person at a terminal answers a server's questions (elicitation); piped input keeps the
    # headless answer (the schema's defaults), as the other commands do.
    questions = TerminalElicitation(reader.readline) if sys.stdin.isatty() else None
    host = host_for_cli(ctx, reader=reader, features=questions.features() if questions else None)
    if questions is not None:
        host.subscribe(questions.on_event)
    printer = EventPrinter(sys.stdout)
    host.subscribe(printer)
    await host.start()
    await host.wait_servers_ready(SERVERS_READY_S)  # so the first line already sees every tool
    loop = asyncio.get_running_loop()
    turn: asyncio.Task[Any] | None = None

    def on_interrupt() -> None:
        if turn is not None and not turn.done():
            turn.cancel()
        else:
            print("\n(Ctrl-D or /quit leaves)", flush=True)

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, on_interrupt)
    session = ChatSession(host, conversation=ctx.args.conversation)
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
                try:
                    prompt = await session.slash(command, rest.strip())
                except EdgeHostError as exc:
                    print(f"error: {exc}", flush=True)
                    continue
                if prompt is None:
                    continue
                line = prompt
            turn = asyncio.create_task(session.submit(line))
            await _await_turn(turn)
            printer.end_turn()
            if session.conversation is None:
                session.conversation = printer.last_conversation
            turn = None
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)
        await host.aclose()
        reader.close()
    return 0


@dataclass
class ChatSession:
    """The state of one terminal chat: the conversation, a pinned tool, attached resources."""

    host: Host
    conversation: int | None = None
    pinned: str | None = None
    attachments: list[str] = field(default_factory=list)
    routing: str | None = None  # chosen with /routing before the conversation existed

    async def submit(self, text: str) -> ev.TurnCompleted | None:
        pinned, attachments = self.pinned, tuple(self.attachments)
        self.pinned, self.attachments = None, []
        if self.conversation is None and self.routing is not None:
            self.conversation = self.host.new_conversation(text)
            self.host.set_routing(self.conversation, self.routing)
            self.routing = None
        result = await self.host.submit(text, self.conversation, pinned_tool=pinned, attachments=attachments)
        if result is not None:
            self.conversation = result.conversation_id
        return result

    async def slash(self, command: str, rest: str) -> str | None:
        """Run a /command; returns text to send as the next message (/prompt) or None.

        Raises EdgeHostError (a missing prompt or resource, a bad argument): the chat goes on.
        """
        host = self.host
        if command == "/help":
            print(HELP)
        elif command == "/new":
            self.conversation = None
            print("(new conversation)")
        elif command == "/tools":
            tools = host.tools()
            if not tools:
                print("(no tools: /servers shows why)")
            for tool in tools:
                print(f" [{'x' if tool.enabled else ' '}] {tool.name}: {summary(tool.description)}")
        elif command in ("/enable", "/disable"):
            self._switch(rest, on=command == "/enable")
        elif command == "/servers":
            for state in host.server_states():
                error = f" — {state.error.splitlines()[0]}" if state.error else ""
                print(f" {state.name}: {state.status.value}{error}")
        elif command == "/tool":
            self._pin(rest)
        elif command == "/routing":
            self._set_routing(rest)
        elif command == "/resource":
            text = await host.read_resource_text(rest)
            self.attachments.append(attachment_text(rest, text))
            print(f"(attached {rest}, {len(text)} characters)")
        elif command == "/prompt":
            name, _, pairs = rest.partition(" ")
            text = await host.prompt_text(name, parse_pairs(pairs.split()))
            print(f"(prompt {name}:)\n{text}")
            return text
        elif command == "/history":
            self._print_history()
        else:
            print(f"unknown command {command}; /help lists them")
        return None

    def _switch(self, name: str, *, on: bool) -> None:
        """/enable, /disable: a server, or one tool."""
        host = self.host
        servers = [state.name for state in host.server_states()]
        if name in servers:
            host.set_server_enabled(name, on)
            print(f"(the server {name} is {'on: connecting' if on else 'off'})")
            return
        if name not in {t.name for t in host.tools()}:
            names = [t.name for t in host.tools()] + servers
            raise UsageError(f"{unknown_tool_text(name, names)}; /tools and /servers list them")
        host.set_tool_enabled(name, on)
        print(f"({name} is {'on' if on else 'off'})")

    def _pin(self, name: str) -> None:
        """/tool NAME: the next turn calls it; /tool alone: none pinned."""
        pinned = next((t for t in self.host.tools() if t.name == name), None)
        if name and pinned is None:
            raise UsageError(
                f"{unknown_tool_text(name, [t.name for t in self.host.tools()])}; /tools lists them"
            )
        if pinned is not None and not pinned.enabled:
            raise UsageError(
                f"{name} is switched off, so it would not be called: /enable {name} switches it on"
            )
        self.pinned = name or None
        print(f"(next turn calls {name})" if name else "(no tool pinned)")

    def _set_routing(self, mode: str) -> None:
        """/routing [MODE]: set it (for the conversation, or the next one), then say what holds."""
        host = self.host
        if mode and mode not in ROUTING_MODES:
            raise UsageError(f"routing is one of {', '.join(ROUTING_MODES)}, not {mode!r}")
        if mode and self.conversation is not None:
            host.set_routing(self.conversation, mode)
        elif mode:
            self.routing = mode
        chosen, effective = (
            (self.routing, host.effective_routing(self.routing))
            if self.routing is not None
            else host.routing(self.conversation)
        )
        who = "EdgeHost decides" if effective == "host" else "the model decides"
        print(f"(routing {chosen}: {who} whether and which tool to call)")

    def _print_history(self) -> None:
        rows = (
            self.host.history.executions(conversation_id=self.conversation)
            if self.conversation is not None
            else []
        )
        if not rows:
            print("(no tool calls yet)")
        for row in rows:
            print(f" {row.tool} {row.status} {row.duration_ms or 0:.0f} ms")


async def _await_turn(turn: asyncio.Task[Any]) -> Any:
    """Wait for a turn; Ctrl-C cancels the turn (not the chat)."""
    try:
        result = await turn
    except asyncio.CancelledError:
        result = None
    if result is None or (isinstance(result, ev.TurnCompleted) and result.cancelled):
        print("\n(stopped)", flush=True)
    return result


async def run_ask(ctx: CliContext) -> int:
    """`edgehost ask`: one turn through the Host, recorded in the history like any other.

    With tools, approvals and a server's questions (elicitation) are asked on the terminal (or --yes /
    --yes-all, and the schema's defaults, without one); --no-tools starts no server, so the model
    answers alone.
    """
    args = ctx.args
    reader = LineReader() if sys.stdin.isatty() and not args.no_tools else None
    out = sys.stderr if args.json else sys.stdout  # --json keeps stdout for the JSON
    host = _ask_host(ctx, reader, out)
    printer = EventPrinter(out, show_text=not args.json)
    host.subscribe(printer)
    try:
        await host.start()
        if not args.no_tools:
            if not args.tool:  # routed: its embedding is made while the servers and the model start
                host.anticipate(args.question)
            await host.wait_servers_ready(SERVERS_READY_S)
        if args.tool and args.tool not in {t.name for t in host.tools()}:
            raise UsageError(
                f"{unknown_tool_text(args.tool, [t.name for t in host.tools()])}; `edgehost tools` lists them"
            )
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
    # A call refused for want of approval (no terminal to ask on, --yes for a destructive tool, a
    # timeout): the question is not answered, and a script must be able to tell.
    refused = [e for e in result.executions if e.get("status") == "denied" and e.get("decided_by") != "user"]
    for execution in refused:
        print(f"edgehost: {execution['tool']} was not run: {refusal_text(execution)}", file=sys.stderr)
    if args.json:
        print_json(_ask_json(host, result))
    return 1 if refused else 0


# What `ask --json` gives of each execution.
_EXECUTION_FIELDS = (
    "tool",
    "status",
    "arguments",
    "duration_ms",
    "decision",
    "decided_by",
    "reason",
    "dialect",
    "chosen_by",
)


def _ask_json(host: Host, result: ev.TurnCompleted) -> dict[str, Any]:
    return {
        "text": result.text,
        "executions": [{k: e.get(k) for k in _EXECUTION_FIELDS} for e in result.executions],
        "backend": host.model_status.backend,
        "model": host.model_status.model,
        "perf": result.perf.as_dict(),
    }


def _ask_host(ctx: CliContext, reader: LineReader | None, out: TextIO) -> Host:
    """The Host for one `ask`: a server's questions asked on the terminal when there is one, and the
    agent's limits from the command line."""
    args = ctx.args
    questions = (
        TerminalElicitation(reader.readline, write=lambda text: print(text, end="", file=out, flush=True))
        if reader is not None
        else None
    )
    host = host_for_cli(
        ctx,
        reader=reader,
        with_servers=not args.no_tools,
        features=questions.features() if questions is not None else None,
    )
    if questions is not None:
        host.subscribe(questions.on_event)
    agent = AgentConfig.from_settings(ctx.settings)
    agent.max_tokens_per_round, agent.temperature = args.max_tokens, args.temperature
    agent.routing = args.routing or agent.routing
    host.options.agent = agent
    return host
