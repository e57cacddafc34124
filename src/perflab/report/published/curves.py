"""The studies' published curves across connection counts (RT-2019 Tables 1 and 2): every row
transcribed, per study label, for drawing beside the measured curves.

Only the 40-connection row of RT-2019's tables is transcribed (see conflicts.NOT_TRANSCRIBED):
its claims give one point per label. Further rows go in EXTRA_ROWS as they are transcribed.
"""

from __future__ import annotations

from dataclasses import dataclass

from perflab.report.published.claims import CLAIMS

# (study, path, metric) -> {label: {connections: value}}: rows beyond the claims' own points.
EXTRA_ROWS: dict[tuple[str, str, str], dict[str, dict[int, float]]] = {}


@dataclass(frozen=True)
class Curve:
    study: str
    label: str
    unit: str
    points: tuple[tuple[int, float], ...]  # (connections, published value), ascending


def curves(path: str, metric: str) -> list[Curve]:
    """The published curves of a metric on a path, one per study label."""
    rows: dict[tuple[str, str], dict[int, float]] = {}
    units: dict[str, str] = {}
    for c in CLAIMS:
        if c.where.scenario == "sweep" and c.where.path == path and c.where.metric == metric and c.where.connections:
            units[c.study] = c.unit
            for label, value in c.figures:
                rows.setdefault((c.study, label), {})[c.where.connections] = value
    for (study, extra_path, extra_metric), by_label in EXTRA_ROWS.items():
        if (extra_path, extra_metric) == (path, metric):
            for label, points in by_label.items():
                rows.setdefault((study, label), {}).update(points)
    return [Curve(study, label, units.get(study, ""), tuple(sorted(points.items())))
            for (study, label), points in rows.items()]
