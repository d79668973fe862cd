"""Waiting for a future with a bound, the one way EdgeHost does it.

``asyncio.wait_for(asyncio.shield(future), timeout)`` loses a cancellation before Python 3.12: when the
waiter is cancelled just as the future completes, wait_for returns the future's result and the
cancellation is gone (a Stop pressed as a turn began was ignored, and the whole answer ran).
``asyncio.wait`` does not: the waiter's cancellation always propagates, and the future is never
cancelled by the wait.
"""

from __future__ import annotations

import asyncio
from typing import TypeVar

__all__ = ["WaitTimedOut", "wait_done"]

T = TypeVar("T")

# Caught as TimeoutError and as asyncio.TimeoutError alike: they are one class from Python 3.11, two before.
_BASES: tuple[type, ...] = (
    (TimeoutError,) if asyncio.TimeoutError is TimeoutError else (asyncio.TimeoutError, TimeoutError)
)
WaitTimedOut: type[Exception] = type("WaitTimedOut", _BASES, {"__doc__": "The bound of wait_done ran out."})


async def wait_done(future: asyncio.Future[T], timeout: float | None) -> T:  # noqa: ASYNC109 - the bound is the point
    """The result of ``future`` once it is done, waiting at most ``timeout`` seconds (None: no bound);
    ``future`` goes on when the bound runs out or the waiter is cancelled. Raises WaitTimedOut (a
    TimeoutError), or what the future raised."""
    if not future.done():
        await asyncio.wait({future}, timeout=timeout)
        if not future.done():
            raise WaitTimedOut(f"not done within {timeout:g} s" if timeout is not None else "not done")
    return future.result()
