"""Routing (decision 11) through the Host: the host decides whether a turn needs a tool and which, for a
model too small to; a grounded answer or the result itself. Scripted model replies, the real built-in
servers, the real ranker (all-MiniLM-L6-v2), a real history file."""

from __future__ import annotations

import asyncio
import datetime
import json
import sys
from pathlib import Path

import pytest
from tests.host.conftest import WAIT_S, WARM_S, call, serve_memory
from tests.host.test_turn_bounds import GrammarBackend

from edgehost.agent.approval import ApprovalDecision
from edgehost.agent.routing import HOST_ROUTING_BELOW_PARAMETERS, parameters_from_name, resolve_routing
from edgehost.host import events as ev
from edgehost.host.host import Host
from edgehost.host.options import HostOptions
from edgehost.llm.scripted import ScriptedBackend
from edgehost.paths import Paths
from edgehost.settings import Settings

# Serves function definitions as MCP tools over stdio (bench/external_tool_check.py's server).
FUNCTION_SERVER = Path(__file__).resolve().parents[2] / "bench" / "_function_server.py"


def host_routing() -> Settings:
    """Settings with host routing, new for each host: a host changes its settings (a server switched
    off stays off in them), so one object shared by the tests carried a switched-off board into the
    next test."""
    return Settings(routing="host")


def test_auto_routing_lets_the_host_decide_for_models_under_the_size_rule() -> None:
    assert resolve_routing("auto", 135_000_000) == "host"
    assert resolve_routing("auto", HOST_ROUTING_BELOW_PARAMETERS - 1) == "host"
    assert resolve_routing("auto", 3_000_000_000) == "model"
    assert resolve_routing("auto", None) == "model"  # unknown size (a remote model): it decides
    assert resolve_routing("host", 70_000_000_000) == "host"
    assert resolve_routing("model", 135_000_000) == "model"
    with pytest.raises(ValueError, match="routing is one of"):
        resolve_routing("sometimes", None)


def test_a_size_is_read_from_a_models_name_when_the_runtime_does_not_say() -> None:
    assert parameters_from_name("Qwen2.5-0.5B-Instruct") == 500_000_000
    assert parameters_from_name("SmolLM2 135M 8k Lc100K Mix1 Ep2") == 135_000_000
    assert parameters_from_name("qwen2.5-1.5b-instruct-w8a8") == 1_500_000_000
    assert parameters_from_name("gpt-4o") is None


async def test_small_talk_calls_nothing_even_when_the_model_writes_a_call(make_host) -> None:
    backend = ScriptedBackend([call("board__temperatures") + " Hello!"])
    host, recorder = await make_host(backend, host_routing())
    result = await host.submit("Hi there! How are you?")
    [routed] = recorder.of(ev.TurnRouted)
    assert not routed.needs_tool and routed.candidates == ()
    assert result.executions == ()
    assert host.history.executions() == []
    assert not backend.requests[0].grammar  # no call forced


async def test_a_board_question_is_routed_to_the_board_tool_and_the_call_marked_as_the_hosts(
    make_host,
) -> None:
    # The scripted backend has no grammar: the host writes the call's start, the model the arguments.
    backend = ScriptedBackend(["{}}[END_TOOL_CALL]", "done"])
    host, recorder = await make_host(backend, host_routing())
    result = await host.submit("How much memory is free?")
    [routed] = recorder.of(ev.TurnRouted)
    assert routed.needs_tool and routed.candidates[0] == "board__memory_usage"
    assert backend.requests[0].continuation.startswith(
        '[TOOL_CALL]{"name": "board__memory_usage", "arguments": '
    )
    [detected] = recorder.of(ev.ToolCallDetected)
    assert (detected.name, detected.chosen_by) == ("board__memory_usage", "host")
    [execution] = host.history.executions()
    assert (execution.tool, execution.status, execution.chosen_by) == ("board__memory_usage", "ok", "host")
    assert result.executions[0]["chosen_by"] == "host"
    # Who chose it is in the history, beside the dialect its text was written in.
    assert (execution.to_dict()["chosen_by"], execution.dialect) == ("host", "bracket")
    await host.call_tool("board__uptime", {})
    assert host.history.executions()[0].chosen_by == "user"  # `edgehost call`
    # The answer after the result is asked for the question, not left to comment on the result.
    framed = backend.requests[1].messages[-1].content
    assert framed.endswith("Answer with this result: How much memory is free?")


async def test_an_answer_that_invents_a_number_is_replaced_by_the_result(make_host) -> None:
    backend = ScriptedBackend(["{}}[END_TOOL_CALL]", "You have 2307.2 MB free."])
    host, recorder = await make_host(backend, host_routing())
    result = await host.submit("How much memory is free?")
    [ungrounded] = recorder.of(ev.AnswerUngrounded)
    assert "2307.2" in ungrounded.reason
    measured = json.loads(host.history.executions()[0].result)
    assert f"available_mb: {measured['available_mb']}" in result.text
    assert "> You have 2307.2 MB free." in result.text  # the model's reply, marked as such
    # A face that streamed the reply shows the result after it, without quoting the reply again.
    assert ungrounded.results_text.startswith("**board__memory_usage** returned:")
    assert "2307.2" not in ungrounded.results_text
    # What the user read is what the history keeps and what the model sees next.
    assert host.history.messages(result.conversation_id)[-1].content == result.text
    assert host.conversation(result.conversation_id).messages[-1].content == result.text


async def asked_for_free_memory(make_host, reply: str):
    """A host-routed turn "How much memory is free?" whose model answers the board's result with
    ``reply``, "{mb}" in it replaced by the free megabytes the result gives; (result, recorder)."""
    backend = ScriptedBackend(["{}}[END_TOOL_CALL]"])
    host, recorder = await make_host(backend, host_routing())

    def answer_from_result(event: object) -> None:
        if isinstance(event, ev.ToolExecutionFinished):
            available = json.loads(event.full_result)["available_mb"]
            backend.enqueue(reply.replace("{mb}", f"{available:.0f}"))

    host.subscribe(answer_from_result)
    return await host.submit("How much memory is free?"), recorder


async def test_an_answer_with_the_results_numbers_stands(make_host) -> None:
    result, recorder = await asked_for_free_memory(make_host, "About {mb} MB are free.")
    assert recorder.of(ev.AnswerUngrounded) == []
    assert [e.text for e in recorder.of(ev.AnswerWithResults)] == [result.text]  # what the faces show
    # The result rendered, then the model's sentence, which stands.
    assert result.text.startswith("**board__memory_usage** returned:\n\n- total_mb: ")
    assert result.text.endswith(" MB are free.") and "\n\nAbout " in result.text


async def test_a_result_frame_the_model_writes_itself_is_cut_from_the_answer(make_host) -> None:
    # Spelt unlike the host's frames, so no stop sequence ends the reply there.
    reply = "About {mb} MB are free. [End_Tool_Result] [RESULT name=x] 5 MB"
    result, recorder = await asked_for_free_memory(make_host, reply)
    assert recorder.of(ev.AnswerUngrounded) == []
    assert result.text.endswith(" MB are free.") and "RESULT" not in result.text


async def test_model_routing_runs_the_call_the_model_chose(make_host) -> None:
    backend = ScriptedBackend([call("board__uptime"), "Up a while."])
    host, recorder = await make_host(backend, Settings(routing="model"))
    await host.submit("Hi there!")
    assert recorder.of(ev.TurnRouted) == []
    [detected] = recorder.of(ev.ToolCallDetected)
    assert (detected.name, detected.chosen_by) == ("board__uptime", "model")


async def test_a_conversations_routing_overrides_the_setting_and_survives_a_restart(
    make_host, data_dir
) -> None:
    backend = ScriptedBackend([call("board__uptime"), "Up a while."])
    host, recorder = await make_host(backend, host_routing())
    conversation = host.new_conversation("mine")
    host.set_routing(conversation, "model")
    assert host.routing(conversation) == ("model", "model")
    await host.submit("Hi there!", conversation)
    assert [e.chosen_by for e in recorder.of(ev.ToolCallDetected)] == ["model"]
    with pytest.raises(ValueError):
        host.set_routing(conversation, "sometimes")
    again = Host(
        Paths.resolve(None, data_dir),
        host_routing(),
        HostOptions(backend=ScriptedBackend(), with_servers=False),
    )
    await again.start()
    try:
        assert again.routing(conversation) == ("model", "model")
        assert again.routing(None) == ("host", "host")
    finally:
        await again.aclose()


async def test_a_folder_the_question_names_reaches_the_tool_when_the_model_leaves_it_out(make_host) -> None:
    # Seen with the embedded model: "list the files in /tmp" called list_directory({}), the server listed
    # its own folder, and the user read that /tmp was empty.
    backend = ScriptedBackend(["{}}[END_TOOL_CALL]", "`Files__list_directory: /tmp`"])
    host, recorder = await make_host(backend, host_routing())
    result = await host.submit("List the files in /tmp")
    [detected] = recorder.of(ev.ToolCallDetected)
    assert (detected.name, detected.arguments) == ("files__list_directory", {"path": "/tmp"})
    [execution] = host.history.executions()
    assert execution.arguments == {"path": "/tmp"}
    assert execution.status == "error" and "'/tmp' is outside the files folder" in (execution.result or "")
    # The model's reply to the error said nothing of it: the user reads the error, the reply marked.
    [replaced] = recorder.of(ev.AnswerUngrounded)
    assert "'/tmp' is outside the files folder" in result.text
    assert "> `Files__list_directory: /tmp`" in result.text and replaced.text == result.text


async def test_after_a_denied_call_edgehost_chose_the_user_reads_the_denial_not_the_models_reply(
    make_host,
) -> None:
    # Seen on the web page with the embedded model: after a denial it said the file "has already been
    # deleted".
    backend = ScriptedBackend(
        ['{"path": "notes.txt"}}[END_TOOL_CALL]', 'The file "notes.txt" has already been deleted.']
    )
    host, recorder = await make_host(backend, host_routing())
    turn = host.start_turn("Delete notes.txt")
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    assert request.tool == "files__delete_file"
    host.resolve_approval(request.id, ApprovalDecision(allow=False, reason="I still need that file"))
    result = await asyncio.wait_for(turn, WAIT_S)
    [replaced] = recorder.of(ev.AnswerUngrounded)
    assert replaced.reason == "you denied the call"
    assert "**files__delete_file** was not run: you denied it (I still need that file)." in result.text
    assert "which has nothing from the tool to go on (you denied the call)" in result.text
    assert '> The file "notes.txt" has already been deleted.' in result.text


async def test_a_question_for_a_switched_off_tool_is_answered_with_how_to_switch_it_on(make_host) -> None:
    # Seen with the embedded model: board__temperatures off, "how hot is the board?" ran board__uptime.
    backend = ScriptedBackend(["{}}[END_TOOL_CALL]", "done"])
    settings = Settings(routing="host", disabled_tools=["board__temperatures"])
    host, recorder = await make_host(backend, settings)
    result = await host.submit("How hot is the board?")
    assert (
        "**board__temperatures**, is switched off" in result.text
        and "/enable board__temperatures" in result.text
    )
    assert result.executions == () and backend.requests == []  # neither a tool nor the model ran
    [routed] = recorder.of(ev.TurnRouted)
    assert not routed.needs_tool and "switched off" in routed.reason
    # A question for a tool that is on goes on as before.
    answered = await host.submit("How much memory is free?")
    assert answered.executions[0]["tool"] == "board__memory_usage"


async def test_a_switched_off_tool_gives_way_to_another_servers_tool_of_the_same_name(
    make_host, data_dir
) -> None:
    # Seen in a newcomer's walk-through: with the built-in files server switched off, every file
    # question was answered "files__read_file is switched off", though the filesystem server's
    # read_file, on, does the same job. Here a second board server stands in for it.
    servers = Paths.resolve(None, data_dir).servers_file
    servers.parent.mkdir(parents=True, exist_ok=True)
    sensors = {"command": sys.executable, "args": ["-m", "edgehost", "serve", "board"]}
    servers.write_text(json.dumps({"mcpServers": {"sensors": sensors}}), encoding="utf-8")
    backend = ScriptedBackend(["{}}[END_TOOL_CALL]", "done"])
    settings = Settings(routing="host", disabled_tools=["board__memory_usage"])
    host, recorder = await make_host(backend, settings)
    await asyncio.wait_for(host.wait_warm(), WARM_S)  # the second server's tools embedded first
    turn = host.start_turn("How much memory is free?")
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    host.resolve_approval(request.id, ApprovalDecision(allow=True))  # a server the user added asks
    result = await asyncio.wait_for(turn, WAIT_S)
    assert "switched off" not in result.text
    assert [(e["tool"], e["status"]) for e in result.executions] == [("sensors__memory_usage", "ok")]


async def test_a_file_only_another_servers_folder_holds_is_read_by_that_server(
    make_host, data_dir, tmp_path
) -> None:
    # Seen in a newcomer's walk-through: the built-in files server's folder was empty, the user's file
    # was in the filesystem server's folder, and "read" went to the files server, whose read tool
    # ranks alike. Here a second files server, on another folder, stands in for it.
    documents = tmp_path / "documents"
    documents.mkdir()
    (documents / "shopping.txt").write_text("eggs, milk, flour\n", encoding="utf-8")
    servers = Paths.resolve(None, data_dir).servers_file
    servers.parent.mkdir(parents=True, exist_ok=True)
    notes = {
        "command": sys.executable,
        "args": ["-m", "edgehost", "serve", "files", "--root", str(documents)],
    }
    servers.write_text(json.dumps({"mcpServers": {"notes": notes}}), encoding="utf-8")
    backend = ScriptedBackend(['{"path": "shopping.txt"}}[END_TOOL_CALL]', "done"])
    host, recorder = await make_host(backend, host_routing())
    await asyncio.wait_for(host.wait_warm(), WARM_S)  # the second server's tools embedded first
    turn = host.start_turn("Read me shopping.txt")
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    host.resolve_approval(request.id, ApprovalDecision(allow=True))  # a server the user added asks
    result = await asyncio.wait_for(turn, WAIT_S)
    [routed] = recorder.of(ev.TurnRouted)
    assert routed.candidates == ("notes__read_file",), routed
    assert [(e["tool"], e["status"]) for e in result.executions] == [("notes__read_file", "ok")]


async def test_a_statement_about_a_thing_the_memory_keeps_adds_to_it_rather_than_making_it_again(
    make_host, data_dir, tmp_path, node
) -> None:
    # Seen in a newcomer's walk-through: "Alice also has a cat named Miso." made Alice again
    # (create_entities), which the memory server skips for a name it has: the fact was lost.
    store = tmp_path / "memory.jsonl"
    alice = {"type": "entity", "name": "Alice", "entityType": "person", "observations": ["lives in Lyon"]}
    serve_memory(store, [alice], node, data_dir)
    added = (
        '{"observations": [{"entityName": "Alice", "contents": ["has a cat named Miso"]}]}}[END_TOOL_CALL]'
    )
    bob = '{"observations": [{"entityName": "Bob", "contents": ["likes tea"]}]}}[END_TOOL_CALL]'
    host, recorder = await make_host(ScriptedBackend([added, "done", bob, "done"]), host_routing())
    await asyncio.wait_for(host.wait_warm(), WARM_S)  # the memory server's tools embedded first
    turn = host.start_turn("Alice also has a cat named Miso.")
    routed = await recorder.wait_for(lambda e: isinstance(e, ev.TurnRouted))
    assert routed.needs_tool and routed.candidates[0] == "memory__add_observations", routed
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    host.resolve_approval(request.id, ApprovalDecision(allow=True))
    result = await asyncio.wait_for(turn, WAIT_S)
    assert "a thing the user keeps" in routed.reason
    assert [(e["tool"], e["status"]) for e in result.executions] == [("memory__add_observations", "ok")]
    assert (
        "has a cat named Miso"
        in json.loads(store.read_text(encoding="utf-8").splitlines()[0])["observations"]
    )
    # Another program adds Bob. The host's own call above changed what the server keeps, so the next
    # question reads it again (not a minute later) and finds him.
    lines = [*store.read_text(encoding="utf-8").splitlines(), json.dumps({**alice, "name": "Bob"})]
    store.write_text("\n".join(lines) + "\n", encoding="utf-8")
    first = routed
    turn = host.start_turn("Bob also likes tea.")
    routed = await recorder.wait_for(lambda e: isinstance(e, ev.TurnRouted) and e is not first)
    assert routed.needs_tool and routed.candidates[0] == "memory__add_observations", routed
    request = (
        await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested) and e.request.id != request.id)
    ).request
    host.resolve_approval(request.id, ApprovalDecision(allow=True))
    await asyncio.wait_for(turn, WAIT_S)


async def test_a_pronoun_after_a_sentence_opening_with_a_kept_name_stands_for_that_name(
    make_host, data_dir, tmp_path, node
) -> None:
    # Seen in a walk-through: after "Lena is Max's sister, record that", "She lives in Oslo." was read
    # as "Max lives in Oslo.", a sentence's first word being taken for no name. The memory keeps Lena.
    store = tmp_path / "memory.jsonl"
    serve_memory(
        store,
        [{"type": "entity", "name": "Lena", "entityType": "person", "observations": []}],
        node,
        data_dir,
    )
    backend = ScriptedBackend()  # the first turn's call comes out invalid: what it does is not asked here
    host, recorder = await make_host(backend, host_routing())
    await asyncio.wait_for(host.wait_warm(), WARM_S)
    await asyncio.wait_for(host.start_turn("Lena is Max's sister, record that."), WAIT_S)
    first = recorder.of(ev.TurnRouted)[-1]
    backend.enqueue(
        '{"observations": [{"entityName": "Lena", "contents": ["lives in Oslo"]}]}}[END_TOOL_CALL]', "done"
    )
    turn = host.start_turn("She lives in Oslo.", first.conversation_id)  # the same conversation
    routed = await recorder.wait_for(lambda e: isinstance(e, ev.TurnRouted) and e is not first)
    assert "a thing the user keeps" in routed.reason, routed
    assert routed.candidates[0] == "memory__add_observations", routed
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    host.resolve_approval(request.id, ApprovalDecision(allow=True))
    await asyncio.wait_for(turn, WAIT_S)


async def test_a_deletion_the_host_chooses_is_offered_the_exact_texts_the_memory_keeps(
    make_host, data_dir, tmp_path, node
) -> None:
    # "Forget the garage code" cannot write "garage code is 4512", which delete_observations needs
    # word for word (agent/kept_values.py): the grammar the model writes the call under offers it.
    home = {"type": "entity", "name": "Home", "entityType": "place", "observations": ["garage code is 4512"]}
    serve_memory(tmp_path / "memory.jsonl", [home], node, data_dir)
    backend = GrammarBackend()  # the call comes out invalid: only what the grammar offers is asked here
    host, recorder = await make_host(backend, host_routing())
    await asyncio.wait_for(host.wait_warm(), WARM_S)
    await asyncio.wait_for(host.start_turn("Forget the garage code, I've changed it."), WAIT_S)
    [routed] = recorder.of(ev.TurnRouted)
    assert "memory__delete_observations" in routed.candidates, routed
    grammars = [request.grammar or "" for request in backend.requests]
    assert any('"garage code is 4512' in grammar for grammar in grammars), grammars


async def test_a_kept_text_in_a_deletion_the_host_chose_is_shown_as_edgehosts_on_its_card(
    make_host, data_dir, tmp_path, node
) -> None:
    # The user typed "the garage code"; "garage code is 4512" is the memory's own text, which the host
    # offered (agent/kept_values.py). The card says so, as it does for a repository's folder.
    home = {"type": "entity", "name": "Home", "entityType": "place", "observations": ["garage code is 4512"]}
    store = tmp_path / "memory.jsonl"
    serve_memory(store, [home], node, data_dir)
    deletions = {"deletions": [{"entityName": "Home", "observations": ["garage code is 4512"]}]}
    # Under a grammar, as llama.cpp runs the model: only then does the host offer kept texts.
    backend = GrammarBackend([call("memory__delete_observations", **deletions), "Done."])
    host, recorder = await make_host(backend, host_routing())
    await asyncio.wait_for(host.wait_warm(), WARM_S)
    turn = host.start_turn("Forget the garage code, I've changed it.")
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    assert request.tool == "memory__delete_observations", request
    host.resolve_approval(request.id, ApprovalDecision(allow=True))
    result = await asyncio.wait_for(turn, WAIT_S)
    [started] = recorder.of(ev.ToolExecutionStarted)
    assert started.filled_by_host == ("deletions",)
    assert result.executions[0]["filled_by_host"] == ["deletions"]
    assert "garage code" not in store.read_text(encoding="utf-8")


async def test_a_question_for_a_switched_off_server_names_the_server_to_switch_on_after_a_restart(
    make_host, data_dir
) -> None:
    # A switched-off server is not connected, so its tools were unknown: the 135M model made up a
    # temperature. What each server listed is kept in the history file.
    host, recorder = await make_host(ScriptedBackend(["unused"]), host_routing())
    host.set_server_enabled("board", False)
    await recorder.wait_for(lambda e: isinstance(e, ev.ServerStatusChanged) and e.status == "disabled")
    result = await host.submit("How hot is the board?")
    assert "belongs to the server **board**, which is switched off" in result.text
    assert "`/enable board`" in result.text and result.executions == ()
    await host.aclose()

    backend = ScriptedBackend(['{"path": "."}}[END_TOOL_CALL]', "done"])
    restarted = Host(
        Paths.resolve(None, data_dir),
        Settings(routing="host", disabled_servers=["board"]),
        HostOptions(backend=backend),
    )
    await restarted.start()
    try:
        states = {s.name: s.status.value for s in await restarted.wait_servers_ready(WAIT_S)}
        assert states == {"board": "disabled", "files": "ready"}
        assert all(t.server == "files" for t in restarted.tools())  # the panels list connected tools only
        result = await restarted.submit("How hot is the board?")
        assert "**board__temperatures**, belongs to the server **board**" in result.text
        assert backend.requests == []  # the model did not run
        # The files server's questions still go to it.
        answered = await restarted.submit("List the files in the files folder")
        assert answered.executions[0]["tool"] == "files__list_directory"
    finally:
        await restarted.aclose()


async def test_a_file_named_by_its_words_is_the_one_the_host_routes_and_offers(make_host, data_dir) -> None:
    """ "Add 'buy eggs' to my todo list" writes no file name: read as written, no tool that changes a
    file may be called. The files folder holds todo.md, so the host reads the question with it, and
    the conversation keeps what the user wrote."""
    files = Paths.resolve(None, data_dir).files_root
    files.mkdir(parents=True, exist_ok=True)
    (files / "todo.md").write_text("- call the plumber\n", encoding="utf-8")
    # The scripted backend has no grammar: the host writes the call's start, the model the arguments.
    edit = {"path": "todo.md", "old_text": "- call the plumber", "new_text": "- call the plumber\n- buy eggs"}
    backend = ScriptedBackend([json.dumps(edit) + "}[END_TOOL_CALL]", "done"])
    host, recorder = await make_host(backend, host_routing())
    question = "Add 'buy eggs' to my todo list"
    turn = host.start_turn(question)
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    assert (request.tool, request.arguments["path"]) == ("files__edit_file", "todo.md")
    host.resolve_approval(request.id, ApprovalDecision(allow=True))
    result = await asyncio.wait_for(turn, WAIT_S)
    [routed] = recorder.of(ev.TurnRouted)
    assert routed.needs_tool and routed.candidates[0] == "files__edit_file", routed
    assert "todo.md" in backend.requests[0].messages[-1].content  # what the model read
    assert host.conversation(result.conversation_id).messages[0].content == question
    # The card says the file name is EdgeHost's: the user never typed it.
    [started] = recorder.of(ev.ToolExecutionStarted)
    assert started.filled_by_host == ("path",)
    assert (files / "todo.md").read_text(encoding="utf-8") == "- call the plumber\n- buy eggs\n"


async def test_a_date_the_question_names_relative_to_today_is_offered_laid_out(
    make_host, data_dir, tmp_path
) -> None:
    # A flight search requiring its date as YYYY-MM-DD: asked for "tomorrow", a small model wrote a
    # date of its own, as nothing of the question was one (agent/question_dates.py).
    flights = {
        "name": "find_flights",
        "description": "Find flights to a city on a given day.",
        "parameters": {
            "type": "dict",
            "properties": {
                "destination": {"type": "string", "description": "The city to fly to."},
                "departure_date": {"type": "string", "description": "The day of departure, YYYY-MM-DD."},
            },
            "required": ["destination", "departure_date"],
        },
    }
    functions = tmp_path / "functions.json"
    functions.write_text(json.dumps([flights]), encoding="utf-8")
    servers = Paths.resolve(None, data_dir).servers_file
    servers.parent.mkdir(parents=True, exist_ok=True)
    travel = {"command": sys.executable, "args": [str(FUNCTION_SERVER), str(functions)]}
    servers.write_text(json.dumps({"mcpServers": {"travel": travel}}), encoding="utf-8")
    backend = GrammarBackend()  # the call comes out invalid: only what the grammar offers is asked here
    host, recorder = await make_host(backend, host_routing())
    await asyncio.wait_for(host.wait_warm(), WARM_S)
    await asyncio.wait_for(host.start_turn("Find me a flight to Lisbon for tomorrow"), WAIT_S)
    [routed] = recorder.of(ev.TurnRouted)
    assert routed.candidates == ("travel__find_flights",), routed
    tomorrow = (datetime.date.today() + datetime.timedelta(days=1)).isoformat()
    grammars = [request.grammar or "" for request in backend.requests]
    assert any(f'"{tomorrow}' in grammar for grammar in grammars), grammars
