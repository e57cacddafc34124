"""The fine print every chart carries: which runs its figures came from and under what: when, on
which machine (its CPU, CPUs and memory), the limits each app ran under, the frameworks' and the
JDKs' versions, and the connections the load used. A chart copied out of its page keeps saying
what it holds only if this line goes with it, so it sits under every chart, not once per page.

Given several runs (a plan's history), each part lists the values the runs had, once each."""

from __future__ import annotations

import time
from collections.abc import Sequence

from perflab.apps.versions import split_name
from perflab.results import RunView


def _distinct(values) -> list[str]:
    return [v for v in dict.fromkeys(values) if v]


def _when(views: Sequence[RunView]) -> str:
    def at(t: float) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else "?"
    if len(views) == 1:
        return f"run {views[0].id}, started {at(views[0].started_at)}"
    first, last = min(v.started_at for v in views), max(v.started_at for v in views)
    return f"{len(views)} runs, started {at(first)} to {at(last)}"


def _machine(view: RunView) -> str:
    env = view.environment
    cpus = env.get("cpus_usable") or env.get("cpus_online") or "?"
    return (f"{env.get('hostname') or 'host ?'} ({env.get('cpu_model') or 'CPU ?'}, {cpus} CPUs, "
            f"{env.get('memory_mb') or '?'} MB)")


def _limits(view: RunView) -> str:
    limits = view.plan.get("limits") or {}
    if not limits:
        return ""
    return f"each app on {limits.get('cpus', '?')} CPU(s) with {limits.get('memory_mb', '?')} MB"


def _frameworks(view: RunView) -> list[str]:
    """The frameworks of the apps the run measured (the environment lists every app's), and the
    versions an app was also built against (app@version)."""
    known = view.environment.get("frameworks") or {}
    out = []
    for target in view.targets():
        base, version = split_name(target.split("/")[0])
        out.append(f"{base}@{version}" if version else known.get(base, ""))
    return out


def _jdks(view: RunView) -> list[str]:
    jdks = view.environment.get("jdks_used") or view.environment.get("jdks") or {}
    return [f"JDK {str(v).split()[0]}" for v in jdks.values() if v]


def _connections(views: Sequence[RunView]) -> str:
    found = sorted({int(c.params["connections"]) for v in views for c in v.cells
                    if isinstance(c.params.get("connections"), (int, float))})
    return f"{', '.join(map(str, found))} connection(s)" if found else ""


def fine_print(views: Sequence[RunView]) -> str:
    """One line: when, where, under what limits, with which frameworks and JDKs, at which load."""
    parts = [_when(views), "; ".join(_distinct(_machine(v) for v in views)),
             "; ".join(_distinct(_limits(v) for v in views)),
             ", ".join(_distinct(f for v in views for f in _frameworks(v))),
             ", ".join(_distinct(j for v in views for j in _jdks(v))), _connections(views)]
    return " · ".join(p for p in parts if p)
