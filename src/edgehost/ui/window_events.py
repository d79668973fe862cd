"""How the main window renders the Host's events: the text of an answer as it streams, the tool
cards of its calls, approvals, the end of a turn, the model's and the servers' states.

A mixin of ``MainWindow`` (ui/main_window.py), which owns the widgets and the state these handlers
use, declared below; the window itself lays out, and turns the user's actions into Host commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QWidget

    from edgehost.host import events as ev
    from edgehost.host.host import Host
    from edgehost.llm.base import Perf
    from edgehost.ui._widgets import TaskSet
    from edgehost.ui.approval import ApprovalWindow
    from edgehost.ui.bridge import HostBridge
    from edgehost.ui.chat_view import ChatView
    from edgehost.ui.model_hint import ModelHint
    from edgehost.ui.routing_switch import RoutingSwitch
    from edgehost.ui.server_dialogs import ServerDialogs
    from edgehost.ui.status_line import StatusLine

__all__ = ["WindowEvents", "perf_summary"]


def perf_summary(perf: Perf) -> str:
    parts = []
    if perf.generated_tokens:
        parts.append(f"{perf.generated_tokens} tokens")
    if perf.tokens_per_second:
        parts.append(f"{perf.tokens_per_second:.1f} tok/s")
    if perf.prefill_ms:
        parts.append(f"prefill {perf.prefill_ms / 1000:.1f} s")
    return " · ".join(parts)


class WindowEvents:
    """The window's side of the HostBridge's signals; ``MainWindow`` inherits it."""

    # The window's, set in MainWindow.__init__ and MainWindow.attach().
    _host: Host | None
    chat: ChatView
    status: StatusLine
    model_hint: ModelHint
    routing_switch: RoutingSwitch
    approvals: ApprovalWindow
    server_dialogs: ServerDialogs
    tasks: TaskSet
    panels: dict[str, QWidget]
    dialogs: list[QWidget]  # open elicitation / sampling dialogs
    current_id: int | None
    turn_conversation: int | None
    context_used: dict[int, int]
    model_ready: bool
    _catalog_timer: QTimer
    # Conversation id -> the model's text since a call of its turn was denied, not shown yet: what a
    # model writes about a call that did not run is often made up ("I have deleted it"), and the
    # host may replace it (AnswerUngrounded); it is shown once the turn says what the user reads.
    held_answers: dict[int, str]

    if TYPE_CHECKING:

        @property
        def host(self) -> Host: ...
        def show_context(self) -> None: ...
        def _resolve_approval(self, request_id: str, decision: Any) -> bool: ...

    def follow(self, bridge: HostBridge) -> None:
        """Render the events ``bridge`` turns into signals (called once, by MainWindow.attach)."""
        b = bridge
        b.text_arrived.connect(self._on_text)
        b.turn_routed.connect(self._on_turn_routed)
        b.tool_call_detected.connect(self._on_call_detected)
        b.tool_started.connect(self._on_tool_started)
        b.tool_progressed.connect(self._on_tool_progressed)
        b.tool_finished.connect(self._on_tool_finished)
        b.approval_requested.connect(self._on_approval_requested)
        b.approval_resolved.connect(self._on_approval_resolved)
        b.turn_completed.connect(self._on_turn_completed)
        b.answer_ungrounded.connect(self._on_answer_ungrounded)
        b.answer_with_results.connect(self._on_answer_with_results)
        b.turn_failed.connect(self._on_turn_failed)
        b.model_status_changed.connect(self._on_model_status)
        b.server_status_changed.connect(lambda _e: self.refresh_servers())
        b.server_output_changed.connect(lambda _e: self._refresh_panel("servers"))
        b.catalog_changed.connect(self._on_catalog_changed)
        b.model_download_progressed.connect(self.model_hint.download_progressed)
        b.model_download_finished.connect(self.model_hint.download_finished)
        b.conversations_changed.connect(lambda: self._refresh_panel("history"))  # its titles

    def _on_text(self, conversation_id: int, text: str) -> None:
        if conversation_id in self.held_answers:
            self.held_answers[conversation_id] += text
            if conversation_id == self.current_id:
                self.chat.set_thinking("The call did not run; the model is answering without it…")
            return
        if conversation_id == self.current_id:
            self.chat.append_text(text)

    def _release_held_answer(self, conversation_id: int) -> None:
        """Show the text held back since a denied call (as it stands: the turn has said what it is)."""
        held = self.held_answers.pop(conversation_id, "")
        if held and conversation_id == self.current_id:
            self.chat.append_text(held)

    def _on_turn_routed(self, event: ev.TurnRouted) -> None:
        """Say which tool EdgeHost chose while the model reads the prompt (seconds on a board) before
        it writes the call: "Thinking…" alone looked stuck."""
        if event.conversation_id != self.current_id or not event.needs_tool:
            return
        names = list(event.candidates)
        self.chat.set_thinking(
            f"Using {names[0]}: the model is reading the question…"
            if len(names) == 1
            else f"Choosing among {', '.join(names)}: the model is reading the question…"
        )

    def _on_call_detected(self, event: ev.ToolCallDetected) -> None:
        self._release_held_answer(event.conversation_id)  # the model's words before its next call
        if event.conversation_id == self.current_id:
            self.chat.tool_card(event.call_id, event.name, event.arguments).set_chosen_by(event.chosen_by)

    def _on_tool_started(self, event: ev.ToolExecutionStarted) -> None:
        if event.conversation_id == self.current_id:
            card = self.chat.tool_card(event.call_id, event.tool, event.arguments, event.server)
            from edgehost.ui.tool_card import split_tool_name

            card.set_call(*split_tool_name(event.tool, event.server), event.arguments)
            card.set_filled_by_host(event.filled_by_host, event.arguments)
            card.set_status("running")

    def _on_tool_progressed(self, event: ev.ToolExecutionProgressed) -> None:
        card = self.chat.cards.get(event.call_id)
        if card is None or event.conversation_id != self.current_id:
            return
        if event.task_id is not None and event.task_status is not None:
            card.set_task(event.task_id, event.task_status, event.message)
        else:
            card.set_progress(event.progress, event.total, event.message)

    def _on_tool_finished(self, event: ev.ToolExecutionFinished) -> None:
        if event.conversation_id == self.current_id:
            card = self.chat.tool_card(event.call_id, event.tool, event.arguments, event.server)
            if event.status == "denied":  # why it did not run, as the history and the page say it
                from edgehost.host.denials import denial_text  # loaded with the host, which sent the event

                card.finish(event.status, "", event.duration_ms, denial_text(event.decided_by, event.error))
            else:
                card.finish(event.status, event.result_text, event.duration_ms, event.error)
                from edgehost.ui.view_links import offer_view

                offer_view(self, card, event.tool, event.chosen_by)  # type: ignore[arg-type]
            self.chat.show_thinking()  # the model now reads the result
        if event.status == "denied" and event.conversation_id is not None:
            self.held_answers.setdefault(event.conversation_id, "")
        self._refresh_panel("history")

    def _on_approval_requested(self, event: ev.ApprovalRequested) -> None:
        from edgehost.host.sampling import SAMPLING_TOOL  # loaded with the host, which sent the event

        request = event.request
        if request.tool == SAMPLING_TOOL:
            self.server_dialogs.open_sampling(request, self._resolve_approval)
            return
        if request.conversation_id == self.current_id:
            waiting = [c for c in self.chat.cards.values() if c.status == "detected"]
            if waiting:
                waiting[-1].set_status("awaiting approval")
        self.approvals.add_request(request)

    def _on_approval_resolved(self, event: ev.ApprovalResolved) -> None:
        self.approvals.drop_request(event.request_id)
        for dialog in list(self.dialogs):
            if getattr(dialog, "request_id", None) == event.request_id:  # answered, timed out, cancelled
                dialog.close_unanswered()  # type: ignore[attr-defined]

    def _on_turn_completed(self, event: ev.TurnCompleted) -> None:
        self._release_held_answer(event.conversation_id)  # not replaced: the answer as the model wrote it
        if event.perf.context_tokens:
            self.context_used[event.conversation_id] = event.perf.context_tokens
        if event.conversation_id == self.current_id:
            summary = perf_summary(event.perf)
            if event.cancelled:
                summary = "stopped" + (f" · {summary}" if summary else "")
            self.chat.end_answer(summary)
            if event.cancelled and self.chat.last_answer is None:
                self.chat.add_notice("Stopped before the model wrote an answer.")
            if event.perf.tokens_per_second:
                self.status.show_speed(event.perf.tokens_per_second)
            self.show_context()
        self.turn_conversation = None

    def _on_answer_ungrounded(self, event: ev.AnswerUngrounded) -> None:
        """The model's answer ignored the tool's result: show the result (the cards opened) and the
        model's text marked as such, in place of what was streamed."""
        if self._answer_instead(event.conversation_id, event.text):
            for card in self.chat.cards.values():
                if card.status == "ok":
                    card.toggle.setChecked(True)

    def _on_answer_with_results(self, event: ev.AnswerWithResults) -> None:
        """After calls EdgeHost chose: the results rendered, then the model's answer, in place of what
        was streamed."""
        self._answer_instead(event.conversation_id, event.text)

    def _answer_instead(self, conversation_id: int, text: str) -> bool:
        """Show ``text`` as the answer in place of what was streamed (or held back); whether the
        conversation is the one on screen."""
        held = self.held_answers.pop(conversation_id, None)  # replaced: never shown
        if conversation_id != self.current_id:
            return False
        if held is not None:
            self.chat.append_text(text)  # in place of the text held back, which never showed
        else:
            self.chat.replace_answer(text)
        return True

    def _on_turn_failed(self, event: ev.TurnFailed) -> None:
        self._release_held_answer(event.conversation_id)
        if event.conversation_id == self.current_id:
            self.chat.add_notice(f"⚠ {event.error}", error=True)
        self.turn_conversation = None

    async def _offer_model(self) -> None:
        row = await self.host.suggested_model()
        if row is not None and not self.host.settings.model:
            self.model_hint.offer(row)

    def _on_model_status(self, event: ev.ModelStatusChanged) -> None:
        self.model_ready = event.status == "ready"
        if self.model_ready and not self.host.settings.model and not self.host.settings.model_hint_dismissed:
            self.tasks.spawn(self._offer_model(), name="suggest-model")
        elif self.host.settings.model:
            self.model_hint.hide()
        if self.model_ready:  # `auto` now resolves by this model's size, and the context by its size
            self.routing_switch.show_for(self.host, self.current_id)
            self.show_context()
        self.status.show_model(event)

    def refresh_servers(self) -> None:
        self.status.show_servers(self._host.server_states() if self._host is not None else [])
        self._refresh_panel("servers")

    def _on_catalog_changed(self) -> None:
        # Later, not now: the change may come from a click inside the tools tree, which must not be
        # rebuilt under that click; a burst of changes also becomes one rebuild.
        self._catalog_timer.start()

    def _refresh_catalog_views(self) -> None:
        self.refresh_servers()
        self._refresh_panel("tools")

    def _refresh_panel(self, key: str) -> None:
        panel = self.panels.get(key)
        if panel is not None and panel.isVisible():
            panel.refresh()  # type: ignore[attr-defined]
