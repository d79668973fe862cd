"""The MCP conformance suite's client steps, for `edgehost probe` run by the suite's runner.

The runner names the scenario in ``MCP_CONFORMANCE_SCENARIO`` and passes scenario data in
``MCP_CONFORMANCE_CONTEXT``, as the suite documents for clients under test. For most scenarios the
ordinary probe (list everything, call each tool with arguments built from its schema) is what the
scenario checks. A few scenarios ask the client for particular calls instead; they are made here,
through the same Host, catalog and connection as every other probe call:

- ``toolCalls`` in the context (``http-custom-headers``): exactly those calls, with those arguments;
- ``json-schema-2020-12-preservation``: the focal tool's input schema, as EdgeHost keeps it in its
  catalog, sent back to the echo tool (so any keyword the catalog dropped shows);
- ``json-schema-ref-no-deref``: list only (the mock serves no calls; the check is that nothing is
  fetched for a ``$ref``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from edgehost.agent.tools import ToolSpec

__all__ = ["PlannedCall", "SCENARIO_VARIABLE", "planned_calls"]

SCENARIO_VARIABLE = "MCP_CONFORMANCE_SCENARIO"

_SCHEMA_FOCAL_TOOL = "json_schema_2020_12_tool"
_SCHEMA_ECHO_TOOL = "json_schema_echo"


@dataclass(frozen=True)
class PlannedCall:
    tool: str  # the server's own tool name
    arguments: dict[str, Any]


def planned_calls(
    tools: Sequence[ToolSpec],
    tool_calls: Sequence[Mapping[str, Any]],
    environ: Mapping[str, str] = os.environ,
) -> list[PlannedCall] | None:
    """The calls the scenario asks for, or None when the ordinary probe is what it checks."""
    by_name = {tool.tool_name: tool for tool in tools}
    if tool_calls:
        return [
            PlannedCall(str(call["name"]), dict(call.get("arguments") or {}))
            for call in tool_calls
            if call.get("name") in by_name  # a tool the catalog left out (invalid annotations) is not called
        ]
    scenario = environ.get(SCENARIO_VARIABLE)
    if scenario == "json-schema-ref-no-deref":
        return []
    schema_tools = {_SCHEMA_FOCAL_TOOL, _SCHEMA_ECHO_TOOL}
    if scenario == "json-schema-2020-12-preservation" and schema_tools <= set(by_name):
        schema = dict(by_name[_SCHEMA_FOCAL_TOOL].input_schema)
        return [PlannedCall(_SCHEMA_ECHO_TOOL, {"schema": schema})]
    return None
