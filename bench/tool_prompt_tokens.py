"""Tokens of the tools section under the default budget, and how well the rankers pick tools.

100 enabled tools: the 51 real tools of the reference servers (tests/fixtures/reference_tools.json)
plus second instances of five of those servers, as a user running two filesystem or git servers has
(49 more, renamed `projects__`, `work-git__`, `notes__`, `demo__`, `web__`). The context is 4096 tokens, so
the default budget (a quarter) is 1024 tokens; tokens are the len/4 estimate the agent uses without
a tokenizer. The question set (tests/fixtures/tool_queries/queries.json) runs over the 51 real tools.

Prints:
  RESULT tool_prompt_tokens <mean tokens of the tools section chosen for each question>
  RESULT tool_prompt_tokens_all <tokens of the section with all 100 tools>
  RESULT tool_prompt_tokens_ratio <selected / all>
  RESULT selection_recall_at_5_bm25 <share of questions with a right tool in BM25's top 5>
  RESULT selection_recall_at_5 <the same for the blended embedding + BM25 ranker>
  RESULT query_embedding_ms <median time to embed one question (numpy MiniLM, CPU)>
  RESULT bm25_ranking_ms <median time of one BM25 ranking of the 51 tools>
  RESULT query_embedding_vs_bm25_ratio <query_embedding_ms / bm25_ranking_ms>
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path

from _timing import median_ms
from edgehost.agent.prompting import estimate_tokens, render_tools_section
from edgehost.agent.ranking import LexicalRanker, ToolRanker, load_ranker, rank_tools
from edgehost.agent.selection import default_tool_budget, select_tools
from edgehost.agent.tools import ToolSpec

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))  # the tests' helpers build tools as the real catalog names them
from tests.support import tool_specs  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
CONTEXT = 4096
SECOND_INSTANCES = {
    "filesystem": "projects",
    "git": "work-git",
    "memory": "notes",
    "everything": "demo",
    "fetch": "web",
}
TIMING_ROUNDS = 25


def reference_tools() -> list[ToolSpec]:
    servers = json.loads((FIXTURES / "reference_tools.json").read_text(encoding="utf-8"))["servers"]
    return tool_specs(servers)


def hundred_tools(real: list[ToolSpec]) -> list[ToolSpec]:
    copies = [
        replace(t, name=f"{SECOND_INSTANCES[t.server]}__{t.tool_name}", server=SECOND_INSTANCES[t.server])
        for t in real
        if t.server in SECOND_INSTANCES
    ]
    tools = [*real, *copies][:100]
    if len(tools) != 100:
        raise SystemExit(f"expected 100 tools, built {len(tools)}")
    return tools


def recall_at_5(ranker: ToolRanker, tools: list[ToolSpec], queries: list[dict]) -> float:
    hits = sum(
        bool({t.name for t in rank_tools(q["query"], tools, 5, ranker=ranker)} & set(q["tools"]))
        for q in queries
    )
    return hits / len(queries)


def main() -> None:
    real = reference_tools()
    tools = hundred_tools(real)
    queries = json.loads((FIXTURES / "tool_queries" / "queries.json").read_text(encoding="utf-8"))["queries"]
    choice = load_ranker()
    for reason in choice.reasons:
        print(f"# {reason}")
    blended = choice.ranker
    lexical = LexicalRanker()

    budget = default_tool_budget(CONTEXT)
    all_tokens = estimate_tokens(render_tools_section(tools, "bracket"))
    selected_tokens = [
        estimate_tokens(
            render_tools_section(select_tools(q["query"], tools, budget, ranker=blended).tools, "bracket")
        )
        for q in queries
    ]
    selected = statistics.mean(selected_tokens)
    print(f"# context {CONTEXT}, budget {budget} tokens for the tools section, ranker {blended.name}")
    print(f"RESULT tool_prompt_tokens {selected:.0f}")
    print(f"RESULT tool_prompt_tokens_all {all_tokens}")
    print(f"RESULT tool_prompt_tokens_ratio {selected / all_tokens:.3f}")

    print(f"RESULT selection_recall_at_5_bm25 {recall_at_5(lexical, real, queries):.3f}")
    print(f"RESULT selection_recall_at_5 {recall_at_5(blended, real, queries):.3f}")

    embedder = getattr(getattr(blended, "semantic", None), "embedder", None)
    question = "keep in mind that my sister lives in Lyon"
    bm25_ms = median_ms(lambda: lexical.scores(question, real), TIMING_ROUNDS)
    print(f"RESULT bm25_ranking_ms {bm25_ms:.2f}")
    if embedder is not None:
        embed_ms = median_ms(lambda: embedder.embed([question]), TIMING_ROUNDS)
        print(f"RESULT query_embedding_ms {embed_ms:.2f}")
        print(f"RESULT query_embedding_vs_bm25_ratio {embed_ms / bm25_ms:.1f}")


if __name__ == "__main__":
    main()
