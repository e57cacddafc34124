"""The progress display: the time-left estimate from explicit times, the plain lines written when
there is no terminal (driven by a hand-set clock, nothing sleeps), and the live display's output."""

from __future__ import annotations

import io

import pytest

from perflab.progress import Progress, Step, fmt_duration, prior_from_history, time_left


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


# --- time left -------------------------------------------------------------------------------

def test_before_any_step_is_done_the_estimates_are_taken_as_they_are():
    assert time_left([10, 20, 30], 0.0, 0.0) == 60


def test_steps_that_took_twice_their_estimate_double_what_is_left():
    assert time_left([10, 20], done_estimated_s=50, done_actual_s=100) == 60


def test_steps_that_went_faster_shrink_what_is_left():
    assert time_left([40], done_estimated_s=100, done_actual_s=50) == 20


def test_time_in_the_current_step_counts_down_its_scaled_estimate_but_not_below_zero():
    # ratio 10 / 5 = 2: the current step 10 -> 20, minus 15 s spent = 5; the next 20 -> 40
    assert time_left([10, 20], 5, 10, in_step_s=15) == 45
    assert time_left([10, 20], 5, 10, in_step_s=30) == 40


def test_only_zero_estimate_steps_done_leave_the_estimates_unscaled():
    assert time_left([10], done_estimated_s=0.0, done_actual_s=7.0) == 10


def test_nothing_left_is_zero():
    assert time_left([], 10, 20) == 0.0


@pytest.mark.parametrize("seconds, text", [(0, "0s"), (59.9, "59s"), (60, "1m00s"), (3599, "59m59s"),
                                           (3600, "1h00m"), (7380, "2h03m"), (-5, "0s")])
def test_durations(seconds, text):
    assert fmt_duration(seconds) == text


# --- plain output ----------------------------------------------------------------------------

def _plain(steps, clock, interval=30.0):
    out = io.StringIO()
    return Progress(steps, stream=out, live=False, clock=clock, plain_interval_s=interval), out


def test_plain_lines_per_step_with_elapsed_and_time_left():
    clock = Clock()
    p, out = _plain([Step("a", 10), Step("b", 20), Step("c", 30)], clock)
    p.start("a")
    clock.t += 20  # twice a's estimate
    p.finish()
    p.start("b")
    clock.t += 5
    p.update("r1/3")  # 5 s after b's line: too soon for another
    clock.t += 25
    p.update("r2/3")  # 30 s after it
    clock.t += 10
    p.finish()
    p.finish()  # c never started: skipped
    p.message("warning: something")
    p.close()
    assert out.getvalue().splitlines() == [
        "[1/3] a (elapsed 0s, left ~1m00s)",
        "[2/3] b (elapsed 20s, left ~1m40s)",  # (20 + 30) x 2
        "[2/3] b: r2/3 (elapsed 50s, left ~1m10s)",  # b: 40 - 30 spent = 10, c: 60
        "warning: something",
        "done 3/3 steps in 1m00s",
    ]
    assert "\x1b" not in out.getvalue() and "\r" not in out.getvalue()


def test_plain_details_come_at_a_modest_rate():
    clock = Clock()
    p, out = _plain([Step("long", 600)], clock, interval=30.0)
    p.start("long")
    for _ in range(600):  # an update every second for ten minutes
        clock.t += 1
        p.update("busy")
    assert len(out.getvalue().splitlines()) == 1 + 600 // 30


def test_skipped_steps_do_not_enter_the_ratio():
    clock = Clock()
    p, _ = _plain([Step("a", 10), Step("b", 10), Step("c", 10), Step("d", 10)], clock)
    p.start("a")
    clock.t += 20
    p.finish(skipped=1)  # a took 20 for 10; b is skipped (0 s, but it did not run)
    assert (p.done, p.done_estimate, p.done_actual) == (2, 10, 20)
    assert p.eta_s() == 40  # c and d at twice their estimate


def test_finish_without_start_skips_the_planned_step_and_never_passes_the_total():
    clock = Clock()
    p, _ = _plain([Step("a", 10), Step("b", 10), Step("c", 10)], clock)
    p.finish(skipped=1)
    assert p.done == 2 and p.done_estimate == 0 and p.eta_s() == 10
    p.finish(skipped=5)
    assert p.done == p.total == 3 and p.eta_s() == 0


def test_detail_between_steps_does_not_borrow_the_finished_step_s_label():
    clock = Clock()
    p, out = _plain([Step("a", 10), Step("b", 10)], clock)
    p.start("a")
    clock.t += 10  # as estimated
    p.finish()
    clock.t += 30
    p.update("preparing the mode")
    assert out.getvalue().splitlines()[-1] == "[2/2] preparing the mode (elapsed 40s, left ~10s)"


def test_a_run_without_planned_steps_still_reports():
    clock = Clock()
    p, out = _plain([], clock)
    p.start("free-standing")
    p.finish()
    p.close()
    assert out.getvalue().splitlines() == ["[0/0] free-standing (elapsed 0s, left ~0s)", "done 0/0 steps in 0s"]


def test_a_pipe_is_not_a_terminal():
    assert not Progress([Step("a", 1)], stream=io.StringIO()).live


# --- live display ----------------------------------------------------------------------------

def test_live_display_shows_the_step_and_keeps_messages_above_it():
    clock = Clock()
    out = io.StringIO()
    p = Progress([Step("spring-boot/jvm sweep [c=10]", 10), Step("b", 10)], stream=out, live=True, clock=clock)
    p.start("spring-boot/jvm sweep [c=10]")
    p.update("r2/3")
    clock.t += 5
    text = out.getvalue()
    assert "spring-boot/jvm sweep [c=10]" in text and "r2/3" in text  # brackets are not markup
    assert "0/2 steps" in text and "~20s left" in text
    p.message("warning: [cost] odd")
    p.finish()
    p.close()
    text = out.getvalue()
    assert "\x1b" in text  # drawn in place
    assert text.index("warning: [cost] odd") < text.index("done 1/2 steps in 5s")
    assert text.endswith("done 1/2 steps in 5s\n")


def test_a_prior_keeps_quick_first_steps_from_swinging_the_estimate():
    # 2 s of steps estimated at 10 s ran in 1 s: alone that ratio (0.1) would cut 1000 s to 100 s
    assert time_left([1000], done_estimated_s=10, done_actual_s=1) == 100
    held = time_left([1000], done_estimated_s=10, done_actual_s=1, prior=(1.0, 100.0))
    assert held == pytest.approx(1000 * (1 + 100) / (10 + 100))
    # once the finished steps outweigh the prior, their ratio wins
    late = time_left([1000], done_estimated_s=10_000, done_actual_s=20_000, prior=(1.0, 100.0))
    assert late == pytest.approx(1000 * (20_000 + 100) / (10_000 + 100))


def test_the_prior_comes_from_earlier_runs_of_the_plan():
    steps = [Step("a", 600), Step("b", 600)]
    ratio, weight = prior_from_history(steps, [1800, 2400, 3000])
    assert ratio == pytest.approx(2400 / 1200) and weight == pytest.approx(120)
    assert prior_from_history(steps, []) == (1.0, 120.0)
    assert prior_from_history([Step("a", 10)], [])[1] == 60.0  # at least a minute
