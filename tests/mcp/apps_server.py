"""A stdio MCP server with the MCP Apps extension (the SDK's ``Apps``, io.modelcontextprotocol/ui): a
counter whose ``show_counter`` tool has a view (``ui://counter/view.html``), an ``add_one`` tool only
that view may call (visibility ["app"]), and a plain ``reset`` tool without a view.

``python apps_server.py``
"""

import warnings

VIEW = """<!doctype html>
<html><body><p id="count">0</p><button id="add">Add one</button></body></html>
"""


def main() -> None:
    warnings.simplefilter("ignore")
    from mcp.server.apps import Apps
    from mcp.server.mcpserver import MCPServer

    count = [0]
    apps = Apps()

    @apps.tool(resource_uri="ui://counter/view.html", description="Show the counter with its view.")
    def show_counter() -> str:
        return f"The counter is at {count[0]}."

    @apps.tool(resource_uri="ui://counter/view.html", visibility=["app"], description="Add one.")
    def add_one() -> str:
        count[0] += 1
        return f"The counter is at {count[0]}."

    apps.add_html_resource("ui://counter/view.html", VIEW, name="counter view")
    server = MCPServer("counter", version="1.0", extensions=[apps])

    @server.tool(description="Set the counter back to zero.")
    def reset() -> str:
        count[0] = 0
        return "The counter is at 0."

    server.run("stdio")


if __name__ == "__main__":
    main()
