"""The studies' published curves across connection counts: RT-2019's Tables 1 and 2 and LAB-2020
1.3's throughput table in full, per study label, for drawing beside the measured sweep curves.

The tables are transcribed as printed; RT-2019's 40-connection rows are also the claims'
(rt2019-rps-40, -mean-40, -max-40) and LAB-2020's peaks lab 1.3's (lab2020-peak-rps), which tests
keep equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from perflab.present.published.claims import CLAIMS
from perflab.present.published.lab2020_figures import LAB20_1_3_LABELS, LAB20_1_3_TABLE

RT2019_LABELS = ("Thorntail", "Q-native", "Q-JVM")  # the tables' column order

# RT-2019 Table 1, "Maximum Throughput (Req/Sec)": connections -> (Thorntail, native, JVM).
RT2019_TABLE_1: dict[int, tuple[float, float, float]] = {
    1: (3273, 3316, 5138),
    5: (14092, 14998, 24417),
    10: (25512, 26328, 44196),
    15: (31855, 33389, 59007),
    20: (35006, 36515, 69146),
    25: (37082, 38416, 73790),
    30: (33369, 38849, 76992),
    35: (32974, 41691, 77118),
    40: (32391, 44841, 76488),
}

# RT-2019 Table 2, "Response Time (ms)": connections -> ((mean, max) of Thorntail, native, JVM).
RT2019_TABLE_2: dict[int, tuple[tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    1: ((0.324, 9.31), (0.327, 6.13), (0.196, 9.52)),
    5: ((0.461, 13.12), (0.494, 9.86), (0.232, 13.85)),
    10: ((0.53, 11.3), (0.698, 14.24), (0.278, 16.08)),
    15: ((0.842, 145.16), (0.91, 14.86), (0.334, 18.38)),
    20: ((1.02, 134.9), (1.15, 16.4), (0.389, 23.7)),
    25: ((1.2, 145.3), (1.3, 16.86), (0.472, 21.25)),
    30: ((1.26, 34.87), (1.69, 26.52), (0.545, 83.27)),
    35: ((1.35, 30.94), (1.84, 65.01), (0.78, 32.9)),
    40: ((1.69, 143.49), (2.43, 48.37), (0.91, 63.71)),
}


def _by_label(rows: dict[int, tuple], pick=lambda cell: cell, labels: tuple[str, ...] = RT2019_LABELS
              ) -> dict[str, dict[int, float]]:
    return {label: {conns: pick(row[i]) for conns, row in rows.items()} for i, label in enumerate(labels)}


def rt2019_column(metric: str, label: str) -> dict[int, float]:
    """One label's column of Table 1 (rps) or Table 2 (latency_mean_ms, latency_max_ms)."""
    return EXTRA_ROWS[("RT-2019", "/fruits", metric)][label]


# (study, path, metric) -> {label: {connections: value}}: rows beyond the claims' own points.
EXTRA_ROWS: dict[tuple[str, str, str], dict[str, dict[int, float]]] = {
    ("RT-2019", "/fruits", "rps"): _by_label(RT2019_TABLE_1),
    ("RT-2019", "/fruits", "latency_mean_ms"): _by_label(RT2019_TABLE_2, lambda cell: cell[0]),
    ("RT-2019", "/fruits", "latency_max_ms"): _by_label(RT2019_TABLE_2, lambda cell: cell[1]),
    ("LAB-2020", "/todos", "rps"): _by_label(LAB20_1_3_TABLE, labels=LAB20_1_3_LABELS),
}
EXTRA_UNITS = {"rps": "req/s", "latency_mean_ms": "ms", "latency_max_ms": "ms"}


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
    return [Curve(study, label, units.get(study, EXTRA_UNITS.get(metric, "")), tuple(sorted(points.items())))
            for (study, label), points in rows.items()]


def peak(metric: str, label: str) -> tuple[int, float]:
    """(connections, value) of the highest point of an RT-2019 column: a curve's peak."""
    return max(rt2019_column(metric, label).items(), key=lambda kv: kv[1])
