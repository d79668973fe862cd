"""A server's elicitation asked on the terminal (`edgehost chat`): its message, then each field of a
form one by one (Enter keeps the answer in brackets), or the address of a URL-mode request; the
answers are sent, declined or cancelled.

The questions are read through the chat's own LineReader while a turn runs, when the chat waits for
the turn instead of reading its next line, and one question at a time with the approvals
(terminal_approval.one_question_at_a_time). A request that comes between turns, while the chat reads
its next line, is answered as without a terminal (edgehost.mcp.client_features); one still asked
when its turn ends (Ctrl-C) is cancelled, so the chat gets the terminal back.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.parse
import webbrowser
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import mcp_types as types

from edgehost.cli.terminal_approval import one_question_at_a_time
from edgehost.form_fields import FORMAT_EXAMPLES, FormField, field_problem, form_fields, parse_field_text
from edgehost.host import events as ev
from edgehost.mcp.client_features import ClientFeatures, accept_elicitation_with_defaults

__all__ = ["TerminalElicitation", "answer_text", "ask_field", "field_prompt"]

ReadLineFn = Callable[[str], Awaitable[str | None]]
"""(prompt) -> the line typed, None at the end of input."""
WriteFn = Callable[[str], None]
OpenUrlFn = Callable[[str], None]

DECLINE, CANCEL, LEAVE_EMPTY = "/decline", "/cancel", "-"
FORM_HELP = (
    f"  (* required. Enter keeps the answer in [brackets], {LEAVE_EMPTY} leaves a field empty;"
    f" {DECLINE} refuses to answer, {CANCEL} stops without answering)\n"
)
SEND_PROMPT = "Send these answers? [s]end, [e]dit them, [d]ecline, [c]ancel: "
URL_PROMPT = "Open it? [o]pen it in the browser, [m]yself (I open it), [d]ecline, [c]ancel: "
_STRING_HINTS = {"email": "email address", "uri": "address", "date": "date", "date-time": "date and time"}


class _Answered(Exception):
    """The person declined or cancelled (at any prompt)."""

    def __init__(self, action: Literal["decline", "cancel"]) -> None:
        super().__init__(action)
        self.action = action


class TerminalElicitation:
    """The elicitation handler of `edgehost chat` on a terminal (ClientFeatures.elicitation).

    Subscribe ``on_event`` to the Host: it tells a turn's questions from those that come between turns.
    """

    def __init__(
        self, read_line: ReadLineFn, write: WriteFn | None = None, open_url: OpenUrlFn | None = None
    ) -> None:
        self._read_line = read_line
        self._write = write or _print
        self._open_url = open_url or _open_in_browser
        self._turn_running = False
        self._asking: set[asyncio.Task[types.ElicitResult]] = set()

    def features(self) -> ClientFeatures:
        return ClientFeatures(elicitation=self)

    def on_event(self, event: object) -> None:
        if isinstance(event, ev.TurnStarted):
            self._turn_running = True
        elif isinstance(event, ev.TurnCompleted | ev.TurnFailed):
            self._turn_running = False
            if self._asking:  # stopped (Ctrl-C) while a question waits: the chat wants its terminal back
                self._write("\n(the server's question is cancelled)\n")
            for task in self._asking:
                task.cancel()

    async def __call__(self, server: str, params: types.ElicitRequestParams) -> types.ElicitResult:
        """The person's answer: accept with the content, decline or cancel (the turn ended first)."""
        if not self._turn_running:
            # The chat is reading its next line: a question now would fight it for the terminal.
            answer = await accept_elicitation_with_defaults(server, params)
            said = "accepted with its defaults" if answer.action == "accept" else "declined"
            self._write(f"\n[{server} asked for information between turns: {said}]\n")
            return answer
        task = asyncio.create_task(self._ask(server, params))
        self._asking.add(task)
        try:
            await asyncio.wait({task})
        finally:
            self._asking.discard(task)
            task.cancel()  # when the server withdrew its request (this call was cancelled)
        if task.cancelled():
            return types.ElicitResult(action="cancel")
        return task.result()

    async def _ask(self, server: str, params: types.ElicitRequestParams) -> types.ElicitResult:
        async with one_question_at_a_time():
            try:
                if isinstance(params, types.ElicitRequestURLParams):
                    return await self._ask_url(server, params)
                if isinstance(params, types.ElicitRequestFormParams):
                    return await self._ask_form(server, params)
                return await accept_elicitation_with_defaults(server, params)  # a mode this chat cannot ask
            except _Answered as answered:
                said = "declined" if answered.action == "decline" else "cancelled"
                self._write(f"({said}: {server} gets no answer)\n")
                return types.ElicitResult(action=answered.action)

    async def _read(self, prompt: str) -> str:
        """One answer, stripped; raises _Answered for /decline, /cancel and the end of input."""
        line = await self._read_line(prompt)
        if line is None:
            self._write("\n(end of input)\n")
            raise _Answered("cancel")
        line = line.strip()
        if line.lower() == DECLINE:
            raise _Answered("decline")
        if line.lower() == CANCEL:
            raise _Answered("cancel")
        return line

    async def _ask_form(self, server: str, params: types.ElicitRequestFormParams) -> types.ElicitResult:
        fields = form_fields(params.requested_schema)
        self._write(f"\n{server} asks: {params.message}\n" + FORM_HELP)
        answers = {f.name: f.default for f in fields if f.has_default and field_problem(f, f.default) is None}
        while True:
            for field in fields:
                await self._ask_field(field, answers)
            self._write("Your answers:\n" + "".join(f"  {line}\n" for line in _answer_lines(fields, answers)))
            while (choice := (await self._read(SEND_PROMPT))[:1].lower()) not in ("s", "e", "d", "c"):
                self._write("  (answer s, e, d or c)\n")
            if choice == "s":
                return types.ElicitResult(action="accept", content=answers)
            if choice in ("d", "c"):
                raise _Answered("decline" if choice == "d" else "cancel")

    async def _ask_field(self, field: FormField, answers: dict[str, Any]) -> None:
        await ask_field(field, answers, self._read, self._write, f"please answer, or {DECLINE} / {CANCEL}")

    async def _ask_url(self, server: str, params: types.ElicitRequestURLParams) -> types.ElicitResult:
        site = urllib.parse.urlsplit(params.url).hostname or "?"
        self._write(
            f"\n{server} asks you to open an address on {site}: {params.message}\n  {params.url}\n"
            f"  ({DECLINE} refuses, {CANCEL} stops without answering)\n"
        )
        while (choice := (await self._read(URL_PROMPT))[:1].lower()) not in ("o", "m", "d", "c"):
            self._write("  (answer o, m, d or c)\n")
        if choice in ("d", "c"):
            raise _Answered("decline" if choice == "d" else "cancel")
        if choice == "o":
            self._open_url(params.url)
        return types.ElicitResult(action="accept")


async def ask_field(
    field: FormField,
    answers: dict[str, Any],
    read: Callable[[str], Awaitable[str]],
    write: Callable[[str], None],
    otherwise: str,
    read_unseen: Callable[[str], Awaitable[str]] | None = None,
) -> None:
    """Ask one field on the terminal until its answer is valid; sets or removes ``answers[field.name]``.
    A secret field is read with ``read_unseen`` (no echo) and its value never shown; ``otherwise`` says
    what a person may do instead of answering a required field."""
    write(field.title + (" *" if field.required else "") + _dash(field.description) + "\n")
    if field.choices:
        write("  " + "  ".join(f"{i}) {c.title}" for i, c in enumerate(field.choices, 1)) + "\n")
    hidden = field.secret and read_unseen is not None
    while True:
        current = answer_text(field, answers[field.name]) if field.name in answers else None
        shown = "kept" if hidden and current is not None else current
        text = await (read_unseen if hidden and read_unseen else read)(field_prompt(field, shown))
        if text == "" and current is not None:
            return
        if text in ("", LEAVE_EMPTY):
            if not field.required:
                answers.pop(field.name, None)
                return
            write(f"  (required: {otherwise})\n")
            continue
        try:
            answers[field.name] = parse_field_text(field, text)
            return
        except ValueError as exc:
            write(f"  ({exc}; try again)\n")


def field_prompt(field: FormField, current: str | None) -> str:
    """The prompt of one field: what to type, and the answer Enter keeps in brackets."""
    kept = f" [{current}]" if current is not None else ""
    return f"  {_hint(field)}{kept}: "


def _hint(field: FormField) -> str:
    if field.kind == "boolean":
        return "y/n"
    if field.kind == "choice":
        return "number or name"
    if field.kind == "choices":
        return "numbers or names, separated by commas" + _limits(field.min_items, field.max_items, " choices")
    if field.kind in ("integer", "number"):
        noun = "whole number" if field.kind == "integer" else "number"
        return noun + _limits(field.minimum, field.maximum, "")
    if field.format in FORMAT_EXAMPLES:
        example = FORMAT_EXAMPLES[field.format].split(", like ")[-1]
        return f"{_STRING_HINTS[field.format]} (like {example})"
    return "text" + _limits(field.min_length, field.max_length, " characters")


def _limits(low: float | None, high: float | None, unit: str) -> str:
    if low is not None and high is not None:
        return f", {low:g} to {high:g}{unit}"
    if low is not None:
        return f", at least {low:g}{unit}"
    if high is not None:
        return f", at most {high:g}{unit}"
    return ""


def answer_text(field: FormField, value: Any) -> str:
    """An answer as the person would type it: yes/no, a choice's title, titles separated by commas."""
    titles = {json.dumps(c.value): c.title for c in field.choices}
    if field.kind == "boolean" and isinstance(value, bool):
        return "yes" if value else "no"
    if field.kind == "choice":
        return titles.get(json.dumps(value), str(value))
    if field.kind == "choices" and isinstance(value, list):
        return ", ".join(titles.get(json.dumps(v), str(v)) for v in value)
    return value if isinstance(value, str) else json.dumps(value)


def _answer_lines(fields: list[FormField], answers: dict[str, Any]) -> list[str]:
    return [
        f"{f.title}: {answer_text(f, answers[f.name]) if f.name in answers else '(empty)'}" for f in fields
    ]


def _dash(description: str) -> str:
    return f" — {description}" if description else ""


def _print(text: str) -> None:
    print(text, end="", flush=True)


def _open_in_browser(url: str) -> None:
    # webbrowser may wait for the browser program to exit: in a thread, so the chat goes on.
    threading.Thread(target=webbrowser.open, args=(url,), name="edgehost-browser", daemon=True).start()
