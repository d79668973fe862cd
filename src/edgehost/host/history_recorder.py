"""The Host's history: every message, the answer being streamed and every tool execution, written to
the Store as the Host's events go by.

The writes happen on a thread of their own, in the order of the events (write-behind): a turn makes
about seven SQLite transactions of ~0.3 ms each, which the event loop (the GUI's, on a board) no
longer waits for. The store waits for this queue before any other read or write, so whoever reads
the history (a panel, the CLI, a test) sees every event recorded before.
"""

from __future__ import annotations

import collections
import logging
import queue
import threading
from collections.abc import Callable
from time import monotonic
from typing import Any

from edgehost.host import events as ev
from edgehost.host.denials import denial_text
from edgehost.store import Store

__all__ = ["CHECKPOINT_INTERVAL_S", "HistoryRecorder"]

log = logging.getLogger(__name__)

# A kill loses at most this much of the answer being generated (and the writes still queued: the
# few milliseconds the writer thread is behind).
CHECKPOINT_INTERVAL_S = 1.0
ENDED_CALLS_KEPT = 500  # calls whose execution id is kept (execution_of_call)

_Job = Callable[[], None]


class HistoryRecorder:
    """``attach`` a Store to start recording; events before that are not recorded. ``close`` writes
    what is queued and stops the writer thread (before the store is closed)."""

    def __init__(self, answered_by: Callable[[], tuple[str, str]] = lambda: ("", "")) -> None:
        """``answered_by()``: the (model, backend) answering now, kept with each answer."""
        self._answered_by = answered_by
        self._store: Store | None = None
        # The event loop's side: the answer being streamed in each conversation (text, last checkpoint).
        self._streamed: dict[int, tuple[str, float]] = {}
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._pending = 0
        self._idle = threading.Condition()
        self._writer: threading.Thread | None = None
        # The writer's side (touched by its thread only).
        self._partial_ids: dict[int, int] = {}  # conversation -> its checkpointed partial answer
        self._running: dict[str, int] = {}  # call id -> execution id
        # The same for the last calls that ended, for a face that knows a call by its id only (the
        # window's "Open the view"). Written by the writer thread; read after wait().
        self._ended: collections.OrderedDict[str, int] = collections.OrderedDict()
        self._calling_message: dict[int, int] = {}  # conversation -> its last assistant message id

    @property
    def store(self) -> Store | None:
        return self._store

    def attach(self, store: Store) -> None:
        self._store = store
        store.set_write_behind(self.wait)
        self._writer = threading.Thread(target=self._write_jobs, name="edgehost-history", daemon=True)
        self._writer.start()

    def close(self) -> None:
        """Write what is queued, then stop the writer (idempotent)."""
        writer = self._writer
        if writer is None:
            return
        self.wait()
        self._jobs.put(None)
        writer.join()
        self._writer = None
        if self._store is not None:
            self._store.set_write_behind(None)

    def wait(self) -> None:
        """Return once every write queued so far is in the store (at once on the writer's thread)."""
        if threading.current_thread() is self._writer:
            return
        with self._idle:
            self._idle.wait_for(lambda: self._pending == 0)

    def record(self, event: Any) -> None:
        """Queue each message as it completes, the partial answer at least once a second, and every
        tool execution: a kill loses at most the last second of the answer being generated."""
        if self._store is None or self._writer is None:
            return
        if isinstance(event, ev.TextDelta):
            # The row is written at the first checkpoint, a second into the answer: most replies are
            # done by then and cost one insert instead of an insert and two updates.
            conv_id = event.conversation_id
            text, saved = self._streamed.get(conv_id, ("", monotonic()))
            text += event.text
            if monotonic() - saved >= CHECKPOINT_INTERVAL_S:
                self._queue(self._checkpoint, conv_id, text, self._answered_by())
                saved = monotonic()
            self._streamed[conv_id] = (text, saved)
        elif isinstance(event, ev.MessageAppended):
            if event.role == "assistant":
                self._streamed.pop(event.conversation_id, None)
            self._queue(self._write_message, event, self._answered_by())
        elif isinstance(event, (ev.ToolExecutionStarted, ev.ToolExecutionFinished)):
            self._queue(self._write_execution, event)

    def finish_partial(self, conv_id: int) -> None:
        """Keep the answer being streamed in ``conv_id`` as it stands (the turn failed or was stopped)."""
        streamed = self._streamed.pop(conv_id, None)
        if streamed is not None and self._writer is not None:
            self._queue(self._finish, conv_id, streamed[0], self._answered_by())

    def execution_of_call(self, call_id: str) -> int | None:
        """The id of the recorded execution of one of the last calls that ended (None: unknown)."""
        self.wait()
        return self._ended.get(call_id)

    def remember_tools(self, server: str, tools: list[dict[str, Any]]) -> None:
        """Queue ``tools`` as what ``server`` lists now (host/known_tools.py)."""
        if self._writer is not None:
            self._queue(lambda: self._writing().known_tools.remember(server, tools))

    # ------------------------------------------------------------------ the event loop's side
    def _queue(self, write: Callable[..., Any], *args: Any) -> None:
        with self._idle:
            self._pending += 1
        self._jobs.put(lambda: write(*args))

    # ------------------------------------------------------------------ the writer thread
    def _write_jobs(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job()
            except Exception:  # one failed write (a full disk) must not stop the ones after it
                log.exception("could not write to the history")
            finally:
                with self._idle:
                    self._pending -= 1
                    if self._pending == 0:
                        self._idle.notify_all()

    def _checkpoint(self, conv_id: int, text: str, answered_by: tuple[str, str]) -> None:
        store = self._writing()
        message_id = self._partial_ids.get(conv_id)
        if message_id is None:
            model, backend = answered_by
            message_id = self._partial_ids[conv_id] = store.begin_message(
                conv_id, "assistant", model=model or None, backend=backend or None
            )
        store.update_partial(message_id, text)

    def _finish(self, conv_id: int, text: str, answered_by: tuple[str, str]) -> None:
        message_id = self._partial_ids.pop(conv_id, None)
        if message_id is not None:
            self._writing().complete_message(message_id, text)
        elif text:
            model, backend = answered_by
            self._writing().add_message(
                conv_id, "assistant", text, model=model or None, backend=backend or None
            )

    def _write_message(self, event: ev.MessageAppended, answered_by: tuple[str, str]) -> None:
        store = self._writing()
        perf = event.perf.as_dict() if event.perf is not None else None
        conv_id = event.conversation_id
        if event.role != "assistant":
            store.add_message(
                conv_id,
                event.role,
                event.content,
                name=event.name,
                perf=perf,
                tool_call_id=event.tool_call_id,
            )
            return
        message_id = self._partial_ids.pop(conv_id, None)
        if message_id is not None:
            store.complete_message(message_id, event.content, perf)
        else:
            model, backend = answered_by
            message_id = store.add_message(
                conv_id,
                "assistant",
                event.content,
                name=event.name,
                perf=perf,
                model=model or None,
                backend=backend or None,
            )
        self._calling_message[conv_id] = message_id  # the message whose calls run next

    def _write_execution(self, event: ev.ToolExecutionStarted | ev.ToolExecutionFinished) -> None:
        store = self._writing()
        call: dict[str, Any] = {  # what both ways of recording an execution take
            "server": event.server,
            "tool": event.tool,
            "arguments": event.arguments,
            "conversation_id": event.conversation_id,
            "message_id": self._calling_message.get(event.conversation_id or 0),
            "dialect": event.dialect or None,
            "decision": event.decision,
            "decided_by": event.decided_by,
            "chosen_by": event.chosen_by,
        }
        if isinstance(event, ev.ToolExecutionStarted):
            self._running[event.call_id] = store.record_execution_started(
                **call, proposed_arguments=event.proposed_arguments
            )
            return
        execution_id = self._running.pop(event.call_id, None)
        if execution_id is not None:
            self._remember_ended(event.call_id, execution_id)
            store.record_execution_finished(
                execution_id,
                status=event.status,
                result=event.full_result or event.result_text,
                error=event.error,
                duration_ms=event.duration_ms,
                structured_result=event.structured_result,
            )
            return
        result: str | None = event.result_text
        error = event.error
        if event.status == "denied":  # it never ran: why, as every face says it, and no result
            result, error = None, denial_text(event.decided_by, event.error)
        recorded = store.record_execution(
            **call,
            status=event.status,
            result=result,
            error=error,
            duration_ms=event.duration_ms,
            result_size=event.result_size if result is not None else None,
            structured_result=event.structured_result if result is not None else None,
        )
        self._remember_ended(event.call_id, recorded)

    def _remember_ended(self, call_id: str, execution_id: int) -> None:
        self._ended[call_id] = execution_id
        while len(self._ended) > ENDED_CALLS_KEPT:
            self._ended.popitem(last=False)

    def _writing(self) -> Store:
        assert self._store is not None  # jobs are only queued once a store is attached
        return self._store
