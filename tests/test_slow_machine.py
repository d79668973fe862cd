"""EDGEHOST_WAIT_SCALE: the factor on EdgeHost's own waits on an emulator or a slow board."""

from __future__ import annotations

import pytest

from edgehost.slow_machine import scaled_wait, wait_scale


def test_without_the_variable_waits_are_as_written(monkeypatch) -> None:
    monkeypatch.delenv("EDGEHOST_WAIT_SCALE", raising=False)
    assert scaled_wait(60.0) == 60.0


@pytest.mark.parametrize(("value", "factor"), [("12", 12.0), (" 2.5 ", 2.5), ("0.1", 1.0), ("", 1.0)])
def test_the_variable_lengthens_waits_and_never_shortens_them(monkeypatch, value, factor) -> None:
    monkeypatch.setenv("EDGEHOST_WAIT_SCALE", value)
    assert wait_scale() == factor
    assert scaled_wait(10.0) == 10.0 * factor


@pytest.mark.parametrize("value", ["twelve", "nan", "inf"])
def test_a_value_that_is_not_a_finite_number_is_named_in_the_error(monkeypatch, value) -> None:
    monkeypatch.setenv("EDGEHOST_WAIT_SCALE", value)
    with pytest.raises(ValueError, match=f"EDGEHOST_WAIT_SCALE='{value}' is not a"):
        scaled_wait(1.0)
