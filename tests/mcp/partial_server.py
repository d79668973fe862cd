"""A stdio MCP server on the SDK's low-level ``Server`` that does less than it should, for the
supervisor tests.

``python partial_server.py``: declares tools and resources (it has resources/list) but has no
resources/templates/list, so it answers that with "method not found".
Tools: echo; stray_bytes, which writes bytes that are not UTF-8 to the wire (a line of garbage and a
log notification with a Latin-1 "é" in it), then answers.
"""

import os
import warnings
from typing import Any


def main() -> None:
    warnings.simplefilter("ignore")
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    # The transport moves fd 1 aside while it serves (stray prints go to stderr): keep the wire itself.
    wire = os.dup(1)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        text = {"type": "object", "properties": {"text": {"type": "string"}}}
        return types.ListToolsResult(
            tools=[
                types.Tool(name="echo", description="Return the text.", input_schema=text),
                types.Tool(
                    name="stray_bytes",
                    description="Write bytes that are not UTF-8.",
                    input_schema={"type": "object"},
                ),
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "stray_bytes":
            log = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"caf\xe9"}}'
            os.write(wire, b"\xff\xfe not UTF-8 \xff\n" + log + b"\n")
            return types.CallToolResult(content=[types.TextContent(text="wrote stray bytes")])
        return types.CallToolResult(content=[types.TextContent(text=str((params.arguments or {})["text"]))])

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(uri="partial://readme", name="readme")])

    server: Server[Any] = Server(
        "partial", on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources
    )

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
