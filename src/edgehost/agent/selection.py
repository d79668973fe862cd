"""Tool selection (decision 7): which enabled tools go into the prompt for this turn.

The tools section has a token budget (a quarter of the context by default). When the enabled tools
fit, all of them are shown. When they do not, they are ranked for the turn's question and the best
ones that fit are shown. The chosen set then stays for the conversation while it serves — a changed
system prompt invalidates the whole KV cache — and is chosen anew only when the question clearly
needs a tool outside it.

The rankers are in agent/ranking.py; for the host the embedder runs in a process of its own
(agent/ranking_process.py), so this module and the GUI process need no numpy.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import json
import logging
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from edgehost.agent._bm25 import terms
from edgehost.agent.grounded_arguments import grounded_schema, names_the_tool, tool_words
from edgehost.agent.known_arguments import FILE_NAME
from edgehost.agent.prompting import DEFAULT_DIALECT, estimate_tokens, render_tool_entry, tools_section_frame
from edgehost.agent.question_dates import date_spans
from edgehost.agent.question_values import WORD, path_values, quoted_phrases, written_numbers
from edgehost.agent.ranking import (
    BlendedRanker,
    EmbeddingRanker,
    LexicalRanker,
    RankerChoice,
    ToolRanker,
    kept_bonus,
    load_ranker,
    ordered,
)
from edgehost.agent.routing import (
    ABOUT_ATTACHED_EXAMPLES,
    RouteDecision,
    decide_route,
    is_follow_up,
    small_talk_examples,
)
from edgehost.agent.tools import ToolSpec
from edgehost.agent.value_fit import Slot, assign_values, fit_adjustment, span_places
from edgehost.agent.written_texts import written_out
from edgehost.errors import EmbeddingUnavailable
from edgehost.schema_refs import item_properties
from edgehost.settings import DEFAULT_TOOL_BUDGET_FRACTION

__all__ = [
    "DEFAULT_BUDGET_FRACTION",
    "Selection",
    "ToolSelector",
    "default_tool_budget",
    "select_tools",
]

DEFAULT_BUDGET_FRACTION = DEFAULT_TOOL_BUDGET_FRACTION  # settings.py holds the default
# Blended and embedding scores are cosine similarities. A tool outside the kept set replaces the set
# (and with it the KV cache) only when it beats the set's best by the margin and is itself a confident
# match: on the calibration questions (tests/fixtures/tool_queries/) 70 % of the real matches score
# above 0.22 (the median 0.38), small talk ("thanks!", "and in Paris?") at most 0.2.
# A text argument of a call the host chooses is offered the run of the question's words that fits it best
# (agent/value_fit.py: by meaning, adjusted by the run's place in the question, each run to one argument)
# ... when the nearest is this near: "tigers" to "species: the species of the animal" is 0.41, "Paris" to
# "location: the city" 0.43; the words of a free text (a note's content, a search query) stay under 0.25,
# and keep every run. An optional argument whose best run scores under it is left out.
FITTING_VALUES = 1
FIT_MIN_SIMILARITY = 0.3
DEFAULT_RESELECT_MARGIN = 0.1
DEFAULT_RESELECT_MIN_SCORE = 0.22
# After the embedder failed (its process died or stalled past its timeout: a board busy compiling, a
# swap storm), tools are ranked by words for this long, and then the embedder is started again in the
# background: a stall lasts minutes, the session hours.
RANKER_RETRY_S = 300.0
log = logging.getLogger(__name__)
T = TypeVar("T")

CountTokensFn = Callable[[str], int]
AsyncCountTokensFn = Callable[[str], "int | Awaitable[int]"]


async def _in_thread(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` in a worker thread, as asyncio.to_thread, except that a cancelled caller
    waits for the thread to finish before it sees the cancellation: a thread cannot be stopped, and
    one still running when its event loop closes calls back into a closed loop."""
    future = asyncio.get_running_loop().run_in_executor(None, functools.partial(function, *args))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        await asyncio.wait({future})
        raise


def default_tool_budget(max_context: int, fraction: float = DEFAULT_BUDGET_FRACTION) -> int:
    """Tokens the tools section may take in a context of `max_context` tokens."""
    return max(int(max_context * fraction), 0)


@dataclass(frozen=True)
class Selection:
    tools: list[ToolSpec]
    changed: bool  # differs from `previous`: the system prompt (and the KV cache) changes
    reason: str
    tokens: int  # tokens of the chosen tools' entries


def _greedy_fit(costs: Sequence[int], order: Sequence[int], budget: int) -> list[int]:
    chosen, used = [], 0
    for i in order:
        if used + costs[i] <= budget:
            chosen.append(i)
            used += costs[i]
    return chosen


def _choose(
    query: str,
    enabled: Sequence[ToolSpec],
    costs: Sequence[int],
    budget: int,
    previous: Sequence[str] | None,
    ranker: Callable[[], ToolRanker],
    margin: float,
    min_score: float,
    frame_cost: int,
) -> Selection:
    names = [t.name for t in enabled]

    def result(indices: Sequence[int], reason: str) -> Selection:
        chosen = [enabled[i] for i in indices]
        changed = previous is None or [t.name for t in chosen] != list(previous)
        return Selection(chosen, changed, reason, sum(costs[i] for i in indices))

    total = sum(costs)
    budget = max(budget - frame_cost, 0)
    if total <= budget:
        return result(
            range(len(enabled)),
            f"all {len(enabled)} enabled tools fit the budget ({total} <= {budget} tokens)",
        )
    scorer = ranker()
    scores = scorer.scores(query, enabled)
    order = ordered(enabled, scores)
    index = {name: i for i, name in enumerate(names)}
    if previous:
        kept = [index[n] for n in previous if n in index]
        if len(kept) == len(previous) and sum(costs[i] for i in kept) <= budget:
            best = order[0]
            best_kept = max(scores[i] for i in kept)
            if best in kept or scores[best] - best_kept < margin or scores[best] < min_score:
                return result(
                    kept, f"kept the conversation's {len(kept)} tools (best for this turn: {names[best]})"
                )
            reason = (
                f"{names[best]} scores {scores[best]:.2f}, far above the kept tools' best {best_kept:.2f}:"
                f" chosen anew by {scorer.name}"
            )
        else:
            reason = (
                f"some of the conversation's tools are gone or no longer fit: chosen anew by {scorer.name}"
            )
    else:
        reason = f"{len(enabled)} enabled tools need {total} tokens > {budget}: ranked by {scorer.name}"
    return result(_greedy_fit(costs, order, budget), reason)


def select_tools(
    query: str,
    tools: Sequence[ToolSpec],
    budget_tokens: int,
    count_tokens: CountTokensFn = estimate_tokens,
    previous: Sequence[str] | None = None,
    *,
    ranker: ToolRanker | None = None,
    margin: float = DEFAULT_RESELECT_MARGIN,
    min_score: float = DEFAULT_RESELECT_MIN_SCORE,
    dialect: str = DEFAULT_DIALECT,
) -> Selection:
    """Choose the enabled tools to show for `query` so that the tools section (in `dialect`) stays
    within `budget_tokens` (see the module docstring).

    `previous` is the conversation's current set (names), None for a new conversation. Without
    `ranker` the lexical one is used (it needs no model). Raises ValueError for an unknown dialect.
    """
    enabled = [t for t in tools if t.enabled]
    costs = [count_tokens(render_tool_entry(t)) for t in enabled]
    frame = count_tokens(tools_section_frame(dialect, examples=enabled))
    return _choose(
        query,
        enabled,
        costs,
        budget_tokens,
        previous,
        lambda: ranker or LexicalRanker(),
        margin,
        min_score,
        frame,
    )


def _nearest_values(
    ranker: ToolRanker,
    arguments: Mapping[str, Mapping[str, Any]],
    question: str,
    required: frozenset[str],
    tool: str = "",
    items: bool = False,
) -> dict[str, list[Any] | None]:
    """For each argument, its enum cut to the FITTING_VALUES that fit it best (agent/value_fit.py), when
    the nearest by meaning is at least FIT_MIN_SIMILARITY (the items of a list: every value that
    near, for a list may hold several); else the phrases the question quotes or writes out (a note
    "saying ..."), or the whole enum, in order (ToolSelector.with_fitting_values). None for an optional
    argument no value fits: it is left out. A run holding a file name is no fitting value: it is a
    path's; nor are words of the
    ``tool``'s own name where the question gives others ("Whole Foods" is no product of whole_foods.find_top_brands). Without the
    embedding model, every enum whole."""
    semantic = _semantic(ranker)
    nearest: dict[str, list[Any] | None] = {}
    similarities: dict[str, dict[str, float]] = {}
    slots: dict[str, Slot] = {}
    named = tool_words(tool)
    quoted = frozenset([*quoted_phrases(question), *written_out(question)])
    free: list[str] = []  # the free text arguments offered every run
    dates = date_spans(question)
    for key, schema in arguments.items():
        values = list(schema["enum"])
        nearest[key] = values
        if not isinstance(semantic, EmbeddingRanker) or not all(isinstance(v, str) for v in values):
            continue
        description = str(schema.get("description") or schema.get("title") or "")
        slot = Slot.of(key, description)
        if slot.wants_name or slot.kind_of:  # "Anna's birthday is on 3 May": no entityType "May"
            values = nearest[key] = [v for v in values if not _within_a_date(question, v, dates)] or values
        candidates = [
            v for v in values if not _holds_a_file(v) and fit_adjustment(question, v, slot) is not None
        ]
        candidates = [v for v in candidates if not names_the_tool(v, named)] or candidates
        if not candidates:
            continue
        if slot.wants_text and (own_words := [v for v in candidates if v in quoted]):
            nearest[key] = own_words  # 'with the message "fix typo in readme"': not "fix", nearer by meaning
            continue
        what = f"{' '.join(terms(key))}: {description}"
        scores = semantic.index.similarities(what, candidates, keep=False)
        if max(scores) < FIT_MIN_SIMILARITY and not (slot.wants_place or slot.wants_name):
            # Nothing clearly of its kind (a free text: a message, a query, a note): what the question
            # quotes, where it quotes, is the text written out for it ("with the message 'Explain how
            # to run the script'": offered every run, the 135M model took "run"); else every run.
            nearest[key] = [v for v in values if v in quoted] or values
            if nearest[key] is values:
                free.append(key)
            continue
        similarities[key], slots[key] = dict(zip(candidates, scores, strict=True)), slot
    for key, ranked in assign_values(question, similarities, slots).items():
        if key not in required and ranked[0][1] < FIT_MIN_SIMILARITY:
            nearest[key] = None
        elif items:
            nearest[key] = [value for value, score in ranked if score >= FIT_MIN_SIMILARITY] or [ranked[0][0]]
        else:
            nearest[key] = [value for value, _score in ranked[:FITTING_VALUES]]
    return _without_taken_values(nearest, free)


def _within_a_date(question: str, run: str, dates: Sequence[tuple[int, int]]) -> bool:
    """Whether every place ``question`` writes ``run`` lies inside one of the ``dates`` it writes
    (date_spans: "May" and "3" of "on 3 May", "Tuesday"): part of a date, no name and no kind of a thing."""
    places = [m.start() for m in re.finditer(re.escape(run), question)]
    return bool(places) and all(
        any(start <= at and at + len(run) <= end for start, end in dates) for at in places
    )


def _holds_a_file(value: str) -> bool:
    """Whether a run of the question's words holds a file name ("notes.txt", "ideas.txt that says"):
    a path's value, not a text of its own kind."""
    return any(FILE_NAME.search(path) for path in path_values(value))


def _without_taken_values(
    nearest: dict[str, list[Any] | None], free: Sequence[str]
) -> dict[str, list[Any] | None]:
    """``nearest`` with the ``free`` text arguments' runs that hold a value another argument takes
    left out, where any run is left: "Lena is Max's sister" relates Lena to Max, and its type is
    "sister", not "Lena" or "Max's sister" (the 135M model took one word for all three of a relation's
    fields)."""
    taken = [
        values[0].lower()
        for key, values in nearest.items()
        if key not in free and values and len(values) == 1 and isinstance(values[0], str)
    ]

    def holds_taken(value: Any) -> bool:
        words = [w.lower() for w in WORD.findall(str(value))]
        return any(span_places(words, t) for t in taken)

    for key in free:
        rest = [v for v in nearest[key] or [] if not holds_taken(v)]
        if rest:
            nearest[key] = rest
    return nearest


# The kinds of value _one_use compares: an integer and a number are one kind.
_VALUE_KINDS = {"string": "text", "number": "number", "integer": "number", "array": "list"}


def _one_use(properties: Mapping[str, Any], schema: Mapping[str, Any], question: str) -> dict[str, Any]:
    """``properties`` without an optional argument offered only the value a required one of its kind
    takes, where the question writes it once: "create a branch called feature-login" gives
    feature-login as the new branch, not also as the branch it starts from; "the last two lines" gives
    2 to the tail, not also to the head; "falling for 5 seconds" gives 5 to the time (an integer), not
    also to the gravity (a number); a list of cash flows is not also the list of years; but "3 to the
    power of 3" keeps both threes."""
    required = set(schema.get("required") or ())
    written = Counter(value for value, _start, _end in written_numbers(question))

    def only(value: Any) -> Any:
        offered = value.get("enum") if isinstance(value, Mapping) else None
        if not isinstance(offered, list) or len(offered) != 1 or isinstance(offered[0], bool):
            return None
        kind = _VALUE_KINDS.get(str(value.get("type")))
        if kind is None or (kind == "number" and written[offered[0]] > 1):
            return None
        return kind, json.dumps(offered[0], sort_keys=True)

    taken = {only(properties[key]) for key in required if key in properties} - {None}
    return {key: value for key, value in properties.items() if key in required or only(value) not in taken}


def _prepare(ranker: ToolRanker, tools: Sequence[ToolSpec]) -> None:
    ranker.prepare(tools)


def _semantic(ranker: ToolRanker | None) -> ToolRanker | None:
    """The embedding side of ``ranker`` (a BlendedRanker's), or ``ranker`` itself."""
    return ranker.semantic if isinstance(ranker, BlendedRanker) else ranker


def _close_index(ranker: ToolRanker | None) -> None:
    """Stop the embedder behind ``ranker`` (its process), if it has one; never raises."""
    semantic = _semantic(ranker)
    if isinstance(semantic, EmbeddingRanker):
        try:
            semantic.index.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            log.warning("could not close the tool-ranking embedder", exc_info=True)


class ToolSelector:
    """Tool selection for a host: owns the ranker (loaded once, on first need, off the event loop)
    and caches tool embeddings and token counts across turns and conversations."""

    def __init__(
        self,
        ranker: ToolRanker | None = None,
        *,
        margin: float = DEFAULT_RESELECT_MARGIN,
        min_score: float = DEFAULT_RESELECT_MIN_SCORE,
        ranker_loader: Callable[[], RankerChoice] = load_ranker,
        cache_dir: Path | None = None,
        log_file: Path | None = None,
    ) -> None:
        """With `cache_dir` (and the default loader) the embedder runs in the ranking process, its
        stderr to `log_file`; see load_ranker."""
        self._ranker = ranker
        self._loader = (
            functools.partial(load_ranker, cache_dir=cache_dir, own_process=True, log_file=log_file)
            if ranker_loader is load_ranker and cache_dir is not None
            else ranker_loader
        )
        self._load: asyncio.Task[ToolRanker] | None = None
        self._retry_at: float | None = None  # when to start the embedder again after it failed
        self._closed = False
        self._anticipated: str | None = None  # the newest draft not embedded yet
        self._anticipating: asyncio.Task[None] | None = None
        self._margin = margin
        self._min_score = min_score
        self._token_counts: dict[str, int] = {}
        self.ranker_reasons: tuple[str, ...] = ()
        self.last: Selection | None = None

    async def ranker(self) -> ToolRanker:
        if self._ranker is not None:
            if self._retry_at is not None and time.monotonic() >= self._retry_at and not self._closed:
                self._retry_at = None
                log.info("tool ranking: starting the embedder again; by words until it is ready")
                self._load = asyncio.get_running_loop().create_task(
                    self._load_ranker(), name="edgehost-ranker-reload"
                )
            return self._ranker
        if self._load is None:  # the warm-up and a first turn may ask at once: one load
            self._load = asyncio.get_running_loop().create_task(
                self._load_ranker(), name="edgehost-ranker-load"
            )
        # Shielded: a caller cancelled meanwhile (a warm-up, a stopped turn) leaves the load to finish
        # and keep its ranker, so a ranking process started for it is always closed by aclose().
        return await asyncio.shield(self._load)

    async def _load_ranker(self) -> ToolRanker:
        choice = await _in_thread(self._loader)
        if self._closed:  # closed while it loaded
            await _in_thread(_close_index, choice.ranker)
            return LexicalRanker()
        self._ranker, self.ranker_reasons = choice.ranker, choice.reasons
        if choice.reasons:
            log.warning("tool ranking: %s (ranking with %s)", "; ".join(choice.reasons), choice.ranker.name)
        return choice.ranker

    def anticipate(self, draft: str) -> None:
        """The question as the user types it (or as `edgehost ask` was given it): its embedding starts
        now, in the ranking process, so the turn that asks it finds the vector ready (about 10 ms less
        per turn on a desktop, 20-40 on a board). While the embedder still loads, the draft waits for
        it. One draft at a time: the newest one typed meanwhile is next, the ones between are skipped.
        Never raises; call from the event loop."""
        if self._closed or not draft.strip():
            return
        if self._ranker is not None and not isinstance(_semantic(self._ranker), EmbeddingRanker):
            return  # ranking by words: nothing to compute ahead
        self._anticipated = draft.strip()
        if self._anticipating is None or self._anticipating.done():
            self._anticipating = asyncio.get_running_loop().create_task(
                self._embed_drafts(), name="edgehost-anticipate"
            )

    async def _embed_drafts(self) -> None:
        semantic = _semantic(await self.ranker())  # the load under way, or started here
        if not isinstance(semantic, EmbeddingRanker):
            self._anticipated = None
            return
        while (draft := self._anticipated) is not None:
            self._anticipated = None
            try:
                await _in_thread(semantic.index.anticipate, draft)
            except EmbeddingUnavailable:
                return  # the next turn finds out too, and ranks by words

    async def aclose(self) -> None:
        """Stop the ranking process (or free the embedder); ranking by words after this."""
        self._closed = True
        self._anticipated = None
        if self._anticipating is not None:
            await asyncio.wait({self._anticipating})
        if self._load is not None:
            await asyncio.wait({self._load})  # a load under way closes what it loaded itself
        ranker, self._ranker = self._ranker, LexicalRanker()
        await _in_thread(_close_index, ranker)

    async def _ranked(self, function: Callable[..., T], *args: object) -> T:
        """``function(ranker, *args)`` in a thread. When the embedder stops working (its process
        died or stalled), the call is made again by words: a turn never fails for its ranking. Words
        rank the turns after it too, for RANKER_RETRY_S, and then the embedder is started again."""
        self._anticipated = None  # the question is asked: drafts typed since are not
        if self._anticipating is not None and not self._anticipating.done():
            # Most often the question itself, typed and then sent: wait, rather than embed it again.
            await asyncio.wait({self._anticipating})
        ranker = await self.ranker()
        try:
            return await _in_thread(function, ranker, *args)
        except EmbeddingUnavailable as exc:
            if self._ranker is ranker:
                log.warning("ranking tools by words for %.0f s: %s", RANKER_RETRY_S, exc)
                self._ranker = LexicalRanker()
                self._retry_at = time.monotonic() + RANKER_RETRY_S
                self.ranker_reasons = (*self.ranker_reasons, str(exc))
                await _in_thread(_close_index, ranker)
            return await _in_thread(function, await self.ranker(), *args)

    async def with_fitting_values(self, tool: ToolSpec, question: str) -> ToolSpec:
        """``tool`` with its free text values limited to the question's words (grounded_schema) and,
        where the words nearest by meaning to what an argument is clearly fit it ("species: the species
        of the animal" and "tigers", not "100"), to the FITTING_VALUES that fit best, each run of words
        to one argument (agent/value_fit.py); an optional argument nothing fits is left out. The text
        fields of a list of objects (the memory server's entities: name, entityType) are fitted the
        same way, among themselves, and the items of a list of texts by the list's description. Arguments with choices of their own keep them; without the
        embedding model, the words alone. For the calls the host chooses under a grammar (decision 11)."""
        schema = grounded_schema(
            tool.input_schema, question, tool.name, tool.known_arguments, tool.description
        )
        properties = schema.get("properties")
        own = tool.properties
        if not isinstance(properties, Mapping):
            return dataclasses.replace(tool, input_schema=schema)
        fitted = await self._fitted(properties, schema, own, question, tool)
        for key, value in list(fitted.items()):
            items = (
                value.get("items") if isinstance(value, Mapping) and value.get("type") == "array" else None
            )
            if isinstance(items, Mapping) and isinstance(items.get("properties"), Mapping):
                declared = item_properties(own.get(key))
                inner = await self._fitted(items["properties"], items, declared, question, tool)
                fitted[key] = {**value, "items": {**items, "properties": inner}}
            elif isinstance(items, Mapping) and items.get("type") == "string" and "enum" in items:
                # A list of texts ("entityNames: An array of entity names to delete") is fitted by
                # what the list is: "Forget Carol completely." offered "completely" as a name.
                described = {**items, "description": items.get("description") or value.get("description", "")}
                declared_items = own[key].get("items") if isinstance(own.get(key), Mapping) else None
                inner = await self._fitted(
                    {key: described},
                    {"required": [key]},
                    {key: declared_items or {}},
                    question,
                    tool,
                    items=True,
                )
                fitted[key] = {**value, "items": {**items, "enum": inner[key]["enum"]}}
        return dataclasses.replace(
            tool, input_schema={**schema, "properties": _one_use(fitted, schema, question)}
        )

    async def _fitted(
        self,
        properties: Mapping[str, Any],
        schema: Mapping[str, Any],
        own: Mapping[str, Any],
        question: str,
        tool: ToolSpec,
        items: bool = False,
    ) -> dict[str, Any]:
        """``properties`` (of ``schema``, as grounded; ``own``: as the tool declares them) with each free
        text argument offered more than FITTING_VALUES values cut to those that fit it best (``items``:
        the items of a list, every value that fits), and an optional one nothing fits left out
        (with_fitting_values)."""
        many = {
            key: value
            for key, value in properties.items()
            if isinstance(value, Mapping)
            and value.get("type") == "string"
            and key not in tool.known_arguments
            and not (isinstance(own.get(key), Mapping) and ("enum" in own[key] or "const" in own[key]))
            and len(value.get("enum") or ()) > FITTING_VALUES
        }
        if not many:
            return dict(properties)
        required = frozenset(schema.get("required") or ())
        nearest = await self._ranked(_nearest_values, many, question, required, tool.name, items)
        return {
            key: value if nearest.get(key) is None else {**value, "enum": nearest[key]}
            for key, value in properties.items()
            if nearest.get(key, ()) is not None
        }

    async def prepare(self, tools: Sequence[ToolSpec]) -> None:
        """Load the ranker and embed the enabled tools in a thread, so the first turn that must rank
        does not wait for it. Call when the catalog changes; safe to skip."""
        await self._ranked(_prepare, [t for t in tools if t.enabled])

    async def select(
        self,
        query: str,
        tools: Sequence[ToolSpec],
        *,
        budget_tokens: int,
        count_tokens: AsyncCountTokensFn = estimate_tokens,
        previous: Sequence[str] | None = None,
        dialect: str = DEFAULT_DIALECT,
    ) -> Selection:
        """Like select_tools; `count_tokens` may be async (a backend's tokenizer). Ranking runs in a thread."""
        enabled = [t for t in tools if t.enabled]

        async def cost(text: str) -> int:
            if text not in self._token_counts:
                counted = count_tokens(text)
                self._token_counts[text] = await counted if inspect.isawaitable(counted) else counted
            return self._token_counts[text]

        costs = [await cost(render_tool_entry(tool)) for tool in enabled]
        frame = await cost(tools_section_frame(dialect, examples=enabled))
        choose = functools.partial(
            _choose,
            query,
            enabled,
            costs,
            budget_tokens,
            previous,
            margin=self._margin,
            min_score=self._min_score,
            frame_cost=frame,
        )
        if sum(costs) + frame <= budget_tokens:
            selection = choose(LexicalRanker)  # everything is shown: no ranking happens
        else:
            selection = await self._ranked(lambda ranker: choose(lambda: ranker))
        self.last = selection
        return selection

    async def route(
        self,
        query: str,
        tools: Sequence[ToolSpec],
        *,
        context: Sequence[str] = (),
        max_candidates: int = 3,
        attached: bool = False,
        own_record: bool = False,
        keeping: frozenset[str] = frozenset(),
    ) -> RouteDecision:
        """Whether ``query`` needs one of ``tools`` (the enabled ones) and the plausible ones, best
        first (agent/routing.py). ``context``: the conversation's earlier questions, newest last.
        ``attached``: content was sent with the question (an attached resource, a prompt's text):
        it then calls a tool only when it clearly asks for one. ``own_record``: it names a file or folder
        a server serves (agent/named_files.py) or a thing a server keeps, so it asks for a task;
        ``keeping``: the servers that keep a thing it names (agent/kept_names.py), whose tools that
        act on what exists gain (ranking.kept_bonus). Ranking runs in a thread."""
        enabled = [t for t in tools if t.enabled]
        return await self._ranked(
            self._route, query, enabled, context, max_candidates, attached, own_record, keeping
        )

    @staticmethod
    def _route(
        ranker: ToolRanker,
        query: str,
        tools: list[ToolSpec],
        context: Sequence[str],
        max_candidates: int,
        attached: bool = False,
        own_record: bool = False,
        keeping: frozenset[str] = frozenset(),
    ) -> RouteDecision:
        if not tools:
            return decide_route(tools, [], None)
        semantic = ranker.semantic if isinstance(ranker, BlendedRanker) else None

        def scores(text: str) -> list[float]:
            # A follow-up's combined text is weighed by the form of the question asked now.
            if isinstance(ranker, BlendedRanker):
                ranked = ranker.scores(text, tools, form=query)
            else:
                ranked = ranker.scores(text, tools)
            return [s + bonus for s, bonus in zip(ranked, kept_bonus(text, tools, keeping), strict=True)]

        def small_talk(text: str) -> float | None:
            if semantic is None:
                return None
            return semantic.best_similarity(text, small_talk_examples())

        def task(text: str) -> float | None:
            return semantic.asks_for_a_task(text) if semantic is not None else None

        follow_up = None
        if context and is_follow_up(query):
            combined = f"{context[-1]} {query}"
            follow_up = (scores(combined), small_talk(combined), combined, task(combined))
        about = (
            (
                query,
                semantic.best_similarity(query, ABOUT_ATTACHED_EXAMPLES) if semantic is not None else None,
            )
            if attached
            else None
        )
        # The question last: its vector is the one kept for the selection of the same turn.
        return decide_route(
            tools,
            scores(query),
            small_talk(query),
            max_candidates=max_candidates,
            follow_up=follow_up,
            attached=about,
            question=query,
            task=task(query),
            own_record=own_record,
        )
