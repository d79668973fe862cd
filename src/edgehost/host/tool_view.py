"""A tool as the faces show it: `edgehost tools --json` and the web page's /tools (one shape for both),
the window's tools panel (its risk, the user's rule for it)."""

from __future__ import annotations

from typing import Any

from edgehost.agent.approval import parse_rules, tool_risk
from edgehost.agent.tools import ToolSpec
from edgehost.errors import ConfigError

__all__ = ["risk_of", "rule_for", "tool_json"]


def tool_json(tool: ToolSpec) -> dict[str, Any]:
    """The tool's catalog entry (namespaced and server's own name, title, description, enabled,
    annotations, input and output schema, its view's ui:// resource when it has one) with the risk the
    approval policy gives it and why."""
    risk, reasons = risk_of(tool)
    shown = {
        "name": tool.name,
        "server": tool.server,
        "tool": tool.tool_name,
        "title": tool.title,
        "description": tool.description,
        "enabled": tool.enabled,
        "annotations": dict(tool.annotations),
        "inputSchema": dict(tool.input_schema),
        "outputSchema": dict(tool.output_schema) if tool.output_schema is not None else None,
        "risk": risk,
        "riskReasons": list(reasons),
    }
    if tool.view_uri is not None or tool.visibility is not None:  # MCP Apps: the tool's own view
        shown["ui"] = {
            "resourceUri": tool.view_uri,
            "visibility": list(tool.visibility) if tool.visibility is not None else None,
        }
    return shown


def risk_of(tool: ToolSpec) -> tuple[str, tuple[str, ...]]:
    """The risk the approval policy gives ``tool`` (from its annotations and its name) and why, in
    words: what an approval shows and what the faces list."""
    return tool_risk(tool)


def rule_for(approval: list[dict[str, Any]], tool: ToolSpec) -> str:
    """The action of the first user rule matching ``tool``, or "default"."""
    try:
        rules = parse_rules(approval)
    except ConfigError:
        return "default"
    rule = next((r for r in rules if r.matches(tool)), None)
    return rule.action if rule is not None else "default"
