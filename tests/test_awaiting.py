"""wait_done: a bounded wait that never loses the waiter's cancellation and never cancels what it waits
for (asyncio.wait_for(asyncio.shield(...)) lost a cancellation that came as the future completed)."""

from __future__ import annotations

import asyncio

import pytest

from edgehost.awaiting import wait_done


async def test_a_cancel_that_comes_as_the_future_completes_still_cancels_the_waiter() -> None:
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    waiter = asyncio.create_task(wait_done(future, 10))
    await asyncio.sleep(0)  # the waiter is waiting
    future.set_result(1)
    waiter.cancel()  # in the same turn of the loop: a Stop pressed as the model finished loading
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert future.result() == 1


async def test_the_bound_raises_a_timeout_both_kinds_of_handler_catch_and_the_future_goes_on() -> None:
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    with pytest.raises(TimeoutError):
        await wait_done(future, 0.01)
    with pytest.raises(asyncio.TimeoutError):
        await wait_done(future, 0.01)
    assert not future.cancelled()
    future.set_result(7)
    assert await wait_done(future, 0.01) == 7


async def test_the_futures_own_failure_is_raised() -> None:
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    future.set_exception(ValueError("no model"))
    with pytest.raises(ValueError, match="no model"):
        await wait_done(future, 1)
