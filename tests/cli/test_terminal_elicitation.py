"""The terminal's answer to a server's elicitation (TerminalElicitation), with the person's lines
scripted: each field asked in turn, bad answers asked again, decline / cancel, URL mode, and the
questions that must not fight the chat for the terminal."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types

from edgehost.cli.terminal_elicitation import TerminalElicitation
from edgehost.host import events as ev

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"title": "Name", "type": "string", "description": "Your full name"},
        "email": {"title": "Email", "type": "string", "format": "email"},
        "age": {"title": "Age", "type": "integer", "minimum": 1, "maximum": 150, "default": 30},
        "pet": {"title": "Pet", "type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cats", "Dogs"]},
        "news": {"title": "Newsletter", "type": "boolean", "default": False},
    },
    "required": ["name", "pet"],
}
FORM = types.ElicitRequestFormParams(message="Who are you?", requested_schema=SCHEMA)
URL = types.ElicitRequestURLParams(
    message="Sign in to continue.", url="https://auth.example.com/start?x=1", elicitation_id="e-1"
)


class Person:
    """Types the scripted lines, one per prompt (None: Ctrl-D), and keeps what the terminal showed."""

    def __init__(self, *lines: str | None) -> None:
        self.lines = list(lines)
        self.screen = ""
        self.opened: list[str] = []

    async def read_line(self, prompt: str) -> str | None:
        self.screen += prompt
        line = self.lines.pop(0)
        self.screen += f"{line}\n" if line is not None else "^D\n"
        return line

    def write(self, text: str) -> None:
        self.screen += text

    def handler(self) -> TerminalElicitation:
        handler = TerminalElicitation(self.read_line, self.write, self.opened.append)
        handler.on_event(ev.TurnStarted(1, "ask me"))
        return handler


async def test_each_field_is_asked_with_its_title_default_and_required_mark_then_sent() -> None:
    person = Person("Ada", "", "", "2", "", "s")
    result = await person.handler()("people", FORM)
    assert result == types.ElicitResult(
        action="accept", content={"name": "Ada", "age": 30, "pet": "pet-2", "news": False}
    )
    assert "people asks: Who are you?" in person.screen
    assert "/decline refuses to answer, /cancel stops without answering" in person.screen
    assert "Name * — Your full name\n  text: Ada\n" in person.screen
    assert "Email\n  email address (like name@example.com): \n" in person.screen  # optional: left out
    assert "Age\n  whole number, 1 to 150 [30]: \n" in person.screen  # Enter keeps the default
    assert "Pet *\n  1) Cats  2) Dogs\n  number or name: 2\n" in person.screen
    assert "Newsletter\n  y/n [no]: " in person.screen
    assert "  Email: (empty)\n" in person.screen and "  Pet: Dogs\n" in person.screen


async def test_a_bad_or_missing_answer_is_asked_again_with_the_reason() -> None:
    person = Person("", "Ada", "ada@", "ada@example.com", "200", "41", "Parrots", "cats", "maybe", "y", "s")
    result = await person.handler()("people", FORM)
    assert result.content == {
        "name": "Ada",
        "email": "ada@example.com",
        "age": 41,
        "pet": "pet-1",
        "news": True,
    }
    assert "(required: please answer, or /decline / /cancel)" in person.screen
    assert "(must be an email address, like name@example.com; try again)" in person.screen
    assert "(must be at most 150; try again)" in person.screen
    assert (
        "('Parrots' is not one of the choices: give its number (1-2) or its name; try again)" in person.screen
    )
    assert "(answer y (yes) or n (no); try again)" in person.screen


async def test_a_dash_clears_a_default_and_edit_asks_again_with_the_answers_given() -> None:
    person = Person("Ada", "", "-", "1", "", "e", "", "", "33", "", "", "send")
    result = await person.handler()("people", FORM)
    assert result.content == {"name": "Ada", "age": 33, "pet": "pet-1", "news": False}
    assert "  Age: (empty)\n" in person.screen
    assert "  text [Ada]: \n" in person.screen  # the second round keeps the first round's answers


async def test_decline_and_cancel_work_at_any_prompt_and_send_nothing() -> None:
    declined = Person("Ada", "/decline")
    assert await declined.handler()("people", FORM) == types.ElicitResult(action="decline")
    assert "(declined: people gets no answer)" in declined.screen
    cancelled = Person("Ada", "", "", "1", "", "c")
    assert await cancelled.handler()("people", FORM) == types.ElicitResult(action="cancel")
    assert (await Person("/CANCEL").handler()("people", FORM)).action == "cancel"


async def test_the_end_of_input_cancels_the_request() -> None:
    person = Person(None)
    assert await person.handler()("people", FORM) == types.ElicitResult(action="cancel")
    assert "(end of input)" in person.screen


async def test_url_mode_shows_the_address_and_its_site_and_opens_it_only_when_asked() -> None:
    person = Person("x", "o")
    assert await person.handler()("auth", URL) == types.ElicitResult(action="accept")
    assert "auth asks you to open an address on auth.example.com: Sign in to continue." in person.screen
    assert "\n  https://auth.example.com/start?x=1\n" in person.screen
    assert "(answer o, m, d or c)" in person.screen
    assert person.opened == ["https://auth.example.com/start?x=1"]
    myself = Person("m")
    assert await myself.handler()("auth", URL) == types.ElicitResult(action="accept")
    assert myself.opened == []
    declined = Person("d")
    assert await declined.handler()("auth", URL) == types.ElicitResult(action="decline")
    assert declined.opened == []


async def test_a_request_between_turns_gets_the_headless_answer_without_reading_the_terminal() -> None:
    person = Person()  # reading a line would fail: the chat is the one reading now
    handler = TerminalElicitation(person.read_line, person.write)
    assert await handler("people", FORM) == types.ElicitResult(action="decline")  # required, no default
    assert "[people asked for information between turns: declined]" in person.screen
    handler.on_event(ev.TurnStarted(1, "hi"))
    handler.on_event(ev.TurnCompleted(1, "done"))
    defaults = types.ElicitRequestFormParams(
        message="Age?", requested_schema={"properties": SCHEMA["properties"]}
    )
    answer = await handler("people", defaults)
    assert answer == types.ElicitResult(action="accept", content={"age": 30, "news": False})


async def test_a_question_still_open_when_its_turn_ends_is_cancelled_and_stops_reading() -> None:
    reading = asyncio.Event()
    person = Person()

    async def never_answered(prompt: str) -> str | None:
        reading.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    handler = TerminalElicitation(never_answered, person.write)
    handler.on_event(ev.TurnStarted(1, "ask me"))
    asked = asyncio.create_task(handler("people", FORM))
    await asyncio.wait_for(reading.wait(), 5)
    handler.on_event(ev.TurnCompleted(1, "", cancelled=True))  # Ctrl-C stopped the turn
    assert await asyncio.wait_for(asked, 5) == types.ElicitResult(action="cancel")
    assert "(the server's question is cancelled)" in person.screen
