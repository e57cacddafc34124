"""What a report states about a run besides its figures: the environment, how the run measured
(limits, topology, reductions), which limits were not enforced, why points were driver-bound,
where the RSS samples and the launches' timelines are, and what is missing (with the reason the run
recorded)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from perflab import registry, rounds
from perflab.present.chart_inputs import ChartInputs
from perflab.present.published import CLAIMS
from perflab.present.tables import fmt_published
from perflab.present.timelines import MalformedTimeline, TimelineRow, read_timeline
from perflab.profiles import merged
from perflab.results import RunView
from perflab.store import Store


@dataclass
class RunExtras:
    """Facts of a run kept beside its figures: enforcement of limits per app/mode (from the
    launches), why points were driver-bound, the RSS/CPU samples files and the launches' timelines
    (read here; a file that cannot be read is left out and listed in `unread` with the reason)."""

    limits: dict[str, dict] = field(default_factory=dict)
    driver_bound: list[tuple[str, str, str, str]] = field(default_factory=list)  # target, scenario, point, reason
    samples: dict[str, dict[str, Path]] = field(default_factory=dict)  # scenario -> app/mode -> CSV
    # scenario -> app/mode -> the intervals of all its launches, by launch and time
    timelines: dict[str, dict[str, list[TimelineRow]]] = field(default_factory=dict)
    unread: dict[str, list[str]] = field(default_factory=dict)  # scenario -> "app/mode file: why" per file left out
    profiles: list = field(default_factory=list)  # perflab.profiles.merged.Profile per app/mode and point

    def chart_inputs(self, scenario: str) -> ChartInputs:
        return ChartInputs(self.samples.get(scenario, {}), self.timelines.get(scenario, {}),
                           self.unread.get(scenario, []))


def load_extras(store: Store, run_id: str) -> RunExtras:
    extras = RunExtras()
    seen_bound = set()
    for f in store.figures(run_id):
        target = f"{f.app}/{f.mode}"
        enforced = f.extra.get("limits_enforced") if isinstance(f.extra, dict) else None
        if isinstance(enforced, dict) and target not in extras.limits:
            extras.limits[target] = enforced
        if "driver-bound" in f.flags and (target, f.scenario, f.point) not in seen_bound:
            seen_bound.add((target, f.scenario, f.point))
            extras.driver_bound.append((target, f.scenario, f.point, str(f.extra.get("driver_bound_reason") or "")))
    for row in store.files(run_id):
        path, target, scenario = Path(row["path"]), f"{row['app']}/{row['mode']}", row["scenario"]
        path = path if path.is_absolute() else store.path.parent / path
        if row["kind"] == "samples":
            extras.samples.setdefault(scenario, {})[target] = path
        elif row["kind"] == "timeline":
            try:
                rows = read_timeline(path)
            except MalformedTimeline as exc:
                extras.unread.setdefault(scenario, []).append(f"{target} {path.name}: {exc}")
                continue
            extras.timelines.setdefault(scenario, {}).setdefault(target, []).extend(rows)
    for by_target in extras.timelines.values():
        for rows in by_target.values():
            rows.sort(key=lambda r: (r.launch, r.t_s))
    extras.profiles = merged.load(store, run_id)
    return extras


@dataclass
class Missing:
    target: str
    scenario: str
    status: str
    reason: str

    def text(self) -> str:
        return f"{self.target}: {self.status}" + (f" ({self.reason})" if self.reason else "")


def missing(view: RunView) -> list[Missing]:
    """Everything the plan asked for that has no figures, with the reason the run recorded."""
    out = [Missing(f"{o['app']}/{o['mode']}" if o["app"] != "*" else "every app", o["scenario"], o["status"],
                   o["reason"] or "") for o in view.outcomes if o["status"] != "ok"]
    reported = {m.scenario.split(":")[0] for m in out if m.target == "every app"}
    for scenario in view.plan.get("scenarios", []):
        if scenario in reported or view.find(scenario):
            continue
        if any(m.scenario.split(":")[0] == scenario for m in out):
            continue
        why = "no figures and no outcome were recorded"
        if registry.get(scenario) is None:
            why = "this perflab does not know the scenario (the run was stored by another version)"
        elif view.status == "running":
            why = "the run is still running (or ended without recording its end)"
        elif view.status != "complete":
            why = f"the run ended ({view.status}) before it"
        out.append(Missing("every app", scenario, "not measured", why))
    return out


def unenforced_limits(view: RunView, extras: RunExtras) -> list[str]:
    """Plain statements of every limit that did not hold or cannot be shown to have held."""
    out = []
    measured = {c.target for c in view.cells}
    for target in [t for t in view.targets() if t in measured]:
        info = extras.limits.get(target)
        if info is None:
            if view.find("startup") or view.find("memory"):
                out.append(f"{target}: no launch recorded whether its limits were enforced")
            continue
        lost = [k for k in ("cpu", "memory") if not info.get(k)]
        if lost:
            out.append(f"{target}: {' and '.join(lost)} limit not enforced ({info.get('reason', '')})")
    cgroup = view.environment.get("cgroup")
    if cgroup not in ("v1", "v2"):  # the runner stores "<kind>: <reason>" when cgroups are unusable
        out.append(f"cgroups unusable ({cgroup or 'not recorded'}): limits held by CPU affinity at most")
    return out


def environment_rows(view: RunView) -> list[tuple[str, str]]:
    """The machine and software the figures came from, as (what, value)."""
    env = view.environment
    join = lambda d: ", ".join(f"{k} {v}" for k, v in d.items()) if isinstance(d, dict) and d else "-"  # noqa: E731
    git = env.get("git") or {}
    cpus = f"{env.get('cpus_online', '?')} online"
    if env.get("cpus_usable") not in (None, env.get("cpus_online")):
        cpus += f", {env.get('cpus_usable')} usable"
    return [
        ("CPU", f"{env.get('cpu_model', '?')} ({cpus})"),
        ("memory", f"{env.get('memory_mb', '?')} MB"),
        ("OS, kernel", f"{env.get('os', '?')}, {env.get('kernel', '?')}"),
        ("JDKs", join(env.get("jdks"))),
        ("frameworks", join(env.get("frameworks"))),
        ("load drivers", join(env.get("drivers"))),
        ("PostgreSQL", f"{env.get('postgres', '?')}; {env.get('db_placement', '')}".rstrip("; ")),
        ("cgroups", str(env.get("cgroup", "?"))),
        ("git", f"{(git.get('sha') or '?')[:12]}{' (uncommitted changes)' if git.get('dirty') else ''}"),
        ("method hash", view.method_hash),
    ]


def method_rows(view: RunView) -> list[tuple[str, str]]:
    """How the run measured: limits, heap flags, topology, repeats."""
    plan = view.plan
    limits = plan.get("limits", {})
    topo = view.environment.get("topology") or {}
    rows = [
        ("limits per app", f"{limits.get('cpus', '?')} CPU, {limits.get('memory_mb', '?')} MB"
                           + (f", JDK {limits['jdk']}" if limits.get("jdk") else "")),
        ("JVM options", " ".join(limits.get("jvm_opts") or []) or "the frameworks' defaults"),
        ("topology", topo.get("description", "?")),
        ("repeats", f"{plan.get('repeats', '?')} per load point; {plan.get('startup', {}).get('runs', '?')} launches "
                    f"(the first kept apart as cold); noisy above CV {plan.get('cv_threshold', 0.1):.0%}"),
    ]
    r = plan.get("rounds")
    if r:  # runs stored before launch rounds have no [rounds] table
        done = view.rounds or {}
        rows.append(("launch rounds", (
            f"interleaved, {rounds.order_text({'seed': r.get('seed'), **done})}; rounds added until every "
            f"headline ratio's 95 % interval is within +-{r.get('target', 0):.0%}, at most {r.get('max_rounds')}"
            + (f", within {r.get('budget_min'):g} min" if r.get("budget_min") else "")
            + (f"; host-speed canary around every launch, host-slow above +{r.get('host_slow', 0):.0%}"
               if r.get("canary") else "")) if r.get("interleave") else "app after app (not interleaved)"))
    for shared in topo.get("shared") or []:
        rows.append(("shared CPUs", shared))
    return rows


def reductions(view: RunView) -> list[str]:
    topo = view.environment.get("topology") or {}
    return list(view.plan.get("reductions") or []) + list(topo.get("reductions") or [])


def scenario_intro(view: RunView, scenario: str) -> str:
    """The plan's settings for a scenario, in the scenario's own words (or listed)."""
    p = view.plan.get(scenario, {}) or {}
    sc = registry.get(scenario)
    if sc is not None and sc.describe is not None:
        return sc.describe(p, view.plan)
    keys = ", ".join(f"{k} {v}" for k, v in p.items()) if isinstance(p, dict) else ""
    return f"plan: {keys}." if keys else ""


def not_in_plan(view: RunView) -> list[str]:
    """Scenarios with published figures that this run's plan did not include, with those figures."""
    planned = set(view.plan.get("scenarios", [])) | {c.scenario for c in view.cells}
    out = []
    for scenario in dict.fromkeys(c.where.scenario for c in CLAIMS):
        if scenario in planned:
            continue
        claims = [c for c in CLAIMS if c.where.scenario == scenario]
        figures = "; ".join(f"{c.study} {c.what}: " + ", ".join(f"{lbl} {fmt_published(v)}" for lbl, v in c.figures)
                            + f" {c.unit}" for c in claims)
        out.append(f"{scenario}: {figures}")
    return out
