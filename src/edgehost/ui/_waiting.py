"""Awaiting a Qt signal from asyncio, bounded: for the self-test, screenshots, benches and tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import SignalInstance

from edgehost.awaiting import wait_done

__all__ = ["SignalWaiter", "expect"]


class SignalWaiter:
    """Connected at creation, so an emission that happens before ``wait`` is not missed."""

    def __init__(self, signal: SignalInstance, predicate: Callable[..., bool] | None = None) -> None:
        self._signal = signal
        self._predicate = predicate
        self._future: asyncio.Future[tuple[Any, ...]] = asyncio.get_event_loop().create_future()
        signal.connect(self._slot)

    def _slot(self, *args: Any) -> None:
        if not self._future.done() and (self._predicate is None or self._predicate(*args)):
            self._future.set_result(args)

    async def wait(self, timeout: float) -> tuple[Any, ...]:  # noqa: ASYNC109 - the bound is the point
        """The arguments of the first matching emission. Raises TimeoutError after ``timeout`` s."""
        try:
            return await wait_done(self._future, timeout)
        finally:
            self._signal.disconnect(self._slot)


def expect(signal: SignalInstance, predicate: Callable[..., bool] | None = None) -> SignalWaiter:
    return SignalWaiter(signal, predicate)
