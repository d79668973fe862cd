"""Host events numbered and fanned out to every connected page, with the recent ones kept for resuming.

A page that loses its WebSocket reconnects and asks for the events after the last number it saw: it
gets exactly those (nothing lost, nothing twice) while they are still kept; otherwise it is told to
reload what it shows. Numbers start again when the process does: the hub's ``epoch`` tells a page
that it is talking to a new process.
"""

from __future__ import annotations

import asyncio
import collections
import uuid
from collections.abc import Callable
from typing import Any

from edgehost.web.wire import event_json

__all__ = ["EventHub", "Subscriber"]

KEEP_EVENTS = 20_000  # a long answer streams a few thousand deltas; keep several turns of them
CLIENT_QUEUE = 10_000  # a page that falls this far behind is dropped (it reconnects and resumes)


class Subscriber:
    """One page's outgoing messages, in order."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(CLIENT_QUEUE)
        self.dropped = False

    def put(self, message: dict[str, Any]) -> None:
        if self.dropped:
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.dropped = True  # its socket is closed by the sender; the page resumes from `seq`
            self.queue.get_nowait()
            self.queue.put_nowait(None)


class EventHub:
    def __init__(self, keep: int = KEEP_EVENTS) -> None:
        self.epoch = uuid.uuid4().hex
        self.seq = 0
        self._kept: collections.deque[dict[str, Any]] = collections.deque(maxlen=keep)
        self._subscribers: set[Subscriber] = set()

    def __call__(self, event: Any) -> None:
        """The host's listener: number the event, keep it, send it to every page."""
        self.seq += 1
        message = event_json(self.seq, event)
        self._kept.append(message)
        for subscriber in list(self._subscribers):
            subscriber.put(message)

    def subscribe(self) -> tuple[Subscriber, Callable[[], None]]:
        subscriber = Subscriber()
        self._subscribers.add(subscriber)
        return subscriber, lambda: self._subscribers.discard(subscriber)

    def since(self, seq: int, epoch: str | None) -> list[dict[str, Any]] | None:
        """The kept events after ``seq`` of this process (``epoch``), or None when some of them are
        no longer kept or the page saw another process: it must reload instead."""
        if epoch != self.epoch or seq > self.seq:
            return None
        if seq == self.seq:
            return []
        if not self._kept or self._kept[0]["seq"] > seq + 1:
            return None
        start = seq + 1 - self._kept[0]["seq"]
        return list(self._kept)[start:]
