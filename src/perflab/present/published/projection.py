"""RT-2019's 2048 MB table as printed, and the same table computed the study's way from its own
transcribed figures: processes = ⌊2048 / max RSS⌋, per process = the max of Table 1's column,
overall = processes x per process, compared to Thorntail's overall."""

from __future__ import annotations

import math
from dataclasses import dataclass

from perflab.present.published import attributes
from perflab.present.published.claims import RT2019_BUDGET_MB, claim
from perflab.present.published.curves import peak


@dataclass(frozen=True)
class ProjectionRow:
    label: str
    memory_mb: float
    processes: int
    per_process_rps: float
    overall_rps: float
    vs_thorntail_pct: float  # overall / Thorntail's overall, in %


# The attributes each row of the table prints: memory, processes, per process, overall, vs Thorntail.
_ROW_ATTRIBUTES = {
    "Thorntail": ("thorntailRSS", "2gThorntailMaxInstances", "thorntailMaxThroughput", "2gThorntailMaxThroughput",
                  "2gThorntailMaxThroughputCompareThorntail"),
    "Q-JVM": ("quarkusJvmRSS", "2gQuarkusJvmMaxInstances", "quarkusJvmMaxThroughput", "2gQuarkusJvmMaxThroughput",
              "2gQuarkusJvmMaxCompareThorntail"),
    "Q-native": ("quarkusNativeRSS", "2gQuarkusNativeMaxInstances", "quarkusNativeMaxThroughput",
                 "2gQuarkusNativeMaxThroughput", "2gQuarkusNativeMaxThroughputCompareThorntail"),
}

# The table as printed.
RT2019_PROJECTION: tuple[ProjectionRow, ...] = tuple(
    ProjectionRow(label, *(attributes.printed(name) for name in names)) for label, names in _ROW_ATTRIBUTES.items())

# The summary's "up to ... %" gains of the overall throughput against Thorntail, as printed.
RT2019_PROJECTION_INCREASE_PCT = {"Q-JVM": attributes.printed("2gQuarkusJvmMaxCompareThorntailIncrease"),
                                  "Q-native": attributes.printed("2gQuarkusNativeMaxCompareThorntailIncrease")}


def printed(label: str) -> ProjectionRow:
    return next(r for r in RT2019_PROJECTION if r.label == label)


def computed() -> tuple[ProjectionRow, ...]:
    """The table recomputed the study's way from the max RSS claim and Table 1."""
    rss = claim("rt2019-max-rss")
    rows = []
    for label in ("Thorntail", "Q-JVM", "Q-native"):
        memory = rss.value(label)
        processes = math.floor(RT2019_BUDGET_MB / memory)
        per = peak("rps", label)[1]
        rows.append((label, memory, processes, per, processes * per))
    base = rows[0][4]
    return tuple(ProjectionRow(*r, vs_thorntail_pct=r[4] / base * 100) for r in rows)


PRINTED_HEADERS = ["runtime mode", "memory MB", f"processes per {RT2019_BUDGET_MB} MB", "max req/s per process",
                   "overall max req/s", "compared to Thorntail"]


def printed_rows() -> list[list[str]]:
    """The table as the study prints it, as report rows."""
    return [[r.label, f"{r.memory_mb:g}", f"{r.processes}", f"{r.per_process_rps:,.0f}", f"{r.overall_rps:,.0f}",
             f"{r.vs_thorntail_pct:g} %"] for r in RT2019_PROJECTION]
