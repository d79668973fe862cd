"""The question sets of tool ranking and routing, with the tools they are asked over (tests and benches).

- everyday (issue 33): tests/fixtures/everyday_questions/questions.json, 210 questions written by a
  writer who had not seen the ranker, over the built-in board and files servers and the reference
  everything, filesystem, memory, time and git servers; split once at random (seed in the file) into
  a calibration half, which is all that may be tuned on, and a held-out half, which is what is
  reported. ``everyday("calibration")``, ``everyday("heldout")``.
- the earlier sets, all tuned on since, so calibration material only: tests/fixtures/tool_queries/
  (everyday questions over the reference servers' tools, and plain chat), on which the ranker's
  weights and the routing gate were first chosen, and tests/fixtures/agent_questions/questions.json
  (issue 9's 49 questions).
- more calibration (issue 33): tests/fixtures/tool_queries/calibration_more.json, 1,228 questions over
  the everyday set's servers (628 for tools, 600 plain chat), written from the tool lists over
  several stops by writers who saw neither half of the everyday set nor any ranker's score.
  Calibration material only: ``calibration_more()``.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import anyio
from tests.support import python_server_client, tool_specs

from edgehost.agent.references import resolved_references
from edgehost.agent.routing import is_follow_up
from edgehost.agent.tools import ToolSpec

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BUILT_IN = ("board", "files")
EVERYDAY = FIXTURES / "everyday_questions" / "questions.json"
SPLITS = ("calibration", "heldout")
# The folders the servers of the everyday set serve, as the host finds them in their arguments
# (agent/known_arguments.py): the git server's repository, the filesystem server's folder.
SERVED_FOLDERS = {"git": "/srv/edgehost/repository", "filesystem": "/srv/edgehost/files"}


@dataclass(frozen=True)
class Question:
    text: str
    tools: tuple[str, ...]  # the tools that answer it; empty for plain chat
    previous: str | None = None  # the question asked before it in the conversation, for a follow-up
    style: str = ""

    @property
    def server(self) -> str:
        """The server of its first tool; "chat" for plain chat."""
        return self.tools[0].split("__", 1)[0] if self.tools else "chat"

    @property
    def as_routed(self) -> str:
        """The text the router reads first: a follow-up read as the host reads it, its pronouns and the
        file it acts on taken from its previous question (agent/references.py: "he also waters our
        plants" as "Yusuf also waters our plants"); a short follow-up that brings a new value after its
        previous question (and alone, if that calls no tool); any other question, "thanks!" after a
        tool's answer too, alone (agent/routing.py, ToolSelector.route)."""
        if not self.previous:
            return self.text
        read = resolved_references(self.text, [self.previous])
        return f"{self.previous} {read}" if is_follow_up(read) else read


@dataclass(frozen=True)
class QuestionSet:
    tools: list[ToolSpec]
    questions: list[Question]

    @property
    def tool_questions(self) -> list[Question]:
        return [q for q in self.questions if q.tools]

    @property
    def chat(self) -> list[Question]:
        return [q for q in self.questions if not q.tools]


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def reference_tools(
    servers: tuple[str, ...] | None = None, folders: dict[str, str] | None = None
) -> list[ToolSpec]:
    listed = _load(FIXTURES / "reference_tools.json")["servers"]
    return tool_specs(
        {name: tools for name, tools in listed.items() if servers is None or name in servers}, folders=folders
    )


def calibration() -> QuestionSet:
    tool_questions = [
        Question(q["query"], tuple(q["tools"]))
        for q in _load(FIXTURES / "tool_queries" / "queries.json")["queries"]
    ]
    chat = [
        Question(text, ()) for text in _load(FIXTURES / "tool_queries" / "chat_calibration.json")["questions"]
    ]
    return QuestionSet(reference_tools(), tool_questions + chat)


async def built_in_tools() -> list[ToolSpec]:
    """The built-in servers' tools as they list them over stdio."""
    tools: list[ToolSpec] = []
    with tempfile.TemporaryDirectory() as root:
        for name in BUILT_IN:
            extra = ["--root", root] if name == "files" else []
            async with python_server_client("-m", "edgehost", "serve", name, *extra) as client:
                listed = await client.list_tools()
            tools += tool_specs({name: listed.tools})
    return tools


def evaluation() -> QuestionSet:
    document = _load(FIXTURES / "agent_questions" / "questions.json")
    servers = tuple(document["servers"])
    tools = anyio.run(built_in_tools) + reference_tools(tuple(s for s in servers if s not in BUILT_IN))
    questions = [Question(q["question"], tuple(q["tools"])) for q in document["questions"]]
    return QuestionSet(tools, questions)


def everyday_document() -> dict:
    return _load(EVERYDAY)


def everyday_servers() -> tuple[str, ...]:
    """The servers the everyday questions are asked over, built-in first."""
    return (*BUILT_IN, "everything", "filesystem", "memory", "time", "git")


def everyday_tools() -> list[ToolSpec]:
    """The tools of every server of the everyday set, the git and filesystem servers serving one
    folder each as the host would see them."""
    return list(_everyday_tools())


@cache
def _everyday_tools() -> tuple[ToolSpec, ...]:  # the built-in servers are started once, not per set
    reference = tuple(s for s in everyday_servers() if s not in BUILT_IN)
    return (*anyio.run(built_in_tools), *reference_tools(reference, SERVED_FOLDERS))


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))


def near_held_out(text: str, held_out: list[frozenset[str]]) -> bool:
    """Whether ``text`` has 70 % or more of the words of a held-out question (or they of it)."""
    mine = _words(text)
    return any(
        mine and theirs and len(mine & theirs) / max(len(mine), len(theirs)) >= 0.7 for theirs in held_out
    )


def calibration_more() -> QuestionSet:
    """More calibration questions over the everyday set's tools: tuned on, never reported as held out.

    Written apart from the everyday set, yet short questions meet ("git status"): one that is near a
    held-out question (or its previous one) would put held-out text into a fit, so loading fails."""
    listed = _load(FIXTURES / "tool_queries" / "calibration_more.json")["questions"]
    held = [q for q in everyday_document()["questions"] if q["split"] == "heldout"]
    held_words = [_words(q["question"]) for q in held] + [
        _words(q["previous"]) for q in held if q.get("previous")
    ]
    near = [
        q
        for q in listed
        if any(near_held_out(t, held_words) for t in (q["question"], q.get("previous") or ""))
    ]
    if near:
        raise ValueError(
            f"calibration_more.json: {len(near)} questions are near held-out ones; take them out"
        )
    questions = [
        Question(q["question"], tuple(q["tools"]), q.get("previous"), q.get("style", "")) for q in listed
    ]
    return QuestionSet(everyday_tools(), questions)


def everyday(split: str) -> QuestionSet:
    """The everyday questions of one half (``calibration`` or ``heldout``) over every server of the
    set, the git and filesystem servers serving one folder each as the host would see them."""
    if split not in SPLITS:
        raise ValueError(f"split is one of {SPLITS}, got {split!r}")
    tools = everyday_tools()
    listed = everyday_document()["questions"]
    # The split was made by question, not by conversation: a calibration follow-up whose previous
    # question is held out, or shares its previous question with a held-out follow-up, would put
    # held-out text into what is tuned on. Such follow-ups belong to neither half.
    held_out = {q["question"] for q in listed if q["split"] == "heldout"}
    held_out |= {q["previous"] for q in listed if q["split"] == "heldout" and q.get("previous")}
    questions = [
        Question(q["question"], tuple(q["tools"]), q.get("previous"), q.get("style", ""))
        for q in listed
        if q["split"] == split and not (split == "calibration" and q.get("previous") in held_out)
    ]
    return QuestionSet(tools, questions)
