"""A stdio MCP server whose binary content is not always base64, as a careless server sends it.

``python binary_blocks_server.py``. Tool ``mixed``: a text block, an image whose data is not base64, a
valid 1x1 PNG, a text block. Resource ``blob://broken``: a blob that is not base64, after a text part.
Written on the SDK's low-level Server: its MCPServer encodes what a tool or resource returns itself.
"""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

# The smallest valid PNG: one transparent pixel.
PNG_1X1_BASE64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
NOT_BASE64 = "this is not base64!"


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="mixed",
                description="Text, a broken image, a good image, text.",
                input_schema={"type": "object", "properties": {}},
                annotations=types.ToolAnnotations(read_only_hint=True),
            )
        ]
    )


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(
        content=[
            types.TextContent(type="text", text="before the images"),
            types.ImageContent(type="image", data=NOT_BASE64, mime_type="image/png"),
            types.ImageContent(type="image", data=PNG_1X1_BASE64, mime_type="image/png"),
            types.TextContent(type="text", text="after the images"),
        ]
    )


async def list_resources(ctx: object, params: object) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[types.Resource(uri="blob://broken", name="broken")])


async def read_resource(ctx: object, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    return types.ReadResourceResult(
        contents=[
            types.TextResourceContents(uri=params.uri, text="the text part", mime_type="text/plain"),
            types.BlobResourceContents(uri=params.uri, blob=NOT_BASE64, mime_type="image/png"),
        ]
    )


async def main() -> None:
    server = Server(
        "blocks",
        on_list_tools=list_tools,  # type: ignore[arg-type]
        on_call_tool=call_tool,  # type: ignore[arg-type]
        on_list_resources=list_resources,  # type: ignore[arg-type]
        on_read_resource=read_resource,  # type: ignore[arg-type]
    )
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
