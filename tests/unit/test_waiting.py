"""wait_until: the first true answer ends the wait and is returned; a deadline gives None after a
last look; an exception from the check ends the wait at once."""

from __future__ import annotations

import time

import pytest

from perflab.waiting import wait_until

pytestmark = pytest.mark.alone  # wall-clock bounds of a second: nothing may run beside them


def test_the_first_true_answer_is_returned_without_waiting_further():
    answers = iter([None, 0, "", "ready", "later"])
    started = time.monotonic()
    assert wait_until(lambda: next(answers), timeout_s=5, interval_s=0.01) == "ready"
    assert time.monotonic() - started < 1


def test_a_condition_that_never_holds_gives_none_at_the_deadline_after_a_last_look():
    calls = []
    started = time.monotonic()
    assert wait_until(lambda: calls.append(time.monotonic()), timeout_s=0.2, interval_s=0.05) is None
    assert 0.2 <= time.monotonic() - started < 1.5
    assert calls[-1] - started >= 0.2 and len(calls) >= 3


def test_an_exception_from_the_check_ends_the_wait_at_once():
    def exited():
        raise RuntimeError("the process exited")
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="exited"):
        wait_until(exited, timeout_s=10)
    assert time.monotonic() - started < 1
