"""What one turn works with and what it has produced so far, for TurnRunner (agent/loop.py).

A TurnPlan is chosen before the first reply (the prompt's tools, who calls them); a TurnState is
filled in round by round: what the user reads, the calls' records, and what the last calls leave for
the answer to be checked against (decision 11).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from edgehost.agent.reply_round import Round
from edgehost.agent.result_rendering import NOT_RUN
from edgehost.agent.tool_calls import CallOutcome, ToolOutcome, edited_note, refusal_text
from edgehost.agent.tools import ToolSpec
from edgehost.llm.base import Capabilities, Perf

__all__ = ["CallResult", "TurnPlan", "TurnState"]


@dataclass(frozen=True)
class TurnPlan:
    """What a turn works with, chosen before its first reply."""

    caps: Capabilities
    dialect: str
    system: str  # the system prompt, describing `tools`
    tools: list[ToolSpec]  # the tools the prompt describes
    by_name: dict[str, ToolSpec]  # every tool of the turn, switched on or off
    routing: str  # host | model: who decides the turn's calls (decision 11)
    routed: bool  # the host routed the question: the tools it forces are its candidates
    forced: tuple[ToolSpec, ...]  # the first reply must call one of these (best first)
    # What servers keep that the host offered its call (agent/kept_values.py): shown as EdgeHost's.
    kept_texts: frozenset[str] = frozenset()

    def chosen_by(self, forced: Sequence[ToolSpec]) -> str:
        """Who chose the calls of a reply that must call one of ``forced``: host, user (a pin) or model."""
        return "host" if self.routed and forced else "user" if forced else "model"


@dataclass(frozen=True)
class CallResult:
    """What goes back to the model for one call of a round (or one problem with the round's calls)."""

    name: str
    text: str
    call_id: str | None = None  # None: no call ran (a malformed call, the call limit)
    shown: str | None = None  # what the user reads instead of `text`, when that differs


@dataclass
class TurnState:
    """What a turn has produced so far, across its rounds."""

    conv_id: int
    question: str  # the user's text as the host reads it (agent/references.py, agent/named_files.py)
    content: str  # the user's message as the model reads it: the attachments, then the question
    forced: list[ToolSpec]  # the next reply must call one of these (best first)
    written: str = ""  # the user's text as written (question is the host's reading of it)
    # The host decides the calls (a model under the routing size rule, decision 11): its grounded
    # answers follow the results (loop._grounded).
    routed_by_host: bool = False
    perf: Perf = field(default_factory=Perf)
    shown: list[str] = field(default_factory=list)  # what the user reads, piece by piece
    executions: list[dict[str, Any]] = field(default_factory=list)  # the records of the turn's calls
    earlier: dict[tuple[str, str], ToolOutcome] = field(default_factory=dict)  # by tool and arguments
    calls_made: int = 0
    corrections: int = 0
    round_: Round | None = None  # the reply streaming, or the last one
    last_results: list[tuple[str, str]] = field(default_factory=list)  # (tool, what the user reads of it)
    host_call_failed: bool = False  # the last calls were EdgeHost's choice, and none of them worked
    host_call_denied: bool = False  # ... because the user denied one
    # What the model was told of the last calls that did not run or failed (a denial and its
    # instruction, an error): a reply that repeats it is no answer.
    unrun: list[str] = field(default_factory=list)
    # The successful calls: name, result, arguments.
    grounded_in: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    answer_from: int = 0  # index in `shown` where the answer after the last tool begins

    def answer(self) -> str:
        """What the user reads after the last tools' results."""
        return "".join(self.shown[self.answer_from :])

    def take_outcomes(self, outcomes: Sequence[CallOutcome]) -> list[CallResult]:
        """The results of a round's calls for the model, in order; their records kept for the turn."""
        results = []
        for name, text, ok, record in outcomes:
            self.executions.append(record)
            shown_text = None
            if record.get("status") == "denied":  # the user reads why, not the model's instruction
                shown_text = f"{NOT_RUN}{refusal_text(record)}."
            elif "proposed_arguments" in record:  # the user edited the call: the model reads so
                shown_text, text = text, f"{edited_note(record['arguments'])}\n{text}"
            results.append(CallResult(name, text, record["call_id"], shown=shown_text))
            if ok and record.get("status") == "ok":
                result_text = shown_text if shown_text is not None else text
                self.grounded_in.append((name, result_text, dict(record["arguments"])))
        return results

    def remember_results(
        self, results: Sequence[CallResult], outcomes: Sequence[CallOutcome], chosen_by: str
    ) -> None:
        """Keep what the answer after a round's calls is checked against; the answer starts here."""
        self.last_results = [(r.name, r.shown if r.shown is not None else r.text) for r in results]
        self.unrun = [
            text for _name, text, ok, record in outcomes if not ok or record.get("status") == "denied"
        ] + [r.text for r in results if r.call_id is None]
        # A small model's reply to a call that did not run is no more reliable than its reply to
        # a result: after a denial it said the file "has already been deleted".
        # (A denial is no failure to correct: its outcome is ok.)
        self.host_call_denied = any(record.get("status") == "denied" for *_, record in outcomes)
        self.host_call_failed = (
            chosen_by == "host"
            and bool(outcomes)
            and all(not ok or record.get("status") == "denied" for _n, _t, ok, record in outcomes)
        )
        self.answer_from = len(self.shown)
