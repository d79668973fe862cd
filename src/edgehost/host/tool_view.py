"""A tool as the faces list it: `edgehost tools --json`, the web page's /tools, one shape for both."""

from __future__ import annotations

from typing import Any

from edgehost.agent.approval import tool_risk
from edgehost.agent.tools import ToolSpec

__all__ = ["tool_json"]


def tool_json(tool: ToolSpec) -> dict[str, Any]:
    """The tool's catalog entry (namespaced and server's own name, title, description, enabled,
    annotations, input and output schema) with the risk the approval policy gives it and why."""
    risk, reasons = tool_risk(tool)
    return {
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
