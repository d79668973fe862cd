"""Against @modelcontextprotocol/server-everything (a peer nobody on this team wrote), stdio and HTTP."""

from __future__ import annotations

import anyio
import mcp_types as types
import pytest
from mcp_support import everything_on_a_port, everything_stdio, running, wait_for

from edgehost.mcp.client_features import ClientFeatures
from edgehost.mcp.config import ServerConfig
from edgehost.mcp.errors import ServerUnavailable
from edgehost.mcp.server_state import ServerStatus

pytestmark = pytest.mark.peers


async def answer_elicitation(server: str, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


async def answer_sampling(server: str, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="sampled by edgehost"), model="scripted"
    )


FEATURES = ClientFeatures(elicitation=answer_elicitation, sampling=answer_sampling)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def exercise(config: ServerConfig, tmp_path_root: str) -> None:
    async with running(config, features=FEATURES) as manager:
        state = manager.status("everything")
        assert state.status is ServerStatus.READY, state.error
        assert state.server_name
        names = {t.original_name for t in manager.catalog.tools}
        # These tools are listed only because we declare sampling, elicitation and roots.
        assert {"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"} <= names
        annotated = manager.catalog.tool("everything__get-annotated-message")
        assert annotated is not None and annotated.input_schema["type"] == "object"

        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        result = await manager.call_tool(
            "everything__trigger-long-running-operation", {"duration": 1, "steps": 3}, progress=on_progress
        )
        assert not result.is_error
        assert progress == [1.0, 2.0, 3.0]

        sampled = await manager.call_tool(
            "everything__trigger-sampling-request", {"prompt": "hi", "maxTokens": 10}
        )
        assert "sampled by edgehost" in _text(sampled)
        elicited = await manager.call_tool("everything__trigger-elicitation-request", {})
        assert "Ada" in _text(elicited)
        roots = await manager.call_tool("everything__get-roots-list", {})
        assert tmp_path_root in _text(roots)

        resource = manager.catalog.resources[0]
        read = await manager.read_resource(resource.uri)
        assert read.contents and str(read.contents[0].uri) == resource.uri

        prompt = await manager.get_prompt("everything__args-prompt", {"city": "Lyon", "state": "Rhône"})
        assert "Lyon" in "".join(getattr(m.content, "text", "") for m in prompt.messages)


async def test_server_everything_over_stdio(tmp_path) -> None:  # type: ignore[no-untyped-def]
    await exercise(everything_stdio(roots=[str(tmp_path)]), tmp_path.as_uri())


async def test_server_everything_over_streamable_http(everything_http: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    config = ServerConfig(name="everything", transport="http", url=everything_http, roots=[str(tmp_path)])
    await exercise(config, tmp_path.as_uri())


async def test_the_headless_defaults_decline_sampling_and_an_elicitation_without_defaults() -> None:
    async with running(everything_stdio()) as manager:
        sampled = await manager.call_tool(
            "everything__trigger-sampling-request", {"prompt": "hi", "maxTokens": 10}
        )
        elicited = await manager.call_tool("everything__trigger-elicitation-request", {})
    assert sampled.is_error or "declined" in _text(sampled).lower()
    assert "declined" in _text(elicited).lower()


async def test_a_streamable_http_server_that_dies_fails_the_next_call_at_once_and_is_retried() -> None:
    with everything_on_a_port("streamableHttp", b"listening on port", "/mcp") as (url, process):
        config = ServerConfig(name="everything", transport="http", url=url)
        async with running(config) as manager:
            process.kill()
            process.wait()
            with anyio.fail_after(1.0), pytest.raises(ServerUnavailable, match="'everything'"):
                await manager.call_tool("everything__echo", {"message": "anyone?"})
            await wait_for(manager, lambda: manager.status("everything").status is ServerStatus.FAILED)
            state = manager.status("everything")
            assert state.retry_at is not None and "retrying" in (state.error or "")


async def test_a_call_does_not_time_out_while_the_user_answers_an_elicitation() -> None:
    async def slow_user(server: str, params: types.ElicitRequestParams) -> types.ElicitResult:
        await anyio.sleep(1.5)  # the user takes longer than the call's 1 s timeout to answer
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    features = ClientFeatures(elicitation=slow_user)
    async with running(everything_stdio(timeout=1.0), features=features) as manager:
        result = await manager.call_tool("everything__trigger-elicitation-request", {})
    assert "Ada" in _text(result)


async def test_a_watched_resource_of_a_2025_server_yields_its_updates_and_is_unsubscribed_after() -> None:
    # server-everything speaks 2025-11-25: resources/subscribe, then notifications/resources/updated
    # every 5 s once its toggle-subscriber-updates tool is called.
    async with running(everything_stdio()) as manager:
        assert manager.status("everything").protocol_version == "2025-11-25"
        uri = manager.catalog.resources[0].uri
        async with manager.watch_resource(uri) as updates:
            await manager.call_tool("everything__toggle-subscriber-updates", {})
            with anyio.fail_after(15):
                assert await updates.__anext__() == uri
        await wait_for(manager, lambda: any("Unsubscribe" in line for line in manager.log_tail("everything")))
        subscribed = [line for line in manager.log_tail("everything") if "ubscribe Resource request" in line]
        assert uri in subscribed[0] and "Received Unsubscribe" in subscribed[-1]


async def test_a_watch_ends_when_the_server_goes() -> None:
    async with running(everything_stdio()) as manager:
        uri = manager.catalog.resources[0].uri
        async with manager.watch_resource(uri) as updates:
            manager.set_server_enabled("everything", False)
            with anyio.fail_after(15):
                assert [update async for update in updates] == []


async def test_a_wrong_path_on_a_live_server_is_named_with_the_address_tried() -> None:
    with everything_on_a_port("streamableHttp", b"listening on port", "/mpc") as (url, _process):
        config = ServerConfig(name="typo", transport="http", url=url)
        async with running(config, auto_restart=False) as manager:
            await wait_for(manager, lambda: manager.status("typo").status is ServerStatus.FAILED)
            error = manager.status("typo").error or ""
    assert f"{url} answered 404 Not Found" in error, error
