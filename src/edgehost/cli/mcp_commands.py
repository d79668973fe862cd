"""`edgehost servers | tools | call | resources | read | prompts | prompt | probe`.

Each command connects only the servers it needs, through a Host without a model (decision 9): `call`
and `probe` call tools under the user's deny rules with every call in the history; the listing
commands read the Host's catalog.
"""

from __future__ import annotations

import argparse
import base64
import json
import logging
import mimetypes
import sys
import time
from collections.abc import AsyncIterator, Collection, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mcp_types as types

from edgehost.agent.approval import Risk, tool_risk
from edgehost.agent.ranking import rank_tools
from edgehost.agent.tools import ToolSpec, summary
from edgehost.cli.context import CliContext, parse_pairs, positive_float, positive_int, print_json
from edgehost.cli.probe_auth import probe_credentials, probe_http_auth
from edgehost.cli.probe_conformance import PlannedCall, planned_calls
from edgehost.cli.terminal import progress_text
from edgehost.errors import UsageError
from edgehost.host import events as ev
from edgehost.host.direct_calls import ToolRefused
from edgehost.host.tool_view import tool_json
from edgehost.mcp.catalog import SEPARATOR, sanitize
from edgehost.mcp.client_features import ClientFeatures
from edgehost.mcp.config import BUILT_INS_ONLY, ServerConfig, ServersConfig
from edgehost.mcp.errors import ServerUnavailable, ToolCallError, UnknownPrompt, UnknownTool

if TYPE_CHECKING:
    from edgehost.host.host import Host
from edgehost.mcp.results import block_text, content_json, result_json
from edgehost.mcp.schema_values import example_arguments
from edgehost.mcp.server_state import ServerState, ServerStatus
from edgehost.mcp.supervisor import STARTUP_TIMEOUT_S

# A command that needs one server waits as long as the supervisor's own start bound, plus a little.
_CONNECT_WAIT_S = STARTUP_TIMEOUT_S + 5
# A listing shows what is up by then; a server still starting (an npx download, a hung program) is
# listed as starting rather than holding up the others for a minute.
_LISTING_WAIT_S = 10.0
_STDERR_LINES_SHOWN = 10
_PROBE_CALL_TIMEOUT_S = 30.0


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

    p = sub.add_parser("tools", help="list the tools of the connected servers (namespaced server__tool)")
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
    p.add_argument("--json", action="store_true", help="print the result as JSON")
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

    p = sub.add_parser(
        "probe",
        help="connect to a server, list everything, call each tool with arguments built from its schema",
        description="Connect to URL (Streamable HTTP, or legacy SSE with --sse) or a configured server, list "
        "its tools, resources and prompts, call each tool with arguments built from its schema (defaults, "
        "enums, minimal valid values), answer elicitation with the schema's defaults, and print a report. "
        "Which tools are called goes by their risk (annotations and name, as for approval): a URL probe "
        "calls all but destructive ones; a --server probe, which runs against your real config, calls "
        "only safe (read-only) ones. --call-risky widens that to every tool but destructive ones, "
        "--call-destructive to every tool.",
    )
    p.add_argument("url", metavar="URL", nargs="?", help="server URL")
    p.add_argument("--server", metavar="NAME", help="a configured server instead of a URL")
    p.add_argument("--sse", action="store_true", help="URL is a legacy SSE endpoint")
    p.add_argument(
        "--call-risky",
        action="store_true",
        help="with --server: also call tools that may change things (risk caution), not destructive ones",
    )
    p.add_argument(
        "--call-destructive",
        action="store_true",
        help="call every tool, including those whose annotations or name say destructive (delete_*, kill_*)",
    )
    p.add_argument(
        "--client-id", metavar="ID", help="OAuth: a client registered beforehand (else dynamic registration)"
    )
    p.add_argument("--client-secret", metavar="SECRET", help="OAuth: that client's secret")
    p.add_argument(
        "--client-metadata-url",
        metavar="HTTPS_URL",
        help="OAuth: a client ID metadata document describing this client, used where the server supports them",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler=probe_command)


# --- shared -------------------------------------------------------------------------------------


@contextmanager
def _quiet_sdk_logs() -> Iterator[None]:
    # The SDK logs every junk stdout line of a server with a traceback; the CLI reports servers its own way.
    sdk_logger = logging.getLogger("mcp")
    level = sdk_logger.level
    sdk_logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        sdk_logger.setLevel(level)


def _server_names(config: ServersConfig, only: str | None) -> list[str] | None:
    if only is None:
        return None
    if config.get(only) is None:
        known = ", ".join(s.name for s in config.servers) or "none"
        raise _not_configured(config, f"no server named {only!r} is configured (configured: {known})")
    return [only]


def _not_configured(config: ServersConfig, problem: str) -> UsageError:
    """``problem`` (a server the user named is not in ``config``), with why when the servers file could
    not be read: it may well be there, and only the built-in servers were loaded."""
    if config.file_error:
        problem += f". The servers file could not be read, so {BUILT_INS_ONLY}: {config.file_error}"
    return UsageError(problem)


def _server_of(config: ServersConfig, namespaced: str) -> ServerConfig:
    """The configured server a namespaced name belongs to (longest matching prefix)."""
    matches = [s for s in config.servers if namespaced.startswith(sanitize(s.name) + SEPARATOR)]
    if not matches:
        known = ", ".join(s.name for s in config.servers) or "none"
        raise _not_configured(
            config, f"{namespaced!r} does not start with a configured server name and '__' (servers: {known})"
        )
    return max(matches, key=lambda s: len(s.name))


@asynccontextmanager
async def _connected(
    ctx: CliContext, config: ServersConfig, only: Collection[str] | None, wait: float = _CONNECT_WAIT_S
) -> AsyncIterator[Host]:
    """A Host with the servers ``only`` (all when None), each settled (ready or failed) or still
    starting after ``wait`` seconds; closed on exit."""
    async with _host_for(ctx, config, only) as host:
        await host.wait_servers_ready(wait)
        yield host


def _state(host: Host, name: str) -> ServerState:
    return next(s for s in host.server_states() if s.name == name)


@asynccontextmanager
async def _host_for(
    ctx: CliContext,
    config: ServersConfig,
    only: Collection[str] | None,
    features: ClientFeatures | None = None,
) -> AsyncIterator[Host]:
    """A Host with just the servers ``only`` (all when None) and no model."""
    from edgehost.host.host import Host, HostOptions

    host = Host(
        ctx.paths,
        ctx.settings,
        HostOptions(
            features=features,
            servers=config,
            only_servers=list(only) if only is not None else None,
            with_model=False,
            auto_restart=False,  # one command, one look: a server that dies is shown failed
        ),
        ctx.profile_override,
    )
    with _quiet_sdk_logs():
        try:
            await host.start()
            yield host
        finally:
            await host.aclose()


def _require_ready(state: ServerState) -> None:
    if state.status is not ServerStatus.READY:
        # The supervisor's error already names the server and says what happened.
        raise ServerUnavailable(
            state.error or f"server {state.name!r} is {state.status.value}",
            server=state.name,
            stderr_tail=state.stderr_tail[-_STDERR_LINES_SHOWN:],
        )


def _save_binary(ctx: CliContext, data_b64: str, mime_type: str | None, stem: str) -> Path:
    folder = ctx.paths.output_dir
    folder.mkdir(parents=True, exist_ok=True)
    extension = mimetypes.guess_extension(mime_type or "") or ".bin"
    path = folder / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}{extension}"
    counter = 1
    while path.exists():
        path = path.with_name(f"{path.stem}-{counter}{extension}")
        counter += 1
    path.write_bytes(base64.b64decode(data_b64))
    return path


def _print_block(ctx: CliContext, block: Any, stem: str) -> None:
    if isinstance(block, types.ImageContent | types.AudioContent):
        path = _save_binary(ctx, block.data, block.mime_type, stem)
        print(f"[{block.type} {block.mime_type} saved to {path}]")
    elif isinstance(block, types.EmbeddedResource) and isinstance(block.resource, types.BlobResourceContents):
        path = _save_binary(ctx, block.resource.blob, block.resource.mime_type, stem)
        print(f"[resource {block.resource.uri} saved to {path}]")
    else:
        print(block_text(block))


def _tool_table(tools: Sequence[ToolSpec]) -> None:
    if not tools:
        print("(no tools)")
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
_RISK_ORDER: tuple[Risk, ...] = ("safe", "caution", "destructive")


# --- servers ------------------------------------------------------------------------------------


def _state_json(state: ServerState, tool_names: list[str]) -> dict[str, Any]:
    data = state.to_json()
    data["toolNames"] = tool_names
    return data


def _any_failed(states: Sequence[ServerState]) -> bool:
    return any(s.status is ServerStatus.FAILED for s in states)


async def servers_command(ctx: CliContext) -> int:
    config = ctx.servers_config()
    async with _connected(ctx, config, None, ctx.args.wait) as host:
        states = host.server_states()
        tools = host.tools()
    names = {s.name: [t.name for t in tools if t.server == s.name] for s in states}
    settled = not any(s.status is ServerStatus.STARTING for s in states)
    exit_code = 1 if _any_failed(states) or not settled or config.file_error else 0
    if ctx.args.json:
        print_json([_state_json(s, names[s.name]) for s in states])
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
            for text in state.stderr_tail[-_STDERR_LINES_SHOWN:]:
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
    async with _connected(ctx, config, _server_names(config, ctx.args.server), ctx.args.wait) as host:
        states = host.server_states()
        specs = host.tools()
    if ctx.args.query:
        specs = rank_tools(ctx.args.query, specs, ctx.args.top)
    if ctx.args.json:
        print_json([tool_json(spec) for spec in specs])
        return 0
    _tool_table(specs)
    _report_not_ready(states)
    return 0


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
    server = _server_of(config, ctx.args.name)
    async with _host_for(ctx, config, [server.name]) as host:
        states = await host.wait_servers_ready(_CONNECT_WAIT_S)
        _require_ready(next(s for s in states if s.name == server.name))
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
    else:
        stem = sanitize(ctx.args.name)
        for block in result.content:
            _print_block(ctx, block, stem)
        # A server usually repeats its structured result as a JSON text block; print it once.
        if result.structured_content is not None and not _repeated_as_text(result):
            print("structuredContent: " + json.dumps(result.structured_content, ensure_ascii=False, indent=2))
        if result.is_error:
            print(f"edgehost: tool {ctx.args.name!r} returned an error (isError)", file=sys.stderr)
    return 1 if result.is_error else 0


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
    async with _connected(ctx, config, _server_names(config, ctx.args.server), ctx.args.wait) as host:
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
    async with _connected(ctx, config, _server_names(config, ctx.args.server)) as host:
        if ctx.args.server:
            _require_ready(_state(host, ctx.args.server))
        result = await host.read_resource(ctx.args.uri, server=ctx.args.server)
    if ctx.args.json:
        print_json(result.model_dump(by_alias=True, mode="json", exclude_none=True))
        return 0
    for contents in result.contents:
        if isinstance(contents, types.TextResourceContents):
            print(contents.text)
        elif isinstance(contents, types.BlobResourceContents):
            path = _save_binary(ctx, contents.blob, contents.mime_type, "resource")
            print(f"[{contents.uri} ({contents.mime_type or 'binary'}) saved to {path}]")
    return 0


async def prompts_command(ctx: CliContext) -> int:
    config = ctx.servers_config()
    async with _connected(ctx, config, _server_names(config, ctx.args.server), ctx.args.wait) as host:
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
    server = _server_of(config, ctx.args.name)
    async with _connected(ctx, config, [server.name]) as host:
        _require_ready(_state(host, server.name))
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


# --- probe --------------------------------------------------------------------------------------


def _probe_target(ctx: CliContext) -> ServersConfig:
    if bool(ctx.args.url) == bool(ctx.args.server):
        raise UsageError("give either a URL or --server NAME")
    if ctx.args.server:
        config = ctx.servers_config()
        server = config.get(ctx.args.server)
        if server is None:
            raise _not_configured(config, f"no server named {ctx.args.server!r} is configured")
        return ServersConfig(servers=[replace(server, enabled=True)])
    url = ctx.args.url
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"{url!r} is not an http(s) URL")
    return ServersConfig(
        servers=[
            ServerConfig(
                name="probe",
                transport="sse" if ctx.args.sse else "http",
                url=url,
                timeout=_PROBE_CALL_TIMEOUT_S,
            )
        ]
    )


def _probe_max_risk(ctx: CliContext) -> Risk:
    """The riskiest tool a probe calls: a configured server is the user's real one (files, processes)."""
    if ctx.args.call_destructive:
        return "destructive"
    if ctx.args.call_risky or not ctx.args.server:
        return "caution"
    return "safe"


async def _probe_tools(
    ctx: CliContext, host: Host, planned: list[PlannedCall] | None = None
) -> list[dict[str, Any]]:
    """Call each tool up to the risk limit with example arguments (or just the ``planned`` calls), through
    the Host: probe's limit is a policy, not a bypass (the user's deny rules hold; every call is
    recorded)."""
    reports: list[dict[str, Any]] = []
    limit = _RISK_ORDER.index(_probe_max_risk(ctx))
    specs = {spec.tool_name: spec for spec in host.tools()}
    calls = (
        [(spec, example_arguments(dict(spec.input_schema))) for spec in specs.values()]
        if planned is None
        else [(specs[call.tool], call.arguments) for call in planned]
    )
    for spec, arguments in calls:
        risk, reasons = tool_risk(spec)
        report: dict[str, Any] = {
            "tool": spec.tool_name,
            "name": spec.name,
            "arguments": arguments,
            "risk": risk,
        }
        if _RISK_ORDER.index(risk) > limit:
            report["outcome"] = f"skipped ({risk}: {'; '.join(reasons)})"
            reports.append(report)
            continue
        started = time.perf_counter()
        try:
            result = await host.call_tool(spec.name, arguments, decided_by="probe")
        except ToolRefused as exc:
            report["outcome"] = "refused"
            report["error"] = str(exc)
        except ToolCallError as exc:
            report["outcome"] = "failed"
            report["error"] = str(exc)
        else:
            report["outcome"] = "tool error" if result.is_error else "ok"
            report["content"] = [content_json(block) for block in result.content][:5]
        report["seconds"] = round(time.perf_counter() - started, 3)
        reports.append(report)
    return reports


async def _probe_resources_and_prompts(host: Host) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    resources = []
    for resource in host.resources():
        try:
            result = await host.read_resource(resource.uri, server=resource.server)
            resources.append({"uri": resource.uri, "outcome": "ok", "contents": len(result.contents)})
        except ToolCallError as exc:
            resources.append({"uri": resource.uri, "outcome": "failed", "error": str(exc)})
    prompts = []
    for prompt in host.prompts():
        arguments = {a["name"]: "example" for a in prompt.arguments if a.get("required")}
        try:
            got = await host.get_prompt(prompt.name, arguments)
            prompts.append({"prompt": prompt.name, "outcome": "ok", "messages": len(got.messages)})
        except ToolCallError as exc:
            prompts.append({"prompt": prompt.name, "outcome": "failed", "error": str(exc)})
    return resources, prompts


async def probe_command(ctx: CliContext) -> int:
    config = _probe_target(ctx)
    name = config.servers[0].name
    features = None
    credentials = probe_credentials(ctx.args.client_id, ctx.args.client_secret)
    if ctx.args.url:  # a configured server signs in as it always does (`edgehost auth login`)
        features = ClientFeatures(http_auth=probe_http_auth(credentials, ctx.args.client_metadata_url))
    async with _host_for(ctx, config, [name], features) as host:
        states = await host.wait_servers_ready(_CONNECT_WAIT_S)
        _require_ready(next(s for s in states if s.name == name))
        tools = await _probe_tools(ctx, host, planned_calls(host.tools(), credentials.tool_calls))
        resources, prompts = await _probe_resources_and_prompts(host)
        state = next(s for s in host.server_states() if s.name == name)
    report = {"server": _state_json(state, []), "tools": tools, "resources": resources, "prompts": prompts}
    if ctx.args.json:
        print_json(report)
    else:
        _print_probe(report)
    return 0 if all(t["outcome"] != "failed" for t in tools) else 1


def _print_probe(report: dict[str, Any]) -> None:
    server = report["server"]
    info = server.get("serverInfo") or {}
    print(f"server {info.get('name') or server['name']} {info.get('version') or ''}".rstrip())
    print(f"  protocol {server['protocolVersion']} over {server['transport']}")
    print(f"  capabilities: {', '.join(sorted(server['capabilities'])) or 'none'}")
    if server.get("instructions"):
        print(f"  instructions: {server['instructions'][:200]}")
    print(f"tools ({len(report['tools'])}):")
    for tool in report["tools"]:
        detail = f" {tool['seconds']} s" if "seconds" in tool else ""
        error = f" - {tool['error'].splitlines()[0]}" if tool.get("error") else ""
        print(f"  {tool['tool']}: {tool['outcome']}{detail}{error}")
    print(f"resources ({len(report['resources'])}):")
    for resource in report["resources"]:
        print(f"  {resource['uri']}: {resource['outcome']}")
    print(f"prompts ({len(report['prompts'])}):")
    for prompt in report["prompts"]:
        print(f"  {prompt['prompt']}: {prompt['outcome']}")
