"""Updates of one resource while someone watches it: ``resources/subscribe`` and the
``notifications/resources/updated`` that follow on a 2025 connection, a ``subscriptions/listen``
stream on a 2026-07-28 one. Either way the watcher gets an async iterator of the URI, once per update
(updates that arrive before the last was taken become one: the watcher reads the resource anew)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.subscriptions import ResourceUpdated

__all__ = ["UpdateListeners", "listened_updates", "send_subscription"]


class UpdateListeners:
    """Who waits for which URI's update notifications on one 2025 connection."""

    def __init__(self) -> None:
        # uri -> {id() of a watcher's receive stream: the stream its updates are sent on}
        self._waiting: dict[str, dict[int, MemoryObjectSendStream[str]]] = {}

    def add(self, uri: str) -> MemoryObjectReceiveStream[str]:
        # One pending update is enough: the watcher reads the resource again anyway.
        send, receive = anyio.create_memory_object_stream[str](1)
        self._waiting.setdefault(uri, {})[id(receive)] = send
        return receive

    def remove(self, uri: str, receive: MemoryObjectReceiveStream[str]) -> bool:
        """Stop telling ``receive``; True when nobody waits for ``uri`` any more (unsubscribe then)."""
        waiting = self._waiting.get(uri, {})
        send = waiting.pop(id(receive), None)
        if send is not None:
            send.close()
        receive.close()
        if not waiting:
            self._waiting.pop(uri, None)
            return True
        return False

    def updated(self, uri: str) -> None:
        for send in self._waiting.get(uri, {}).values():
            try:
                send.send_nowait(uri)
            except (anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass  # an update is already waiting to be taken, or the watcher has gone

    def end_all(self) -> None:
        """The connection ended: every watcher's iteration ends."""
        for senders in self._waiting.values():
            for send in senders.values():
                send.close()
        self._waiting.clear()


@asynccontextmanager
async def listened_updates(client: Any, uri: str) -> AsyncIterator[AsyncIterator[str] | None]:
    """A ``subscriptions/listen`` stream for ``uri`` on a 2026-07-28 ``client``: the iterator of its
    updates, or None when the server does not honour the subscription. Raises as ``Client.listen``."""
    async with client.listen(resource_subscriptions=[uri]) as subscription:
        if uri not in (subscription.honored.resource_subscriptions or ()):
            yield None
            return

        async def updates() -> AsyncIterator[str]:
            async for event in subscription:
                if isinstance(event, ResourceUpdated) and event.uri == uri:
                    yield uri

        yield updates()


async def send_subscription(client: Any, uri: str, *, subscribe: bool) -> types.EmptyResult:
    """resources/subscribe or /unsubscribe, the requests of a 2025 connection (the SDK marks its own
    methods for them deprecated: 2026-07-28 connections use subscriptions/listen instead)."""
    request: types.SubscribeRequest | types.UnsubscribeRequest = (
        types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
        if subscribe
        else types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri))
    )
    return await client.session.send_request(request, types.EmptyResult)
