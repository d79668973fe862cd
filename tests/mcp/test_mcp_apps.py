"""MCP Apps (issue 36), against a real server with the SDK's Apps extension (tests/mcp/apps_server.py):
what the catalog reads of a tool's view and visibility, what the model is offered, and what the Host
does for a view (its HTML and CSP, its calls, its context). The page's side is in
tests/web/test_app_views_in_a_browser.py."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp_support import READY_TIMEOUT_S

from edgehost.agent.approval import ApprovalDecision, ApprovalRequest
from edgehost.agent.config import AgentConfig
from edgehost.host.app_views import ViewRefused
from edgehost.host.direct_calls import ToolRefused
from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.host.tool_view import tool_json
from edgehost.llm.scripted import ScriptedBackend
from edgehost.mcp.catalog import app_ui
from edgehost.mcp.config import ServerConfig, ServersConfig
from edgehost.mcp.config.edits import builtin_servers_by_name
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
    assert set(listed) == {"show_counter", "add_one", "add_slowly", "peek", "reset"}
    assert (listed["show_counter"].view_uri, listed["show_counter"].visibility) == (VIEW, None)
    assert (listed["add_one"].view_uri, listed["add_one"].visibility) == (VIEW, ("app",))
    assert (listed["reset"].view_uri, listed["reset"].visibility) == (None, None)
    assert offered == {"show_counter", "peek", "reset"}
    assert shown["add_one"]["ui"] == {"resourceUri": VIEW, "visibility": ["app"]}
    assert shown["show_counter"]["ui"] == {"resourceUri": VIEW, "visibility": None}
    assert "ui" not in shown["reset"]
    assert turn is not None
    [named] = turn.executions  # named by the model: refused as a tool it was not offered, never run
    assert (named["tool"], named["status"]) == ("counter__add_one", "invalid")
    told = model.requests[1].messages[-1].content  # what the model read after naming it
    assert "counter__add_one" in told and "counter__add_one" not in model.requests[0].messages[0].content
    assert called.structured_content == {"count": 1, "note": "added one"}  # the first call that reached it


def test_the_deprecated_flat_key_names_the_view_and_malformed_values_are_ignored() -> None:
    assert app_ui({"ui/resourceUri": VIEW}) == (VIEW, None)
    assert app_ui({"ui": {"resourceUri": VIEW, "visibility": ["model", "app"]}}) == (VIEW, ("model", "app"))
    assert app_ui({"ui": {"resourceUri": "https://example.com/view.html"}}) == (None, None)  # not ui://
    assert app_ui({"ui": "ui://counter/view.html", "other": 1}) == (None, None)
    assert app_ui({"ui": {"visibility": "app"}}) == (None, None)  # a list, or nothing
    assert app_ui(None) == (None, None)


@pytest.fixture
async def counter_host(data_dir: Path) -> AsyncIterator[Callable[..., Any]]:
    """counter_host(answers, approver, connect="") -> a started Host on the counter server alone, whose
    view declares ``connect`` as its connectDomains."""
    hosts: list[Host] = []

    async def start(answers: list[str], approver: Any = None, connect: str = "") -> Host:
        entry = ServerConfig(
            name="counter", command=sys.executable, args=[str(APPS_SERVER)], env={"COUNTER_CONNECT": connect}
        )
        paths = Paths.resolve(None, data_dir)
        files = builtin_servers_by_name(paths)["files"]  # another server, whose tools a view may not call
        host = Host(
            paths,
            Settings(),
            HostOptions(
                backend=ScriptedBackend(answers),
                servers=ServersConfig([entry, files]),
                approver=approver,
                agent=AgentConfig(routing="model"),
            ),
        )
        hosts.append(host)
        await host.start()
        states = await host.wait_servers_ready(READY_TIMEOUT_S)
        assert all(s.status is ServerStatus.READY for s in states), [(s.name, s.error) for s in states]
        return host

    yield start
    for host in hosts:
        await host.aclose()


async def test_the_host_declares_the_apps_extension_and_reads_a_views_html_and_declared_origins(
    counter_host: Callable[..., Any],
) -> None:
    host = await counter_host(
        [], connect="https://api.example.com wss://*.example.org:8443 'unsafe-eval' x;y"
    )
    called = await host.call_tool("counter__show_counter", {})
    view = await host.read_view("counter__show_counter")
    with pytest.raises(ViewRefused, match="counter__reset has no view"):
        await host.read_view("counter__reset")
    # The server's own check of the client's capabilities (the SDK's client_supports_apps).
    assert "its view is shown" in str(called)
    assert (view.server, view.uri, view.prefers_border) == ("counter", VIEW, True)
    assert "ui/initialize" in view.html and "<button" in view.html
    assert dict(view.csp) == {"connectDomains": ("https://api.example.com", "wss://*.example.org:8443")}
    assert view.dropped == ("'unsafe-eval'", "x;y")  # could have added directives of their own


async def test_a_views_call_is_approved_and_recorded_and_reaches_only_its_own_tools_meant_for_views(
    counter_host: Callable[..., Any],
) -> None:
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision(allow=len(asked) == 1)  # the first call is allowed, the next denied

    host = await counter_host([], approver)
    conversation = host.new_conversation("Show the counter")
    result = await host.call_from_view("counter", "add_one", {}, conversation)
    with pytest.raises(ToolRefused, match="denied"):
        await host.call_from_view("counter", "add_one", {}, conversation)
    with pytest.raises(ViewRefused, match=r"not offered to views \(its visibility is \['model'\]\)"):
        await host.call_from_view("counter", "peek", {}, conversation)
    with pytest.raises(
        ViewRefused, match=r"may only call counter's tools, not files__delete_file \(it is files's\)"
    ):
        await host.call_from_view("counter", "files__delete_file", {"path": "notes.txt"}, conversation)
    with pytest.raises(ViewRefused, match="not counter__reset"):  # its own tools, by their own names
        await host.call_from_view("counter", "counter__reset", {}, conversation)
    runs = host.history.executions(conversation_id=conversation)
    assert result.structured_content == {"count": 1, "note": "added one"}
    assert [(r.tool, r.asked_from) for r in asked] == [("counter__add_one", "the view of counter")] * 2
    assert [(r.tool, r.status, r.chosen_by, r.decided_by) for r in reversed(runs)] == [
        ("counter__add_one", "ok", "view", "user"),
        ("counter__add_one", "denied", "view", "user"),
    ]  # the refused ones never reached the approval or the server
    assert runs[-1].structured_result == {"count": 1, "note": "added one"}  # what the view renders, kept


async def test_a_view_cannot_have_a_switched_off_tool_approved_and_a_withdrawn_call_closes_its_approval(
    counter_host: Callable[..., Any],
) -> None:
    host = await counter_host([])  # approvals wait for an answer, as in the window
    resolved = []
    asked = asyncio.Event()

    def seen(event: Any) -> None:
        if type(event).__name__ == "ApprovalResolved":
            resolved.append(event)
        elif type(event).__name__ == "ApprovalRequested":
            asked.set()

    host.subscribe(seen)
    conversation = host.new_conversation("Show the counter")
    host.set_tool_enabled("counter__add_one", False)
    with pytest.raises(ViewRefused, match="counter__add_one is switched off"):
        await host.call_from_view("counter", "add_one", {}, conversation)
    host.set_tool_enabled("counter__add_one", True)
    waiting = asyncio.ensure_future(host.call_from_view("counter", "add_one", {}, conversation))
    await asyncio.wait_for(asked.wait(), READY_TIMEOUT_S)
    [request] = host.approvals.open_requests
    waiting.cancel()  # the view was closed (web/app.py withdraws its calls)
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert host.approvals.open_requests == []
    assert [(e.request_id, e.allowed, e.decided_by) for e in resolved] == [(request.id, False, "cancel")]
    [run] = host.history.executions(conversation_id=conversation)
    assert (run.tool, run.status, run.chosen_by, run.decided_by) == (
        "counter__add_one",
        "cancelled",
        "view",
        "cancel",
    )


async def test_a_call_already_running_when_its_view_goes_runs_to_its_end(
    counter_host: Callable[..., Any],
) -> None:
    async def allow(_request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allow=True)

    host = await counter_host([], allow)
    started, finished = asyncio.Event(), asyncio.Event()

    def seen(event: Any) -> None:
        if type(event).__name__ == "ToolExecutionStarted":
            started.set()
        elif type(event).__name__ == "ToolExecutionFinished":
            finished.set()

    host.subscribe(seen)
    conversation = host.new_conversation("Show the counter")
    calling = asyncio.ensure_future(host.call_from_view("counter", "add_slowly", {}, conversation))
    await asyncio.wait_for(started.wait(), READY_TIMEOUT_S)
    calling.cancel()  # the view closed while the server works on it
    with pytest.raises(asyncio.CancelledError):
        await calling
    await asyncio.wait_for(finished.wait(), READY_TIMEOUT_S)
    [run] = host.history.executions(conversation_id=conversation)
    assert (run.status, run.structured_result) == ("ok", {"count": 1, "note": "added one slowly"})


async def test_a_views_latest_context_goes_with_the_next_question_only(
    counter_host: Callable[..., Any],
) -> None:
    host = await counter_host(["It shows 3.", "I do not know."])
    conversation = host.new_conversation("Show the counter")
    host.update_view_context(conversation, "counter", VIEW, [{"type": "text", "text": "The view shows 2."}])
    host.update_view_context(conversation, "counter", VIEW, [{"type": "text", "text": "The view shows 3."}])
    other = "ui://counter/other.html"  # another view: its own latest context, kept beside the first
    host.update_view_context(conversation, "counter", other, [], {"open": True})
    await host.submit("What does the view show?", conversation)
    await host.submit("And now?", conversation)
    model = host.backend
    assert isinstance(model, ScriptedBackend)
    first, second = (request.messages[-1].content for request in model.requests)
    assert f"[resource {VIEW}" in first and "The view shows 3." in first and "shows 2" not in first
    assert f"[resource {other}" in first and '{"open": true}' in first
    assert "The view shows" not in second
    shown = host.history.conversation(conversation)
    assert shown is not None
    [question, *_] = [e for e in shown.entries if type(e).__name__ == "Question"]
    assert [a.uri for a in question.attachments] == [VIEW, other]  # the user sees what the model was given


async def test_a_views_log_message_is_in_edgehosts_log(
    counter_host: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    host = await counter_host([])
    with caplog.at_level(logging.INFO, logger="edgehost.views"):
        host.view_log("counter", "info", "torn down")
    assert "view of counter: torn down" in caplog.text
