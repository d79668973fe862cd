"""Host routing (decision 11): who decides a turn's tool calls, whether it needs one, and which.

Who decides (resolve_routing): the routing setting or the conversation's choice; `auto` lets the host
decide for models under HOST_ROUTING_BELOW_PARAMETERS parameters (the count the runtime reports, or
the one in the model's name), the model for larger or unknown ones.

For a model too small to decide, the host decides from the ranker's scores (agent/ranking.py):

- The gate. A question needs a tool when its best tool score is at least MIN_TOOL_SCORE and that
  score, less SMALL_TALK_WEIGHT times its
  similarity to the small-talk examples (resources/routing/small_talk.txt: greetings, jokes, poems,
  general knowledge ...), still reaches ROUTE_THRESHOLD. A question that reads like small talk must match
  a tool clearly better to call one: "Explain what a CPU is" is near "cpu_status" by meaning, and
  nearer still to "Explain what machine learning is". The numbers were chosen on the calibration
  questions (tests/fixtures/tool_queries/: everyday tool questions and plain chat), not on the
  evaluation set (tests/fixtures/agent_questions/); bench/selection_recall.py prints the figures.
- Follow-ups. A short question that brings a new value ("and in Lyon?", "what about notes.txt?": a
  name, a number or a file name) is read with the conversation's previous question in front of it
  (alone, "and in Lyon?" is nearest a weather tool); "thanks!" or "ok" bring none and are read alone.
- Candidates. The best tool, and those within CANDIDATE_MARGIN of it (at most ``max_candidates``):
  the model then chooses among them under a grammar; a clear winner is the only candidate.
- Never a destructive call the question did not ask for. A tool that may destroy something (its
  risk, agent/approval.py: annotations and name) is a candidate only when the question asks for a
  change and holds a value of each typed argument the tool requires (a file name for a path, an
  address for a URL) that EdgeHost does not know itself: "Give me three tips for writing clean code"
  once became ``delete_file {"path": "code"}``, proposed for approval. A question that asks how
  something is done, whether it is wise or what would happen ("How do I undo my last git commit?",
  "Should I delete old logs?") asks for words, not for the change: it never leads to one. A question
  asks for a change by a word for one (agent/_query_cues.py), or by reading as a task to the question
  probe with near certainty (CHANGE_TASK_THRESHOLD): "Get rid of old.log, please" uses no listed word,
  and its best tool says what the change is. A tool that deletes needs a change that may take
  something away: "Remember that my NAS has 8 GB of RAM" asks for a change, but its words ask only
  to keep (add, write, move), so a delete tool of the memory server is no candidate for it; "Update
  what you know about my dentist" may replace what was kept, and a question without a word for its
  change says nothing of what it takes away. Nor is it a candidate where what is taken away is only
  the changes made to a thing ("discard the changes I made to notes.txt" once deleted notes.txt).
  Without such a candidate the question calls no tool; the model answers it in words.
- Never a call for a question that asks for words (_query_cues.asks_for_words): how the asker would
  do something ("How do I check disk space from the command line?"), a suggestion ("Can you suggest a
  commit message?", "Give me three tips for ..."), what a term means ("What does RAM stand for?",
  "what is a detached HEAD?"), advice or a reason ("Should I squash my commits?", "Is it safe to
  delete ...?", "Why does ...?"). The model gives these in words; a tool's result would answer
  another question. Each form was counted over the calibration questions (ours and BFCL's): together
  they open over a hundred plain chat questions and no tool question; out of fold, the gate had let
  14 of the meaning and advice questions through. "How to ..." is not such a question: it also opens
  requests ("How to obtain the details of the R vs Adams case?"); nor is "what does the homepage
  say?".
- A question of what the asker once told or wrote ("Did I ever mention Ibrahim?", "what did I write
  down about the wifi", "according to my recipe") is a task, however much it reads like a chat: only
  the asker's records answer it. So is a request to keep what the asker says ("Remember that my
  sister lives in Lyon.", "my car is a Skoda, keep that in mind"): out of fold, the probe read 3 of
  the 18 such requests in the calibration sets as chat, and no plain chat question there is one. Either
  passes the question probe; its best tool must still fit (speaks_of_records).
- Never a call the question cannot fill. A tool that requires more numbers than the question writes
  is no candidate: "Calculate the prime factors of 100" is not a compound-interest calculation with
  100 for its principal, its rate, its periods and its years. On 360 of BFCL's calibration questions
  this left 14 more of the 42 no-fit questions the gate let through alone, for 4 of the 240 tool
  questions lost ("the next month" for a count of months). Nor is a tool that requires two or more
  typed values (a time and its zones, a source and a destination) of which the question writes none:
  "Convert 100 Fahrenheit to Celsius" is no time to convert between zones. No tool question of the
  calibration sets (796) has such a right tool.

- Attached content. A question sent with content (an attached resource, or a text that carries its
  own: an MCP prompt's "Please analyze the following resource:" and the resource after it; see
  split_material) is most often about that content, which the model has in front of it: "What is this
  document about?" is near everything's get-annotated-message by meaning, and calling it answers
  nothing. So beyond the gate, such a question calls a tool only when it clearly asks for a tool's
  action: it names where the tool should act (a file, a folder, a path, an address: "save this to
  notes.txt") or asks for an action outside the text (remember, commit, send ...). Otherwise a question
  that refers to the content ("this", "the attached", "the following", "it" as what is read) calls
  nothing, and any other must be nearer its best tool than the questions people ask about a text
  (ABOUT_ATTACHED_EXAMPLES) by ATTACHED_MARGIN ("What time is it in Tokyo?" still is).

Without the embedding model (BM25 alone) there is no meaning to compare, and the gate is a threshold
on the lexical score.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from edgehost.agent._query_cues import (
    asks_for_change,
    asks_for_words,
    asks_how_or_whether,
    asks_only_to_add,
    asks_to_keep,
    asks_what_i_recorded,
    cannot_fill,
    deletes,
    lacks_required_values,
    question_cues,
    required_free_arguments,
    takes_away_changes_alone,
)
from edgehost.agent.approval import tool_risk
from edgehost.agent.kept_names import lists_kept_names
from edgehost.agent.question_probe import TASK_THRESHOLD, shipped_probe
from edgehost.agent.question_values import question_spans
from edgehost.agent.tools import ToolSpec
from edgehost.paths import shipped_dir

__all__ = [
    "ABOUT_ATTACHED_EXAMPLES",
    "ATTACHED_MARGIN",
    "CANDIDATE_MARGIN",
    "CHANGE_TASK_THRESHOLD",
    "HOST_ROUTING_BELOW_PARAMETERS",
    "ROUTING_MODES",
    "LEXICAL_ROUTE_THRESHOLD",
    "MIN_TOOL_SCORE",
    "ROUTE_THRESHOLD",
    "SMALL_TALK_WEIGHT",
    "RouteDecision",
    "decide_route",
    "destructive_call_asked",
    "about_attached",
    "is_follow_up",
    "parameters_from_name",
    "resolve_routing",
    "small_talk_examples",
    "speaks_of_records",
    "split_material",
]

ROUTING_MODES = ("auto", "host", "model")
# Decision 11's size rule for `auto` routing: below this many parameters a model does not decide
# reliably whether and which tool to call (SmolLM2-135M/360M, Qwen2.5-0.5B, Qwen3-0.6B, Llama 3.2 1B),
# so the host decides; Qwen2.5-1.5B, Qwen3-1.7B and larger choose their own tools.
HOST_ROUTING_BELOW_PARAMETERS = 1_500_000_000

ROUTE_THRESHOLD = -0.06
SMALL_TALK_WEIGHT = 0.7
MIN_TOOL_SCORE = 0.06
LEXICAL_ROUTE_THRESHOLD = 0.04  # BM25 alone: any word or verb shared with a tool
# Only near-ties are left to the model: in the evaluation runs SmolLM2-135M, given a wider choice,
# overturned the ranker's best more often wrongly (3 times) than rightly (2).
CANDIDATE_MARGIN = 0.02
# A question the probe reads as a task with this probability asks for the change its best tool makes,
# whatever its verb: the words for a change ("get rid of", "throw away", "overwrite", "cut that link")
# are too many to list. Chosen on the calibration questions, each question's probability from a probe
# fitted without it (ten folds, bench/change_rule.py): 0.9 let 14 of the 29 tool questions blocked for
# want of a change word through (0.7: 16), and no plain chat question then had a destructive candidate
# at any threshold down to 0.7; none had been blocked by this rule alone.
CHANGE_TASK_THRESHOLD = 0.9
FOLLOW_UP_MAX_WORDS = 5
# A value a follow-up brings: a digit, a file name, or a capitalised word after the first.
_NEW_VALUE = re.compile(r"\d|\w\.\w|(?<=\s)[A-Z]")

# What people ask about a text they send with the question (attached content, module docstring).
# Kept generic: no tool of any server is named. Chosen, with ATTACHED_MARGIN, on two dozen questions
# about a document and a dozen tool questions asked with one attached, against the built-in and the
# reference servers' tools; tests/agent/test_attached_content.py asks other phrasings.
ABOUT_ATTACHED_EXAMPLES = (
    "What is this text about?",
    "Summarize the attached text.",
    "Give me a short summary of it.",
    "Analyze the following content.",
    "Explain what this says.",
    "What are the main points here?",
    "Translate it into Spanish.",
    "Does the text above mention a date?",
    "Rewrite this paragraph more simply.",
    "Check this for mistakes.",
    "What does the author want?",
    "Answer the questions in this document.",
)
# A question with attached content that refers to no content must beat those examples by this much:
# measured, questions about a document without "this" or "it" stay below 0.1, tool questions asked
# beside one ("How hot is the board?", "What time is it in Tokyo?") reach 0.29 to 0.6.
ATTACHED_MARGIN = 0.2
# Words that point at the content sent with the question.
_REFERS = re.compile(
    r"\b(?:this|these|attached|attachment|enclosed|pasted|following|above|below)\b"
    r"|\b(?:in|of|from|about|on|into|with)\s+it\b"
    r"|\bit\s+(?:says?|said|mentions?|contains?|describes?|talks|covers?|means?)\b"
    r"|\b(?:summari[sz]e|translate|explain|analy[sz]e|rewrite|proofread|shorten|review|check|describe)\s+it\b",
    re.IGNORECASE,
)
# An action outside the text, which the model cannot do by writing: remembering, committing, sending.
_OUTSIDE_ACTION = re.compile(
    r"\b(?:remember|memori[sz]e|commit|stage|send|upload|e-?mail\s+(?:it|this))\b|\bkeep\s+in\s+mind\b"
    r"|\bnote\s+(?:it|this|that)\s+down\b",
    re.IGNORECASE,
)
# Where a tool would act: a written path, a file name, an address.
_PLACE = re.compile(
    r"(?<![\w/.~:])~?/[\w\-.]|\b[\w\-]+\.[A-Za-z]\w{0,4}\b(?!\.\w)|https?://|\b(?:folder|directory)\b",
    re.IGNORECASE,
)
# An ask that ends with a colon, then the material it is about (an MCP prompt's text, "Translate this:").
_ASK_THEN_MATERIAL = re.compile(r"\A(?P<ask>[^\n]*\S[^\n]*:)[ \t]*\n\s*(?P<material>\S.*)\Z", re.DOTALL)
MAX_ASK_WORDS = 60


def parameters_from_name(name: str) -> int | None:
    """A parameter count from a model's name ("Qwen2.5-0.5B-Instruct", "SmolLM2 135M"), for runtimes
    that do not report one (RKLLM, remote servers). None when the name has no size."""
    match = re.search(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([MB])(?![a-z])", name, re.IGNORECASE)
    if match is None:
        return None
    return int(float(match.group(1)) * (1e6 if match.group(2).upper() == "M" else 1e9))


def resolve_routing(mode: str, parameters: int | None) -> str:
    """`host` or `model` for a routing setting (`auto`, `host`, `model`) and the model's parameter
    count (None when unknown: a remote model, which is left to decide). Raises ValueError for an
    unknown mode."""
    if mode not in ROUTING_MODES:
        raise ValueError(f"routing is one of {', '.join(ROUTING_MODES)}, got {mode!r}")
    if mode != "auto":
        return mode
    return "host" if parameters is not None and parameters < HOST_ROUTING_BELOW_PARAMETERS else "model"


@dataclass(frozen=True)
class RouteDecision:
    needs_tool: bool
    candidates: tuple[ToolSpec, ...]  # best first; empty when needs_tool is False
    best_score: float
    reason: str  # one line a user could read in a log


@cache
def small_talk_examples() -> tuple[str, ...]:
    """The shipped small-talk examples. Raises FileNotFoundError when they are missing."""
    path = shipped_dir("resources") / "routing" / "small_talk.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def route_score(best: float, small_talk: float | None) -> float:
    """How clearly a question calls for its best tool; None for small_talk means BM25 alone."""
    return best - SMALL_TALK_WEIGHT * small_talk if small_talk is not None else best


def passes(best: float, small_talk: float | None, task: float | None = None) -> bool:
    """The gate: with the question probe's ``task`` probability (agent/question_probe.py), a task
    whose best tool fits, or a question a tool fits clearly that the probe does not read as chat with
    near certainty; else the small-talk rule; else, without embeddings, BM25's threshold."""
    probe = shipped_probe() if task is not None else None
    if task is not None and probe is not None:
        chat = best - probe.small_talk_weight * small_talk if small_talk is not None else best
        asked = task >= TASK_THRESHOLD and best >= probe.min_tool_score and chat >= probe.route_threshold
        return asked or (best >= probe.clear_fit and task >= probe.clear_fit_task)
    if small_talk is None:
        return best >= LEXICAL_ROUTE_THRESHOLD
    return best >= MIN_TOOL_SCORE and route_score(best, small_talk) >= ROUTE_THRESHOLD


def split_material(text: str) -> tuple[str, str]:
    """(the ask, the material) of a text that carries what it is about after its first line ending
    in a colon ("Please analyze the following resource:" and the resource); (text, "") otherwise."""
    match = _ASK_THEN_MATERIAL.match(text.strip())
    if match is None or len(match.group("ask").split()) > MAX_ASK_WORDS:
        return text, ""
    return match.group("ask").strip(), match.group("material").strip()


def about_attached(query: str, best: float, about: float | None) -> str:
    """Why a question sent with content, whose best tool scores ``best``, calls no tool though it
    passed the gate (module docstring); "" when it clearly asks for a tool's action. ``about``: its
    similarity to ABOUT_ATTACHED_EXAMPLES (None without embeddings)."""
    if _PLACE.search(query) or _OUTSIDE_ACTION.search(query):
        return ""
    if _REFERS.search(query):
        return "it asks about the content sent with it"
    if about is not None and best - about < ATTACHED_MARGIN:
        return f"it reads like a question about the content sent with it ({about:.2f})"
    return ""


def speaks_of_records(question: str) -> bool:
    """Whether only the asker's records answer ``question``, or it asks to keep something in them: a
    task for the gate whatever the question probe reads (module docstring)."""
    return asks_what_i_recorded(question) or asks_to_keep(question)


def is_follow_up(query: str) -> bool:
    """A short question that brings a new value for the previous one (module docstring)."""
    return len(query.split()) <= FOLLOW_UP_MAX_WORDS and bool(_NEW_VALUE.search(query))


def decide_route(
    tools: Sequence[ToolSpec],
    scores: Sequence[float],
    small_talk: float | None,
    *,
    max_candidates: int = 3,
    follow_up: tuple[Sequence[float], float | None, str, float | None] | None = None,
    attached: tuple[str, float | None] | None = None,
    question: str | None = None,
    task: float | None = None,
    own_record: bool = False,
) -> RouteDecision:
    """The decision from the ranker's ``scores`` for ``tools`` and the question's similarity to small
    talk (None without embeddings); ``task``: the question probe's probability that it asks for a task
    (None without the probe). ``follow_up``: the scores, small-talk similarity, text and task
    probability of a short follow-up read with the previous question (module docstring); when that
    calls for a tool, it wins. ``attached``: the question and its similarity to ABOUT_ATTACHED_EXAMPLES, when content was
    sent with it (module docstring). ``question``: the text whose values a destructive candidate needs
    (module docstring); None leaves the candidates as ranked. ``own_record``: the question names a file
    or folder a server serves (agent/named_files.py) or a thing a server keeps (agent/kept_names.py):
    a task."""
    decision = _decide(
        tools,
        scores,
        small_talk,
        max_candidates=max_candidates,
        follow_up=follow_up,
        question=question,
        task=task,
        own_record=own_record,
    )
    if attached is None or not decision.needs_tool:
        return decision
    why = about_attached(attached[0], decision.best_score, attached[1])
    if not why:
        return decision
    return RouteDecision(False, (), decision.best_score, f"no tool is needed: {why} ({decision.reason})")


def _decide(
    tools: Sequence[ToolSpec],
    scores: Sequence[float],
    small_talk: float | None,
    *,
    max_candidates: int,
    follow_up: tuple[Sequence[float], float | None, str, float | None] | None,
    question: str | None,
    task: float | None,
    own_record: bool = False,
) -> RouteDecision:
    if not tools:
        return RouteDecision(False, (), 0.0, "no tools are enabled")
    if follow_up is not None:
        decision = decide_route(
            tools,
            follow_up[0],
            follow_up[1],
            max_candidates=max_candidates,
            question=follow_up[2],
            task=follow_up[3],
            own_record=own_record,
        )
        if decision.needs_tool:
            return RouteDecision(
                True, decision.candidates, decision.best_score, f"a follow-up: {decision.reason}"
            )
    order = sorted(range(len(tools)), key=lambda i: -scores[i])
    best = scores[order[0]]
    reason = (
        f"best {tools[order[0]].name} {best:.2f}"
        + (f", task {task:.2f}" if task is not None else "")
        + (f", small talk {small_talk:.2f}" if small_talk is not None else "")
    )
    # Only the asker's records or files answer it: a task for the gate, however much it reads like a
    # chat. Not a request for a change: the change rule below reads the probe's own ``task``.
    records = task is not None and question is not None and (own_record or speaks_of_records(question))
    if records:
        reason += (
            ", it names a file or a thing the user keeps" if own_record else ", it asks of the user's records"
        )
    if not passes(best, small_talk, 1.0 if records else task):
        return RouteDecision(False, (), best, f"no tool is needed ({reason})")
    if question is not None and asks_for_words(question):
        return RouteDecision(
            False,
            (),
            best,
            f"no tool is needed: it asks for words (instructions, a suggestion, a meaning, advice) ({reason})",
        )
    candidates = tuple(
        tools[i] for i in order[: max(max_candidates, 1)] if scores[i] >= best - CANDIDATE_MARGIN
    )
    if question is not None:
        unasked = [t for t in candidates if not destructive_call_asked(question, t, task)]
        short = [t for t in candidates if t not in unasked and cannot_fill(question, t)]
        candidates = tuple(t for t in candidates if t not in unasked and t not in short)
        if not candidates:
            why = (
                f"the question does not ask for what {', '.join(t.name for t in unasked)} would change"
                if unasked
                else f"{', '.join(t.name for t in short)} needs values the question does not give, or takes none it gives"
            )
            return RouteDecision(False, (), best, f"no tool is needed: {why} ({reason})")
        listings = tuple(dict.fromkeys(_listing_instead(t, tools, question) for t in candidates))
        if listings != candidates:
            reason += ", it gives nothing to search for: the server's listing instead"
            candidates = listings
    return RouteDecision(True, candidates, best, reason)


def _listing_instead(tool: ToolSpec, tools: Sequence[ToolSpec], question: str) -> ToolSpec:
    """The tool of ``tool``'s server that lists everything it keeps (kept_names.lists_kept_names), in
    place of ``tool`` when that requires a text of its own and ``question`` holds no words to give it:
    "What do you know about me so far?" searched the memory for "far", then for a word the model made
    up, and the answer said nothing was known while the memory held facts. ``tool`` otherwise."""
    if question_spans(question) or not required_free_arguments(tool, ("string",)):
        return tool
    return next((t for t in tools if t.server == tool.server and lists_kept_names(t)), tool)


def destructive_call_asked(question: str, tool: ToolSpec, task: float | None = None) -> bool:
    """Whether ``question`` may lead to a call of ``tool``: always for a tool that destroys nothing;
    for one that may, when the question asks for a change (by its words, or, with the question probe's
    ``task`` probability, by reading as a task at CHANGE_TASK_THRESHOLD or more) and holds a value of
    each typed argument the tool requires and EdgeHost does not know (module docstring). A tool that
    deletes is asked for only where the change asked may take something away: "Remember that my NAS
    has 8 GB of RAM" asks for a change, but none a delete tool makes."""
    if tool_risk(tool)[0] != "destructive":
        return True
    asked = asks_for_change(question) or (task is not None and task >= CHANGE_TASK_THRESHOLD)
    return (
        asked
        and not (deletes(tool) and (asks_only_to_add(question) or takes_away_changes_alone(question)))
        and not asks_how_or_whether(question)
        and not lacks_required_values(question_cues(question), tool)
    )
