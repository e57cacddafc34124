"""Progress of a lab run: what runs now, what is left and an estimate of the time left.

On a terminal a live display (rich) shows the current step and its detail, an overall bar, steps
done/total, the elapsed time and the time left; messages (warnings) are printed above it, so they
stay in the scroll-back, and the display is removed at the end. Elsewhere (CI, a pipe, a log file)
plain lines without control codes: one per step, and a step's detail at most every
``plain_interval_s`` seconds.

The time left is the plan's own estimates of the steps still to come, scaled by how long the
steps run so far took against their estimates (``time_left``).
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


def time_left(remaining_s: Sequence[float], done_estimated_s: float, done_actual_s: float,
              in_step_s: float = 0.0, prior: tuple[float, float] | None = None) -> float:
    """Seconds left in a run.

    ``remaining_s``: the estimates of the steps not finished yet, the current one first.
    ``done_estimated_s`` / ``done_actual_s``: the estimates and the measured durations of the
    steps finished so far (steps that were skipped count in neither). Once the finished steps had
    a nonzero estimate, every remaining estimate is scaled by actual / estimated; before that the
    estimates are taken as they are. ``in_step_s``, the time already spent in the current step,
    is taken off that step's (scaled) estimate, never below zero.

    ``prior`` = (ratio, weight_s): what the ratio is believed to be before anything is done (1.0,
    or what earlier runs of the plan on this machine took against their estimates), held as if
    weight_s estimated seconds had run at it. The measured ratio takes over as the finished steps
    outweigh it, so a few quick first steps cannot swing the estimate.
    """
    if not remaining_s:
        return 0.0
    if prior is not None:
        prior_ratio, weight = prior
        ratio = (done_actual_s + prior_ratio * weight) / (done_estimated_s + weight)
    else:
        ratio = done_actual_s / done_estimated_s if done_estimated_s > 0 else 1.0
    current = max(0.0, remaining_s[0] * ratio - in_step_s)
    return current + ratio * math.fsum(remaining_s[1:])


def prior_from_history(steps: Sequence[Step], earlier_runs_s: Sequence[float]) -> tuple[float, float]:
    """The ratio to start from: how long earlier runs of the same plan took against this run's
    estimate (their median), else 1; weighted as a tenth of the run (at least a minute), so it
    steers the first steps and yields to what this run measures."""
    total = math.fsum(s.estimate_s for s in steps)
    weight = max(60.0, 0.1 * total)
    if not earlier_runs_s or total <= 0:
        return 1.0, weight
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
                 plain_interval_s: float = PLAIN_INTERVAL_S, prior: tuple[float, float] | None = None):
        self.steps = steps
        self.prior = prior  # (ratio, weight in estimated seconds): see time_left
        self.stream = stream or sys.stdout
        self.live = _interactive(self.stream) if live is None else live
        self.clock = clock
        self.plain_interval_s = plain_interval_s
        self.done = 0
        self.done_estimate = 0.0  # estimates of the finished steps that ran (not skipped)
        self.done_actual = 0.0  # and how long they took
        self.started = clock()
        self.current = ""
        self.detail = ""
        self._step_started: float | None = None  # None between steps
        self._last_line = -math.inf  # when the last plain status line was printed
        self._display: Live | None = None
        self._spinner = Spinner("dots", style="cyan")

    @property
    def total(self) -> int:
        return len(self.steps)

    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def eta_s(self) -> float:
        in_step = 0.0 if self._step_started is None else self.clock() - self._step_started
        return time_left([s.estimate_s for s in self.steps[self.done:]], self.done_estimate,
                         self.done_actual, in_step, self.prior)

    def start(self, label: str) -> None:
        """The next planned step begins (its label may be more precise than the plan's)."""
        self.current = label
        self.detail = ""
        self._step_started = self.clock()
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

    def finish(self, skipped: int = 0) -> None:
        """The current step is over; `skipped` further planned steps will not run.

        Called without a started step, the current planned step did not run either: it counts as
        skipped. Skipped steps count as done but do not enter the time-left ratio.
        """
        if self._step_started is not None and self.done < self.total:
            self.done_estimate += self.steps[self.done].estimate_s
            self.done_actual += self.clock() - self._step_started
            self.done += 1
        elif self._step_started is None:
            skipped += 1
        self.done = min(self.total, self.done + skipped)
        self._step_started = None
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
