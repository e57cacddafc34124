"""The contention probe on synthetic /proc contents: steal from /proc/stat, run-queue time from the
threads' schedstat, a window's figures and the contended threshold (against a real process:
tests/lab/test_contention.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from perflab.analysis import contention
from perflab.probes.contention import NOT_LOCAL, Probe, Reading, absent, steal_seconds, thread_times
from perflab.probes.proc import CLOCK_TICKS
from perflab.scenarios import steady
from perflab.store import point
from tests.unit.test_steady_measurement import _interval as _loaded

S = 1_000_000_000  # ns


def _stat(root: Path, steal_ticks: dict[str, int], columns: int = 10) -> None:
    """A /proc/stat whose cpu lines carry the given steal (8th value) and made-up other columns."""
    lines = []
    for name, steal in steal_ticks.items():
        values = [1000, 20, 300, 5000, 10, 0, 7, steal, 0, 0][:columns]
        lines.append(" ".join([name, *map(str, values)]))
    root.mkdir(parents=True, exist_ok=True)
    (root / "stat").write_text("\n".join(lines + ["intr 12345 0 0", "ctxt 999"]) + "\n")


def _threads(root: Path, pid: int, times: dict[int, tuple[int, int]]) -> None:
    for tid, (run, wait) in times.items():
        folder = root / str(pid) / "task" / str(tid)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "schedstat").write_text(f"{run} {wait} 42\n")


def test_steal_is_read_per_cpu_and_as_the_mean_of_the_hosts_cpus(tmp_path):
    _stat(tmp_path, {"cpu": 30 * CLOCK_TICKS, "cpu0": 10 * CLOCK_TICKS, "cpu1": 20 * CLOCK_TICKS})
    assert steal_seconds(tmp_path, [1]) == {"cpu": pytest.approx(15.0), "cpu1": pytest.approx(20.0)}
    assert steal_seconds(tmp_path) == {"cpu": pytest.approx(15.0)}  # the app's CPUs only when pinned


def test_a_kernel_without_the_steal_column_gives_no_steal(tmp_path):
    _stat(tmp_path, {"cpu": 0, "cpu0": 0}, columns=7)
    assert steal_seconds(tmp_path, [0]) == {}
    assert steal_seconds(tmp_path / "nowhere", [0]) == {}


def test_threads_times_come_from_their_schedstat(tmp_path):
    _threads(tmp_path, 7, {7: (5 * S, S), 8: (2 * S, 3 * S)})
    (tmp_path / "7" / "task" / "notathread").mkdir()
    assert thread_times(tmp_path, 7) == {7: (5 * S, S), 8: (2 * S, 3 * S)}
    assert thread_times(tmp_path, 99) is None  # gone


def test_a_kernel_without_schedstat_is_said_and_gives_no_threads(tmp_path):
    (tmp_path / "7" / "task" / "7").mkdir(parents=True)
    _stat(tmp_path, {"cpu": 0, "cpu0": 0})
    assert thread_times(tmp_path, 7) is None
    reading = Probe(lambda: [7], [0], proc_root=tmp_path).read()
    assert reading.threads == {} and "schedstat" in reading.why
    assert reading.steal_s == {"cpu": 0.0, "cpu0": 0.0}  # steal does not need schedstat


def _reading(t_s: float, steal: dict[str, float], threads: dict, throttled: float | None = None) -> Reading:
    return Reading(int(t_s * S), steal, threads, throttled)


def test_a_window_counts_the_threads_read_at_both_ends_and_says_how_many_were_not():
    a = _reading(10, {"cpu": 1.0, "cpu1": 2.0}, {(7, 7): (1 * S, 0), (7, 8): (0, S), (7, 9): (S, S)}, 0.5)
    # over 2 s thread 7 ran 1.2 s and waited 0.3 s, thread 8 ran 0.4 s and waited 0.1 s;
    # thread 9 exited (its wait is lost) and thread 10 appeared (no start to count from)
    b = _reading(12, {"cpu": 1.02, "cpu1": 2.1}, {(7, 7): (2.2 * S, 0.3 * S), (7, 8): (0.4 * S, 1.1 * S),
                                                   (7, 10): (S, 5 * S)}, 0.54)
    got = contention.window(a, b)
    assert got.figures["runqueue_wait_ms_per_s"][0] == pytest.approx(200.0)   # 400 ms over 2 s
    assert got.figures["runqueue_wait_pct"][0] == pytest.approx(20.0)         # 0.4 of 1.6 + 0.4 s
    assert got.figures["steal_pct"][0] == pytest.approx(5.0)                  # 0.1 s of cpu1 over 2 s
    assert got.details["steal_on"] == "cpu1" and got.details["host_steal_pct"] == pytest.approx(1.0)
    assert (got.details["threads"], got.details["threads_exited"], got.details["threads_appeared"]) == (2, 1, 1)
    assert got.details["throttled_ms_per_s"] == pytest.approx(20.0)
    assert got.contended


def test_an_app_not_pinned_is_judged_by_the_hosts_mean_steal():
    a, b = _reading(0, {"cpu": 3.0}, {}), _reading(10, {"cpu": 3.1}, {})
    got = contention.window(a, b)
    assert got.figures["steal_pct"][0] == pytest.approx(1.0)
    assert "not pinned" in got.details["steal_on"]


@pytest.mark.parametrize("stolen_s, contended", [(0.15, False), (0.25, True), (0.0, False)])
def test_a_launch_is_contended_above_two_percent_of_its_window_stolen(stolen_s, contended):
    a, b = _reading(0, {"cpu0": 5.0}, {}), _reading(10, {"cpu0": 5.0 + stolen_s}, {})
    assert contention.window(a, b).contended is contended


def test_off_this_machine_nothing_is_recorded_and_the_reason_is_kept():
    first = absent(NOT_LOCAL)
    got = contention.window(first, Reading(first.t_ns + S, {}, {}, None, NOT_LOCAL))
    assert got.figures == {} and not got.contended
    assert got.details["steal_why"] == NOT_LOCAL and got.details["runqueue_why"] == NOT_LOCAL


def _interval(t_s: float, seen: Reading) -> steady.Interval:
    return steady.Interval("measure", t_s, None, 0.95, None, seen)


def test_the_measured_window_opens_at_the_reading_that_ended_the_interval_before_it():
    readings = [_reading(t, {"cpu0": 0.01 * t * t}, {}) for t in range(5)]
    run = steady.PointRun(warmup=[_interval(1, readings[1])], opened=readings[0])
    run.measured = [_interval(t, readings[t]) for t in (2, 3, 4)]
    # steal 0.01 at t=1, 0.16 at t=4: 0.15 s over 3 s
    assert steady.measured_contention(run).figures["steal_pct"][0] == pytest.approx(5.0)
    run.warmup = []  # the window was the point's first intervals: from the point's opening reading
    assert steady.measured_contention(run).figures["steal_pct"][0] == pytest.approx(4.0)


def _recorded(opened: Reading, ends: list[Reading]) -> dict:
    """What steady's _record stores for a launch whose measured intervals ended at `ends`."""
    got: dict = {}
    ctx = SimpleNamespace(settings=steady.SteadySettings(), plan=SimpleNamespace(settings=lambda _: SimpleNamespace(
        enabled=False)), load_side=lambda *_: (False, ""), outcome=lambda *_, **__: None,
        record=lambda metric, value, unit, **kw: got.update({metric: (value, kw["flags"], kw["extra"])}))
    run = steady.PointRun(steady_at_s=5.0, why="steady", opened=opened)
    run.measured = [_loaded(1000, 6.0 + i) for i in range(len(ends))]
    for iv, seen in zip(run.measured, ends):
        iv.contention = seen
    steady.record(ctx, point("fruits c=4"), 1, run)
    return got


def test_a_launch_records_its_windows_contention_and_is_flagged_above_the_threshold():
    threads = {(7, 7): (0, 0)}
    ends = [_reading(t, {"cpu0": 0.05 * t}, {(7, 7): (int(0.6 * S * t), int(0.2 * S * t))}) for t in (1, 2, 3)]
    got = _recorded(_reading(0, {"cpu0": 0.0}, threads), ends)
    assert got["steal_pct"][0] == pytest.approx(5.0) and got["runqueue_wait_ms_per_s"][0] == pytest.approx(200.0)
    assert got["runqueue_wait_pct"][0] == pytest.approx(25.0)
    assert "contended" in got["rps"][1] and got["rps"][2]["contention"]["steal_on"] == "cpu0"
    calm = _recorded(_reading(0, {"cpu0": 0.0}, threads), [_reading(t, {"cpu0": 0.001 * t}, threads) for t in (1, 2, 3)])
    assert "contended" not in calm["rps"][1]


def test_a_launch_off_this_machine_records_no_contention_and_says_why():
    nothing = [Reading(t * S, {}, {}, None, NOT_LOCAL) for t in range(4)]
    got = _recorded(nothing[0], nothing[1:])
    assert not {"steal_pct", "runqueue_wait_ms_per_s", "runqueue_wait_pct"} & got.keys()
    assert got["rps"][2]["contention"]["steal_why"] == NOT_LOCAL
