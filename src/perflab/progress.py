"""Progress of a lab run: what runs now, what is left and an estimate of the time left.

On a terminal one status line is redrawn in place under the messages; elsewhere (CI, a pipe) each
step is printed as a plain line. The estimate scales the plan's own per-step estimates by how
fast the finished steps went compared to theirs.
"""

from __future__ import annotations

import shutil
import sys
import time
from dataclasses import dataclass
from typing import TextIO


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


class Progress:
    def __init__(self, steps: list[Step], stream: TextIO | None = None, live: bool | None = None):
        self.steps = steps
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self.done = 0
        self.done_estimate = 0.0
        self.started = time.monotonic()
        self.current = ""
        self.detail = ""
        self._step_started = self.started
        self._line_shown = False

    @property
    def total(self) -> int:
        return len(self.steps)

    def eta_s(self) -> float:
        remaining = sum(s.estimate_s for s in self.steps[self.done:])
        elapsed = time.monotonic() - self.started
        if self.done_estimate > 0 and elapsed > 0:
            remaining *= min(5.0, max(0.2, elapsed / self.done_estimate))
        return remaining

    def start(self, label: str) -> None:
        """The next planned step begins (its label may be more precise than the plan's)."""
        self.current = label
        self.detail = ""
        self._step_started = time.monotonic()
        if self.live:
            self._draw()
        else:
            self._print(f"[{self.done + 1}/{self.total}] {label} (left: ~{fmt_duration(self.eta_s())})")

    def update(self, detail: str) -> None:
        """Finer detail inside the current step (e.g. 'c=10 r2/3')."""
        self.detail = detail
        if self.live:
            self._draw()

    def finish(self, skipped: int = 0) -> None:
        """The current step is over; `skipped` further planned steps will not run."""
        for _ in range(1 + skipped):
            if self.done < self.total:
                self.done_estimate += self.steps[self.done].estimate_s
                self.done += 1
        if self.live:
            self._draw()

    def message(self, text: str) -> None:
        """A line of output that stays (warnings, results), printed above the status line."""
        if self.live and self._line_shown:
            self.stream.write("\r\033[K")
        self._print(text)
        if self.live:
            self._draw()

    def close(self) -> None:
        if self.live and self._line_shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._line_shown = False
        self._print(f"done {self.done}/{self.total} steps in {fmt_duration(time.monotonic() - self.started)}")

    def _print(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def _draw(self) -> None:
        width = shutil.get_terminal_size((100, 20)).columns
        frac = self.done / self.total if self.total else 1.0
        bar_w = 20
        bar = "#" * int(frac * bar_w) + "-" * (bar_w - int(frac * bar_w))
        text = (f"[{bar}] {self.done}/{self.total} {self.current}"
                + (f" {self.detail}" if self.detail else "")
                + f" | {fmt_duration(time.monotonic() - self._step_started)} in step, ~{fmt_duration(self.eta_s())} left")
        self.stream.write("\r\033[K" + text[: width - 1])
        self.stream.flush()
        self._line_shown = True
