"""The question sets of tool ranking and routing, with the tools they are asked over (tests and benches).

- calibration: tests/fixtures/tool_queries/ (everyday questions over the reference servers' tools,
  and plain chat): what the ranker's weights and the routing gate were chosen on;
- evaluation: tests/fixtures/agent_questions/questions.json, held out: asked over the built-in board
  and files servers (listed live from this checkout, so they never drift) and the reference time,
  everything and memory servers.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import anyio
from tests.support import python_server_client, tool_specs

from edgehost.agent.tools import ToolSpec

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BUILT_IN = ("board", "files")


@dataclass(frozen=True)
class Question:
    text: str
    tools: tuple[str, ...]  # the tools that answer it; empty for plain chat


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


def reference_tools(servers: tuple[str, ...] | None = None) -> list[ToolSpec]:
    listed = _load(FIXTURES / "reference_tools.json")["servers"]
    return tool_specs({name: tools for name, tools in listed.items() if servers is None or name in servers})


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
