"""What the composer's command palette (`/`) and attach button do: the palette lists the servers'
prompts and the enabled tools; a tool chosen is pinned to the next question, a prompt is put in the
input (its arguments asked first, in the elicitation form), and a resource chosen is attached."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint

from edgehost.ui.composer import Palette, PaletteItem

if TYPE_CHECKING:
    from edgehost.mcp.catalog import ResourceTemplateEntry
    from edgehost.ui.main_window import MainWindow

__all__ = ["ComposerActions"]

log = logging.getLogger(__name__)


class ComposerActions:
    """The palette of one window (made once the window has its host) and what its choices do."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.palette = Palette(window)
        self.palette.chosen.connect(self._chosen)

    def palette_items(self) -> list[PaletteItem]:
        host = self.window.host
        items = [PaletteItem("prompt", p.name, p.name, p.description) for p in host.prompts()]
        items += [PaletteItem("tool", t.name, t.name, t.description) for t in host.tools() if t.enabled]
        return items

    def show_palette(self) -> None:
        self.palette.set_items(self.palette_items())
        self._popup()

    def show_resources(self) -> None:
        host = self.window.host
        ready = [s.name for s in host.server_states() if getattr(s.status, "value", s.status) == "ready"]
        items = [PaletteItem("resource", r.uri, f"{r.name}  ({r.server})", r.uri) for r in host.resources()]
        # A template's values are asked for when it is chosen (attach_template).
        items += [
            PaletteItem("template", t.uri_template, f"{t.name}  ({t.server}) — fill in", t.uri_template)
            for t in host.resource_templates()
        ]
        self.palette.set_items(
            items,
            empty=(
                f"No resources to attach: {_listed(ready)} {'offers' if len(ready) == 1 else 'offer'} none."
                if ready
                else "No resources to attach: no server is connected yet."
            ),
            hint="Type to filter resources…",
        )
        self._popup()

    def _popup(self) -> None:
        corner = self.window.composer.mapToGlobal(QPoint(0, 0))
        self.palette.popup(QPoint(corner.x(), corner.y() - 6))

    def _chosen(self, item: PaletteItem) -> None:
        window = self.window
        if item.kind == "tool":
            window.composer.pin_tool(item.name)
        elif item.kind == "prompt":
            window.tasks.spawn(self.use_prompt(item.name), name="get-prompt")
        elif item.kind == "resource":
            window.tasks.spawn(self.attach_resource(item.name), name="read-resource")
        elif item.kind == "template":
            window.tasks.spawn(self.attach_template(item.name), name="read-resource")
        window.composer.edit.setFocus()

    async def use_prompt(self, name: str, arguments: dict[str, str] | None = None) -> None:
        """Put the prompt's text in the input, asking for its arguments first when it has any. When the
        server refuses the values given in the form, the form comes back with them and the server's
        reason, until the server takes them or the user cancels."""
        window = self.window
        prompt = window.host.prompt_arguments(name)
        if arguments is not None or prompt is None or not prompt[1]:
            try:
                text = await window.host.prompt_text(name, arguments or {})
            except Exception as exc:  # a server error is shown, not raised into the event loop
                window.chat.add_notice(f"Could not get the prompt {name}: {_refusal(exc)}", error=True)
                return
            window.composer.set_text(text)
            return
        values: dict[str, str] = {}
        problem = ""
        while True:
            given = await self._prompt_arguments(name, *prompt, values, problem)
            if given is None:  # cancelled
                return
            values = given
            try:
                text = await window.host.prompt_text(name, values)
            except Exception as exc:  # shown in the form asked again, with what the user wrote
                log.info("the prompt %s was refused: %s", name, exc)
                problem = _refusal(exc)
                continue
            window.composer.set_text(text)
            return

    async def _prompt_arguments(
        self, name: str, description: str, wanted: list[dict[str, Any]], values: dict[str, str], problem: str
    ) -> dict[str, str] | None:
        """The form of a prompt's arguments, filled in with ``values`` and showing ``problem``; the
        values the user sends with it, or None when they cancel."""
        import mcp_types as types

        from edgehost.mcp.catalog import SEPARATOR  # with the core: not before the first frame
        from edgehost.ui.elicitation import OwnRequest

        properties: dict[str, dict[str, Any]] = {}
        for argument in wanted:
            field: dict[str, Any] = {"type": "string", "description": argument.get("description", "")}
            if argument["name"] in values:
                field["default"] = values[argument["name"]]
            properties[argument["name"]] = field
        schema = {
            "type": "object",
            "properties": properties,
            "required": [a["name"] for a in wanted if a.get("required")],
        }
        params = types.ElicitRequestFormParams(message=description or name, requested_schema=schema)
        server, _, own_name = name.partition(SEPARATOR)
        shown = own_name or name
        own = OwnRequest(shown, f"The prompt “{shown}” of “{server}” needs:", "Use prompt", problem)
        answer = await self.window.server_dialogs.elicit(server, params, own=own)
        if answer.action != "accept":
            return None
        return {k: str(v) for k, v in (answer.content or {}).items()}

    async def attach_template(self, uri_template: str) -> None:
        """Ask for the values of a resource template's variables, then attach the resource they name.
        When the server cannot read that resource, the form comes back with the values and the server's
        reason, until it reads one or the user cancels (as a prompt's arguments do)."""
        from edgehost.host.attachments import AttachedResource

        window = self.window
        template = next((t for t in window.host.resource_templates() if t.uri_template == uri_template), None)
        if template is None:
            return
        try:
            names = template.variable_names()
        except ValueError as exc:  # a template the server wrote wrong
            window.chat.add_notice(f"Could not read the resource template {uri_template}: {exc}", error=True)
            return
        values: dict[str, str] = {}
        problem = ""
        while True:
            given = await self._template_values(template, names, values, problem)
            if given is None:  # cancelled
                return
            values = given
            uri = template.expand(values)
            try:
                text = await window.host.read_resource_text(uri)
            except Exception as exc:  # shown in the form asked again, with what the user wrote
                log.info("reading %s was refused: %s", uri, exc)
                problem = _refusal(exc)
                continue
            window.composer.add_attachment(AttachedResource(uri, text))
            return

    async def _template_values(
        self, template: ResourceTemplateEntry, names: list[str], values: dict[str, str], problem: str
    ) -> dict[str, str] | None:
        """The form of a resource template's variables, filled in with ``values`` and showing
        ``problem``; the values the user sends with it, or None when they cancel."""
        import mcp_types as types

        from edgehost.ui.elicitation import OwnRequest

        properties: dict[str, dict[str, Any]] = {}
        for name in names:
            field: dict[str, Any] = {"type": "string", "title": name}
            if name in values:
                field["default"] = values[name]
            properties[name] = field
        schema = {"type": "object", "properties": properties, "required": names}
        message = template.description or f"The values for {template.uri_template}"
        params = types.ElicitRequestFormParams(message=message, requested_schema=schema)
        heading = f"The resource “{template.name}” of “{template.server}” needs:"
        own = OwnRequest(template.name, heading, "Attach", problem)
        answer = await self.window.server_dialogs.elicit(template.server, params, own=own)
        if answer.action != "accept":
            return None
        return {name: str(value) for name, value in (answer.content or {}).items()}

    async def attach_resource(self, uri: str) -> None:
        from edgehost.host.attachments import AttachedResource

        window = self.window
        try:
            text = await window.host.read_resource_text(uri)
        except Exception as exc:  # shown to the user; the chat goes on
            window.chat.add_notice(f"Could not read {uri}: {exc}", error=True)
            return
        window.composer.add_attachment(AttachedResource(uri, text))


def _listed(names: list[str]) -> str:
    """'board', 'board and files', 'board, files and time'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _refusal(exc: BaseException) -> str:
    """Why a server did not give what was asked, in a sentence: the server's own reason when it gave
    one, else the first line of the error (not the stderr lines a ServerUnavailable carries)."""
    from edgehost.mcp.errors import ServerRequestFailed  # with the core: not before the first frame

    if isinstance(exc, ServerRequestFailed) and exc.reason:
        return f"“{exc.server}” refused: {exc.reason}"
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
