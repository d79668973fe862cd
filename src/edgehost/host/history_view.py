"""What the faces (window, CLI, web) read of the history, as view models: the conversation list, one
conversation as the user saw it (its questions, answers and tool runs in the order they happened),
and the execution history with its export. The faces never touch the Store itself."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from edgehost.agent.approval import saved_grants
from edgehost.host.attachments import AttachedResource, split_question
from edgehost.llm.base import Perf
from edgehost.store import EXPORT_FORMATS, ConversationRecord, Execution, Message, Store

__all__ = [
    "EXPORT_FORMATS",
    "AnswerText",
    "ConversationView",
    "HistoryView",
    "Question",
    "TimelineEntry",
    "ToolRun",
    "chosen_by_text",
    "prose_of",
    "tool_filter",
]


@dataclass(frozen=True)
class Question:
    text: str  # as the user typed it
    attachments: tuple[AttachedResource, ...] = ()  # sent with it: shown as mentions, not as their text


@dataclass(frozen=True)
class AnswerText:
    text: str  # what the user read: the model's prose without its tool-call markup
    perf: Perf | None


@dataclass(frozen=True)
class ToolRun:
    execution: Execution


TimelineEntry = Question | AnswerText | ToolRun


@dataclass(frozen=True)
class ConversationView:
    conversation: ConversationRecord
    entries: tuple[TimelineEntry, ...]

    @property
    def last_perf(self) -> Perf:
        """The last turn's figures, as the window showed them when it ended: the model's runs since the
        last question added up (a tool call and the answer after it), the context as the last left it;
        empty when there is none."""
        total = Perf()
        for entry in self.entries:
            if isinstance(entry, Question):
                total = Perf()
            elif isinstance(entry, AnswerText) and entry.perf is not None:
                total = total + entry.perf
        return total

    @property
    def last_question(self) -> str | None:
        questions = [e.text for e in self.entries if isinstance(e, Question)]
        return questions[-1] if questions else None


class HistoryView:
    """Reads through ``store()``, which raises RuntimeError before the Host has started."""

    def __init__(self, store: Callable[[], Store]) -> None:
        self._store = store

    @classmethod
    @contextlib.contextmanager
    def opened(cls, database: Path) -> Iterator[HistoryView]:
        """The history in ``database`` without a running Host (`edgehost history`), closed on exit.
        Raises StoreError when the file cannot be opened."""
        store = Store.open(database)
        try:
            yield cls(lambda: store)
        finally:
            store.close()

    def always_allowed(self) -> list[dict[str, str]]:
        """The tools the user answered "Always" for in an approval (``server`` and ``tool`` globs), oldest
        first: they run without asking."""
        return [rule.as_dict() for rule in saved_grants(self._store().approval_rules)]

    def forget_always(self, rule: dict[str, str]) -> bool:
        """Take back one "Always" answer (as always_allowed lists it): the tool asks again, in a running
        app too (its policy reads them at each call). False when it was not there."""
        return self._store().approval_rules.delete(rule)

    def conversations(self, query: str = "", *, limit: int = 200) -> list[ConversationRecord]:
        """The conversations not archived, newest first; with ``query``, those whose title or messages
        match it (by word prefix)."""
        store = self._store()
        if query.strip():
            return store.search_conversations(query, include_archived=False, limit=limit)
        return store.list_conversations(limit=limit)

    def conversation(self, conversation_id: int) -> ConversationView | None:
        """The conversation as the user saw it, or None when there is no such conversation. Answers
        that were regenerated, and their tool runs, are left out."""
        store = self._store()
        record = store.get_conversation(conversation_id)
        if record is None:
            return None
        messages = store.list_messages(conversation_id)
        replaced = {
            m.id for m in store.list_messages(conversation_id, include_superseded=True) if m.superseded
        }
        runs = [
            e
            for e in store.list_executions(conversation_id=conversation_id, limit=None)
            if e.message_id not in replaced
        ]
        timeline: list[tuple[float, int, Message | Execution]] = [(m.created, 0, m) for m in messages]
        timeline += [(e.started, 1, e) for e in runs]
        timeline.sort(key=lambda entry: (entry[0], entry[1]))
        entries: list[TimelineEntry] = []
        for _when, _kind, item in timeline:
            if isinstance(item, Execution):
                entries.append(ToolRun(item))
            elif item.role == "user":
                entries.append(Question(*split_question(item.content)))
            elif item.role == "assistant":
                entries.append(
                    AnswerText(prose_of(item.content), Perf.from_dict(item.perf) if item.perf else None)
                )
        return ConversationView(record, tuple(entries))

    def messages(self, conversation_id: int, *, include_superseded: bool = False) -> list[Message]:
        """The stored messages of a conversation in the order they were added, as the model read them
        (tool-call markup and tool results included; ``conversation`` gives what the user saw); with
        ``include_superseded`` also those a regenerated answer replaced (``Message.superseded`` set)."""
        return self._store().list_messages(conversation_id, include_superseded=include_superseded)

    def message(self, message_id: int) -> Message | None:
        """One stored message (an execution's ``message_id``), or None when there is no such message."""
        return self._store().get_message(message_id)

    def execution(self, execution_id: int) -> Execution | None:
        """One recorded tool execution, or None when there is no such execution."""
        return self._store().get_execution(execution_id)

    def executions(
        self,
        *,
        conversation_id: int | None = None,
        tool_glob: str | None = None,
        status: str | Collection[str] | None = None,
        limit: int | None = 200,
    ) -> list[Execution]:
        """Recorded tool executions, newest first, filtered as Store.list_executions."""
        return self._store().list_executions(
            conversation_id=conversation_id, tool_glob=tool_glob, status=status, limit=limit
        )

    def export(
        self,
        fmt: str,
        file: IO[str],
        *,
        conversation_id: int | None = None,
        tool_glob: str | None = None,
        status: str | Collection[str] | None = None,
    ) -> int:
        """Write the matching executions to ``file`` as "json" or "csv"; the count. Safe in a thread."""
        return self._store().export_executions(
            fmt, file, conversation_id=conversation_id, tool_glob=tool_glob, status=status
        )


CHOSEN_BY = {
    "host": "chosen by EdgeHost",
    "model": "chosen by the model",
    "user": "chosen by you",
    "probe": "called by edgehost probe",
    "view": "called by the server's view",
}


def chosen_by_text(execution: Execution) -> str:
    """Who chose to make a call, in words ("" when the history does not know: older calls)."""
    return CHOSEN_BY.get(execution.chosen_by or "", execution.chosen_by or "")


def tool_filter(text: str | None) -> str | None:
    """A panel's tool filter as a glob: one written with wildcards as it is, other text found anywhere in
    the tool's name ("board" finds board__uptime)."""
    text = (text or "").strip()
    if text and not any(ch in text for ch in "*?["):
        text = f"*{text}*"
    return text or None


def prose_of(raw: str) -> str:
    """What the user saw of a stored assistant message: its prose without tool-call markup."""
    from edgehost.agent._detector_events import ProseDelta
    from edgehost.agent.detector import detect_calls

    return "".join(e.text for e in detect_calls(raw) if isinstance(e, ProseDelta)).strip()
