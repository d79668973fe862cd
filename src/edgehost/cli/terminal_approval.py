"""Asking the user about a tool call on the terminal (`edgehost chat` / `ask` without --yes): the
request described, then once / this conversation / always / edit the arguments / deny."""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Callable
from typing import Any

from edgehost.agent.approval import ApprovalDecision, ApprovalRequest, Approver, Scope

__all__ = ["cli_approver", "describe_request", "one_question_at_a_time"]

ReadLineFn = Callable[[str], str]
WriteFn = Callable[[str], None]

_CHOICES: dict[str, Scope] = {"o": "once", "c": "conversation", "a": "always"}

# The process has one terminal, read on its event loop: one lock per loop (weak: a test's loop goes).
_QUESTION_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


def one_question_at_a_time() -> asyncio.Lock:
    """The lock every question asked on the terminal takes (a call's approval, a server's elicitation):
    the calls of one reply run at once, their questions do not. Call it on the running loop."""
    loop = asyncio.get_running_loop()
    lock = _QUESTION_LOCKS.get(loop)
    if lock is None:
        lock = _QUESTION_LOCKS[loop] = asyncio.Lock()
    return lock


def describe_request(request: ApprovalRequest) -> str:
    """The text a terminal shows for a request: server, tool, why it was flagged, arguments."""
    arguments = json.dumps(request.arguments, indent=2, ensure_ascii=False, default=str)
    why = "; ".join(request.reasons) or "-"
    return (
        f"Approve a tool call ({request.risk})?\n"
        f"  server:    {request.server}\n"
        f"  tool:      {request.tool}\n"
        f"  why asked: {why}\n"
        f"  arguments: " + arguments.replace("\n", "\n  ") + "\n"
    )


def _ask_on_terminal(request: ApprovalRequest, read_line: ReadLineFn, write: WriteFn) -> ApprovalDecision:
    arguments: dict[str, Any] | None = None
    options = ["[o]nce", "this [c]onversation"]
    if "always" in request.allowed_scopes:
        options.append("[a]lways")
    options += ["[e]dit arguments", "[d]eny"]
    prompt = f"Allow {', '.join(options)}? "
    write(describe_request(request))
    while True:
        try:
            answer = read_line(prompt).strip().lower()
        except EOFError:
            return ApprovalDecision(allow=False, reason="no answer (end of input)", decided_by="cancel")
        if answer[:1] in _CHOICES and (answer[:1] != "a" or "always" in request.allowed_scopes):
            return ApprovalDecision(
                allow=True, scope=_CHOICES[answer[:1]], arguments=arguments, decided_by="user"
            )
        if answer[:1] == "d":
            try:
                reason = read_line("Reason for the model (optional): ").strip()
            except EOFError:
                reason = ""
            return ApprovalDecision(allow=False, reason=reason or None, decided_by="user")
        if answer[:1] == "e":
            try:
                edited = json.loads(read_line("Arguments as one line of JSON: "))
            except EOFError:
                return ApprovalDecision(allow=False, reason="no answer (end of input)", decided_by="cancel")
            except json.JSONDecodeError as exc:
                write(f"Not JSON: {exc.msg}; the arguments are unchanged.\n")
                continue
            if not isinstance(edited, dict):
                write("The arguments must be a JSON object; they are unchanged.\n")
                continue
            arguments = edited
            write(
                "  new arguments: "
                + json.dumps(arguments, indent=2, ensure_ascii=False).replace("\n", "\n  ")
                + "\n"
            )
            continue
        write(f"Please answer with one of: {', '.join(options)}.\n")


def cli_approver(read_line: ReadLineFn = input, write: WriteFn | None = None) -> Approver:
    """Ask on the terminal. `read_line(prompt)` reads one answer (default: input), `write` shows text
    (default: print to stdout). The blocking read runs in a thread so the event loop keeps going."""

    def default_write(text: str) -> None:
        print(text, end="", flush=True)

    out = write or default_write

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        async with one_question_at_a_time():
            return await asyncio.to_thread(_ask_on_terminal, request, read_line, out)

    return approve
