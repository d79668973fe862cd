"""One turn of the agent: generate, detect tool calls, check, approve, execute, feed back, repeat.

Qt-free and I/O-free apart from the injected backend, executor and approver; everything that
happens is reported through ``emit`` as a typed event (edgehost.host.events), which is how the
host records history and the GUI and CLI show progress.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from edgehost.agent import events as ev
from edgehost.agent.approval import ApprovalPolicy, Approver
from edgehost.agent.detector import (
    ToolCallParsed,
)
from edgehost.agent.grounded_arguments import path_from_question
from edgehost.agent.grounding import (
    NOT_RUN,
    Grounding,
    check_answer,
    echoes,
    has_words,
    rendered_results,
    ungrounded_answer_text,
)
from edgehost.agent.prompting import (
    build_system_prompt,
    choose_dialect,
    format_tool_result,
    prompt_messages,
    tool_result_message,
)
from edgehost.agent.reply_round import Emit, ReplyStreamer, Round
from edgehost.agent.routing import RouteDecision, parameters_from_name, resolve_routing, split_material
from edgehost.agent.selection import ToolSelector
from edgehost.agent.tool_calls import (
    DENIAL_INSTRUCTION,
    ToolCalls,
    ToolExecutor,
    ToolOutcome,
    edited_note,
    refusal_text,
)
from edgehost.agent.tools import ToolSpec
from edgehost.llm.base import (
    Backend,
    ChatMessage,
    Perf,
    estimate_tokens,
)
from edgehost.settings import (
    DEFAULT_MAX_CALLS_PER_TURN,
    DEFAULT_MAX_CORRECTION_ROUNDS,
    DEFAULT_MAX_PARALLEL_CALLS,
    DEFAULT_TOOL_BUDGET_FRACTION,
)

SUMMARY_TOKENS = 1024  # a tool result shown to the user when the model wrote nothing after it
# Earlier questions of the conversation the router reads with the new one ("and in Paris?").
ROUTING_CONTEXT_QUESTIONS = 2


@dataclass
class AgentConfig:
    max_correction_rounds: int = DEFAULT_MAX_CORRECTION_ROUNDS
    max_calls_per_turn: int = DEFAULT_MAX_CALLS_PER_TURN
    max_tokens_per_round: int = 512
    temperature: float | None = None  # None: the backend's default
    tool_budget_fraction: float = DEFAULT_TOOL_BUDGET_FRACTION  # of the context, for the tools in the prompt
    tool_result_budget_fraction: float = 0.25  # of the context, for one tool result
    # Calls of one reply run at once, at most this many (1: one after another); see ToolCalls.run.
    max_parallel_calls: int = DEFAULT_MAX_PARALLEL_CALLS
    extra_instructions: str = ""
    routing: str = "auto"  # auto | host | model (decision 11); a conversation may override it

    @classmethod
    def from_settings(cls, settings: Any) -> AgentConfig:
        """The limits the user can change in the settings (edgehost.settings.Settings)."""
        return cls(
            max_correction_rounds=settings.max_correction_rounds,
            max_calls_per_turn=settings.max_calls_per_turn,
            tool_budget_fraction=settings.tool_budget_fraction,
            routing=settings.routing,
        )


@dataclass
class Conversation:
    """What the model sees of one conversation (without the system prompt, which is rebuilt)."""

    id: int
    messages: list[ChatMessage] = field(default_factory=list)
    selected_tools: list[str] | None = None
    routing: str | None = None  # auto | host | model for this conversation; None: the setting


@dataclass(frozen=True)
class _Result:
    """What goes back to the model for one call of a round (or one problem with the round's calls)."""

    name: str
    text: str
    call_id: str | None = None  # None: no call ran (a malformed call, the call limit)
    over_limit: bool = False  # refused because the turn reached max_calls_per_turn
    shown: str | None = None  # what the user reads instead of `text`, when that differs


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
        self._calls = ToolCalls(executor, approver, policy, emit, self.config)

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
        conv_id = conversation.id
        content = "\n\n".join([*attachments, user_text]) if attachments else user_text
        self.emit(ev.TurnStarted(conv_id, user_text))
        earlier_questions = _questions(conversation.messages)[-ROUTING_CONTEXT_QUESTIONS:]
        self._append(conversation, ChatMessage("user", content))
        caps = self.backend.capabilities
        dialect = choose_dialect(caps)
        enabled = [t for t in tools if t.enabled]
        by_name = {t.name: t for t in tools}
        max_context = caps.max_context
        count = self.backend.count_tokens
        budget = int(max_context * self.config.tool_budget_fraction)
        pinned = by_name.get(pinned_tool) if pinned_tool else None
        routing = self.routing_for(conversation)
        route: RouteDecision | None = None
        # Content sent with the question (attached, or a prompt's text after its ask) is what the
        # question is most often about: it calls a tool only when it clearly asks for one (routing.py).
        asked, material = split_material(user_text)
        attached = bool(attachments) or bool(material)
        if routing == "host" and pinned is None and len(enabled) < len(tools):
            switched_off = await self._switched_off_tool(asked, tools, earlier_questions, attached)
            if switched_off is not None:
                return self._answer_switched_off(conversation, switched_off)
        if routing == "host" and pinned is None and enabled:
            route = await self._selector.route(asked, enabled, context=earlier_questions, attached=attached)
            self.emit(
                ev.TurnRouted(
                    conv_id, route.needs_tool, tuple(t.name for t in route.candidates), route.reason
                )
            )
        selection = await self._selector.select(
            user_text, enabled, budget_tokens=budget, count_tokens=count, previous=conversation.selected_tools
        )
        forced: list[ToolSpec] = [pinned] if pinned is not None else []
        if route is not None and route.needs_tool:
            forced = list(route.candidates)
        for tool in reversed(forced):  # a forced tool is always described in the prompt
            if all(t.name != tool.name for t in selection.tools):
                selection.tools.insert(0, tool)
        conversation.selected_tools = [t.name for t in selection.tools]
        system = build_system_prompt(
            selection.tools, dialect, server_instructions or {}, extra=self.config.extra_instructions
        )
        perf = Perf()
        shown: list[str] = []
        executions: list[dict[str, Any]] = []
        earlier: dict[tuple[str, str], ToolOutcome] = {}
        calls_made = 0
        corrections = 0
        cancelled = False
        round_: Round | None = None
        last_results: list[tuple[str, str]] = []  # (tool, what the user reads of its result)
        host_call_failed = False  # the last calls were EdgeHost's choice, and none of them worked
        host_call_denied = False  # ... because the user denied one
        # What the model was told of the last calls that did not run or failed (a denial and its
        # instruction, an error): a reply that repeats it is no answer.
        unrun: list[str] = []
        grounded_in: list[tuple[str, str, dict[str, Any]]] = []  # successful calls: name, result, arguments
        answer_from = 0  # index in `shown` where the answer after the last tool begins
        try:
            while True:
                round_ = Round(
                    chosen_by="host" if route is not None and forced else "user" if forced else "model"
                )
                await self._replies.stream(
                    conv_id,
                    prompt_messages([ChatMessage("system", system), *conversation.messages], caps),
                    selection.tools,
                    dialect,
                    forced,
                    round_,
                    max_tokens=self.config.max_tokens_per_round,
                    temperature=self.config.temperature,
                    model_may_call=routing == "model",
                    grounded_in=content if round_.chosen_by == "host" else None,
                )
                perf = perf + round_.perf
                if round_.prose:
                    shown.append(round_.prose)
                if routing == "host" and not forced:
                    # The host decides the calls: one the model writes on its own is not run.
                    round_.calls.clear()
                    round_.problems.clear()
                final = not round_.calls and not round_.problems
                message = round_.raw
                replacement = None
                answer = "".join(shown[answer_from:]) if final else ""
                if final and unrun and echoes(answer, unrun, (DENIAL_INSTRUCTION,)):
                    # The model copied what EdgeHost told it (the denial and its instruction, or the
                    # error): the user reads EdgeHost's own statement of what happened instead.
                    replacement = "\n\n".join(f"{name}: {text}" for name, text in last_results)
                    why = "the denial" if host_call_denied or NOT_RUN in replacement else "the error"
                    self.emit(
                        ev.AnswerUngrounded(
                            conv_id, f"the reply repeats {why}", replacement, answer, replacement
                        )
                    )
                elif final and grounded_in:
                    replacement = self._grounded(conv_id, content, grounded_in, answer, round_)
                elif final and host_call_failed and has_words(answer):
                    # A small model's reply to an error rarely says what it was (the embedded one
                    # answered "list the files in /tmp" with "`Files__list_directory: /tmp`").
                    failed = Grounding(
                        False,
                        "you denied the call" if host_call_denied else "the tool failed",
                        nothing_to_go_on=True,
                    )
                    replacement = self._replaced(conv_id, last_results, answer, failed)
                if replacement is not None:
                    shown[answer_from:] = [replacement]
                    message = replacement  # what the user reads is what the model sees next turn
                self._append(conversation, ChatMessage("assistant", message), round_.perf)
                round_.appended = True
                was_forced, forced = forced, []
                if final:
                    if round_.finished_reason == "length":
                        note = (
                            f"\n\n*(Cut off at the limit of {self.config.max_tokens_per_round} tokens per"
                            " reply: ask it to go on.)*"
                        )
                        shown.append(note)
                        self.emit(ev.TextDelta(conv_id, note))
                    break
                results = [_Result("error", p) for p in round_.problems]
                all_failed = True
                room = max(self.config.max_calls_per_turn - calls_made, 0)
                admitted, refused_calls = round_.calls[:room], round_.calls[room:]
                if round_.chosen_by == "host":
                    admitted = [_with_question_path(call, by_name, user_text) for call in admitted]
                calls_made += len(admitted)
                outcomes = await self._calls.run(
                    conv_id, admitted, by_name, earlier, max_context, round_.chosen_by
                )
                for name, text, ok, record in outcomes:
                    executions.append(record)
                    shown_text = None
                    if record.get("status") == "denied":  # the user reads why, not the model's instruction
                        shown_text = f"{NOT_RUN}{refusal_text(record)}."
                    elif "proposed_arguments" in record:  # the user edited the call: the model reads so
                        shown_text, text = text, f"{edited_note(record['arguments'])}\n{text}"
                    results.append(_Result(name, text, record["call_id"], shown=shown_text))
                    all_failed = all_failed and not ok
                    if ok and record.get("status") == "ok":
                        result_text = shown_text if shown_text is not None else text
                        grounded_in.append((name, result_text, dict(record["arguments"])))
                for call in refused_calls:
                    limit = self.config.max_calls_per_turn
                    note = f"Error: the limit of {limit} tool calls per turn is reached; answer with what you have."
                    results.append(_Result(call.name, note, over_limit=True))
                question = user_text if round_.chosen_by == "host" else None
                for result in results:
                    self._append(
                        conversation,
                        tool_result_message(
                            result.name, result.text, call_id=result.call_id, question=question
                        ),
                    )
                last_results = [(r.name, r.shown if r.shown is not None else r.text) for r in results]
                unrun = [
                    text for _name, text, ok, record in outcomes if not ok or record.get("status") == "denied"
                ] + [r.text for r in results if r.call_id is None]
                # A small model's reply to a call that did not run is no more reliable than its reply to
                # a result: after a denial it said the file "has already been deleted".
                # (A denial is no failure to correct: its outcome is ok.)
                host_call_denied = any(record.get("status") == "denied" for *_, record in outcomes)
                host_call_failed = (
                    round_.chosen_by == "host"
                    and bool(outcomes)
                    and all(not ok or record.get("status") == "denied" for _n, _t, ok, record in outcomes)
                )
                answer_from = len(shown)
                invalid_only = all(record.get("status") == "invalid" for *_, record in outcomes)
                if was_forced and round_.chosen_by != "model" and invalid_only and not refused_calls:
                    # A call EdgeHost forced (routing) or the user pinned came out invalid (count 11
                    # where the tool allows 10): the next reply is forced again, with the error in
                    # front of the model, within the correction rounds.
                    forced = was_forced
                if all_failed:
                    corrections += 1
                    if corrections > self.config.max_correction_rounds:
                        note = "\n\n(Stopped: the model did not produce a valid tool call after several corrections.)"
                        shown.append(note)
                        self.emit(ev.TextDelta(conv_id, note))
                        break
                if results and results[-1].over_limit:
                    break
        except asyncio.CancelledError:
            cancelled = True
            await self.backend.cancel()
            if round_ is not None and round_.raw and not round_.appended:
                # Keep what the model said before the stop: the user saw it, the model should too.
                shown.append(round_.prose)
                self._append(conversation, ChatMessage("assistant", round_.raw), round_.perf)
        if not cancelled and not grounded_in and not has_words("".join(shown[answer_from:])) and last_results:
            # The model had nothing to add after a tool that failed or was refused: say why it did not run.
            summary = "\n\n".join(
                f"{name}:\n{format_tool_result(name, text, SUMMARY_TOKENS, estimate_tokens)}"
                for name, text in last_results
            )
            shown.append(summary)
            self.emit(ev.TextDelta(conv_id, summary))
        completed = ev.TurnCompleted(conv_id, "".join(shown).strip(), perf, tuple(executions), cancelled)
        self.emit(completed)
        if cancelled:
            raise asyncio.CancelledError
        return completed

    def _grounded(
        self,
        conv_id: int,
        question: str,
        grounded_in: Sequence[tuple[str, str, dict[str, Any]]],
        answer: str,
        round_: Round,
    ) -> str | None:
        """None when the answer after the turn's tools is grounded in their results; otherwise the
        text the user is shown instead (decision 11), announced with AnswerUngrounded."""
        grounding = check_answer(
            answer,
            results=[text for _name, text, _arguments in grounded_in],
            question=question,
            arguments=[arguments for _name, _text, arguments in grounded_in],
            stopped_for_repetition=round_.finished_reason == "repetition",
        )
        if grounding.grounded:
            return None
        return self._replaced(conv_id, [(name, text) for name, text, _args in grounded_in], answer, grounding)

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
        all the tools (decision 11); None otherwise. A small model asked "how hot is the board?" with
        board__temperatures off answered with the uptime, or with nothing to do with the board."""
        everything = [dataclasses.replace(t, enabled=True) for t in tools]
        overall = await self._selector.route(question, everything, context=earlier, attached=attached)
        best = overall.candidates[0] if overall.needs_tool and overall.candidates else None
        return next((t for t in tools if best is not None and t.name == best.name and not t.enabled), None)

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


def _questions(messages: Sequence[ChatMessage]) -> list[str]:
    """The user's questions in a model's view."""
    return [m.content for m in messages if m.role == "user"]


def _with_question_path(
    call: ToolCallParsed, by_name: Mapping[str, ToolSpec], question: str
) -> ToolCallParsed:
    """``call`` with the path its question names, where the model left the tool's path field out
    (grounded_arguments.path_from_question); shown and recorded as the call's arguments."""
    tool = by_name.get(call.name)
    filled = path_from_question(call.arguments, tool.input_schema, question) if tool is not None else None
    return call if filled is None else dataclasses.replace(call, arguments=filled)
