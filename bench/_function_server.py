"""A stdio MCP server that serves BFCL function definitions as tools (for bench/external_tool_check.py).

``python _function_server.py FUNCTIONS.json``: FUNCTIONS.json is a list of function definitions as the
Berkeley Function Calling Leaderboard writes them (name, description, parameters in its own dialect of
JSON Schema). Each becomes one MCP tool of the same name (BFCL's dots are valid in an MCP tool name);
its parameters are converted to JSON Schema (``dict`` -> ``object``, ``float`` -> ``number``, ``tuple``
-> ``array``, ``any`` -> no type, BFCL's non-standard ``optional`` flag dropped: ``required`` says it).
A call runs nothing: it returns ``{"result": "done", "called": NAME, "arguments": {...}}`` as text (not
an error), so the model's turn ends normally. Not a bench itself: bench/summary.py skips ``_`` files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

# BFCL's type names that JSON Schema spells otherwise; None: no type at all (any value).
TYPES: dict[str, str | None] = {"dict": "object", "float": "number", "tuple": "array", "any": None}
DROPPED = frozenset({"optional"})  # BFCL's own flag, not JSON Schema (the `required` list says it)


def json_schema(bfcl: Any) -> Any:
    """One BFCL parameter schema (and what it nests: properties, items) as JSON Schema."""
    if not isinstance(bfcl, dict):
        return bfcl
    schema: dict[str, Any] = {}
    for key, value in bfcl.items():
        if key in DROPPED:
            continue
        if key == "type" and isinstance(value, str):
            converted = TYPES.get(value, value)
            if converted is not None:
                schema["type"] = converted
        elif key == "properties" and isinstance(value, dict):
            schema["properties"] = {name: json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties"):
            schema[key] = json_schema(value)
        else:
            schema[key] = value
    return schema


def input_schema(function: dict[str, Any]) -> dict[str, Any]:
    schema = json_schema(function.get("parameters") or {})
    schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(f"usage: {Path(sys.argv[0]).name} FUNCTIONS.json (BFCL function definitions)")
    functions = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    tools = [
        types.Tool(name=f["name"], description=f.get("description") or "", input_schema=input_schema(f))
        for f in functions
    ]
    names = {tool.name for tool in tools}

    async def list_tools(_ctx: object, _params: object) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in names:
            text = f"no function named {params.name!r}"
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
        called = {"result": "done", "called": params.name, "arguments": params.arguments or {}}
        text = json.dumps(called, ensure_ascii=False)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server = Server(
        "bfcl-functions",
        on_list_tools=list_tools,  # type: ignore[arg-type]
        on_call_tool=call_tool,  # type: ignore[arg-type]
    )

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(serve)
    except (KeyboardInterrupt, BrokenPipeError):
        pass


if __name__ == "__main__":
    main()
