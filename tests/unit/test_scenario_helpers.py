"""Small pieces of the density, coldstart and soak scenarios that need no processes."""

from __future__ import annotations

import random
import socket
from types import SimpleNamespace

import pytest

from perflab import plan, procs, stats
from perflab.scenarios import coldstart, density, scaleup, soak


def test_coldstart_takes_the_median_of_paired_differences():
    # the machine slows down over the run and both sides with it: pairs cancel the drift
    app = [1000.0, 1100.0, 1600.0, 1700.0]
    ref = [100.0, 200.0, 700.0, 800.0]
    diffs = coldstart.paired_differences(app, ref)
    assert diffs == [900.0, 900.0, 900.0, 900.0]
    assert stats.summarize(diffs).median == 900.0 and stats.summarize(diffs).cv == 0.0
    assert stats.summarize(app).cv > 0.2, "the raw launches spread with the drift; their differences do not"
    # the median of the differences is not the difference of the medians
    app, ref = [10.0, 20.0, 100.0], [0.0, 15.0, 30.0]
    assert stats.median(coldstart.paired_differences(app, ref)) == 10.0
    assert stats.median(app) - stats.median(ref) == 5.0
    with pytest.raises(ValueError):
        coldstart.paired_differences([1.0, 2.0], [1.0])


def test_coldstart_difference_can_be_negative():
    assert coldstart.paired_differences([5.0], [7.5]) == [-2.5]


def test_listen_ports_are_free_and_outside_the_ephemeral_range():
    low, high = procs.ephemeral_range()
    lo, hi = procs.candidate_range()
    assert hi < low or lo > high
    rng = random.Random(7)
    for _ in range(5):
        port = procs.free_port(rng)
        assert lo <= port <= hi
        with socket.socket() as s:
            s.bind(("", port))  # free: an app can bind it


def test_a_port_taken_between_choice_and_bind_is_recognised(tmp_path):
    log = tmp_path / "app.log"
    log.write_text("Traceback ...\nOSError: [Errno 98] Address already in use\n")
    gone = SimpleNamespace(exited=lambda: 1, log_path=log)
    assert density.lost_its_port(gone)
    assert not density.lost_its_port(SimpleNamespace(exited=lambda: None, log_path=log))
    log.write_text("java.lang.OutOfMemoryError\n")
    assert not density.lost_its_port(gone)
