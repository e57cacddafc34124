"""The progress display: the time-left estimate from explicit times, the plain lines written when
there is no terminal (driven by a hand-set clock, nothing sleeps), and the live display's output."""

from __future__ import annotations

import io
import random

import pytest

from perflab.progress import Progress, Step, fmt_duration, prior_from_history, step_kind, time_left


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


# --- time left -------------------------------------------------------------------------------

def _steps(*estimates: float) -> list[Step]:
    return [Step(f"s{i}", e) for i, e in enumerate(estimates)]


def _ran(*pairs: tuple[float, float]) -> list[tuple[Step, float]]:
    """Finished steps: (estimate, how long it took)."""
    return [(Step(f"done{i}", e), took) for i, (e, took) in enumerate(pairs)]


def test_before_any_step_is_done_the_estimates_are_taken_as_they_are():
    assert time_left(_steps(10, 20, 30), []) == 60


def test_steps_that_took_twice_their_estimate_double_what_is_left():
    assert time_left(_steps(10, 20), _ran((50, 100))) == 60


def test_steps_that_went_faster_shrink_what_is_left():
    assert time_left(_steps(40), _ran((100, 50))) == 20


def test_time_in_the_current_step_counts_down_its_scaled_estimate_but_not_below_zero():
    # ratio 10 / 5 = 2: the current step 10 -> 20, minus 15 s spent = 5; the next 20 -> 40
    assert time_left(_steps(10, 20), _ran((5, 10)), in_step_s=15) == 45


def test_a_step_outlasting_its_prediction_raises_the_scale_of_the_rest_at_once():
    # predicted 10 x 2 = 20 s, already 30 s in: counted as 10 estimated s taking 30, the ratio is
    # (10 + 30) / (5 + 10); the step itself is taken to end now
    assert time_left(_steps(10, 20), _ran((5, 10)), in_step_s=30) == pytest.approx(20 * 40 / 15)


def test_only_zero_estimate_steps_done_leave_the_estimates_unscaled():
    assert time_left(_steps(10), _ran((0.0, 7.0))) == 10


def test_nothing_left_is_zero():
    assert time_left([], _ran((10, 20))) == 0.0


def test_a_step_with_an_earlier_duration_is_predicted_from_it_not_from_its_estimate():
    # the estimate says 100 s; the same step took 30 s in the earlier runs here
    assert time_left([Step("q steady", 100, earlier_s=30)], []) == 30
    # this run's recorded steps took 1.5x their earlier durations: the next one is expected to as well
    done = [(Step("q startup", 10, earlier_s=200), 300.0)]
    assert 40 < time_left([Step("q steady", 100, earlier_s=30)], done) <= 45


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


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_dumb_terminal_gets_plain_lines(monkeypatch):
    monkeypatch.setenv("TERM", "dumb")
    assert not Progress([Step("a", 1)], stream=_Terminal()).live
    monkeypatch.setenv("TERM", "xterm-256color")
    assert Progress([Step("a", 1)], stream=_Terminal()).live


# --- live display ----------------------------------------------------------------------------

def test_live_display_shows_the_step_and_keeps_messages_above_it(monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")  # the live display is for a terminal that can redraw (rich draws
    # nothing on TERM=dumb, and the lab chooses plain lines there: test_a_dumb_terminal_gets_plain_lines)
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
    # 10 s of steps estimated ran in 1 s: alone that ratio (0.1) would cut 1000 s to 100 s
    assert time_left(_steps(1000), _ran((10, 1))) == 100
    assert time_left(_steps(1000), _ran((10, 1)), prior=(1.0, 100.0)) > 850
    # once the finished steps outweigh the prior, their ratio wins
    assert time_left(_steps(1000), _ran((10_000, 20_000)), prior=(1.0, 100.0)) == pytest.approx(2000, rel=0.01)


def test_the_prior_comes_from_earlier_runs_of_the_plan():
    steps = [Step("a", 600), Step("b", 600)]
    ratio, weight = prior_from_history(steps, [1800, 2400, 3000])
    assert ratio == pytest.approx(2400 / 1200) and weight == pytest.approx(24)
    assert prior_from_history(steps, []) == (1.0, 24.0)
    assert prior_from_history([Step("a", 10)], [])[1] == 15.0  # at least 15 s
    # where steps have earlier durations, how those compared with the steps' estimates
    recorded = [Step("a", 600, earlier_s=300), Step("b", 600, earlier_s=1500), Step("c", 100)]
    assert prior_from_history(recorded, [99_999])[0] == pytest.approx(1.5)


def test_without_this_plan_s_history_each_kind_of_step_starts_at_the_machine_s_pace_for_it():
    steps = [Step("q/jvm steady", 300), Step("q/jvm soak", 1800), Step("t/jvm soak", 900), Step("round 1", 300)]
    # steady ran 1.5 x its estimate elsewhere on this machine, soak keeps to its own; rounds never ran here
    ratio, _ = prior_from_history(steps, [], {"steady": 1.5, "soak": 1.0, "sweep": 9.0})
    assert ratio == pytest.approx((300 * 1.5 + 1800 + 900 + 300) / 3300)
    # earlier whole runs of this very plan outrank the other plans' paces
    assert prior_from_history(steps, [6600], {"steady": 1.5})[0] == pytest.approx(2.0)


@pytest.mark.parametrize("label, kind", [("quarkus/jvm sweep", "sweep"), ("quarkus@3.33.2/jvm startup", "startup"),
                                         ("thorntail/jvm launch + verify", "launch + verify"), ("round 12", "round"),
                                         ("quarkus footprint", "footprint"), ("spring-boot build", "build")])
def test_a_step_s_kind_is_what_it_does_whatever_it_runs_on(label, kind):
    assert step_kind(label) == kind


# --- the time left against the real time left, over whole runs ---------------------------------

# a quick-like plan: (step, its estimate, how long it really took on a 2-core machine); the
# estimates are off both ways (Go far faster, Thorntail's start far slower)
QUICK = [("go/native startup", 6, 4), ("go/native steady", 62, 45), ("quarkus/jvm startup", 39, 20),
         ("quarkus/jvm steady", 146, 120), ("spring/jvm startup", 39, 35), ("spring/jvm steady", 146, 150),
         ("webflux/reactive startup", 39, 30), ("webflux/reactive steady", 146, 150),
         ("thorntail/jvm startup", 39, 70), ("thorntail/jvm steady", 146, 160)]
FLOOR_S = 5.0  # the last seconds: an error of a few seconds is no error to a reader


def _worst_error(steps: list[Step], took: list[float], *, until_left: float = 0.0) -> float:
    """Drive a run second by second; the largest |estimate - real time left| / real time left
    from 10 % of the run on (until `until_left` of it is left), the real time left taken as at
    least FLOOR_S."""
    clock = Clock()
    p, _ = _plain(steps, clock)
    p.prior = prior_from_history(steps, [])
    total, begin, worst = sum(took), clock.t, 0.0
    for step, seconds in zip(steps, took):
        p.start(step.label)
        end = clock.t + seconds
        while clock.t < end:
            clock.t = min(end, clock.t + 1.0)
            real = total - (clock.t - begin)
            if clock.t - begin >= 0.1 * total and real >= until_left * total:
                worst = max(worst, abs(p.eta_s() - real) / max(real, FLOOR_S))
        p.finish()
    return worst


def test_a_run_whose_steps_take_twice_their_estimates_is_foreseen_within_25_percent_from_10_percent_on():
    steps = [Step(label, estimate) for label, estimate, _ in QUICK]
    assert _worst_error(steps, [2 * s.estimate_s for s in steps]) <= 0.25
    assert _worst_error(steps, [0.5 * s.estimate_s for s in steps]) <= 0.25


def test_with_an_earlier_run_s_step_durations_the_time_left_holds_where_the_estimates_do_not():
    plain = [Step(label, estimate) for label, estimate, _ in QUICK]
    took = [real for _, _, real in QUICK]
    assert _worst_error(plain, took) > 0.25  # the estimates alone miss: Thorntail's start, Go's steady
    recorded = [Step(label, estimate, earlier_s=real) for label, estimate, real in QUICK]
    assert _worst_error(recorded, took) <= 0.01
    # the machine is 20 % slower (or faster) today than in the earlier run: the first steps show it
    for today in (1.2, 0.8):
        assert _worst_error(recorded, [today * t for t in took]) <= 0.25, today


@pytest.mark.parametrize("seed", range(5))
def test_steps_that_vary_around_their_history_keep_the_time_left_within_25_percent(seed):
    # each step 5 % either way around its earlier duration, the machine 10 % slower: within the
    # bound until the last step, whose own variation no estimate can know (its seconds are what is left)
    rng = random.Random(seed)
    recorded = [Step(label, estimate, earlier_s=real * rng.uniform(0.95, 1.05)) for label, estimate, real in QUICK]
    took = [1.1 * real * rng.uniform(0.95, 1.05) for _, _, real in QUICK]
    assert _worst_error(recorded, took, until_left=0.1) <= 0.25


# --- a step made of like parts -------------------------------------------------------------------

def test_once_a_part_of_the_step_is_done_its_own_pace_predicts_the_rest_of_it():
    # the step took 350 s last time; this time its first of two launches took 130 s, and 20 s of
    # the second have passed: 110 s are left, not the 200 its history says
    step = [Step("thorntail steady", 100, earlier_s=350)]
    assert time_left(step, [], in_step_s=150) == pytest.approx(200)
    assert time_left(step, [], in_step_s=150, parts=(1, 2, 130)) == pytest.approx(110)
    # a second part slower than the first runs the step's remainder down to zero, never below
    assert time_left(step, [], in_step_s=300, parts=(1, 2, 130)) == 0.0
    # the steps after it keep their own predictions
    two = [*step, Step("next", 50, earlier_s=40)]
    assert time_left(two, [], in_step_s=150, parts=(1, 2, 130)) == pytest.approx(150)


def test_progress_takes_the_parts_done_for_the_current_step_only():
    clock = Clock()
    p, _ = _plain([Step("a steady", 100, earlier_s=200), Step("b", 10, earlier_s=10)], clock)
    p.start("a steady")
    clock.t += 100
    p.parts_done(1, 3)               # a third of the step in 100 s: about 200 s more, not its history's 100
    clock.t += 30
    assert p.eta_s() == pytest.approx(170 + 10)
    clock.t += 70                    # it ends as long as it took before: b's prediction is unscaled
    p.finish()
    p.start("b")                     # the next step starts without the parts of the last
    assert p.eta_s() == pytest.approx(10)


def test_a_last_step_faster_than_its_history_keeps_the_time_left_within_25_percent_once_half_done():
    # the last step (two launches) took 350 s last time and 260 s now, the rest as before: from the
    # end of its first launch on, the estimate follows this run's pace
    steps = [Step("quarkus steady", 200, earlier_s=240), Step("thorntail steady", 200, earlier_s=350)]
    clock = Clock()
    p, _ = _plain(steps, clock)
    p.start("quarkus steady")
    clock.t += 240
    p.finish()
    p.start("thorntail steady")
    clock.t += 130
    p.parts_done(1, 2)
    worst = 0.0
    for spent in range(130, 255):
        clock.t = 1000 + 240 + spent
        worst = max(worst, abs(p.eta_s() - (260 - spent)) / max(260 - spent, 5.0))
    assert worst <= 0.25


def test_a_first_step_faster_than_its_history_does_not_shrink_the_rest_of_the_run():
    # quick run 20261126-045935-2224: the Go reference's steady step took 35 s against 75 s the run
    # before (its measurement stops when precise enough), the JVM steps then took what they took
    # before; a belief in the history worth a twentieth of the run let that one step cut the time
    # left by a third, 30-37 % short over the next minutes
    history = [real for _, _, real in QUICK]
    recorded = [Step(label, estimate, earlier_s=real) for label, estimate, real in QUICK]
    took = list(history)
    took[1] = 0.45 * history[1]  # go/native steady
    assert _worst_error(recorded, took, until_left=0.1) <= 0.25


def test_a_step_estimated_from_measured_launches_keeps_its_estimate_at_any_pace():
    from perflab.progress import paced_ratio

    steps = [Step("round 1", 100.0, measured=True), Step("a/b sweep", 100.0)]
    assert paced_ratio(steps, {"round": 0.5, "sweep": 2.0}) == pytest.approx((100.0 + 200.0) / 200.0)


def test_a_step_refused_before_it_begins_is_not_started_and_nothing_is_recorded():
    recorded, asked = [], []

    def refuse_second(label: str) -> None:
        asked.append(label)
        if label == "b":
            raise RuntimeError("no room")

    p = Progress(_steps(10, 20), io.StringIO(), live=False, clock=Clock(), record=lambda s, t: recorded.append(s.label),
                 before_step=refuse_second)
    p.start("a")
    p.finish()
    with pytest.raises(RuntimeError, match="no room"):
        p.start("b")
    assert asked == ["a", "b"] and recorded == ["s0"] and p.current == "" and p.done == 1
