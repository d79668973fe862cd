"""A real server (the reference server-everything) drives the GUI: its progress notifications fill the
tool card's bar, its elicitation opens the form, its sampling request opens the draft dialog."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget
from tests.mcp.mcp_support import everything_stdio
from tests.ui.conftest import STEP_S, allow_every_approval, finished, manager, opened_desktop, scripted

from edgehost.mcp.config import ServersConfig
from edgehost.ui._waiting import expect
from edgehost.ui.elicitation import ElicitationDialog
from edgehost.ui.sampling import SamplingDialog

pytestmark = pytest.mark.peers


def _call(name: str, arguments: str = "{}") -> str:
    return f'[TOOL_CALL]{{"name": "everything__{name}", "arguments": {arguments}}}[END_TOOL_CALL]'


REPLIES = [
    _call("trigger-long-running-operation", '{"duration": 1, "steps": 4}'),
    _call("trigger-elicitation-request"),
    _call("trigger-sampling-request", '{"prompt": "Say hi", "maxTokens": 10}'),
    "Hi from the draft",  # what our (scripted) model drafts for the sampling request
    "All three worked.",
]


def test_progress_elicitation_and_sampling_from_a_real_server_reach_the_window(
    data_dir: Path, run: Any
) -> None:
    servers = ServersConfig([everything_stdio()])

    async def scenario() -> None:
        async with opened_desktop(data_dir, REPLIES, servers=servers) as desktop:
            window = desktop.window
            progress: list[float] = []
            desktop.bridge.tool_progressed.connect(lambda e: progress.append(e.progress))
            allow_every_approval(desktop)  # the server is not trusted: every call asks

            def answer(dialog: QWidget) -> None:
                if isinstance(dialog, ElicitationDialog):
                    assert dialog.form is not None and "name" in dialog.form.required
                    dialog.form.fields["name"].setText("Ada")  # type: ignore[attr-defined]
                    dialog.accept_button.click()
                elif isinstance(dialog, SamplingDialog):
                    assert dialog.draft.toPlainText() == "Hi from the draft"  # the Host's model drafted it
                    dialog.approve_button.click()

            window.dialog_opened.connect(answer)
            window.send("Exercise the server")
            await finished(window.turn_task, STEP_S * 3)
            cards = list(window.chat.cards.values())
            assert [c.status for c in cards] == ["ok", "ok", "ok"]
            assert len(progress) >= 2 and cards[0].progress.isHidden()  # the bar moved, then the call ended
            assert "Ada" in cards[1].result_text
            assert "Hi from the draft" in cards[2].result_text

    run(scenario())


def test_the_palette_offers_the_servers_prompts_and_attaches_a_resource(data_dir: Path, run: Any) -> None:
    servers = ServersConfig([everything_stdio()])

    async def scenario() -> None:
        async with opened_desktop(data_dir, ["Read it."], servers=servers) as desktop:
            window = desktop.window
            items = window.composer_actions.palette_items()
            prompts = [i for i in items if i.kind == "prompt"]
            assert prompts and any(i.kind == "tool" for i in items)
            catalog = manager(desktop).catalog
            simple = next(p for p in catalog.prompts if not any(a.get("required") for a in p.arguments))
            await window.composer_actions.use_prompt(simple.name)
            assert window.composer.text().strip()
            # A prompt with arguments asks for them in a form of its own: the user's request, nothing
            # to decline (it had read 'The server "prompt everything__args-prompt" asks:').
            with_arguments = next(p for p in catalog.prompts if any(a.get("required") for a in p.arguments))
            opened = expect(window.dialog_opened)
            asking = asyncio.ensure_future(window.composer_actions.use_prompt(with_arguments.name))
            [form] = await opened.wait(STEP_S)
            assert form.windowTitle() == f"{with_arguments.name.split('__', 1)[1]} — EdgeHost"
            assert not form.decline_button.isVisible() and form.accept_button.text() == "Use prompt"
            form.answer("cancel")
            await asking
            resource = catalog.resources[0]
            await window.composer_actions.attach_resource(resource.uri)
            assert len(window.composer.attachments) == 1
            # A resource template is offered too; its values are asked for, and the resource they name
            # is attached (Attach had listed only the fixed resources).
            window.composer_actions.show_resources()
            offered = [i for i in window.composer_actions.palette._items if i.kind == "template"]
            template = next(t for t in catalog.resource_templates if "text" in t.uri_template)
            assert template.uri_template in [i.name for i in offered]
            opened = expect(window.dialog_opened)
            attaching = asyncio.ensure_future(window.composer_actions.attach_template(template.uri_template))
            [form] = await opened.wait(STEP_S)
            assert form.accept_button.text() == "Attach" and not form.decline_button.isVisible()
            [field] = form.form.fields.values()
            field.setText("7")
            form.answer("accept")
            await attaching
            assert len(window.composer.attachments) == 2
            assert window.composer.attachments[1].uri == "demo://resource/dynamic/text/7"
            window.composer.clear_after_send()
            await window.composer_actions.attach_resource(resource.uri)
            window.composer.set_text("What does it say?")
            window.composer.send_button.click()
            await finished(window.turn_task)
            sent = scripted(desktop).requests[-1].messages[-1].content
            assert resource.uri in sent and sent.endswith("What does it say?")

    run(scenario())


def test_a_prompt_the_server_refuses_is_asked_again_with_what_was_typed_and_the_servers_reason(
    data_dir: Path, run: Any
) -> None:
    # The everything server's resource-prompt refuses an id that is not a positive integer. The form
    # had closed on the refusal and what was typed was lost, with only a notice in the chat.
    servers = ServersConfig([everything_stdio()])
    refused = "“everything” refused: Invalid resourceId: zero. Must be a finite positive integer."

    async def scenario() -> None:
        async with opened_desktop(data_dir, servers=servers) as desktop:
            window = desktop.window

            async def refused_form(asking: asyncio.Future[None]) -> ElicitationDialog:
                opened = expect(window.dialog_opened)
                [form] = await opened.wait(STEP_S)
                form.form.fields["resourceType"].setText("Text")
                form.form.fields["resourceId"].setText("zero")
                opened = expect(window.dialog_opened)
                form.accept_button.click()
                [again] = await opened.wait(STEP_S)
                assert not asking.done()
                return again

            # Cancelled once refused: nothing is put in the input.
            asking = asyncio.ensure_future(window.composer_actions.use_prompt("everything__resource-prompt"))
            again = await refused_form(asking)
            again.cancel_button.click()
            await asyncio.wait_for(asking, STEP_S)
            assert window.composer.text() == ""
            # Corrected once refused: the prompt's text is put in the input.
            asking = asyncio.ensure_future(window.composer_actions.use_prompt("everything__resource-prompt"))
            again = await refused_form(asking)
            fields = again.form.fields
            assert (fields["resourceType"].text(), fields["resourceId"].text()) == ("Text", "zero")
            assert again.problem.text() == refused and not again.problem.isHidden()
            assert again.accept_button.text() == "Use prompt" and window.composer.text() == ""
            fields["resourceId"].setText("3")
            again.accept_button.click()
            await asyncio.wait_for(asking, STEP_S)
            assert window.composer.text().startswith("This prompt includes the Text resource with id: 3.")
            assert not window.dialogs

    run(scenario())


def test_a_template_resource_the_server_cannot_read_is_asked_again_with_the_values_and_the_servers_reason(
    data_dir: Path, run: Any
) -> None:
    # The everything server reads its dynamic text resource only for a positive integer id. The form
    # had closed on the error and the values typed were lost, with only a notice in the chat.
    servers = ServersConfig([everything_stdio()])
    refused = "“everything” refused: Unknown resource: demo://resource/dynamic/text/zero"

    async def scenario() -> None:
        async with opened_desktop(data_dir, servers=servers) as desktop:
            window = desktop.window
            template = next(
                t for t in manager(desktop).catalog.resource_templates if "text" in t.uri_template
            )

            async def refused_form(attaching: asyncio.Future[None]) -> ElicitationDialog:
                opened = expect(window.dialog_opened)
                [form] = await opened.wait(STEP_S)
                form.form.fields["resourceId"].setText("zero")
                opened = expect(window.dialog_opened)
                form.accept_button.click()
                [again] = await opened.wait(STEP_S)
                assert not attaching.done()
                return again

            # Cancelled once refused: nothing is attached.
            attaching = asyncio.ensure_future(window.composer_actions.attach_template(template.uri_template))
            again = await refused_form(attaching)
            again.cancel_button.click()
            await asyncio.wait_for(attaching, STEP_S)
            assert window.composer.attachments == []
            # Corrected once refused: the resource the new value names is attached.
            attaching = asyncio.ensure_future(window.composer_actions.attach_template(template.uri_template))
            again = await refused_form(attaching)
            assert again.form.fields["resourceId"].text() == "zero"
            assert again.problem.text() == refused and not again.problem.isHidden()
            assert again.accept_button.text() == "Attach"
            again.form.fields["resourceId"].setText("4")
            again.accept_button.click()
            await asyncio.wait_for(attaching, STEP_S)
            [attached] = window.composer.attachments
            assert attached.uri == "demo://resource/dynamic/text/4" and attached.text.startswith(
                "Resource 4:"
            )
            assert not window.dialogs

    run(scenario())


def test_a_task_tools_card_shows_the_tasks_state_while_it_runs(data_dir: Path, run: Any) -> None:
    servers = ServersConfig([everything_stdio()])
    replies = [_call("simulate-research-query", '{"topic": "ferns"}'), "The report is in."]

    async def scenario() -> None:
        async with opened_desktop(data_dir, replies, servers=servers) as desktop:
            window = desktop.window
            seen: list[tuple[str, str]] = []

            def on_progress(event: Any) -> None:
                card = window.chat.cards[event.call_id]
                seen.append((card.status_chip.text(), card.progress_message.text()))

            desktop.bridge.tool_progressed.connect(on_progress)
            allow_every_approval(desktop)
            window.send("Research ferns")
            await finished(window.turn_task, STEP_S * 3)
            (card,) = window.chat.cards.values()
            assert seen[0] == ("task working", "Gathering sources...")
            assert card.status == "ok" and card.result_text.startswith("# Research Report: ferns")
            assert card.progress.isHidden()

    run(scenario())
