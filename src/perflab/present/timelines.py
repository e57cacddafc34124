"""Per-interval timelines of fresh launches (the `steady` scenario's "timeline" files): one CSV per
launch, one row per interval of load, from the first interval after readiness through the warm-up
to the end of the measurement. This module reads them; the charts drawn from them are in
perflab.present.timeline_charts.

A file is read whole or not at all: a missing column, a row that does not parse or a file without
a single interval raises `MalformedTimeline` naming the line, so a report can leave the file out
and say why instead of drawing part of a launch.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

COLUMNS = ("launch", "point", "phase", "t_s", "duration_s", "requests", "rps", "errors", "latency_mean_ms",
           "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_max_ms", "app_cpu_share")
PHASES = ("warmup", "measure")


class MalformedTimeline(ValueError):
    """A timeline file that cannot be read as one: why, with the line where it applies."""


@dataclass(frozen=True)
class TimelineRow:
    """One interval of one launch at one point."""

    launch: int  # 1-based launch number
    point: str  # the point's label, e.g. "fruits c=40"
    phase: str  # "warmup" or "measure"
    t_s: float  # seconds from the launch (process spawn) to the end of the interval
    duration_s: float
    requests: int
    rps: float
    errors: int
    latency_mean_ms: float | None = None
    latency_p50_ms: float | None = None
    latency_p90_ms: float | None = None
    latency_p99_ms: float | None = None
    latency_max_ms: float | None = None
    app_cpu_share: float | None = None  # the app's CPUs busy in the interval (1.0 = one CPU)

    @property
    def start_s(self) -> float:
        """Seconds from the launch to the start of the interval."""
        return self.t_s - self.duration_s

    @property
    def measuring(self) -> bool:
        return self.phase == "measure"


def _number(text: str | None, column: str, *, positive: bool = False) -> float:
    if text is None or not text.strip():
        raise ValueError(f"{column} is empty")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{column} {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{column} {text!r} is not a {'positive' if positive else 'non-negative'} number")
    return value


def _count(text: str | None, column: str) -> int:
    value = _number(text, column)
    if not value.is_integer():
        raise ValueError(f"{column} {text!r} is not a whole number")
    return int(value)


def _optional(text: str | None, column: str) -> float | None:
    return None if text is None or not text.strip() else _number(text, column)


def _row(raw: dict) -> TimelineRow:
    if None in raw:
        raise ValueError("more fields than the header has columns")
    launch = _count(raw["launch"], "launch")
    if launch < 1:
        raise ValueError(f"launch {launch} is not 1-based")
    point = (raw["point"] or "").strip()
    if not point:
        raise ValueError("point is empty")
    if raw["phase"] not in PHASES:
        raise ValueError(f"phase {raw['phase']!r} is not one of {', '.join(PHASES)}")
    return TimelineRow(
        launch=launch, point=point, phase=raw["phase"], t_s=_number(raw["t_s"], "t_s"),
        duration_s=_number(raw["duration_s"], "duration_s", positive=True),
        requests=_count(raw["requests"], "requests"), rps=_number(raw["rps"], "rps"),
        errors=_count(raw["errors"], "errors"),
        **{c: _optional(raw[c], c) for c in COLUMNS[8:]})


def parse_timeline(text: str) -> list[TimelineRow]:
    """The rows of one timeline CSV, in file order; MalformedTimeline when any of it does not parse."""
    reader = csv.DictReader(io.StringIO(text))
    absent = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if absent:
        raise MalformedTimeline(f"no column {', '.join(absent)} in the header")
    rows = []
    for raw in reader:
        try:
            rows.append(_row(raw))
        except (TypeError, ValueError) as exc:
            raise MalformedTimeline(f"line {reader.line_num}: {exc}") from None
    if not rows:
        raise MalformedTimeline("no intervals")
    return rows


def read_timeline(path: Path) -> list[TimelineRow]:
    """parse_timeline of a file; MalformedTimeline also when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MalformedTimeline("the file is missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MalformedTimeline(f"the file cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    return parse_timeline(text)


def by_point(timelines: dict[str, list[TimelineRow]]) -> dict[str, dict[str, dict[int, list[TimelineRow]]]]:
    """point -> target -> launch -> its intervals in time order; points and targets in the order met."""
    out: dict[str, dict[str, dict[int, list[TimelineRow]]]] = {}
    for target, rows in timelines.items():
        for row in rows:
            out.setdefault(row.point, {}).setdefault(target, {}).setdefault(row.launch, []).append(row)
    for targets in out.values():
        for target, launches in targets.items():
            targets[target] = {k: sorted(launches[k], key=lambda r: r.t_s) for k in sorted(launches)}
    return out
