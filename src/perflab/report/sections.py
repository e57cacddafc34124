"""The report's sections, one per scenario in the lab's order: its title and its tables as the
registry shapes them (with a generic table of any figure the scenario's own tables leave out)."""

from __future__ import annotations

from perflab import registry
from perflab.present.tables import Table, by_target_table, label, ordered_targets, points_in_order
from perflab.results import Cell, RunView


def _generic(view: RunView, scenario: str, cells: list[Cell], title: str = "") -> list[Table]:
    """Whatever the scenario stored: one row per app/mode when every figure is at one point,
    else one table per app/mode with a row per point."""
    if not cells:
        return []
    metrics = list(dict.fromkeys(c.metric for c in cells))
    points = points_in_order(cells)
    if len(points) == 1:
        heading = f"{title}{' at ' + points[0] if points[0] else ''}" if title else (points[0] or "figures")
        if len(metrics) <= 4:
            t = by_target_table(view, f"{scenario}-all", heading, cells, metrics)
            return [t] if t else []
        # many figures at one point: a row per figure reads better than a very wide row per app/mode
        targets = ordered_targets(view, cells)
        rows = [(label(m), [next((c for c in cells if c.metric == m and c.target == t), None) for t in targets])
                for m in metrics]
        return [Table(f"{scenario}-all", heading, "figure", targets, rows)]
    out = []
    for target in ordered_targets(view, cells):
        mine = [c for c in cells if c.target == target]
        rows = []
        for point in points:
            by_metric = {c.metric: c for c in mine if c.point == point}
            if by_metric:
                rows.append((point or "(run)", [by_metric.get(m) for m in metrics]))
        out.append(Table(f"{scenario}-{target}", f"{title + ': ' if title else ''}{target}", "point",
                         [label(m) for m in metrics], rows))
    return out


def scenario_tables(view: RunView, scenario: str) -> list[Table]:
    """The scenario's own tables (its registered presentation), plus a generic table of any figure
    those leave out, so no stored figure is missing from a report."""
    sc = registry.get(scenario)
    shaped = sc.tables if sc is not None else None
    tables = shaped(view) if shaped else _generic(view, scenario, view.find(scenario))
    shown = {id(c) for t in tables for c in [*t.cells(), *t.annotated]}
    left = [c for c in view.find(scenario) if id(c) not in shown]
    if left and shaped:
        more = _generic(view, scenario + "-more", left, "other figures")
        for t in more:
            t.terminal = False  # the report shows every figure; the terminal keeps to the scenario's own tables
        tables += more
    return [t.without_empty_columns() for t in tables]


def scenario_title(scenario: str) -> str:
    sc = registry.get(scenario)
    return sc.title if sc is not None else scenario


def report_scenarios(view: RunView) -> list[str]:
    """Scenarios in the lab's order: those planned, and any with figures."""
    order = registry.names()
    present = set(view.plan.get("scenarios", [])) | {c.scenario for c in view.cells}
    extra = sorted(present - set(order))
    return [s for s in order if s in present] + extra
