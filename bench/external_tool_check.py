"""Does the embedded default model call the right function, with the right arguments, on public questions
it was never tuned on? (the Berkeley Function Calling Leaderboard's AST categories)

Asks a fixed, seeded sample of BFCL's ``simple`` (python: one function offered), ``multiple`` (two to four
offered, one fits) and ``irrelevance`` (one offered, none fits: the right answer is no call) questions of
a real Host on the embedded SmolLM2-135M, settings' default routing (``auto``), approvals allowed, each
question in a new conversation. The question's functions are the only tools: bench/_function_server.py
serves them over stdio as MCP tools (BFCL's schema dialect converted to JSON Schema, names kept, a call
answered with a short "done" text). One Host for the whole run (the model loads once); per question the
servers file is rewritten to point the one server ``bfcl`` at the question's functions and the Host
reloads it (Host.reload_servers_file: the server restarts, ~1 s), as a user editing servers.json would.

Scoring, per question:
  irrelevance          correct when no tool ran (a call the host refused as invalid did not run); whether
                       a call was proposed at all (ToolCallDetected) is shown too
  simple, multiple     correct when the first call that ran is the expected function and its arguments
                       pass BFCL's AST check (eval_checker/ast_eval/ast_checker.py, kept small here):
                       every required parameter given, no parameter the function or the answer does not
                       have, each value among the acceptable ones (strings lowercased without spaces and
                       ,./-_*^ as BFCL standardises them, numbers by value, an int for a float, dicts and
                       lists of dicts key by key), an acceptable "" meaning the parameter may be left out.
                       Two leniencies: items of a list are compared by value without BFCL's item type
                       check, and an ``any`` parameter takes any type. Calls after the first are shown, not
                       held against it (BFCL's simple checker wants exactly one call).

  RESULT external_tool_accuracy        correct / questions
  RESULT external_simple / _multiple   correct / questions of that category
  RESULT external_no_fit_left_alone    irrelevance questions where no tool ran
  RESULT external_arguments_accepted   simple + multiple questions where the expected function ran (first
                                       or not) with arguments BFCL accepts
  RESULT external_right_function       simple + multiple questions whose first call was the expected function
  RESULT external_no_fit_proposed      irrelevance questions where a call was proposed (ran or not)

then one line per question: category, verdict, id, question start, expected call, what ran (arguments,
status, who chose it), why the arguments fail, what the host's router decided, the answer's start.

Default sample: 40 simple, 25 multiple, 40 irrelevance (seed 7): about 10 minutes on 2 cores (~6 s a
question, ~2 s of it serving its functions: the server's restart, the tools' embeddings, the prompt's
prefill). The model samples, so a figure moves by a few points from run to run. ``--limit N`` for a quick
try (categories interleaved), ``--only TEXT`` for the questions of the whole set whose id or text contains
TEXT. ``--split calibration`` asks a second seeded sample of the same sizes, drawn only from the
questions outside the reported one: read failures there, tune there, and quote the default sample.

Data: the bfcl-eval wheel from PyPI (Apache-2.0, github.com/ShishirPatil/gorilla), read as a zip and
never installed (its dependencies are heavy); cached in build/bench/bfcl/, downloaded with pip when missing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SERVER_SCRIPT = Path(__file__).resolve().parent / "_function_server.py"
WHEELS = REPO / "build" / "bench" / "bfcl"
BFCL_VERSION = "2026.3.23"  # the sample is of this release's questions
SERVER = "bfcl"
SEED = 7
SERVERS_READY_S = 60.0
TURN_TIMEOUT_S = 300.0
CATEGORIES = {"simple": "simple_python", "multiple": "multiple", "irrelevance": "irrelevance"}
DEFAULT_SAMPLE = {"simple": 40, "multiple": 25, "irrelevance": 40}
RAN = frozenset({"ok", "error", "timeout", "cancelled"})  # reached the server (invalid / denied did not)


# ------------------------------------------------------------------------------------------- data
def wheel() -> Path:
    """The bfcl-eval wheel: cached in build/bench/bfcl/, downloaded with pip (no dependencies) if not."""
    found = sorted(WHEELS.glob(f"bfcl_eval-{BFCL_VERSION}-*.whl"))
    if found:
        return found[-1]
    print(f"downloading bfcl-eval=={BFCL_VERSION} (the BFCL questions) into {WHEELS}", file=sys.stderr)
    WHEELS.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", f"bfcl-eval=={BFCL_VERSION}", "-d"]
    subprocess.run([*command, str(WHEELS)], check=True, stdout=sys.stderr)
    found = sorted(WHEELS.glob(f"bfcl_eval-{BFCL_VERSION}-*.whl"))
    if not found:
        sys.exit(f"pip downloaded no bfcl_eval-{BFCL_VERSION} wheel into {WHEELS}")
    return found[-1]


def read_lines(archive: zipfile.ZipFile, pattern: str) -> list[dict[str, Any]]:
    """The JSON lines of the one data file whose path matches ``pattern``."""
    names = [n for n in archive.namelist() if re.fullmatch(pattern, n)]
    if len(names) != 1:
        sys.exit(f"expected one file matching {pattern} in the wheel, found {names}")
    text = archive.read(names[0]).decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def load_questions(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Every question of the three categories, with its possible answer where the category has one."""
    by_category: dict[str, list[dict[str, Any]]] = {}
    with zipfile.ZipFile(path) as archive:
        for category, stem in CATEGORIES.items():
            rows = read_lines(archive, rf"bfcl_eval/data/BFCL_v\d+_{stem}\.json")
            if category != "irrelevance":
                answers = read_lines(archive, rf"bfcl_eval/data/possible_answer/BFCL_v\d+_{stem}\.json")
                by_id = {a["id"]: a["ground_truth"] for a in answers}
                for row in rows:
                    row["ground_truth"] = by_id[row["id"]]
            for row in rows:
                row["category"] = category
                row["text"] = row["question"][0][-1]["content"]  # single turn, one user message
            by_category[category] = rows
    return by_category


def choose(
    by_category: dict[str, list[dict[str, Any]]],
    sizes: dict[str, int],
    only: str | None,
    split: str = "heldout",
) -> list[dict[str, Any]]:
    """A seeded sample of each category (or every question matching ``only``), categories interleaved.

    ``heldout`` is the sample the figures are quoted on. ``calibration`` is a second seeded sample drawn
    only from the questions outside the held-out one (at the default sizes), for looking at failures and
    tuning without touching the held-out questions."""
    chosen: list[list[dict[str, Any]]] = []
    for category, rows in by_category.items():
        if only:
            picked = [r for r in rows if only.lower() in r["id"].lower() or only.lower() in r["text"].lower()]
        else:
            size = sizes[category] if split == "heldout" else DEFAULT_SAMPLE[category]
            indices = sorted(
                random.Random(f"{SEED}:{category}").sample(range(len(rows)), min(size, len(rows)))
            )
            if split == "calibration":
                rest = sorted(set(range(len(rows))) - set(indices))
                rng = random.Random(f"{SEED}:{category}:calibration")
                indices = sorted(rng.sample(rest, min(sizes[category], len(rest))))
            picked = [rows[i] for i in indices]
        chosen.append(picked)
    interleaved = []
    for position in range(max((len(c) for c in chosen), default=0)):
        interleaved.extend(c[position] for c in chosen if position < len(c))
    return interleaved


# ------------------------------------------------------------------------------ BFCL's AST check
PYTHON_TYPES: dict[str, type | None] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": None,
}


def standardize(text: str) -> str:
    """As BFCL's standardize_string: no spaces or ,./-_*^, lower case, ' as "."""
    return re.sub(r"[ ,./\-_*^]", "", text).lower().replace("'", '"')


def same(value: Any) -> Any:
    return standardize(value) if isinstance(value, str) else value


def dict_problem(value: dict[str, Any], acceptable: list[Any]) -> str | None:
    if not isinstance(value, dict):
        return f"{value!r} is not a dict"
    problem = "no acceptable dict"
    for answer in acceptable:
        if not isinstance(answer, dict):
            continue
        extra = [k for k in value if k not in answer]
        wrong = [k for k in value if k in answer and same(value[k]) not in [same(a) for a in answer[k]]]
        missing = [k for k, allowed in answer.items() if k not in value and "" not in allowed]
        if not (extra or wrong or missing):
            return None
        problem = f"keys unexpected {extra}, wrong {wrong}, missing {missing}"
    return problem


def value_problem(name: str, spec: dict[str, Any], value: Any, acceptable: list[Any]) -> str | None:
    """Why ``value`` is not an acceptable value of parameter ``name`` (BFCL's type and value checks)."""
    kind = spec.get("type", "any")
    expected = PYTHON_TYPES.get(kind)
    if kind == "float" and type(value) is int:
        value = float(value)  # BFCL: "Allow python auto conversion from int to float"
    answer_type = next((type(a) for a in acceptable if a != ""), None)
    # BFCL's "variable" case: the acceptable values are of another type than the schema's (a string for
    # a number): a value of that type is compared as it is.
    variable = answer_type is not None and expected is not None and answer_type is not expected
    if expected is not None and type(value) is not expected:
        if answer_type is None or type(value) is not answer_type:
            return f"{name}: {kind} expected, got {value!r}"
        variable = True
    if not variable:
        if expected is dict:
            problem = dict_problem(value, acceptable)
            return f"{name}: {problem}" if problem else None
        items = spec.get("items") if isinstance(spec.get("items"), dict) else {}
        if expected is list and items.get("type") == "dict":
            for answer in acceptable:
                if not isinstance(answer, list) or len(answer) != len(value):
                    continue
                if all(dict_problem(v, [a]) is None for v, a in zip(value, answer, strict=True)):
                    return None
            return f"{name}: {value!r} not among {acceptable}"
        if isinstance(value, str) or expected is list:
            standardized = [[same(v) for v in value]] if isinstance(value, list) else [same(value)]
            allowed = [[same(v) for v in a] if isinstance(a, list) else same(a) for a in acceptable]
            if standardized[0] not in allowed:
                return f"{name}: {value!r} not among {acceptable}"
            return None
    if value not in acceptable:
        return f"{name}: {value!r} not among {acceptable}"
    return None


def call_problem(
    function: dict[str, Any], arguments: dict[str, Any], answer: dict[str, list[Any]]
) -> str | None:
    """Why a call of ``function`` with ``arguments`` fails BFCL's check against ``answer``; None: it passes."""
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    for required in parameters.get("required") or []:
        if required not in arguments:
            return f"missing required {required!r}"
    for name, value in arguments.items():
        if name not in properties or name not in answer:
            return f"unexpected parameter {name!r}"
        problem = value_problem(name, properties[name], value, answer[name])
        if problem:
            return problem
    for name, allowed in answer.items():
        if name not in arguments and "" not in allowed:
            return f"missing {name!r} (not optional in the answer)"
    return None


# -------------------------------------------------------------------------------- asking the Host
@dataclass
class Asked:
    question: dict[str, Any]
    ran: list[tuple[str, str, dict[str, Any], str]] = field(default_factory=list)  # name, status, args, by
    proposed: list[str] = field(default_factory=list)  # every call the model (or the host) proposed
    answer: str = ""
    routed: str = ""  # what the host's router decided: "tool", "no tool" ("": it did not route)
    seconds: float = 0.0
    serve_seconds: float = 0.0  # of seconds: rewriting the servers file until the tools are listed
    correct: bool = False
    right_function: bool = False
    accepted: bool = False
    problem: str = ""


def write_servers_file(path: Path, functions_file: Path) -> None:
    entry = {"command": sys.executable, "args": [str(SERVER_SCRIPT), str(functions_file)]}
    path.write_text(json.dumps({"mcpServers": {SERVER: entry}}, indent=2), encoding="utf-8")


async def ask_all(questions: list[dict[str, Any]]) -> tuple[list[Asked], float]:
    from edgehost.agent.approval import ApprovalDecision, ApprovalRequest
    from edgehost.host import events as ev
    from edgehost.host.host import Host
    from edgehost.host.options import HostOptions
    from edgehost.paths import Paths
    from edgehost.settings import Settings

    async def allow(_request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allow=True, scope="once", decided_by="policy")

    with tempfile.TemporaryDirectory(prefix="edgehost-bfcl-") as folder:
        data = Path(folder)
        functions_dir = data / "functions"
        functions_dir.mkdir()
        (functions_dir / "none.json").write_text("[]", encoding="utf-8")
        paths = Paths.resolve(None, data)
        write_servers_file(paths.servers_file, functions_dir / "none.json")
        # Only the question's functions: the built-in board and files servers are not started.
        options = HostOptions(approver=allow, only_servers=[SERVER])
        host = Host(paths, Settings(), options)
        proposed: dict[int, list[str]] = {}
        routed: dict[int, str] = {}

        def watch(event: object) -> None:
            if isinstance(event, ev.ToolCallDetected):
                proposed.setdefault(event.conversation_id, []).append(f"{event.name}[{event.chosen_by}]")
            elif isinstance(event, ev.TurnRouted):
                routed[event.conversation_id] = "tool" if event.needs_tool else "no tool"

        host.subscribe(watch)
        started = time.monotonic()
        await host.start()
        try:
            await host.wait_servers_ready(SERVERS_READY_S)
            await host.wait_model()
            print(f"host and model ready in {time.monotonic() - started:.1f} s", file=sys.stderr)
            results = []
            for number, question in enumerate(questions, 1):
                began = time.monotonic()
                originals = await serve(host, functions_dir, question)
                served = time.monotonic() - began
                conversation = host.new_conversation(question["text"][:40])
                try:
                    completed = await asyncio.wait_for(
                        host.submit(question["text"], conversation), TURN_TIMEOUT_S
                    )
                except TimeoutError:
                    await host.cancel()
                    completed = None
                asked = Asked(question, seconds=time.monotonic() - began, serve_seconds=served)
                asked.answer = completed.text if completed is not None else "(turn failed or timed out)"
                for execution in completed.executions if completed is not None else ():
                    name = originals.get(execution["tool"], execution["tool"])
                    asked.ran.append(
                        (
                            name,
                            str(execution.get("status")),
                            dict(execution.get("arguments") or {}),
                            str(execution.get("chosen_by", "")),
                        )
                    )
                asked.proposed = proposed.get(conversation, [])
                asked.routed = routed.get(conversation, "")
                score(asked)
                results.append(asked)
                mark = "ok " if asked.correct else "BAD"
                print(
                    f"[{number}/{len(questions)}] {mark} {question['id']} {asked.seconds:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
            return results, time.monotonic() - started
        finally:
            await host.aclose()


async def serve(host: Any, functions_dir: Path, question: dict[str, Any]) -> dict[str, str]:
    """Point the ``bfcl`` server at the question's functions and reload the servers file; once its tools
    are in the catalog, the namespaced names of the tools by the names the server gave them."""
    functions_file = functions_dir / f"{question['id']}.json"
    functions_file.write_text(json.dumps(question["function"]), encoding="utf-8")
    write_servers_file(host.paths.servers_file, functions_file)
    await host.reload_servers_file()
    wanted = {f["name"] for f in question["function"]}
    deadline = time.monotonic() + SERVERS_READY_S
    while True:
        states = await host.wait_servers_ready(SERVERS_READY_S)
        tools = {t.name: t.tool_name for t in host.tools() if t.server == SERVER}
        if set(tools.values()) == wanted:
            break
        failed = [(s.name, s.error) for s in states if s.status.value == "failed"]
        if failed or time.monotonic() > deadline:
            sys.exit(
                f"{question['id']}: the server did not list {sorted(wanted)} ({failed or sorted(tools)})"
            )
        await asyncio.sleep(0.05)
    await host.wait_warm()  # the tools' validators and embeddings, as a user's question would find them
    return tools


def score(asked: Asked) -> None:
    question = asked.question
    ran = [r for r in asked.ran if r[1] in RAN]
    if question["category"] == "irrelevance":
        asked.correct = not ran
        return
    expected_name, answer = next(iter(question["ground_truth"][0].items()))
    function = next(f for f in question["function"] if f["name"] == expected_name)
    if not ran:
        asked.problem = "no tool ran"
        return
    name, _status, arguments, _by = ran[0]
    asked.right_function = name == expected_name
    if not asked.right_function:
        asked.problem = f"ran {name}, not {expected_name}"
    else:
        asked.problem = call_problem(function, arguments, answer) or ""
        asked.correct = not asked.problem
    asked.accepted = any(
        n == expected_name and call_problem(function, a, answer) is None for n, _s, a, _b in ran
    )


# ------------------------------------------------------------------------------------------ report
def result(figure: str, selected: list[bool]) -> None:
    """``RESULT figure share``; nothing when no question was of that kind (a run with --only, --limit)."""
    if selected:
        print(f"RESULT {figure} {sum(selected) / len(selected):.3f}")


def expected_text(question: dict[str, Any]) -> str:
    if question["category"] == "irrelevance":
        return "no call"
    name, answer = next(iter(question["ground_truth"][0].items()))
    shown = {k: v[0] if len(v) == 1 else v for k, v in answer.items() if v != [""]}
    return f"{name}({json.dumps(shown, ensure_ascii=False)})"


def report(results: list[Asked], seconds: float) -> None:
    tool_questions = [a for a in results if a.question["category"] != "irrelevance"]
    no_fit = [a for a in results if a.question["category"] == "irrelevance"]
    result("external_tool_accuracy", [a.correct for a in results])
    for category in ("simple", "multiple"):
        result(f"external_{category}", [a.correct for a in results if a.question["category"] == category])
    result("external_no_fit_left_alone", [a.correct for a in no_fit])
    result("external_arguments_accepted", [a.accepted for a in tool_questions])
    result("external_right_function", [a.right_function for a in tool_questions])
    result("external_no_fit_proposed", [bool(a.proposed) for a in no_fit])
    counts = {c: sum(a.question["category"] == c for a in results) for c in CATEGORIES}
    print(
        f"{len(results)} questions ({', '.join(f'{n} {c}' for c, n in counts.items())}) in {seconds:.0f} s, "
        f"{sum(a.seconds for a in results) / max(len(results), 1):.1f} s a question, of which "
        f"{sum(a.serve_seconds for a in results) / max(len(results), 1):.1f} s serving its functions"
    )
    for asked in results:
        question = asked.question
        mark = "ok " if asked.correct else "BAD"
        ran = (
            ", ".join(
                f"{name}({json.dumps(arguments, ensure_ascii=False)})={status}/{by}"
                for name, status, arguments, by in asked.ran
            )
            or "no tool"
        )
        if question["category"] == "irrelevance" and not asked.ran and asked.proposed:
            ran += f" (proposed {', '.join(asked.proposed)})"
        why = f" [{asked.problem}]" if asked.problem and question["category"] != "irrelevance" else ""
        routed = f" (router: {asked.routed})" if asked.routed else ""
        answer = " ".join(asked.answer.split())[:120]
        text = " ".join(question["text"].split())[:90]
        print(
            f"{question['category']:11} {mark} {question['id']} {text!r} | expected {expected_text(question)}"
            f" -> {ran}{why}{routed} | {answer}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for category, size in DEFAULT_SAMPLE.items():
        parser.add_argument(
            f"--{category}", type=int, default=size, help=f"{category} questions (default {size})"
        )
    parser.add_argument(
        "--limit", type=int, default=None, help="only the first N questions (categories interleaved)"
    )
    parser.add_argument(
        "--only", metavar="TEXT", help="every question whose id or text contains TEXT, no sampling"
    )
    parser.add_argument(
        "--split",
        choices=("heldout", "calibration"),
        default="heldout",
        help="heldout: the sample the figures are quoted on; calibration: questions outside it, to tune on",
    )
    args = parser.parse_args()
    by_category = load_questions(wheel())
    sizes = {category: getattr(args, category) for category in CATEGORIES}
    questions = choose(by_category, sizes, args.only, args.split)[: args.limit]
    if not questions:
        sys.exit("no question chosen")
    results, seconds = asyncio.run(ask_all(questions))
    report(results, seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
