"""Tool use out of the box (issue 9): the embedded model, no pin, the built-in servers, the real
command line. The host routes for a model this small; the answer stands on the tool's result. The data
folder has answered once before (tests/warm_folders.py): the first question's prefill is
tests/host/test_prompt_warm_up.py's subject."""

from __future__ import annotations

import json
from pathlib import Path

from tests.llm.test_cli_models_ask import edgehost

from edgehost.agent.answer_numbers import numbers_in
from edgehost.store import Store


def ask(data_dir: Path, question: str) -> dict:
    result = edgehost(
        data_dir, "ask", question, "--backend", "llamacpp", "--temperature", "0", "--yes", "--json"
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_board_question_runs_a_board_tool_and_the_answer_has_a_number_from_its_result(
    model_path: Path, data_dir_answered_once: Path
) -> None:
    data_dir = data_dir_answered_once
    answer = ask(data_dir, "How much memory is free?")
    [execution] = answer["executions"]
    assert execution["tool"].startswith("board__") and execution["status"] == "ok"
    assert execution["chosen_by"] == "host"
    with Store.open(data_dir / "history.db") as store:
        [recorded] = store.list_executions()
    assert recorded.tool == execution["tool"]
    in_result = {float(n.replace(",", "")) for n in numbers_in(recorded.result or "")}
    in_answer = {float(n.replace(",", "")) for n in numbers_in(answer["text"])}
    assert in_result & in_answer, (recorded.result, answer["text"])


def test_small_talk_calls_no_tool(model_path: Path, data_dir_answered_once: Path) -> None:
    answer = ask(data_dir_answered_once, "Tell me a joke.")
    assert answer["executions"] == []
    assert answer["text"].strip()
