"""LAB-2020's memory-driven cost model, computed from the RSS measured here.

An estate of 300 services (120 high, 120 medium, 60 low memory) runs on 16 GB nodes. A service's
pod needs the measured RSS of its app/mode times its class's factor (plus a per-pod overhead);
each memory class gets its own node pool, so pods per node = floor(allocatable / pod MB) and
nodes = ceil(services x replicas / pods per node). Savings are the share of nodes saved against
the baseline (Spring Boot, the study's "Framework A").

Which memory a pod needs is the plan's choice (`rss` in [cost]): peak RSS under load by default,
RSS after the first request or at rest, or `needed` - the memory the memneeds scenario measured as
the smallest container limit keeping 90 % of the app's best throughput, judged on steps served
without OOM kill or errors (a sizing measured under load rather than a multiple of RSS; when memneeds
marks it within-noise, one setting up or down is as defensible); an app/mode without that figure is
listed as missing, never filled in from another source, so every app is costed from the same kind
of figure.

Every assumption is overridable from the plan's [cost] table. The study did not publish its
per-class sizes: the default factors (high 2x, medium 1x, low 0.5x the measured RSS) are this
model's, and the report states them beside the result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from perflab.cost_assumptions import CLASSES, DEFAULTS, RSS_SOURCES, assumptions  # noqa: F401
from perflab.present.published import PUBLISHED_SAVINGS, TARGETS
from perflab.present.tables import cell_order
from perflab.results import Cell, RunView

@dataclass
class ClassResult:
    name: str
    services: int
    pod_mb: float
    pods_per_node: int
    nodes: int | None  # None: one pod does not fit a node


@dataclass
class TargetCost:
    target: str
    rss: Cell
    classes: list[ClassResult]
    nodes: int | None
    savings: float | None = None  # 1 - nodes / baseline nodes
    savings_low: float | None = None  # with the least favourable repeats (max RSS here, min RSS of the baseline)
    savings_high: float | None = None
    published_savings: float | None = None


@dataclass
class CostModel:
    assumptions: dict[str, Any]
    rss_label: str
    results: list[TargetCost] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def result(self, target: str) -> TargetCost | None:
        return next((r for r in self.results if r.target == target), None)


def rss_cell(view: RunView, target: str, source: str) -> Cell | None:
    scenario, metric, point, _ = RSS_SOURCES[source]
    cells = [c for c in view.find(scenario, metric) if c.target == target and point in ("*", c.point)]
    return sorted(cells, key=cell_order)[0] if cells else None


def nodes_for(rss_mb: float, a: dict[str, Any]) -> tuple[list[ClassResult], int | None]:
    allocatable = a["node_mb"] - a["reserved_mb"]
    classes, total = [], 0
    for cls in CLASSES:
        count = int(a["services"][cls]) * int(a["replicas"])
        pod_mb = rss_mb * a["memory_factor"][cls] + a["pod_overhead_mb"]
        per_node = int(allocatable // pod_mb) if pod_mb > 0 else 0
        if count == 0:
            classes.append(ClassResult(cls, 0, pod_mb, per_node, 0))
            continue
        nodes = math.ceil(count / per_node) if per_node >= 1 else None
        classes.append(ClassResult(cls, count, pod_mb, per_node, nodes))
        total = None if nodes is None or total is None else total + nodes
    return classes, total


def _savings(nodes: int | None, base_nodes: int | None) -> float | None:
    if nodes is None or not base_nodes:
        return None
    return 1 - nodes / base_nodes


def model(view: RunView, overrides: dict | None = None) -> CostModel:
    a = assumptions(overrides if overrides is not None else view.plan.get("cost", {}))
    result = CostModel(a, RSS_SOURCES[a["rss"]][3])
    label_of = {t: lbl for lbl, t in TARGETS.items() if lbl in PUBLISHED_SAVINGS}
    for target in view.targets():
        cell = rss_cell(view, target, a["rss"])
        if cell is None:
            why = next((f" ({o['status']}: {o['reason']})" for o in view.outcomes if o["status"] != "ok"
                        and o["app"] == target.split("/")[0] and o["mode"] == target.split("/")[1]), "")
            result.missing.append(f"{target}: no {result.rss_label} measured{why}")
            continue
        classes, nodes = nodes_for(cell.summary.median, a)
        result.results.append(TargetCost(target, cell, classes, nodes,
                                         published_savings=PUBLISHED_SAVINGS.get(label_of.get(target, ""))))
    for lbl, saving in PUBLISHED_SAVINGS.items():
        if TARGETS[lbl] not in view.targets():
            result.missing.append(f"{TARGETS[lbl]} ({lbl}): not in this run; LAB-2020 published {saving:.0%} savings")
    base = result.result(a["baseline"])
    if base is None:
        result.missing.append(f"baseline {a['baseline']}: not measured, so no savings can be computed")
        return result
    for r in result.results:
        if r is base:
            continue
        r.savings = _savings(r.nodes, base.nodes)
        # the least and most favourable combination of the repeats
        worst = nodes_for(r.rss.summary.max, a)[1]
        best = nodes_for(r.rss.summary.min, a)[1]
        r.savings_low = _savings(worst, nodes_for(base.rss.summary.min, a)[1])
        r.savings_high = _savings(best, nodes_for(base.rss.summary.max, a)[1])
    return result
