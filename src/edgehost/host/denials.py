"""How a tool call that was not allowed reads, the same in every face: the window's tool card (live and
reopened), the quick-ask window, the web page's card, the tool history and its export, and the answer
the agent writes when the model has nothing to add after it (agent/loop.py words it the same way, from
the same pieces)."""

from __future__ import annotations

from edgehost.agent.result_rendering import NOT_RUN
from edgehost.agent.tool_calls import refusal_text

__all__ = ["NO_REASON", "denial_reason", "denial_text"]

# What a ToolExecutionFinished of a denied call carries as its error when the denial gave no reason
# (agent/tool_calls.py).
NO_REASON = "denied"


def denial_reason(error: str | None) -> str | None:
    """The reason a denied call's event gives in ``error``; None when it gave none."""
    reason = (error or "").strip()
    return None if not reason or reason == NO_REASON else reason


def denial_text(decided_by: str | None, error: str | None) -> str:
    """ "Not run: you denied it (wrong path)." for a call the user denied, with their reason when they
    gave one; "Not run: no answer in time." for one a rule, the policy or the approval's timeout
    refused: why, in one sentence. ``error`` is the event's (denial_reason)."""
    record = {"decided_by": decided_by, "reason": denial_reason(error) or ""}
    return f"{NOT_RUN}{refusal_text(record)}."
