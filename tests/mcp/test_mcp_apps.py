"""MCP Apps (issue 36), against a real server with the SDK's Apps extension (tests/mcp/apps_server.py):
what the catalog reads of a tool's view and visibility, and what the model is offered."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp_support import running
from mcp_types import TextContent

from edgehost.host.executor import specs_of
from edgehost.host.tool_view import tool_json
from edgehost.mcp.catalog import app_ui
from edgehost.mcp.config import ServerConfig
from edgehost.mcp.server_state import ServerStatus

APPS_SERVER = Path(__file__).resolve().parent / "apps_server.py"
VIEW = "ui://counter/view.html"


async def test_a_tool_only_its_view_calls_is_not_offered_to_the_model_and_the_others_keep_their_view() -> (
    None
):
    entry = ServerConfig(name="counter", command=sys.executable, args=[str(APPS_SERVER)])
    async with running(entry) as manager:
        assert manager.status("counter").status is ServerStatus.READY, manager.status("counter").error
        tools = {t.original_name: t for t in manager.catalog.tools}
        offered = {spec.original_name for spec in specs_of(manager.catalog)}
        shown = {spec.original_name: tool_json(spec) for spec in specs_of(manager.catalog)}
        # The server still answers a call of it (its view's calls go through the host later on).
        result = await manager.call_tool("counter__add_one", {})
    assert set(tools) == {"show_counter", "add_one", "reset"}
    assert (tools["show_counter"].view_uri, tools["show_counter"].visibility) == (VIEW, None)
    assert (tools["add_one"].view_uri, tools["add_one"].visibility) == (VIEW, ("app",))
    assert (tools["reset"].view_uri, tools["reset"].visibility) == (None, None)
    assert offered == {"show_counter", "reset"}
    assert shown["show_counter"]["ui"] == {"resourceUri": VIEW}  # `edgehost tools --json`, the page
    assert "ui" not in shown["reset"]
    assert isinstance(text := result.content[0], TextContent) and text.text == "The counter is at 1."


def test_the_deprecated_flat_key_names_the_view_and_malformed_values_are_ignored() -> None:
    assert app_ui({"ui/resourceUri": VIEW}) == (VIEW, None)
    assert app_ui({"ui": {"resourceUri": VIEW, "visibility": ["model", "app"]}}) == (VIEW, ("model", "app"))
    assert app_ui({"ui": {"resourceUri": "https://example.com/view.html"}}) == (None, None)  # not ui://
    assert app_ui({"ui": "ui://counter/view.html", "other": 1}) == (None, None)
    assert app_ui({"ui": {"visibility": "app"}}) == (None, None)  # a list, or nothing
    assert app_ui(None) == (None, None)
