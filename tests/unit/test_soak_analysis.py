"""The soak's analysis without processes: the drift fit and verdict on synthetic series, GC log
parsing on real JDK 17 logs, the interval plan."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from scipy import stats as scipy_stats

from perflab.scenarios import drift, gclog, soak

FIXTURES = Path(__file__).parent.parent / "fixtures" / "gc"


# --- drift -----------------------------------------------------------------------------------

def _series(n: int, step_s: float, level: float, per_hour: float, noise: float, seed: int = 1):
    rng = random.Random(seed)
    times = [i * step_s for i in range(n)]
    return times, [level + per_hour * t / 3600 + rng.gauss(0, noise) for t in times]


def test_an_exact_line_gives_its_slope_per_hour_with_no_uncertainty():
    times = [0.0, 600.0, 1200.0, 1800.0]
    values = [100.0 + 0.01 * t for t in times]  # 0.01 MB/s = 36 MB/h
    d = drift.fit(times, values)
    assert d.slope_per_h == pytest.approx(36.0)
    assert d.stderr_per_h == pytest.approx(0.0, abs=1e-9)
    assert d.verdict == drift.GROWING


def test_a_flat_wobbling_series_worked_by_hand():
    # 6 points 10 min apart, values mirror-symmetric in time: the slope is exactly 0.
    # t - mean: -1500, -900, -300, 300, 900, 1500 s -> Sxx = 2 (1500^2 + 900^2 + 300^2) = 6.3e6;
    # residuals 0, 2, -2, -2, 2, 0 -> variance 16 / (6 - 2) = 4; stderr = sqrt(4 / 6.3e6) MB/s
    # = 2.8685 MB/h; 95 % half-width t(4) = 2.776 x 2.8685 = 7.963 MB/h.
    times = [i * 600.0 for i in range(6)]
    d = drift.fit(times, [200.0, 202.0, 198.0, 198.0, 202.0, 200.0])
    assert d.slope_per_h == pytest.approx(0.0, abs=1e-9)
    assert d.stderr_per_h == pytest.approx(2.8685, rel=1e-4)
    assert (d.ci_low_per_h, d.ci_high_per_h) == (pytest.approx(-7.963, rel=1e-3), pytest.approx(7.963, rel=1e-3))
    assert d.threshold_per_h == pytest.approx(2.0)  # 1 % of the mean 200 per hour
    assert d.verdict == drift.STABLE and d.reason == "the 95 % interval of the slope includes 0"


def test_a_flat_noisy_series_is_stable_and_fitted_like_scipy():
    times, values = _series(12, 10.0, 200.0, 0.0, noise=2.0)
    d = drift.fit(times, values)
    reference = scipy_stats.linregress(times, values)  # an independent least-squares fit
    assert d.slope_per_h == pytest.approx(reference.slope * 3600)
    assert d.stderr_per_h == pytest.approx(reference.stderr * 3600)
    half = scipy_stats.t.ppf(0.975, len(times) - 2) * reference.stderr * 3600
    assert d.ci_low_per_h == pytest.approx(d.slope_per_h - half, rel=1e-3)
    assert d.ci_high_per_h == pytest.approx(d.slope_per_h + half, rel=1e-3)
    assert d.verdict == drift.STABLE
    assert d.reason.startswith("the 95 % interval of the slope includes 0")
    assert "1.8 min only" in d.reason  # 110 s of data: said to be too short to tell


def test_a_rising_series_is_growing_and_its_interval_holds_the_true_slope():
    times, values = _series(30, 360.0, 200.0, 50.0, noise=1.0)  # 3 h, +50 MB/h
    d = drift.fit(times, values)
    assert d.verdict == drift.GROWING
    assert d.ci_low_per_h < 50.0 < d.ci_high_per_h
    assert d.ci_low_per_h > 0


def test_a_falling_series_is_not_called_growing():
    times, values = _series(30, 360.0, 300.0, -40.0, noise=1.0)
    assert drift.fit(times, values).verdict == drift.SHRINKING


def test_a_small_but_certain_slope_is_stable_below_the_threshold():
    # +0.5 MB/h on 500 MB with no noise: certain, but below 1 % of the level per hour
    times = [i * 600.0 for i in range(10)]
    d = drift.fit(times, [500.0 + 0.5 * t / 3600 for t in times])
    assert d.ci_low_per_h > 0 and d.verdict == drift.STABLE
    assert d.threshold_per_h == pytest.approx(5.0, rel=0.01)


def test_too_few_points_give_no_verdict():
    assert drift.fit([0.0, 10.0], [1.0, 2.0]).verdict == drift.UNDETERMINED
    assert drift.fit([5.0, 5.0, 5.0], [1.0, 2.0, 3.0]).verdict == drift.UNDETERMINED
    with pytest.raises(ValueError):
        drift.fit([0.0, 1.0], [1.0])


def test_t_quantiles_shrink_towards_the_normal_one():
    assert drift.t975(1) == pytest.approx(12.706)
    assert drift.t975(10) == pytest.approx(2.228)
    values = [drift.t975(df) for df in (1, 2, 5, 30, 31, 45, 90, 200, 10_000)]
    assert values == sorted(values, reverse=True)
    assert drift.t975(10_000) == pytest.approx(drift.Z975, abs=0.01)
    with pytest.raises(ValueError):
        drift.t975(0)


def test_the_soak_fit_leaves_out_the_warm_up_interval_when_there_are_enough():
    def interval(i, rss):
        return soak.Interval(i, i * 10.0, i * 10.0 + 10.0, result=None, rss_mean_mb=rss, gc=None)

    # a big first-interval jump (heap sizing), flat afterwards: stable once the first is left out
    intervals = [interval(0, 100.0)] + [interval(i, 180.0 + (i % 2) * 0.5) for i in range(1, 8)]
    d = soak.rss_drift(intervals)
    assert d.n == 7 and d.verdict == drift.STABLE
    short = [interval(i, 100.0 + i) for i in range(3)]
    assert soak.rss_drift(short).n == 3


# --- GC logs ---------------------------------------------------------------------------------

# counted in the fixture files with grep (') Pause ', ') Pause Young', ') Pause Full') and the
# times before "ms" added up; G1's other 6 pauses are Remark and Cleanup
@pytest.mark.parametrize("name, collector, ids, young, fulls, pauses, total_ms, max_ms", [
    ("jdk17-serial.log", "Serial", 120, 116, 4, 120, 33.281, 3.508),
    ("jdk17-g1.log", "G1", 51, 47, 1, 54, 53.252, 4.186),
])
def test_real_jdk17_gc_logs_are_counted(name, collector, ids, young, fulls, pauses, total_ms, max_ms):
    events, found = gclog.parse((FIXTURES / name).read_text())
    summary = gclog.summarize(events, found)
    assert summary.collector == collector
    assert summary.collections == ids  # GC(0) .. GC(n): one id per collection or concurrent cycle
    assert summary.pauses == pauses
    assert summary.pause_total_ms == pytest.approx(total_ms)
    assert summary.pause_max_ms == max_ms
    assert (summary.young_pauses, summary.full_pauses) == (young, fulls)


def test_g1_remark_and_cleanup_are_pauses_of_their_concurrent_cycle():
    events = [gclog.parse_line(line) for line in [
        "[0.156s][info][gc] GC(22) Concurrent Mark Cycle",
        "[0.163s][info][gc] GC(22) Pause Remark 38M->27M(48M) 0.410ms",
        "[0.164s][info][gc] GC(22) Pause Cleanup 27M->27M(48M) 0.025ms",
        "[0.165s][info][gc] GC(22) Concurrent Mark Cycle 9.109ms",
    ]]
    assert [e.kind for e in events] == ["concurrent", "other-pause", "other-pause", "concurrent"]
    summary = gclog.summarize(events)
    assert (summary.collections, summary.pauses) == (1, 2)
    assert summary.pause_total_ms == pytest.approx(0.435)
    assert gclog.parse_line("[0.003s][info][gc] Using G1") is None


def test_the_follower_reads_a_growing_log_in_pieces(tmp_path):
    text = (FIXTURES / "jdk17-g1.log").read_bytes()
    log = tmp_path / "gc.log"
    follower = gclog.GcLogFollower(log)
    assert follower.read_new().collections == 0  # no file yet
    cut = text.index(b"GC(23)") + 10  # in the middle of a line
    log.write_bytes(text[:cut])
    first = follower.read_new()
    with open(log, "ab") as fh:
        fh.write(text[cut:])
    second = follower.read_new()
    whole = gclog.summarize(*gclog.parse(text.decode()))
    assert first.collector == "G1"
    assert first.pauses + second.pauses == whole.pauses
    assert first.pause_total_ms + second.pause_total_ms == pytest.approx(whole.pause_total_ms)
    assert first.collections + second.collections == whole.collections
    assert second.full_pauses == 1  # GC(23) Pause Full: its line was unfinished at the first read


def test_the_jvm_option_names_the_file_and_disables_rotation(tmp_path):
    option = gclog.jvm_gc_log_option(tmp_path / "gc.log")
    assert option == f"-Xlog:gc:file={tmp_path / 'gc.log'}:uptime,level,tags:filecount=0"


# --- intervals -------------------------------------------------------------------------------

def test_the_interval_plan_fits_whole_intervals_into_the_duration():
    assert soak.interval_plan(120, 10, whole_seconds=True) == (12, 10.0)
    assert soak.interval_plan(6, 2, whole_seconds=True) == (3, 2.0)
    assert soak.interval_plan(7, 2, whole_seconds=True) == (3, 2.0)
    assert soak.interval_plan(1, 10, whole_seconds=True) == (1, 10.0)
    assert soak.interval_plan(3, 1.4, whole_seconds=True) == (3, 1.0)  # wrk takes whole seconds
    assert soak.interval_plan(3, 1.5, whole_seconds=False) == (2, 1.5)
