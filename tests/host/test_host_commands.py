"""The Host's commands that change conversations and approval rules: rename, delete, regenerate,
set_approval_rule. Scripted model replies, the real built-in servers, a real history file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from tests.host.conftest import WAIT_S, call

from edgehost.agent.approval import ApprovalDecision
from edgehost.errors import EdgeHostError
from edgehost.host import events as ev
from edgehost.llm.scripted import ScriptedBackend
from edgehost.settings import Settings
from edgehost.store import RecordNotFoundError


async def test_renaming_a_conversation_stores_the_trimmed_title_and_announces_it(make_host: Any) -> None:
    host, recorder = await make_host(ScriptedBackend([]))
    conv_id = host.new_conversation("Capital of France?")
    before = len(recorder.of(ev.ConversationsChanged))
    host.rename_conversation(conv_id, "  France  ")
    assert host.history.conversation(conv_id).conversation.title == "France"
    assert len(recorder.of(ev.ConversationsChanged)) == before + 1
    with pytest.raises(ValueError):
        host.rename_conversation(conv_id, "   ")
    with pytest.raises(RecordNotFoundError):
        host.rename_conversation(conv_id + 1, "Nowhere")


async def test_deleting_a_conversation_removes_its_history_and_the_models_view(make_host: Any) -> None:
    host, recorder = await make_host(ScriptedBackend(["Paris."]))
    result = await asyncio.wait_for(host.submit("Capital of France?"), WAIT_S)
    conv_id = result.conversation_id
    before = len(recorder.of(ev.ConversationsChanged))
    host.delete_conversation(conv_id)
    assert host.history.conversation(conv_id) is None and host.history.messages(conv_id) == []
    assert conv_id not in host._conversations
    assert len(recorder.of(ev.ConversationsChanged)) == before + 1
    with pytest.raises(RecordNotFoundError):
        host.delete_conversation(conv_id)


async def test_a_conversation_cannot_be_deleted_while_its_turn_runs(make_host: Any, data_dir: Path) -> None:
    backend = ScriptedBackend([call("files__delete_file", path="keep.txt"), "Kept."])
    host, recorder = await make_host(backend)
    turn = host.start_turn("delete keep.txt")
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    with pytest.raises(EdgeHostError):
        host.delete_conversation(request.conversation_id)
    assert host.history.conversation(request.conversation_id) is not None
    host.resolve_approval(request.id, ApprovalDecision(allow=False, reason="no"))
    await asyncio.wait_for(turn, WAIT_S)
    host.delete_conversation(request.conversation_id)
    assert host.history.conversation(request.conversation_id) is None


async def test_regenerate_answers_the_last_question_again_without_the_old_answer_or_its_tool_calls(
    make_host: Any,
) -> None:
    backend = ScriptedBackend([call("board__cpu_status"), "Busy cores.", "Calm cores."])
    host, _recorder = await make_host(backend)
    first = await asyncio.wait_for(host.submit("Is the CPU busy?"), WAIT_S)
    conv_id = first.conversation_id
    assert first.text == "Busy cores."
    requests_before = len(backend.requests)
    again = await asyncio.wait_for(host.regenerate(conv_id), WAIT_S)
    assert again is not None and again.text == "Calm cores." and again.conversation_id == conv_id
    regenerated_request = backend.requests[requests_before]
    seen = [(m.role, m.content) for m in regenerated_request.messages if m.role != "system"]
    assert seen == [("user", "Is the CPU busy?")]
    view = [(m.role, m.content) for m in host.conversation(conv_id).messages]
    assert view == [("user", "Is the CPU busy?"), ("assistant", "Calm cores.")]
    # The history keeps what happened, the first answer and its call marked replaced, then the
    # question asked again.
    stored = host.history.messages(conv_id, include_superseded=True)
    replaced = [(m.role, m.content) for m in stored if m.superseded is not None]
    assert replaced[0] == ("user", "Is the CPU busy?") and replaced[-1] == ("assistant", "Busy cores.")
    assert any("board__cpu_status" in content for _role, content in replaced[1:-1])
    current = [(m.role, m.content) for m in stored if m.superseded is None]
    assert current == [("user", "Is the CPU busy?"), ("assistant", "Calm cores.")]
    assert [e.tool for e in host.history.executions(conversation_id=conv_id)] == ["board__cpu_status"]


async def test_after_a_restart_the_model_sees_only_the_regenerated_answer(make_host: Any) -> None:
    host, _recorder = await make_host(
        ScriptedBackend([call("board__cpu_status"), "Busy cores.", "Calm cores."])
    )
    conv_id = (await asyncio.wait_for(host.submit("Is the CPU busy?"), WAIT_S)).conversation_id
    await asyncio.wait_for(host.regenerate(conv_id), WAIT_S)

    backend = ScriptedBackend(["Eight cores.", "Eight cores, four fast ones."])
    restarted, _ = await make_host(backend)  # a new Host on the same data folder: nothing in memory
    question = [("user", "Is the CPU busy?"), ("assistant", "Calm cores.")]
    assert [(m.role, m.content) for m in restarted.conversation(conv_id).messages] == question
    await asyncio.wait_for(restarted.submit("How many cores?", conv_id), WAIT_S)
    seen = [(m.role, m.content) for m in backend.requests[0].messages if m.role != "system"]
    assert seen == [*question, ("user", "How many cores?")]

    # Regenerating a reloaded conversation replaces its last answer only, in the history too.
    restarted.forget_conversation(conv_id)
    await asyncio.wait_for(restarted.regenerate(conv_id), WAIT_S)
    restarted.forget_conversation(conv_id)
    assert [(m.role, m.content) for m in restarted.conversation(conv_id).messages] == [
        *question,
        ("user", "How many cores?"),
        ("assistant", "Eight cores, four fast ones."),
    ]
    assert [e.tool for e in restarted.history.executions(conversation_id=conv_id)] == ["board__cpu_status"]


async def test_regenerate_refuses_a_conversation_without_a_question(make_host: Any) -> None:
    host, _recorder = await make_host(ScriptedBackend([]))
    conv_id = host.new_conversation()
    with pytest.raises(LookupError):
        await asyncio.wait_for(host.regenerate(conv_id), WAIT_S)


async def test_an_approval_rule_is_saved_and_applies_to_the_next_call(make_host: Any, data_dir: Path) -> None:
    backend = ScriptedBackend([call("files__delete_file", path="keep.txt"), "Could not."])
    host, recorder = await make_host(backend)
    (data_dir / "files").mkdir(exist_ok=True)
    (data_dir / "files" / "keep.txt").write_text("precious")
    host.set_approval_rule("files__delete_file", "deny")
    saved = json.loads(host.paths.servers_file.read_text())["approval"]
    assert {"server": "files", "tool": "delete_file", "action": "deny"} in saved
    assert {"server": "files", "tool": "delete_file", "action": "deny"} in host.servers_config.approval
    await asyncio.wait_for(host.submit("delete keep.txt"), WAIT_S)
    assert recorder.of(ev.ApprovalRequested) == []  # refused by the rule, never asked
    assert (data_dir / "files" / "keep.txt").exists()
    assert [e.status for e in host.history.executions()] == ["denied"]
    host.set_approval_rule("files__delete_file", "default")
    assert "approval" not in json.loads(host.paths.servers_file.read_text()) or not any(
        r.get("tool") == "delete_file" for r in json.loads(host.paths.servers_file.read_text())["approval"]
    )
    with pytest.raises(ValueError):
        host.set_approval_rule("files__delete_file", "sometimes")
    with pytest.raises(KeyError):
        host.set_approval_rule("files__no_such_tool", "deny")


async def test_changed_settings_are_saved_and_the_next_turn_uses_the_new_limits(make_host: Any) -> None:
    backend = ScriptedBackend(["Paris.", "Lyon."])
    host, _recorder = await make_host(backend)
    await asyncio.wait_for(host.submit("Capital of France?"), WAIT_S)
    assert host.update_settings({"theme": host.settings.theme}) == set()
    assert host.update_settings({"max_calls_per_turn": 1, "theme": "dark"}) == {"max_calls_per_turn", "theme"}
    saved = Settings.load(host.paths.settings_file)
    assert saved.max_calls_per_turn == 1 and saved.theme == "dark"
    await asyncio.wait_for(host.submit("And of Italy?"), WAIT_S)
    assert host.runner is not None and host.runner.config.max_calls_per_turn == 1
    with pytest.raises(KeyError):
        host.update_settings({"no_such_setting": 1, "theme": "light"})
    assert host.settings.theme == "dark"
    # A value the settings file would not take is refused, naming the setting; nothing changes.
    for wrong, why in (
        ({"threads": -1, "theme": "light"}, "threads: Input should be greater than or equal to 0"),
        ({"routing": "sometimes"}, "routing: Input should be 'auto', 'host' or 'model'"),
        ({"close_to_tray": "yes"}, "close_to_tray: Input should be a valid boolean"),
    ):
        with pytest.raises(ValueError, match=why):
            host.update_settings(wrong)
    assert host.settings.theme == "dark" and host.settings.threads is None
    assert Settings.load(host.paths.settings_file).theme == "dark"


async def test_a_conversation_reads_back_as_the_user_saw_it(make_host):
    from edgehost.host.history_view import AnswerText, Question, ToolRun

    backend = ScriptedBackend([call("board__cpu_status"), "Here is the CPU status of its cores."])
    host, _ = await make_host(backend)
    result = await host.submit("show me the cpu status")
    view = host.history.conversation(result.conversation_id)
    assert view is not None and view.conversation.title == "show me the cpu status"
    shown = [
        (type(e).__name__, e.text if not isinstance(e, ToolRun) else e.execution.tool)
        for e in view.entries
        if not (isinstance(e, AnswerText) and not e.text)  # the round that only made the call
    ]
    assert shown == [
        ("Question", "show me the cpu status"),
        ("ToolRun", "board__cpu_status"),
        ("AnswerText", "Here is the CPU status of its cores."),
    ]
    assert isinstance(view.entries[0], Question) and view.last_question == "show me the cpu status"
    assert [c.id for c in host.history.conversations("status")] == [result.conversation_id]
    assert host.history.conversation(result.conversation_id + 1000) is None


async def test_each_answer_is_kept_with_the_model_that_wrote_it(make_host):
    host, _ = await make_host(ScriptedBackend(["Hello."]))
    result = await host.submit("hi")
    stored = host.history.messages(result.conversation_id)
    assert [(m.role, m.model, m.backend) for m in stored] == [
        ("user", None, None),
        ("assistant", "scripted", "scripted"),
    ]


async def test_a_rule_set_for_a_tool_takes_back_an_earlier_always_answer(
    make_host: Any, data_dir: Path
) -> None:
    # "Always" for make_directory, then "ask" set for it in the Tools panel: the grant came first in
    # the policy's order and kept it running without a question, and nothing showed it.
    make = call("files__make_directory", path="notes")
    backend = ScriptedBackend([make, "Made.", make, "Made again."])
    host, recorder = await make_host(backend)
    first = asyncio.create_task(host.submit("make a notes folder"))
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    host.resolve_approval(request.id, ApprovalDecision(allow=True, scope="always"))
    await asyncio.wait_for(first, WAIT_S)
    tool = next(t for t in host.tools() if t.name == "files__make_directory")
    assert host.policy.granted(tool)
    assert host.history.always_allowed() != []
    host.set_approval_rule("files__make_directory", "ask")
    assert not host.policy.granted(tool) and host.history.always_allowed() == []
    second = asyncio.create_task(host.submit("make it again"))
    asked = await recorder.wait_for(
        lambda e: isinstance(e, ev.ApprovalRequested) and e.request.id != request.id
    )
    host.resolve_approval(asked.request.id, ApprovalDecision(allow=False, reason="not now"))
    await asyncio.wait_for(second, WAIT_S)


async def test_approvals_lists_an_always_answer_and_forget_takes_it_back_in_the_running_host(
    make_host: Any, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from edgehost.cli.main import main

    make = call("files__make_directory", path="notes")
    host, recorder = await make_host(ScriptedBackend([make, "Made."]))
    turn = asyncio.create_task(host.submit("make a notes folder"))
    request = (await recorder.wait_for(lambda e: isinstance(e, ev.ApprovalRequested))).request
    host.resolve_approval(request.id, ApprovalDecision(allow=True, scope="always"))
    await asyncio.wait_for(turn, WAIT_S)
    tool = next(t for t in host.tools() if t.name == "files__make_directory")
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "approvals"]) == 0
    assert "  files__make_directory" in capsys.readouterr().out
    assert main(["--data-dir", str(data_dir), "approvals", "forget", "files__make_*"]) == 0
    assert "files__make_directory asks again" in capsys.readouterr().out
    assert not host.policy.granted(tool)  # the running host asks again, without a restart
    assert main(["--data-dir", str(data_dir), "approvals", "forget", "files__make_*"]) == 2
    assert "no tool answered Always matches" in capsys.readouterr().err
