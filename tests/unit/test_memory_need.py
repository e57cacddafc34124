"""The memory-need rule on step records: the smallest setting keeping 90 % of the best throughput,
judged on clean steps only (a step that fails fast with errors, is OOM-killed or whose app died
never counts, nor raises the best), each exclusion named, and a verdict within the steps' noise
said to be so."""

from __future__ import annotations

from perflab.analysis.memory_need import Step, excluded_because, judge

TOLERANCE = 0.001


def _clean(limit: int, heap: int | None, rps: float, half_width: float | None = 10.0) -> Step:
    return Step(limit, heap, rps, half_width, requests=int(rps * 10))


def test_the_smallest_clean_setting_keeping_the_share_of_the_best():
    steps = [_clean(704, 512, 1000.0), _clean(448, 256, 950.0), _clean(320, 128, 700.0),
             Step(256, 64, 0.0, failed="OOM-killed while warming up", oom_kills=1)]
    assert judge(steps, 0.90, TOLERANCE).needed.limit_mb == 448
    assert judge(steps, 0.70, TOLERANCE).needed.limit_mb == 320
    assert judge(steps, 0.96, TOLERANCE).needed.limit_mb == 704


def test_a_step_failing_fast_with_errors_neither_counts_nor_raises_the_best():
    # at 448 MB the app answers 503s at once: more "requests" a second than it ever served
    failing = Step(448, 256, 1500.0, 5.0, requests=15000, errors=9000)
    steps = [_clean(704, 512, 1000.0), failing, _clean(320, 128, 700.0)]
    j = judge(steps, 0.90, TOLERANCE)
    assert j.best.limit_mb == 704 and j.line == 900.0
    assert j.needed.limit_mb == 704  # not the erroring 448, and 700 req/s at 320 MB misses the line
    assert [(s.limit_mb, why) for s, why in j.excluded] == [(448, "9,000 errors in 15,000 requests (more than 0.1%)")]
    assert j.verdict(failing).startswith("excluded: 9,000 errors")


def test_the_smallest_step_failing_fast_is_not_the_memory_needed():
    steps = [_clean(512, None, 5000.0), _clean(128, None, 4800.0),
             Step(32, None, 9000.0, 5.0, requests=90000, errors=90000)]
    j = judge(steps, 0.90, TOLERANCE)
    assert j.needed.limit_mb == 128
    assert not j.lower_bound  # a smaller setting was tried: it failed


def test_oom_kills_and_a_dead_app_exclude_a_step_whatever_its_throughput():
    oom = Step(320, 128, 990.0, 10.0, requests=9900, oom_kills=1)
    died = Step(256, 64, 980.0, 10.0, requests=9800, failed="the app exited (code 137)")
    j = judge([_clean(704, 512, 1000.0), oom, died], 0.90, TOLERANCE)
    assert j.needed.limit_mb == 704
    assert dict((s.limit_mb, why) for s, why in j.excluded) == {
        320: "1 OOM kill", 256: "the app did not serve: the app exited (code 137)"}


def test_errors_within_the_tolerance_still_count():
    few = Step(448, 256, 990.0, 10.0, requests=10000, errors=10)    # 0.1 %: at the tolerance
    many = Step(320, 128, 990.0, 10.0, requests=10000, errors=11)
    assert excluded_because(few, TOLERANCE) == ""
    assert excluded_because(many, TOLERANCE) != ""
    assert judge([_clean(704, 512, 1000.0), few, many], 0.90, TOLERANCE).needed.limit_mb == 448
    assert excluded_because(Step(64, None, 0.0), TOLERANCE) == "no responses"


def test_a_jvm_filling_its_container_is_said_to_be_short_outside_the_heap():
    starved = Step(240, 48, 0.0, rss_peak_mb=239.3)
    assert excluded_because(starved, TOLERANCE) == \
        "no responses (peak RSS 239 of 240 MB: the container limit, not the heap, ran out)"
    assert excluded_because(Step(240, 48, 0.0, rss_peak_mb=180.0), TOLERANCE) == "no responses"


def test_no_clean_step_gives_no_figure_but_every_reason():
    j = judge([Step(704, 512, 800.0, 1.0, requests=8000, errors=8000), Step(448, 256, 0.0, failed="not ready")],
              0.90, TOLERANCE)
    assert j.needed is None and j.best is None
    assert [why for _, why in j.excluded] == ["8,000 errors in 8,000 requests (more than 0.1%)",
                                              "the app did not serve: not ready"]


def test_the_smallest_setting_tried_keeping_it_is_a_lower_bound():
    j = judge([_clean(256, None, 5000.0), _clean(64, None, 4900.0)], 0.90, TOLERANCE)
    assert j.needed.limit_mb == 64 and j.lower_bound


def test_a_step_within_its_noise_of_the_line_is_marked_and_so_is_the_answer():
    # line: 900 req/s, known to +-0.9 (the best's +-10 x 0.9)
    chosen = _clean(448, 256, 905.0, half_width=20.0)       # 5 above the line, +-20: could miss it
    below = _clean(320, 128, 850.0, half_width=20.0)        # 50 below: a clear miss
    j = judge([_clean(704, 512, 1000.0), chosen, below], 0.90, TOLERANCE)
    assert j.needed is chosen and j.is_near(chosen) and not j.is_near(below)
    assert j.within_noise
    assert j.verdict(chosen) == "keeps (within noise of the line)" and j.verdict(below) == "below"


def test_the_next_smaller_step_within_noise_makes_the_answer_uncertain_too():
    chosen = _clean(448, 256, 990.0, half_width=5.0)        # clearly keeps
    below = _clean(320, 128, 890.0, half_width=30.0)        # misses by 10, +-30: could keep it
    j = judge([_clean(704, 512, 1000.0), chosen, below], 0.90, TOLERANCE)
    assert j.needed is chosen and j.within_noise and j.is_near(below)
    clear = judge([_clean(704, 512, 1000.0), chosen, _clean(320, 128, 700.0, half_width=30.0)], 0.90, TOLERANCE)
    assert not clear.within_noise and clear.near_line == []


def test_a_step_without_a_confidence_interval_is_said_to_be_unknown():
    short = _clean(448, 256, 905.0, half_width=None)        # fewer than 3 intervals measured
    j = judge([_clean(704, 512, 1000.0), short], 0.90, TOLERANCE)
    assert j.noise_unknown == [short] and not j.is_near(short)
