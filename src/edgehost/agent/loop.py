"""One turn of the agent: generate, detect tool calls, check, approve, execute, feed back, repeat.

Qt-free and I/O-free apart from the injected backend, executor and approver; everything that
happens is reported through ``emit`` as a typed event (edgehost.host.events), which is how the
host records history and the GUI and CLI show progress.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from edgehost.agent import events as ev
from edgehost.agent._turn_state import CallResult, TurnPlan, TurnState
from edgehost.agent.approval import ApprovalPolicy, Approver
from edgehost.agent.config import AgentConfig
from edgehost.agent.detector import ToolCallParsed
from edgehost.agent.grounded_arguments import path_from_question
from edgehost.agent.grounding import Grounding, check_answer, echoes, has_words
from edgehost.agent.kept_names import KeptNames, every_name, servers_naming
from edgehost.agent.kept_values import with_kept_values
from edgehost.agent.known_arguments import filled_by_host, settled_arguments, texts_within
from edgehost.agent.named_files import tools_for_named_files, with_named_files
from edgehost.agent.prompting import (
    build_system_prompt,
    choose_dialect,
    format_tool_result,
    prompt_messages,
    tool_result_message,
)
from edgehost.agent.question_values import path_values
from edgehost.agent.references import resolved_references
from edgehost.agent.reply_round import Emit, ReplyStreamer, Round
from edgehost.agent.result_rendering import (
    NOT_RUN,
    answer_with_results,
    rendered_results,
    ungrounded_answer_text,
    without_result_frames,
)
from edgehost.agent.routing import RouteDecision, parameters_from_name, resolve_routing, split_material
from edgehost.agent.selection import ToolSelector
from edgehost.agent.tool_calls import (
    DENIAL_INSTRUCTION,
    CallOutcome,
    ToolCalls,
    ToolExecutor,
    edited_statement,
)
from edgehost.agent.tools import ToolSpec
from edgehost.agent.unchanged_calls import UnchangedNoted
from edgehost.llm.base import Backend, Capabilities, ChatMessage, Perf, estimate_tokens

SUMMARY_TOKENS = 1024  # a tool result shown to the user when the model wrote nothing after it
# Earlier questions of the conversation the router reads with the new one ("and in Paris?").
ROUTING_CONTEXT_QUESTIONS = 2


@dataclass
class Conversation:
    """What the model sees of one conversation (without the system prompt, which is rebuilt)."""

    id: int
    messages: list[ChatMessage] = field(default_factory=list)
    selected_tools: list[str] | None = None
    routing: str | None = None  # auto | host | model for this conversation; None: the setting


class TurnRunner:
    """Runs turns for one backend; the host owns one and serialises turns through it."""

    def __init__(
        self,
        backend: Backend,
        executor: ToolExecutor,
        approver: Approver,
        policy: ApprovalPolicy,
        emit: Emit,
        config: AgentConfig | None = None,
        grammar_builder: Callable[..., str] | None = None,
        selector: ToolSelector | None = None,
        call_numbers: Iterator[int] | None = None,
    ) -> None:
        self.backend = backend
        self.executor = executor
        self.approver = approver
        self.policy = policy
        self.emit = emit
        self.config = config or AgentConfig()
        self._replies = ReplyStreamer(backend, emit, grammar_builder)
        # The host passes its own, which outlives a runner (model switch, settings change).
        self._selector = selector or ToolSelector()
        # Numbers the calls ("c1", "c2"…); the host passes its own, so a call id is not used twice in
        # its life (a card and its "Open the view" are found by it) when a runner is made anew.
        self._kept = KeptNames(self._listing, may_call=policy.lets_host_look_up)
        # A change through a server that keeps named things is read around (agent/unchanged_calls.py).
        checked = UnchangedNoted(executor, self._kept)
        self._calls = ToolCalls(checked, approver, policy, emit, self.config, call_numbers)

    async def run(
        self,
        conversation: Conversation,
        user_text: str,
        tools: Sequence[ToolSpec],
        *,
        server_instructions: dict[str, str] | None = None,
        pinned_tool: str | None = None,
        attachments: Sequence[str] = (),
    ) -> ev.TurnCompleted:
        """Run one turn to its end and return its TurnCompleted (also emitted).

        Cancelling the task running this ends generation and calls in flight; the turn then
        completes with ``cancelled=True`` and keeps what was produced. Raises BackendCrashed when
        the model process dies (the conversation keeps the user's message).
        """
        content = _with_attachments(attachments, user_text)
        self.emit(ev.TurnStarted(conversation.id, user_text))
        earlier_questions = _questions(conversation.messages)[-ROUTING_CONTEXT_QUESTIONS:]
        self._append(conversation, ChatMessage("user", content))
        caps = self.backend.capabilities
        pinned = {t.name: t for t in tools}.get(pinned_tool) if pinned_tool else None
        routing = self.routing_for(conversation)
        route: RouteDecision | None = None
        # The host reads a follow-up's pronouns as what they stand for (agent/references.py) and a
        # file named by its words as that file (agent/named_files.py); routing is told which servers
        # keep a thing it names (agent/kept_names.py: read once, for both).
        host_routes = routing == "host" and pinned is None
        kept = await self._kept.by_server(tools if host_routes else [])
        read_as = resolved_references(user_text, earlier_questions, every_name(kept))
        question, holders = await asyncio.to_thread(  # a folder's listing: off the window's thread
            with_named_files, read_as, [t.served_folder for t in tools if t.enabled and t.served_folder]
        )
        keeping = servers_naming(read_as, kept)
        if host_routes:
            # Content sent with the question (attached, or a prompt's text after its ask) is what the
            # question is most often about: it calls a tool only when it clearly asks for one (routing.py).
            asked, material = split_material(question)
            attached = bool(attachments) or bool(material)
            reaching = tools_for_named_files(tools, holders)  # the servers that can reach its file
            switched_off = await self._switched_off_tool(asked, reaching, earlier_questions, attached)
            if switched_off is not None:
                return self._answer_switched_off(conversation, switched_off)
            route = await self._route(
                conversation.id, asked, reaching, earlier_questions, attached, bool(holders), keeping
            )
        plan = await self._choose_tools(
            conversation, question, tools, caps, routing, route, pinned, server_instructions
        )
        read = _with_attachments(attachments, question)
        turn = TurnState(
            conversation.id,
            question,
            read,
            list(plan.forced),
            written=user_text,
            routed_by_host=plan.routing == "host",
        )
        cancelled = False
        try:
            while await self._one_round(conversation, plan, turn):
                pass
        except asyncio.CancelledError:
            cancelled = True
            await self._stop(conversation, turn)
        for record in turn.executions:  # what a server keeps may have changed: read it again
            called = plan.by_name.get(str(record.get("tool")))
            if called is not None and called.hint("readOnlyHint") is not True:
                self._kept.changed(called.server)
        completed = self._finish(turn, cancelled)
        if cancelled:
            raise asyncio.CancelledError
        return completed

    async def _listing(self, tool: ToolSpec) -> Any:
        """The structured result of a call of ``tool`` with no arguments, the host's own (no card, no
        approval: a tool that only reads, agent/kept_names.py); None when it failed."""
        outcome = await self.executor.call(tool, {}, _unreported)
        return None if outcome.is_error else outcome.structured

    async def _route(
        self,
        conv_id: int,
        question: str,
        tools: Sequence[ToolSpec],
        earlier: Sequence[str],
        attached: bool,
        own_file: bool,
        keeping: frozenset[str],
    ) -> RouteDecision | None:
        """The host's decision on the question (decision 11), announced with TurnRouted; None when
        no tool is switched on."""
        enabled = [t for t in tools if t.enabled]
        if not enabled:
            return None
        route = await self._selector.route(
            question,
            enabled,
            context=earlier,
            attached=attached,
            own_record=own_file or bool(keeping),
            keeping=keeping,
        )
        self.emit(
            ev.TurnRouted(conv_id, route.needs_tool, tuple(t.name for t in route.candidates), route.reason)
        )
        return route

    async def _choose_tools(
        self,
        conversation: Conversation,
        question: str,
        tools: Sequence[ToolSpec],
        caps: Capabilities,
        routing: str,
        route: RouteDecision | None,
        pinned: ToolSpec | None,
        server_instructions: dict[str, str] | None,
    ) -> TurnPlan:
        """The tools the turn's prompt describes (decision 7: within the budget, stable in the
        conversation) and those its first reply must call: the pinned tool or the host's candidates."""
        dialect = choose_dialect(caps)
        enabled = [t for t in tools if t.enabled]
        budget = int(caps.max_context * self.config.tool_budget_fraction)
        selection = await self._selector.select(
            question,
            enabled,
            budget_tokens=budget,
            count_tokens=self.backend.count_tokens,
            previous=conversation.selected_tools,
        )
        forced: list[ToolSpec] = [pinned] if pinned is not None else []
        kept_texts: set[str] = set()
        if route is not None and route.needs_tool:
            forced = list(route.candidates)
        for tool in reversed(forced):  # a forced tool is always described in the prompt
            if all(t.name != tool.name for t in selection.tools):
                selection.tools.insert(0, tool)
        if route is not None and route.needs_tool and caps.supports_grammar:
            # The host's call takes values of the question that fit each argument (decision 11).
            forced = [await self._selector.with_fitting_values(t, question) for t in forced]
            # A deletion of kept things takes their exact texts from what the server keeps (a large
            # store's texts are read off the window's thread).
            offered = []
            for tool in forced:
                listing = self._kept.last_read(tool.server)
                offered.append(await asyncio.to_thread(with_kept_values, tool, listing, question))
                if offered[-1] is not tool:
                    kept_texts.update(texts_within(listing))
            forced = offered
        conversation.selected_tools = [t.name for t in selection.tools]
        system = build_system_prompt(
            selection.tools, dialect, server_instructions or {}, extra=self.config.extra_instructions
        )
        by_name = {t.name: t for t in tools}
        return TurnPlan(
            caps,
            dialect,
            system,
            selection.tools,
            by_name,
            routing,
            route is not None,
            tuple(forced),
            frozenset(kept_texts),
        )

    async def _one_round(self, conversation: Conversation, plan: TurnPlan, turn: TurnState) -> bool:
        """One reply of the model and the calls it makes, their results fed back to it; False when the
        turn ends with this round."""
        round_ = await self._reply(conversation, plan, turn)
        final = not round_.calls and not round_.problems
        self._append_reply(conversation, turn, round_, final)
        was_forced, turn.forced = turn.forced, []
        if final:
            if round_.finished_reason == "length":
                self._show(
                    turn,
                    f"\n\n*(Cut off at the limit of {self.config.max_tokens_per_round} tokens per"
                    " reply: ask it to go on.)*",
                )
            return False
        outcomes, refused_calls = await self._run_calls(conversation, plan, turn, round_)
        invalid_only = all(record.get("status") == "invalid" for *_, record in outcomes)
        if was_forced and round_.chosen_by != "model" and invalid_only and not refused_calls:
            # A call EdgeHost forced (routing) or the user pinned came out invalid (count 11
            # where the tool allows 10): the next reply is forced again, with the error in
            # front of the model, within the correction rounds.
            turn.forced = was_forced
        if all(not ok for _name, _text, ok, _record in outcomes):
            turn.corrections += 1
            if turn.corrections > self.config.max_correction_rounds:
                self._show(
                    turn,
                    "\n\n(Stopped: the model did not produce a valid tool call after several corrections.)",
                )
                return False
        return not refused_calls  # at the call limit the turn ends

    async def _reply(self, conversation: Conversation, plan: TurnPlan, turn: TurnState) -> Round:
        """The model's next reply, streamed into the turn (so a cancel keeps what came); where the host
        decides the calls, one the model wrote on its own is dropped."""
        round_ = turn.round_ = Round(chosen_by=plan.chosen_by(turn.forced))
        await self._replies.stream(
            turn.conv_id,
            prompt_messages(
                [ChatMessage("system", plan.system), *_as_read(conversation.messages, turn.content)],
                plan.caps,
            ),
            plan.tools,
            plan.dialect,
            turn.forced,
            round_,
            max_tokens=self.config.max_tokens_per_round,
            temperature=self.config.temperature,
            model_may_call=plan.routing == "model",
            grounded_in=turn.content if round_.chosen_by == "host" else None,
        )
        turn.perf = turn.perf + round_.perf
        if round_.prose:
            turn.shown.append(round_.prose)
        if plan.routing == "host" and not turn.forced:
            # The host decides the calls: one the model writes on its own is not run.
            round_.calls.clear()
            round_.problems.clear()
        return round_

    def _append_reply(self, conversation: Conversation, turn: TurnState, round_: Round, final: bool) -> None:
        """Append the reply to the conversation; a final one that is no answer replaced by what the user
        reads instead."""
        message = round_.raw
        replacement = self._checked_answer(turn, round_) if final else None
        if replacement is not None:
            turn.shown[turn.answer_from :] = [replacement]
            message = replacement  # what the user reads is what the model sees next turn
        self._append(conversation, ChatMessage("assistant", message), round_.perf)
        round_.appended = True

    def _checked_answer(self, turn: TurnState, round_: Round) -> str | None:
        """None when the reply that ends the turn stands as its answer; otherwise what the user reads
        instead (decision 11), announced with AnswerUngrounded or, after calls EdgeHost chose whose
        results the reply is grounded in, AnswerWithResults. A result frame the model wrote itself ends
        the reply (result_rendering.without_result_frames)."""
        answer = without_result_frames(turn.answer())
        if turn.unrun and echoes(answer, turn.unrun, (DENIAL_INSTRUCTION,)):
            # The model copied what EdgeHost told it (the denial and its instruction, or the
            # error): the user reads EdgeHost's own statement of what happened instead.
            replacement = "\n\n".join(f"{name}: {text}" for name, text in turn.last_results)
            why = "the denial" if turn.host_call_denied or NOT_RUN in replacement else "the error"
            self.emit(
                ev.AnswerUngrounded(
                    turn.conv_id, f"the reply repeats {why}", replacement, answer, replacement
                )
            )
            return replacement
        if turn.grounded_in:
            return self._grounded(turn, answer, round_)
        if turn.host_call_failed and has_words(answer):
            # A small model's reply to an error rarely says what it was (the embedded one
            # answered "list the files in /tmp" with "`Files__list_directory: /tmp`").
            failed = Grounding(
                False,
                "you denied the call" if turn.host_call_denied else "the tool failed",
                nothing_to_go_on=True,
            )
            return self._replaced(turn.conv_id, turn.last_results, answer, failed)
        return None

    async def _run_calls(
        self, conversation: Conversation, plan: TurnPlan, turn: TurnState, round_: Round
    ) -> tuple[list[CallOutcome], list[ToolCallParsed]]:
        """Run the reply's calls within the turn's call limit and append what the model reads of them
        (the problems with its calls first); returns their outcomes and the calls over the limit."""
        limit = self.config.max_calls_per_turn
        room = max(limit - turn.calls_made, 0)
        admitted, refused_calls = round_.calls[:room], round_.calls[room:]
        admitted = [
            _with_filled_arguments(call, plan, turn.question, round_.chosen_by, turn.written)
            for call in admitted
        ]
        turn.calls_made += len(admitted)
        outcomes = await self._calls.run(
            turn.conv_id, admitted, plan.by_name, turn.earlier, plan.caps.max_context, round_.chosen_by
        )
        over_limit = f"Error: the limit of {limit} tool calls per turn is reached; answer with what you have."
        results = [
            *(CallResult("error", problem) for problem in round_.problems),
            *turn.take_outcomes(outcomes),
            *(CallResult(call.name, over_limit) for call in refused_calls),
        ]
        question = turn.question if round_.chosen_by == "host" else None
        for result in results:
            self._append(
                conversation,
                tool_result_message(result.name, result.text, call_id=result.call_id, question=question),
            )
        turn.remember_results(results, outcomes, round_.chosen_by)
        return outcomes, refused_calls

    async def _stop(self, conversation: Conversation, turn: TurnState) -> None:
        """The turn was cancelled: stop the model and keep what it said before the stop (the user saw
        it, the model should too)."""
        await self.backend.cancel()
        round_ = turn.round_
        if round_ is not None and round_.raw and not round_.appended:
            turn.shown.append(round_.prose)
            self._append(conversation, ChatMessage("assistant", round_.raw), round_.perf)

    def _finish(self, turn: TurnState, cancelled: bool) -> ev.TurnCompleted:
        """The turn's TurnCompleted, emitted; when the model had nothing to add after the last tools,
        the user reads their results (for a tool that failed or was refused: why it did not run)."""
        if not cancelled and not turn.grounded_in and not has_words(turn.answer()) and turn.last_results:
            self._show(
                turn,
                "\n\n".join(
                    f"{name}:\n{format_tool_result(name, text, SUMMARY_TOKENS, estimate_tokens)}"
                    for name, text in turn.last_results
                ),
            )
        edited = [edited_statement(r) for r in turn.executions if "proposed_arguments" in r]
        if edited and not cancelled:
            self._show(turn, "\n\n" + "\n\n".join(edited))
        completed = ev.TurnCompleted(
            turn.conv_id, "".join(turn.shown).strip(), turn.perf, tuple(turn.executions), cancelled
        )
        self.emit(completed)
        return completed

    def _show(self, turn: TurnState, text: str) -> None:
        """Text of EdgeHost's own for the user, after the model's."""
        turn.shown.append(text)
        self.emit(ev.TextDelta(turn.conv_id, text))

    def _grounded(self, turn: TurnState, answer: str, round_: Round) -> str | None:
        """None when the answer after the turn's tools is grounded in their results and stands alone;
        otherwise what the user is shown instead (decision 11). A grounded answer of a model the host
        routes follows the results rendered (AnswerWithResults): a small model's sentence may be wrong
        in words while its numbers are right. An ungrounded one gives way to the results, marked as
        the model's (AnswerUngrounded)."""
        grounded_in = turn.grounded_in
        grounding = check_answer(
            answer,
            results=[text for _name, text, _arguments in grounded_in],
            question=turn.content,
            arguments=[arguments for _name, _text, arguments in grounded_in],
            stopped_for_repetition=round_.finished_reason == "repetition",
            failed=turn.unrun,
        )
        results = [(name, text) for name, text, _args in grounded_in]
        if not grounding.grounded:
            return self._replaced(turn.conv_id, results, answer, grounding)
        if not turn.routed_by_host:
            return None
        text = answer_with_results(results, answer)
        self.emit(ev.AnswerWithResults(turn.conv_id, text))
        return text

    def _replaced(
        self, conv_id: int, results: Sequence[tuple[str, str]], answer: str, grounding: Grounding
    ) -> str:
        """What the user reads instead of ``answer``: the results, the reply marked; announced with
        AnswerUngrounded."""
        replacement = ungrounded_answer_text(results, answer, grounding)
        self.emit(
            ev.AnswerUngrounded(conv_id, grounding.reason, replacement, answer, rendered_results(results))
        )
        return replacement

    def routing_for(self, conversation: Conversation) -> str:
        """`host` or `model`: who decides this conversation's tool calls (decision 11)."""
        info = self.backend.model_info
        parameters = (info.parameters or parameters_from_name(info.name)) if info is not None else None
        return resolve_routing(conversation.routing or self.config.routing, parameters)

    async def _switched_off_tool(
        self, question: str, tools: Sequence[ToolSpec], earlier: Sequence[str], attached: bool = False
    ) -> ToolSpec | None:
        """The switched-off tool that the question calls for, if the host would have chosen it among
        all the tools (decision 11) and no tool of the same name is on (another server's: the built-in
        files server off, the filesystem server's read_file does the job); None otherwise. A small
        model asked "how hot is the board?" with board__temperatures off answered with the uptime, or
        with nothing to do with the board."""
        if all(t.enabled for t in tools):
            return None
        everything = [dataclasses.replace(t, enabled=True) for t in tools]
        overall = await self._selector.route(question, everything, context=earlier, attached=attached)
        best = overall.candidates[0] if overall.needs_tool and overall.candidates else None
        off = next((t for t in tools if best is not None and t.name == best.name and not t.enabled), None)
        if off is None or any(t.enabled and t.tool_name == off.tool_name for t in tools):
            return None
        return off

    def _answer_switched_off(self, conversation: Conversation, tool: ToolSpec) -> ev.TurnCompleted:
        """The turn's answer, without the model: the tool for the question is switched off, and how to
        switch it on."""
        if tool.server_enabled:
            text = (
                f"The tool for this, **{tool.name}**, is switched off, so I cannot answer with it. Switch it"
                f" on in Tools (in `edgehost chat`: `/enable {tool.name}`) and ask again."
            )
            why = f"{tool.name} would answer it, but it is switched off"
        else:
            text = (
                f"The tool for this, **{tool.name}**, belongs to the server **{tool.server}**, which is"
                f" switched off, so I cannot answer with it. Switch the server on in Servers (in"
                f" `edgehost chat`: `/enable {tool.server}`) and ask again."
            )
            why = f"{tool.name} would answer it, but its server {tool.server} is switched off"
        self.emit(ev.TurnRouted(conversation.id, False, (), why))
        self.emit(ev.TextDelta(conversation.id, text))
        self._append(conversation, ChatMessage("assistant", text))
        completed = ev.TurnCompleted(conversation.id, text)
        self.emit(completed)
        return completed

    def _append(self, conversation: Conversation, message: ChatMessage, perf: Perf | None = None) -> None:
        conversation.messages.append(message)
        self.emit(
            ev.MessageAppended(
                conversation.id, message.role, message.content, message.name, perf, message.tool_call_id
            )
        )


def _with_attachments(attachments: Sequence[str], text: str) -> str:
    """The user's message as the model reads it: the attachments, then the question."""
    return "\n\n".join([*attachments, text])


def _as_read(messages: Sequence[ChatMessage], content: str) -> list[ChatMessage]:
    """``messages`` with the last user message read as ``content``: the question as the host reads it
    (its pronouns resolved, agent/references.py; a file it names by its words, agent/named_files.py),
    while the conversation keeps it as the user wrote it."""
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    if last is None or messages[last].content == content:
        return list(messages)
    return [*messages[:last], dataclasses.replace(messages[last], content=content), *messages[last + 1 :]]


def _questions(messages: Sequence[ChatMessage]) -> list[str]:
    """The user's questions in a model's view."""
    return [m.content for m in messages if m.role == "user"]


def _with_filled_arguments(
    call: ToolCallParsed, plan: TurnPlan, question: str, chosen_by: str, written: str
) -> ToolCallParsed:
    """``call`` with what the model left out filled in, shown and recorded as the call's arguments:
    the folder EdgeHost knows the tool's server serves (agent/known_arguments.py), and, for a call
    the host chose, the path its question names (grounded_arguments.path_from_question). ``question``
    as the host reads it, ``written`` as the user wrote it: a value of the reading alone, or of what a
    server keeps that the host offered its call (``plan.kept_texts``), is shown as EdgeHost's."""
    tool = plan.by_name.get(call.name)
    if tool is None:
        return call
    arguments = settled_arguments(
        call.arguments, tool.known_arguments, question, path_values(question), host_chose=chosen_by == "host"
    )
    if chosen_by == "host":
        arguments = path_from_question(arguments, tool.input_schema, question) or arguments
    kept = plan.kept_texts if chosen_by == "host" else frozenset()
    filled = filled_by_host(arguments, tool.known_arguments, question, written, kept_texts=kept)
    if arguments == call.arguments and not filled:
        return call
    return dataclasses.replace(call, arguments=arguments, filled_by_host=filled)


def _unreported(*_progress: object, **_state: object) -> None:
    """The progress of the host's own look-up, which no card shows."""
