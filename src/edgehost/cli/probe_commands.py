"""`edgehost probe`: connect to one server (a URL, or a configured one), list everything, call each tool
with arguments built from its schema up to a risk limit, read each resource, get each prompt, report."""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from edgehost.agent.approval import RISK_ORDER, Risk, tool_risk
from edgehost.cli.context import CliContext, print_json
from edgehost.cli.mcp_commands import state_json
from edgehost.cli.probe_auth import probe_credentials, probe_http_auth
from edgehost.cli.probe_conformance import PlannedCall, planned_calls
from edgehost.cli.servers_host import CONNECT_WAIT_S, host_for, not_configured, require_ready
from edgehost.errors import UsageError
from edgehost.host.direct_calls import ToolRefused
from edgehost.mcp.client_features import ClientFeatures
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.mcp.errors import ToolCallError
from edgehost.mcp.results import content_json
from edgehost.mcp.schema_values import example_arguments

if TYPE_CHECKING:
    from edgehost.host.host import Host

_PROBE_CALL_TIMEOUT_S = 30.0


def register(sub: argparse._SubParsersAction) -> None:
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


def _probe_target(ctx: CliContext) -> ServersConfig:
    if bool(ctx.args.url) == bool(ctx.args.server):
        raise UsageError("give either a URL or --server NAME")
    if ctx.args.server:
        config = ctx.servers_config()
        server = config.get(ctx.args.server)
        if server is None:
            raise not_configured(config, f"no server named {ctx.args.server!r} is configured")
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
    limit = RISK_ORDER[_probe_max_risk(ctx)]
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
        if RISK_ORDER[risk] > limit:
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
    async with host_for(ctx, config, [name], features) as host:
        states = await host.wait_servers_ready(CONNECT_WAIT_S)
        require_ready(next(s for s in states if s.name == name))
        tools = await _probe_tools(ctx, host, planned_calls(host.tools(), credentials.tool_calls))
        resources, prompts = await _probe_resources_and_prompts(host)
        state = next(s for s in host.server_states() if s.name == name)
    report = {"server": state_json(state, []), "tools": tools, "resources": resources, "prompts": prompts}
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
