"""Progress of a lab run: what runs now, what is left and an estimate of the time left.

On a terminal a live display (rich) shows the current step and its detail, an overall bar, steps
done/total, the elapsed time and the time left; messages (warnings) are printed above it, so they
stay in the scroll-back, and the display is removed at the end. Elsewhere (CI, a pipe, a log file)
plain lines without control codes: one per step, and a step's detail at most every
``plain_interval_s`` seconds.

The time left (``time_left``) is, for each step still to come, how long the same step took in
earlier complete runs of the plan with the same method on this machine (their median), scaled by
how this run compares with them so far; a step without such a record gets the plan's own
estimate, scaled by how long this run's steps took against their estimates. A step that outlasts
its prediction counts as evidence at once, not only when it ends. A step made of like parts (the
steady scenario's fresh launches) says how many it has finished: from then on its own pace, not
its history, predicts the rest of it (one launch that settles a minute sooner than last time would
otherwise leave the estimate a minute long to the end).
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass
from typing import Callable, Sequence, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

PLAIN_INTERVAL_S = 30.0  # without a terminal: at most one detail line per step this often


def fmt_duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


@dataclass
class Step:
    label: str
    estimate_s: float
    earlier_s: float | None = None  # how long this step took in earlier runs of the plan here (median)
    # its estimate is built from what launches took on this machine: no pace of estimates applies
    measured: bool = False


Finished = tuple[Step, float]  # a step that ran, and how long it took


def step_kind(label: str) -> str:
    """What kind of work a step is, whatever it runs on: its scenario ("sweep" of
    "quarkus/jvm sweep"), "build", "footprint", "launch + verify", or "round" for the rounds."""
    first, _, rest = label.partition(" ")
    return "round" if first == "round" else (rest or first)


def paced_ratio(steps: Sequence[Step], paces: dict[str, float]) -> float:
    """How long the steps are expected to take against their estimates, each kind of step at this
    machine's pace for it (1 for a kind it never ran): the ratio dry-run's total and the progress
    display's first estimate share."""
    total = math.fsum(s.estimate_s for s in steps)
    if total <= 0:
        return 1.0
    return math.fsum(s.estimate_s * (1.0 if s.measured else paces.get(step_kind(s.label), 1.0))
                     for s in steps) / total


def _ratio(pairs: Sequence[tuple[float, float]], prior: tuple[float, float] | None) -> float:
    """Actual over predicted seconds of (predicted, actual) pairs, with the prior (ratio, weight_s)
    counted as weight_s predicted seconds that ran at its ratio."""
    predicted = math.fsum(p for p, _ in pairs)
    actual = math.fsum(a for _, a in pairs)
    if prior is not None:
        ratio, weight = prior
        return (actual + ratio * weight) / (predicted + weight) if predicted + weight > 0 else ratio
    return actual / predicted if predicted > 0 else 1.0


class _Scales:
    """How long a step is predicted to take, given the steps finished so far. ``history_weight_s``:
    how many recorded seconds the belief "as fast as the earlier runs" counts for."""

    def __init__(self, finished: Sequence[Finished], prior: tuple[float, float] | None,
                 history_weight_s: float) -> None:
        self.by_estimate = _ratio([(s.estimate_s, a) for s, a in finished], prior)
        recorded = [(s.earlier_s, a) for s, a in finished if s.earlier_s is not None]
        # the same plan on the same machine: 1 until this run's own steps say otherwise
        self.by_history = _ratio(recorded, (1.0, history_weight_s))

    def of(self, step: Step) -> float:
        if step.earlier_s is not None:
            return step.earlier_s * self.by_history
        return step.estimate_s * self.by_estimate


HISTORY_WEIGHT = 0.12  # the belief "as fast as the earlier runs", as a share of the run's recorded seconds: enough that one
# short step off its history (a steady step whose measurement stopped early) does not rescale the rest, little
# enough that a machine 20 % slower today shows within the first tenth of the run


def time_left(remaining: Sequence[Step], finished: Sequence[Finished], in_step_s: float = 0.0,
              prior: tuple[float, float] | None = None, parts: tuple[int, int, float] | None = None) -> float:
    """Seconds left in a run.

    ``remaining``: the steps not finished yet, the current one first; ``finished``: the steps that
    ran so far with their measured durations (skipped steps are in neither). A step with a
    recorded earlier duration is predicted as that duration times how this run's recorded steps
    compare with their earlier durations (1 to begin with); any other step as its estimate times
    how this run's steps compare with their estimates. ``in_step_s``, the time already spent in
    the current step, is taken off its prediction, never below zero; once it passes the
    prediction, the current step counts as finished at that duration for both scales, so a run
    going slower than predicted raises the estimate while its first long step still runs.

    ``prior`` = (ratio, weight_s): what the estimate scale is believed to be before anything is
    done (1.0, or what earlier runs here took against their estimates), held as if weight_s
    estimated seconds had run at it. The measured ratio takes over as the finished steps outweigh
    it, so a few quick first steps cannot swing the estimate.

    ``parts`` = (done, of, at_s): the current step is `of` like parts, `done` of them finished
    `at_s` seconds into it; then the current step's remainder is its own pace (at_s / done) times
    the parts left, less the time spent in the part under way.
    """
    if not remaining:
        return 0.0
    current, rest = remaining[0], remaining[1:]
    # the beliefs steer the start and fade as the run's own steps take over (a prior kept whole
    # to the end would bias the last steps' estimate by its own weight)
    left = math.fsum(s.estimate_s for s in remaining)
    fade = left / (left + math.fsum(s.estimate_s for s, _ in finished)) if left > 0 else 0.0
    if prior is not None:
        prior = (prior[0], prior[1] * fade)
    recorded_s = math.fsum(s.earlier_s for s in [*remaining, *(s for s, _ in finished)] if s.earlier_s is not None)
    weight = HISTORY_WEIGHT * recorded_s * fade
    scales = _Scales(finished, prior, weight)
    if in_step_s > scales.of(current):
        scales = _Scales([*finished, (current, in_step_s)], prior, weight)
    if parts is not None and 0 < parts[0] <= parts[1] and parts[2] > 0:
        done, of, at_s = parts
        current_left = (of - done) * at_s / done - max(0.0, in_step_s - at_s)
    else:
        current_left = scales.of(current) - in_step_s
    return max(0.0, current_left) + math.fsum(scales.of(s) for s in rest)


PRIOR_WEIGHT = 0.02       # the prior counts as this share of the run's estimate (at least PRIOR_WEIGHT_MIN_S)
PRIOR_WEIGHT_MIN_S = 15.0


def prior_from_history(steps: Sequence[Step], earlier_runs_s: Sequence[float],
                       paces: dict[str, float] | None = None) -> tuple[float, float]:
    """The estimate scale to start from, and its weight.

    Where steps have recorded earlier durations: how those earlier durations compare with the
    same steps' estimates (how the estimates fare on this machine). Else, how long earlier whole
    runs of the same plan took against this run's estimate (their median), else each kind of step
    at this machine's pace for that kind in any plan (``paces``, see paced_ratio), else 1. Weighted as a
    small share of the run: it steers the first minutes and yields to what this run measures (a
    larger weight kept the estimate 25 % low at 10 % of a run whose steps all took twice their
    estimate).
    """
    total = math.fsum(s.estimate_s for s in steps)
    weight = max(PRIOR_WEIGHT_MIN_S, PRIOR_WEIGHT * total)
    recorded = [s for s in steps if s.earlier_s is not None and s.estimate_s > 0]
    if recorded:
        return math.fsum(s.earlier_s for s in recorded) / math.fsum(s.estimate_s for s in recorded), weight
    if total <= 0:
        return 1.0, weight
    if not earlier_runs_s:
        return paced_ratio(steps, paces or {}), weight
    ordered = sorted(earlier_runs_s)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return median / total, weight


def _interactive(stream: TextIO) -> bool:
    """A terminal that can redraw a display: not a pipe or a file, and not TERM=dumb."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
    return tty and os.environ.get("TERM", "") != "dumb"


class Progress:
    def __init__(self, steps: list[Step], stream: TextIO | None = None, live: bool | None = None, *,
                 clock: Callable[[], float] = time.monotonic,
                 plain_interval_s: float = PLAIN_INTERVAL_S, prior: tuple[float, float] | None = None,
                 record: Callable[[Step, float], None] | None = None,
                 before_step: Callable[[str], None] | None = None):
        self.steps = steps
        self.prior = prior  # (ratio, weight in estimated seconds): see time_left
        self.record = record  # told each planned step that ran to its end, and its duration
        self.before_step = before_step  # told each step's label before it begins; may refuse it (raise)
        self.stream = stream or sys.stdout
        self.live = _interactive(self.stream) if live is None else live
        self.clock = clock
        self.plain_interval_s = plain_interval_s
        self.done = 0
        self.finished: list[tuple[Step, float]] = []  # the finished steps that ran (not skipped), and their durations
        self.started = clock()
        self.current = ""
        self.detail = ""
        self._step_started: float | None = None  # None between steps
        self._parts: tuple[int, int, float] | None = None  # the current step's parts done: see time_left
        self._last_line = -math.inf  # when the last plain status line was printed
        self._display: Live | None = None
        self._spinner = Spinner("dots", style="cyan")

    @property
    def total(self) -> int:
        return len(self.steps)

    @property
    def done_estimate(self) -> float:
        return math.fsum(s.estimate_s for s, _ in self.finished)

    @property
    def done_actual(self) -> float:
        return math.fsum(a for _, a in self.finished)

    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def eta_s(self) -> float:
        in_step = 0.0 if self._step_started is None else self.clock() - self._step_started
        return time_left(self.steps[self.done:], self.finished, in_step, self.prior, self._parts)

    def start(self, label: str) -> None:
        """The next planned step begins (its label may be more precise than the plan's)."""
        if self.before_step is not None:
            self.before_step(label)
        self.current = label
        self.detail = ""
        self._step_started = self.clock()
        self._parts = None
        if self.live:
            self._show()
        else:
            self._status_line(label)

    def update(self, detail: str) -> None:
        """Finer detail inside the current step (e.g. 'c=10 r2/3')."""
        self.detail = detail
        if self.live:
            self._show()
        elif self.clock() - self._last_line >= self.plain_interval_s:
            self._status_line(f"{self.current}: {detail}" if self.current else detail)

    def parts_done(self, done: int, of: int) -> None:
        """The current step is `of` like parts (e.g. fresh launches) and `done` of them are finished:
        the rest of the step is predicted from its own pace from now on."""
        if self._step_started is not None:
            self._parts = (done, of, self.clock() - self._step_started)

    def finish(self, skipped: int = 0, cut_short: bool = False) -> None:
        """The current step is over; `skipped` further planned steps will not run.

        Called without a started step, the current planned step did not run either: it counts as
        skipped. Skipped steps count as done but do not enter the time-left ratio. A step
        `cut_short` (its app failed) enters the ratio but is not recorded as the step's duration.
        """
        if self._step_started is not None and self.done < self.total:
            step, took = self.steps[self.done], self.clock() - self._step_started
            self.finished.append((step, took))
            self.done += 1
            if self.record is not None and not cut_short:
                self.record(step, took)
        elif self._step_started is None:
            skipped += 1
        self.done = min(self.total, self.done + skipped)
        self._step_started = None
        self._parts = None
        self.current = self.detail = ""
        if self.live:
            self._show()

    def message(self, text: str) -> None:
        """A line of output that stays (warnings, results), printed above the live display."""
        if self.live:
            self._show()
            self._display.console.print(Text(text))
        else:
            self._write(text)

    def close(self) -> None:
        if self._display is not None:
            self._display.stop()
            self._display = None
        self._write(f"done {self.done}/{self.total} steps in {fmt_duration(self.elapsed_s())}")

    # --- plain lines ---------------------------------------------------------------------------

    def _position(self) -> str:
        return f"{min(self.done + 1, self.total)}/{self.total}"

    def _status_line(self, what: str) -> None:
        self._last_line = self.clock()
        self._write(f"[{self._position()}] {what} (elapsed {fmt_duration(self.elapsed_s())}, "
                    f"left ~{fmt_duration(self.eta_s())})")

    def _write(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    # --- live display --------------------------------------------------------------------------

    def _show(self) -> None:
        """Start the live display on first use (so nothing is drawn before the run begins), then
        redraw it now rather than at its next tick."""
        if self._display is None:
            console = Console(file=self.stream, force_terminal=True)
            self._display = Live(console=console, get_renderable=self._render, refresh_per_second=4,
                                 transient=True, redirect_stdout=True, redirect_stderr=True)
            self._display.start()
        self._display.refresh()

    def _render(self) -> Group:
        upcoming = self.steps[self.done].label if self.done < self.total else ""
        step = Text(self.current or upcoming, style="bold", no_wrap=True, overflow="ellipsis")
        if self.detail:
            step.append(f"  {self.detail}", style="not bold")
        bar = Table.grid(padding=(0, 1))
        bar.add_row(self._spinner,
                    ProgressBar(total=max(self.total, 1), completed=self.done if self.total else 1, width=30),
                    Text(f"{self.done}/{self.total} steps"),
                    Text(f"elapsed {fmt_duration(self.elapsed_s())}", style="dim"),
                    Text(f"~{fmt_duration(self.eta_s())} left", style="cyan"))
        return Group(step, bar)
