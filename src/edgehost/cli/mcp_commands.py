"""`edgehost servers | tools | call | resources | read | prompts | prompt` (`probe` is probe_commands.py).

Each command connects only the servers it needs, through a Host without a model (decision 9): `call`
calls tools under the user's deny rules with every call in the history; the listing
commands read the Host's catalog.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import mimetypes
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mcp_types as types

from edgehost.agent.approval import Risk, tool_risk
from edgehost.agent.ranking import rank_tools
from edgehost.agent.tools import ToolSpec, summary
from edgehost.cli import registry_commands
from edgehost.cli.context import CliContext, parse_pairs, positive_float, positive_int, print_json
from edgehost.cli.servers_host import (
    CONNECT_WAIT_S,
    STDERR_LINES_SHOWN,
    connected,
    host_for,
    require_ready,
    server_names,
    server_of,
    state_of,
)
from edgehost.cli.terminal import progress_text
from edgehost.errors import UsageError
from edgehost.host import events as ev
from edgehost.host.tool_view import tool_json
from edgehost.mcp.catalog import sanitize
from edgehost.mcp.errors import UnknownPrompt, UnknownTool
from edgehost.mcp.results import block_text, result_json
from edgehost.mcp.server_state import ServerState, ServerStatus

# A listing shows what is up by then; a server still starting (an npx download, a hung program) is
# listed as starting rather than holding up the others for a minute.
_LISTING_WAIT_S = 10.0


def _add_wait(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--wait",
        type=positive_float,
        default=_LISTING_WAIT_S,
        metavar="SECONDS",
        help=f"wait at most this long for servers to start; slower ones are shown as starting "
        f"(default {_LISTING_WAIT_S:g})",
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "servers",
        help="connect to every enabled server and show its status",
        description=(
            "Connect to every enabled server and show its status. Exits 1 when a server failed or is still"
            " starting after --wait, or the servers file could not be read (only the built-ins then run)."
        ),
    )
    p.add_argument("--json", action="store_true", help="print a JSON list")
    _add_wait(p)
    p.set_defaults(handler=servers_command)
    registry_commands.register(p)  # `servers search`, `servers add`: from the MCP Registry

    p = sub.add_parser(
        "tools",
        help="list the tools of the connected servers (namespaced server__tool)",
        description=(
            "List the tools of the connected servers (namespaced server__tool). Exits 1 when a server is still"
            " starting after --wait: its tools are not in the list yet."
        ),
    )
    p.add_argument("--server", metavar="NAME", help="only this server")
    p.add_argument("--query", metavar="TEXT", help="rank the tools by relevance to TEXT")
    p.add_argument("--top", metavar="K", type=positive_int, help="with --query: show the K best")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    _add_wait(p)
    p.set_defaults(handler=tools_command)

    p = sub.add_parser("call", help="call one tool: edgehost call server__tool '{\"arg\": 1}'")
    p.add_argument("name", metavar="NAME", help="namespaced tool name (see `edgehost tools`)")
    p.add_argument("arguments", metavar="JSON", nargs="?", default="{}", help="arguments as a JSON object")
    p.add_argument(
        "--timeout", type=positive_float, metavar="SECONDS", help="override the server's call timeout"
    )
    p.add_argument("--json", action="store_true", help='print {"content", "structuredContent", "isError"}')
    p.set_defaults(handler=call_command)

    p = sub.add_parser("resources", help="list the resources and resource templates of the connected servers")
    p.add_argument("--server", metavar="NAME", help="only this server")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    _add_wait(p)
    p.set_defaults(handler=resources_command)

    p = sub.add_parser("read", help="read a resource by URI")
    p.add_argument("uri", metavar="URI")
    p.add_argument("--server", metavar="NAME", help="the server to ask (default: the one that lists URI)")
    p.add_argument(
        "--json", action="store_true", help="print the result as JSON (one line each with --watch)"
    )
    p.add_argument(
        "--watch",
        action="store_true",
        help="stay, and read it again each time the server says it changed (Ctrl-C stops)",
    )
    p.set_defaults(handler=read_command)

    p = sub.add_parser("prompts", help="list the prompts of the connected servers")
    p.add_argument("--server", metavar="NAME", help="only this server")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    _add_wait(p)
    p.set_defaults(handler=prompts_command)

    p = sub.add_parser("prompt", help="get a prompt: edgehost prompt server__name key=value ...")
    p.add_argument("name", metavar="NAME", help="namespaced prompt name (see `edgehost prompts`)")
    p.add_argument("pairs", metavar="KEY=VALUE", nargs="*", help="prompt arguments")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=prompt_command)


class _NotBase64(ValueError):
    """A binary block whose data is not base64; str() is why."""


def _save_binary(ctx: CliContext, data_b64: str, mime_type: str | None, stem: str) -> Path:
    """Save a block's base64 data in the outputs folder. Raises _NotBase64 (nothing is written then)."""
    try:
        # Line breaks are allowed (some servers wrap base64 at 76 columns); any other stray character
        # means the data is not what the server says it is.
        data = base64.b64decode("".join(data_b64.split()), validate=True)
    except binascii.Error as exc:
        raise _NotBase64(str(exc)) from None
    folder = ctx.paths.output_dir
    folder.mkdir(parents=True, exist_ok=True)
    extension = mimetypes.guess_extension(mime_type or "") or ".bin"
    path = folder / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}{extension}"
    counter = 1
    while path.exists():
        path = path.with_name(f"{path.stem}-{counter}{extension}")
        counter += 1
    path.write_bytes(data)
    return path


def _print_block(ctx: CliContext, block: Any, stem: str) -> str | None:
    """Print one content block (a binary one as where it was saved); why it could not be, if so."""
    mime_type: str | None
    if isinstance(block, types.ImageContent | types.AudioContent):
        what, data, mime_type = f"{block.type} {block.mime_type}", block.data, block.mime_type
    elif isinstance(block, types.EmbeddedResource) and isinstance(block.resource, types.BlobResourceContents):
        what, data, mime_type = (
            f"resource {block.resource.uri}",
            block.resource.blob,
            block.resource.mime_type,
        )
    else:
        print(block_text(block))
        return None
    try:
        path = _save_binary(ctx, data, mime_type, stem)
    except _NotBase64 as exc:
        problem = f"{what}: not saved, its data is not valid base64 ({exc})"
        print(f"[{problem}]")
        return problem
    print(f"[{what} saved to {path}]")
    return None


def _report_unsaved(problems: Sequence[str | None], whole: str) -> bool:
    """Say on stderr which blocks of ``whole`` could not be saved (by number, from 1); whether any."""
    for number, problem in enumerate(problems, start=1):
        if problem is not None:
            print(f"edgehost: block {number} of {len(problems)} of {whole}: {problem}", file=sys.stderr)
    return any(problem is not None for problem in problems)


def _tool_table(tools: Sequence[ToolSpec], starting: Sequence[str] = ()) -> None:
    if not tools:
        print(f"(no tools yet: {', '.join(starting)} still starting)" if starting else "(no tools)")
    width = max((len(t.name) for t in tools), default=4)
    for tool in tools:
        flags = "" if tool.enabled else " (disabled)"
        flags += f" [{_RISK_TAGS[tool_risk(tool)[0]]}]"
        print(f"{tool.name:<{width}}  {summary(tool.description)}{flags}")


_RISK_TAGS: dict[Risk, str] = {
    "safe": "read-only",
    "caution": "may change things",
    "destructive": "destructive",
}
# --- servers ------------------------------------------------------------------------------------


def state_json(state: ServerState, tool_names: list[str]) -> dict[str, Any]:
    data = state.to_json()
    data["toolNames"] = tool_names
    return data


def _any_failed(states: Sequence[ServerState]) -> bool:
    return any(s.status is ServerStatus.FAILED for s in states)


async def servers_command(ctx: CliContext) -> int:
    config = ctx.servers_config()
    async with connected(ctx, config, None, ctx.args.wait) as host:
        states = host.server_states()
        tools = host.tools()
    names = {s.name: [t.name for t in tools if t.server == s.name] for s in states}
    settled = not any(s.status is ServerStatus.STARTING for s in states)
    exit_code = 1 if _any_failed(states) or not settled or config.file_error else 0
    if ctx.args.json:
        print_json([state_json(s, names[s.name]) for s in states])
        return exit_code
    if not states:
        print(f"no servers configured ({config.path})")
    for state in states:
        line = f"{state.name}: {state.status.value}"
        if state.status is ServerStatus.READY:
            info = f"{state.server_name} {state.server_version}" if state.server_name else "unnamed server"
            line += (
                f"  [{info}, protocol {state.protocol_version}] {state.tools} tools, "
                f"{state.resources} resources, {state.resource_templates} templates, {state.prompts} prompts"
            )
        print(line)
        if state.error:
            print(f"  error: {state.error}")
        if state.status is ServerStatus.STARTING:
            print(f"  still starting after {ctx.args.wait:g} s (see --wait)")
        if state.status is ServerStatus.FAILED and state.stderr_tail:
            print("  stderr:")
            for text in state.stderr_tail[-STDERR_LINES_SHOWN:]:
                print(f"    {text}")
    return exit_code


# --- tools --------------------------------------------------------------------------------------


def _report_not_ready(states: Sequence[ServerState]) -> None:
    for state in states:
        if state.status is ServerStatus.FAILED:
            print(f"(not connected: {state.error or state.name})", file=sys.stderr)
        elif state.status is ServerStatus.STARTING:
            print(f"({state.name} is still starting; see --wait)", file=sys.stderr)


async def tools_command(ctx: CliContext) -> int:
    config = ctx.servers_config()
    if ctx.args.top is not None and not ctx.args.query:
        raise UsageError("--top needs --query")
    async with connected(ctx, config, server_names(config, ctx.args.server), ctx.args.wait) as host:
        states = host.server_states()
        specs = host.tools()
    if ctx.args.query:
        specs = rank_tools(ctx.args.query, specs, ctx.args.top)
    # A server still starting has listed nothing yet: the list is not all there is, and a script must
    # not take it for "no such tool" (exit 1, as `servers` does).
    starting = [s.name for s in states if s.status is ServerStatus.STARTING]
    if ctx.args.json:
        print_json([tool_json(spec) for spec in specs])
    else:
        _tool_table(specs, starting)
    _report_not_ready(states)
    return 1 if starting else 0


# --- call ---------------------------------------------------------------------------------------


def _parse_arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"arguments are not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise UsageError('arguments must be a JSON object, e.g. \'{"path": "notes.txt"}\'')
    return value


def _print_progress(event: object) -> None:
    """A call's progress and, for a call run as an MCP Task, each of its states, on stderr."""
    if isinstance(event, ev.ToolExecutionProgressed):
        print(f"[{progress_text(event)}]", file=sys.stderr, flush=True)


async def call_command(ctx: CliContext) -> int:
    """The user's own call: no approval prompt (typing it is the decision), but the user's deny rules
    refuse it and the history records it, through the Host like every other call."""
    arguments = _parse_arguments(ctx.args.arguments)
    config = ctx.servers_config()
    server = server_of(config, ctx.args.name)
    async with host_for(ctx, config, [server.name]) as host:
        states = await host.wait_servers_ready(CONNECT_WAIT_S)
        require_ready(next(s for s in states if s.name == server.name))
        host.subscribe(_print_progress)
        try:
            result = await host.call_tool(ctx.args.name, arguments, timeout=ctx.args.timeout)
        except UnknownTool:
            known = ", ".join(t.name for t in host.tools() if t.server == server.name)
            raise UsageError(
                f"server {server.name!r} has no tool {ctx.args.name!r} (it has: {known})"
            ) from None
    if ctx.args.json:
        print_json(result_json(result))
        return 1 if result.is_error else 0
    stem = sanitize(ctx.args.name)
    problems = [_print_block(ctx, block, stem) for block in result.content]
    # A server usually repeats its structured result as a JSON text block; print it once.
    if result.structured_content is not None and not _repeated_as_text(result):
        print("structuredContent: " + json.dumps(result.structured_content, ensure_ascii=False, indent=2))
    unsaved = _report_unsaved(problems, f"the result of {ctx.args.name}")
    if result.is_error:
        print(f"edgehost: tool {ctx.args.name!r} returned an error (isError)", file=sys.stderr)
    return 1 if result.is_error or unsaved else 0


def _repeated_as_text(result: types.CallToolResult) -> bool:
    for block in result.content:
        if isinstance(block, types.TextContent):
            try:
                if json.loads(block.text) == result.structured_content:
                    return True
            except ValueError:
                continue
    return False


# --- resources and prompts ------------------------------------------------------------------------


async def resources_command(ctx: CliContext) -> int:
    config = ctx.servers_config()
    async with connected(ctx, config, server_names(config, ctx.args.server), ctx.args.wait) as host:
        states = host.server_states()
        resources, templates = host.resources(), host.resource_templates()
    if ctx.args.json:
        print_json(
            [{"kind": "resource", **r.to_json()} for r in resources]
            + [{"kind": "template", **t.to_json()} for t in templates]
        )
        return 0
    if not resources and not templates:
        print("(no resources)")
    _report_not_ready(states)
    for resource in resources:
        print(f"{resource.uri}  ({resource.server}) {resource.name} {resource.mime_type or ''}".rstrip())
    for template in templates:
        print(f"{template.uri_template}  ({template.server}, template) {template.name}")
    return 0


async def read_command(ctx: CliContext) -> int:
    config = ctx.servers_config()
    uri, server = ctx.args.uri, ctx.args.server
    async with connected(ctx, config, server_names(config, server)) as host:
        if server:
            require_ready(state_of(host, server))
        if not ctx.args.watch:
            return 0 if _print_resource(ctx, await host.read_resource(uri, server=server)) else 1
        async with host.watch_resource(uri, server=server) as updates:
            _print_resource(ctx, await host.read_resource(uri, server=server))
            if not ctx.args.json:
                print(
                    f"(watching {uri}: it is read again when the server says it changed; Ctrl-C stops)",
                    file=sys.stderr,
                )
            async for _ in updates:
                if not ctx.args.json:
                    print(f"--- {uri} changed at {time.strftime('%H:%M:%S')} ---")
                _print_resource(ctx, await host.read_resource(uri, server=server))
    print(f"edgehost: the server of {uri} disconnected; it sends no more updates", file=sys.stderr)
    return 1


def _print_resource(ctx: CliContext, result: types.ReadResourceResult) -> bool:
    """Print what a read returned; whether every part of it could be (a blob that is not base64 cannot)."""
    if ctx.args.json:
        print_json(result.model_dump(by_alias=True, mode="json", exclude_none=True), one_line=ctx.args.watch)
        return True
    problems: list[str | None] = []
    for contents in result.contents:
        problem = None
        if isinstance(contents, types.TextResourceContents):
            print(contents.text)
        elif isinstance(contents, types.BlobResourceContents):
            what = f"{contents.uri} ({contents.mime_type or 'binary'})"
            try:
                path = _save_binary(ctx, contents.blob, contents.mime_type, "resource")
                print(f"[{what} saved to {path}]")
            except _NotBase64 as exc:
                problem = f"{what}: not saved, its data is not valid base64 ({exc})"
                print(f"[{problem}]")
        problems.append(problem)
    sys.stdout.flush()
    return not _report_unsaved(problems, "what was read")


async def prompts_command(ctx: CliContext) -> int:
    config = ctx.servers_config()
    async with connected(ctx, config, server_names(config, ctx.args.server), ctx.args.wait) as host:
        states = host.server_states()
        prompts = host.prompts()
    if ctx.args.json:
        print_json([p.to_json() for p in prompts])
        return 0
    if not prompts:
        print("(no prompts)")
    _report_not_ready(states)
    for prompt in prompts:
        arguments = " ".join(
            f"{a['name']}=" + ("…" if a.get("required") else "[…]") for a in prompt.arguments
        )
        print(
            f"{prompt.name} {arguments}".rstrip() + (f"  {prompt.description}" if prompt.description else "")
        )
    return 0


async def prompt_command(ctx: CliContext) -> int:
    arguments = parse_pairs(ctx.args.pairs)
    config = ctx.servers_config()
    server = server_of(config, ctx.args.name)
    async with connected(ctx, config, [server.name]) as host:
        require_ready(state_of(host, server.name))
        try:
            result = await host.get_prompt(ctx.args.name, arguments)
        except UnknownPrompt as exc:
            raise UsageError(str(exc)) from None
    if ctx.args.json:
        print_json(result.model_dump(by_alias=True, mode="json", exclude_none=True))
        return 0
    if result.description:
        print(f"# {result.description}")
    for message in result.messages:
        print(f"{message.role}: {block_text(message.content)}")
    return 0
