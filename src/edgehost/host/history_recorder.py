"""The Host's history: every message, the answer being streamed and every tool execution, written to
the Store as the Host's events go by."""

from __future__ import annotations

from time import monotonic
from typing import Any

from edgehost.host import events as ev
from edgehost.store import Store

__all__ = ["CHECKPOINT_INTERVAL_S", "HistoryRecorder"]

CHECKPOINT_INTERVAL_S = 1.0  # a kill loses at most this much of the answer being generated


class HistoryRecorder:
    """``store`` is None until the Host has opened it; events before that are not recorded."""

    def __init__(self) -> None:
        self.store: Store | None = None
        self.partial: dict[int, tuple[int, str, float]] = {}  # conversation -> (message id, text, saved)
        self.running: dict[str, int] = {}  # call id -> execution id
        self.calling_message: dict[int, int] = {}  # conversation -> its last assistant message id

    def record(self, event: Any) -> None:
        """Commit each message as it completes, the partial answer at least once a second, and every
        tool execution: a kill loses at most the last second of the answer being generated."""
        store = self.store
        if store is None:
            return
        if isinstance(event, ev.MessageAppended):
            perf = event.perf.as_dict() if event.perf is not None else None
            conv_id = event.conversation_id
            if event.role == "assistant" and conv_id in self.partial:
                message_id = self.finish_partial(conv_id, event.content, perf)
            else:
                message_id = store.add_message(conv_id, event.role, event.content, name=event.name, perf=perf)
            if event.role == "assistant" and message_id is not None:
                self.calling_message[conv_id] = message_id  # the message whose calls run next
        elif isinstance(event, ev.TextDelta):
            message_id, text, saved = self.partial.get(event.conversation_id, (0, "", 0.0))
            if not message_id:
                message_id = store.begin_message(event.conversation_id, "assistant")
            text += event.text
            if monotonic() - saved >= CHECKPOINT_INTERVAL_S:
                store.update_partial(message_id, text)
                saved = monotonic()
            self.partial[event.conversation_id] = (message_id, text, saved)
        elif isinstance(event, ev.ToolExecutionStarted):
            self.running[event.call_id] = store.record_execution_started(
                server=event.server,
                tool=event.tool,
                arguments=event.arguments,
                conversation_id=event.conversation_id,
                message_id=self.calling_message.get(event.conversation_id),
                dialect=event.dialect or None,
                decision=event.decision,
                decided_by=event.decided_by,
                proposed_arguments=event.proposed_arguments,
            )
        elif isinstance(event, ev.ToolExecutionFinished):
            execution_id = self.running.pop(event.call_id, None)
            if execution_id is not None:
                store.record_execution_finished(
                    execution_id,
                    status=event.status,
                    result=event.full_result or event.result_text,
                    error=event.error,
                    duration_ms=event.duration_ms,
                )
            else:
                store.record_execution(
                    server=event.server,
                    tool=event.tool,
                    arguments=event.arguments,
                    status=event.status,
                    conversation_id=event.conversation_id,
                    message_id=self.calling_message.get(event.conversation_id),
                    dialect=event.dialect or None,
                    decision=event.decision,
                    decided_by=event.decided_by,
                    result=event.result_text,
                    error=event.error,
                    duration_ms=event.duration_ms,
                    result_size=event.result_size,
                )

    def finish_partial(
        self, conv_id: int, text: str | None = None, perf: dict[str, Any] | None = None
    ) -> int | None:
        """Complete the answer being streamed in ``conv_id``; returns its message id (None if none)."""
        partial = self.partial.pop(conv_id, None)
        if partial is None or self.store is None:
            return None
        message_id, streamed, _ = partial
        self.store.complete_message(message_id, text if text is not None else streamed, perf)
        return message_id
