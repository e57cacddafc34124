"""Small pieces of the density, coldstart and soak scenarios that need no processes."""

from __future__ import annotations

import io
import random
import socket
from types import SimpleNamespace

import pytest

from perflab import plan, procs, registry, results
from perflab.lab import Lab
from perflab.progress import Progress
from perflab.scenario import Context
from perflab.scenarios import coldstart, density, scaleup, soak
from perflab.store import Store


def _coldstart_run(tmp_path, monkeypatch, app_ms: list[float], reference_ms: list[float]) -> results.RunView:
    """coldstart.run against a stand-in reference whose launches (and the app's) take the given
    times, recorded into a real store and read back as the report reads it."""
    launches = {False: iter(app_ms), True: iter(reference_ms)}
    monkeypatch.setattr(coldstart, "find_reference",
                        lambda name: (SimpleNamespace(name="go-reference"), "native", ""))
    monkeypatch.setattr(coldstart, "_ttfr", lambda ctx, app, mode, tag, reference: SimpleNamespace(
        elapsed_ms=next(launches[reference]), url=f"http://{tag}/"))
    store = Store(tmp_path / "r.sqlite")
    the_plan = plan.validate({"name": "t", "coldstart": {"runs": len(app_ms)}, "startup": {"poll_ms": 5}}, "t")
    run_id = store.begin_run(the_plan.data, {})
    lab = Lab(store, run_id, the_plan, None, None, None, None, Progress([], stream=io.StringIO(), live=False),
              tmp_path)
    sc = registry.get("coldstart")
    sc.run(Context(lab, sc, SimpleNamespace(name="quarkus"), "jvm", the_plan.settings("coldstart")))
    store.finish_run(run_id, "complete")
    view = results.load(store, run_id)
    store.close()
    return view


def test_coldstart_records_one_difference_per_pair_and_the_drift_cancels(tmp_path, monkeypatch):
    # the machine slows down over the run and both sides with it: each pair differs by 900 ms
    view = _coldstart_run(tmp_path, monkeypatch, [1000.0, 1100.0, 1600.0, 1700.0], [100.0, 200.0, 700.0, 800.0])
    [diff] = view.find("coldstart", "ttfr_minus_reference_ms")
    assert diff.point == "pairs" and diff.values == [900.0, 900.0, 900.0, 900.0]
    assert (diff.summary.median, diff.summary.cv) == (900.0, 0.0)
    [raw] = view.find("coldstart", "ttfr_ms")
    assert raw.values == [1000.0, 1100.0, 1600.0, 1700.0] and "noisy" in raw.flags  # the launches drift
    [ref] = view.find("coldstart", "reference_ttfr_ms")
    assert ref.values == [100.0, 200.0, 700.0, 800.0]
    assert view.outcomes[0]["status"] == "ok"


def test_coldstart_result_is_the_median_of_the_differences_not_the_difference_of_medians(tmp_path, monkeypatch):
    # pairs (10, 0), (20, 15), (100, 30): differences 10, 5, 70 -> median 10;
    # medians 20 and 15 would give 5
    view = _coldstart_run(tmp_path, monkeypatch, [10.0, 20.0, 100.0], [0.0, 15.0, 30.0])
    [diff] = view.find("coldstart", "ttfr_minus_reference_ms")
    assert diff.values == [10.0, 5.0, 70.0]
    assert diff.summary.median == 10.0


def test_coldstart_pairs_must_match():
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
