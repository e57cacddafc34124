"""RSS over time from the samples files of a run's launches, thinned so that peaks survive."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from perflab.present.charts import PALETTE, Axis, Chart, Point, Series, line_chart
from perflab.present.tables import fmt_value

MAX_LINE_POINTS = 400


def read_samples(path: Path, column: str = "rss_bytes") -> list[tuple[float, float]]:
    """(seconds, MB) from a samples CSV; rows without the column are skipped."""
    out = []
    try:
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                try:
                    out.append((float(row["t_s"]), float(row[column]) / (1024 * 1024)))
                except (KeyError, TypeError, ValueError):
                    continue
    except OSError:
        return []
    return out


def downsample(points: list[tuple[float, float]], limit: int = MAX_LINE_POINTS) -> list[tuple[float, float]]:
    """At most ``limit`` points; each bucket keeps its highest value so peaks survive."""
    if len(points) <= limit:
        return points
    size = math.ceil(len(points) / limit)
    return [max(points[i:i + size], key=lambda p: p[1]) for i in range(0, len(points), size)]


def rss_chart(samples: dict[str, Path], colors: dict[str, str],
              title: str = "RSS over time of the load instance (memory, sweep, latency, write)",
              key: str = "rss") -> Chart | None:
    series = []
    for target, path in samples.items():
        data = downsample(read_samples(path))
        if not data:
            continue
        color = colors.get(target, PALETTE[len(series) % len(PALETTE)])
        pts = [Point(t, mb, note=f"{t:.1f} s") for t, mb in data]
        peak = max(pts, key=lambda p: p.y)
        line = f"{target} (peak {fmt_value(peak.y)} MB)"
        series.append(Series(line, color, pts, markers=False))
        series.append(Series(f"{target} peak", color, [Point(peak.x, peak.y, note=f"peak at {peak.x:.1f} s")],
                             legend=False, group=line))
    return line_chart(title, series, Axis("seconds since launch"), Axis("RSS MB", zero=True), key=key)
