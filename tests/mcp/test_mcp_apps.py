"""MCP Apps (issue 36), against a real server with the SDK's Apps extension (tests/mcp/apps_server.py):
what the catalog reads of a tool's view and visibility, and what the model is offered."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp_support import READY_TIMEOUT_S

from edgehost.agent.config import AgentConfig
from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.host.tool_view import tool_json
from edgehost.llm.scripted import ScriptedBackend
from edgehost.mcp.catalog import app_ui
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.mcp.server_state import ServerStatus
from edgehost.paths import Paths
from edgehost.settings import Settings

APPS_SERVER = Path(__file__).resolve().parent / "apps_server.py"
VIEW = "ui://counter/view.html"


async def test_a_tool_only_its_view_calls_is_not_offered_to_the_model_but_a_person_still_calls_it(
    data_dir: Path,
) -> None:
    entry = ServerConfig(name="counter", command=sys.executable, args=[str(APPS_SERVER)])
    call = "[TOOL_CALL]" + json.dumps({"name": "counter__add_one", "arguments": {}}) + "[END_TOOL_CALL]"
    model = ScriptedBackend([call, "I could not add one."])
    host = Host(
        Paths.resolve(None, data_dir),
        Settings(),
        HostOptions(
            backend=model,
            servers=ServersConfig([entry]),
            only_servers=["counter"],
            agent=AgentConfig(routing="model"),  # the model names the tool itself
        ),
    )
    await host.start()
    try:
        [state] = await host.wait_servers_ready(READY_TIMEOUT_S)
        assert state.status is ServerStatus.READY, state.error
        listed = {t.tool_name: t for t in host.tools()}
        offered = {t.tool_name for t in host.model_tools()}
        shown = {t.tool_name: tool_json(t) for t in host.tools()}  # `edgehost tools --json`, the page
        turn = await host.submit("Add one to the counter.")
        called = await host.call_tool("counter__add_one", {})  # as `edgehost call` does
    finally:
        await host.aclose()
    assert set(listed) == {"show_counter", "add_one", "reset"}
    assert (listed["show_counter"].view_uri, listed["show_counter"].visibility) == (VIEW, None)
    assert (listed["add_one"].view_uri, listed["add_one"].visibility) == (VIEW, ("app",))
    assert (listed["reset"].view_uri, listed["reset"].visibility) == (None, None)
    assert offered == {"show_counter", "reset"}
    assert shown["add_one"]["ui"] == {"resourceUri": VIEW, "visibility": ["app"]}
    assert shown["show_counter"]["ui"] == {"resourceUri": VIEW, "visibility": None}
    assert "ui" not in shown["reset"]
    assert turn is not None
    [named] = turn.executions  # named by the model: refused as a tool it was not offered, never run
    assert (named["tool"], named["status"]) == ("counter__add_one", "invalid")
    told = model.requests[1].messages[-1].content  # what the model read after naming it
    assert "counter__add_one" in told and "counter__add_one" not in model.requests[0].messages[0].content
    assert "The counter is at 1." in str(called)  # the first call that reached the server


def test_the_deprecated_flat_key_names_the_view_and_malformed_values_are_ignored() -> None:
    assert app_ui({"ui/resourceUri": VIEW}) == (VIEW, None)
    assert app_ui({"ui": {"resourceUri": VIEW, "visibility": ["model", "app"]}}) == (VIEW, ("model", "app"))
    assert app_ui({"ui": {"resourceUri": "https://example.com/view.html"}}) == (None, None)  # not ui://
    assert app_ui({"ui": "ui://counter/view.html", "other": 1}) == (None, None)
    assert app_ui({"ui": {"visibility": "app"}}) == (None, None)  # a list, or nothing
    assert app_ui(None) == (None, None)
