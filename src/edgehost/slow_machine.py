"""How long EdgeHost's own waits are on this machine: EDGEHOST_WAIT_SCALE multiplies the bounds it
puts on things that are merely slow (a model load, the ranking process's answer, a server start, the
self-test's turn). 1 on a board; more under an emulator (`make test-arm64` runs AArch64 code under
qemu-user, 5-100x slower). A bound is never shortened: values below 1 count as 1."""

from __future__ import annotations

import os

__all__ = ["WAIT_SCALE_VARIABLE", "scaled_wait", "wait_scale"]

WAIT_SCALE_VARIABLE = "EDGEHOST_WAIT_SCALE"


def wait_scale() -> float:
    """The factor from the environment; an unreadable value is a clear error, not a silent 1."""
    text = os.environ.get(WAIT_SCALE_VARIABLE, "").strip()
    if not text:
        return 1.0
    try:
        factor = float(text)
    except ValueError:
        raise ValueError(f"{WAIT_SCALE_VARIABLE}={text!r} is not a number (for example 12)") from None
    if factor != factor or factor in (float("inf"), float("-inf")):
        raise ValueError(f"{WAIT_SCALE_VARIABLE}={text!r} is not a finite number")
    return max(1.0, factor)


def scaled_wait(seconds: float) -> float:
    return seconds * wait_scale()
