"""Figures of a stored run, grouped and summarised: every (app, mode, scenario, point, metric)
becomes one Cell with the repeats' summary (median, min, max, CV, CI) and the union of their
flags. Reports and the terminal summary read runs only through this module."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from perflab.analysis import ratios_ci, stats
from perflab.store import Figure, Store

NOT_STEADY_FLAG = "not-steady"  # a steady launch measured before it reached steady state (perflab.scenarios.steady)


@dataclass
class Cell:
    app: str
    mode: str
    scenario: str
    point: str
    metric: str
    unit: str
    values: list[float]
    summary: stats.Summary
    flags: set[str] = field(default_factory=set)
    params: dict[str, Any] = field(default_factory=dict)  # the point's parameters (path, connections, ...)
    repeats: list[int] = field(default_factory=list)  # each value's repeat or launch number (its round, in rounds)

    @property
    def target(self) -> str:
        return f"{self.app}/{self.mode}"

    value_flags: list[set[str]] = field(default_factory=list)  # each value's own flags (not-steady, host-slow, ...)

    def by_repeat(self) -> dict[int, float]:
        """Each value by its repeat (launch, or round in rounds) number, for pairing two cells' launches.
        A value whose repeat is missing or shared with another value cannot be paired and is left out
        (never matched by position: that would pair launches of different rounds); unpairable()
        counts them."""
        counts = Counter(self.repeats)
        return {r: v for r, v in zip(self.repeats, self.values) if r is not None and counts[r] == 1}

    def unpairable(self) -> int:
        return len(self.values) - len(self.by_repeat())

    def warming(self) -> set[int]:
        """The repeats (launches) whose value was measured before the launch reached steady state."""
        return {r for r, flags in zip(self.repeats, self.value_flags) if NOT_STEADY_FLAG in flags}

    def steady_values(self) -> list[float]:
        """The values of launches that reached steady state: a launch still warming up measured a
        warm-up, not a steady state, so it stays out of every steady figure and ratio."""
        return [v for v, flags in zip(self.values, self.value_flags or [set()] * len(self.values))
                if NOT_STEADY_FLAG not in flags]

    def warming_values(self) -> list[float]:
        return [v for v, flags in zip(self.values, self.value_flags) if NOT_STEADY_FLAG in flags]

    def to_dict(self) -> dict[str, Any]:
        return {"app": self.app, "mode": self.mode, "scenario": self.scenario, "point": self.point,
                "params": self.params, "metric": self.metric, "unit": self.unit, "values": self.values, "repeats": self.repeats, "summary": self.summary.to_dict(),
                "flags": sorted(self.flags)}


def launch_interval(a: Cell, b: Cell, in_rounds: bool, prior: ratios_ci.Prior | None = None,
                    keep: Callable[[int], bool] = lambda r: True) -> ratios_ci.RatioInterval | None:
    """a / b from the two cells' launch values: paired by round when the launches ran in rounds and
    every value has a round of its own, else Welch on all of them (pairing by position would pair
    launches of different rounds). `keep`: which rounds take part (all by default)."""
    if in_rounds and not a.unpairable() and not b.unpairable():
        ra, rb = ({r: v for r, v in c.by_repeat().items() if v > 0 and keep(r)} for c in (a, b))
        return ratios_ci.interval(ra, rb, in_rounds=True, prior=prior)
    kept = [[v for r, v in zip(c.repeats or [None] * len(c.values), c.values) if r is None or keep(r)]
            for c in (a, b)]
    return ratios_ci.unpaired(kept[0], kept[1])


def cells(figures: list[Figure], cv_threshold: float = stats.DEFAULT_CV_THRESHOLD) -> list[Cell]:
    groups: dict[tuple, list[Figure]] = {}
    for f in figures:
        groups.setdefault((f.app, f.mode, f.scenario, f.point, f.metric), []).append(f)
    out = []
    for (app, mode, scenario, point, metric), figs in groups.items():
        values = [f.value for f in figs]
        summary = stats.summarize(values, cv_threshold=cv_threshold)
        flags = set().union(*(set(f.flags) for f in figs))
        if summary.noisy and len(values) > 1:
            flags.add("noisy")
        if len(values) == 1 and point != "cold" and scenario != "footprint":
            flags.add("single")
        out.append(Cell(app, mode, scenario, point, metric, figs[0].unit, values, summary, flags, figs[0].params,
                        [f.repeat for f in figs], [set(f.flags) for f in figs]))
    return out


def _cell_key(c: Cell) -> tuple[str, str, str, str, str]:
    return (c.app, c.mode, c.scenario, c.point, c.metric)


ROUND_SCENARIOS = ("steady", "startup")  # the scenarios whose launches run in rounds (schedule.round_scenarios)


@dataclass
class RunView:
    id: str
    status: str
    plan: dict
    environment: dict
    method_hash: str
    started_at: float
    finished_at: float | None
    cells: list[Cell]
    outcomes: list[dict]
    note: str = ""
    rounds: dict | None = None  # the launch rounds' record (Store.rounds_record); None: not run in rounds
    app_modes: list[tuple[str, bool, bool | None]] = field(default_factory=list)  # Store.targets
    _intervals: dict = field(default_factory=dict, repr=False, compare=False)

    def in_rounds(self, cell: Cell) -> bool:
        """Whether the cell's launches ran in this run's rounds, so that its repeat numbers are rounds
        and pair with another app/mode's (steady's launches and startup's, in a run with rounds)."""
        return bool(self.rounds) and cell.scenario in ROUND_SCENARIOS

    def interval(self, a: Cell, b: Cell, prior: ratios_ci.Prior | None = None,
                 without: frozenset[int] = frozenset()) -> ratios_ci.RatioInterval | None:
        """a / b from the two cells' launch values (launch_interval, paired by round where they ran in
        rounds), computed once per run view: the summary, the HTML and the Markdown report of a run
        read the same interval. `without`: rounds left out (e.g. those with a launch not steady)."""
        key = (_cell_key(a), _cell_key(b), prior, without)
        if key not in self._intervals:
            self._intervals[key] = launch_interval(a, b, self.in_rounds(a), prior, keep=lambda r: r not in without)
        return self._intervals[key]

    def prior(self, label: str) -> ratios_ci.Prior | None:
        """The round-to-round spread of earlier runs that the rounds pooled into the interval of the
        headline ratio `label` ("A / B"), as stored with the run (None: no such prior). Every line
        that shows that ratio's interval pools it, so the report gives one interval for one ratio."""
        final = next((s for s in (self.rounds or {}).get("ratios") or [] if s.get("ratio") == label), None)
        if final is not None and "prior" in final:  # as the rounds last pooled it (same host state, not rejected)
            return ratios_ci.Prior(**final["prior"]) if final["prior"] else None
        known = (((self.rounds or {}).get("history") or {}).get("ratios") or {}).get(label) or {}
        return ratios_ci.Prior(**known["prior"]) if known.get("prior") else None

    def canary_medians(self) -> dict[str, float]:
        """The median of each canary metric over the run's readings (the host's state during it; what
        perflab.run_history.host_medians reads from the store for earlier runs)."""
        out = {}
        for metric in dict.fromkeys(c.metric for c in self.find("canary")):
            values = [v for c in self.find("canary", metric) for v in c.values]
            if values:
                out[metric] = stats.median(values)
        return out

    def find(self, scenario: str, metric: str | None = None, point: str | None = None) -> list[Cell]:
        return [c for c in self.cells if c.scenario == scenario and (metric is None or c.metric == metric)
                and (point is None or c.point == point)]

    def targets(self) -> list[str]:
        seen: dict[str, None] = {}
        for c in self.cells:
            if c.mode != "all":
                seen.setdefault(c.target, None)
        for o in self.outcomes:
            if o["mode"] not in ("all", "*"):
                seen.setdefault(f"{o['app']}/{o['mode']}", None)
        return list(seen)

    def to_dict(self) -> dict[str, Any]:
        return {"format": "perflab-run", "format_version": 1, "id": self.id, "status": self.status,
                "plan": self.plan, "environment": self.environment, "rounds": self.rounds,
                "targets": [{"target": label, "jvm": jvm, "main": main} for label, jvm, main in self.app_modes], "method_hash": self.method_hash,
                "started_at": self.started_at, "finished_at": self.finished_at, "note": self.note,
                "outcomes": self.outcomes, "cells": [c.to_dict() for c in self.cells]}


def load(store: Store, run_id: str) -> RunView | None:
    row = store.run(run_id)
    if row is None:
        return None
    plan = json.loads(row["plan_json"])
    figures = store.figures(row["id"])
    return RunView(
        id=row["id"], status=row["status"], plan=plan, environment=json.loads(row["environment_json"]),
        method_hash=row["method_hash"], started_at=row["started_at"], finished_at=row["finished_at"],
        cells=cells(figures, plan.get("cv_threshold", stats.DEFAULT_CV_THRESHOLD)),
        outcomes=[dict(o) for o in store.outcomes(row["id"])], note=row["note"] or "",
        rounds=store.rounds_record(row["id"]), app_modes=store.targets(row["id"]))
