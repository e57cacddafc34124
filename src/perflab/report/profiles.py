"""The report's profiles section: per profiled app/mode and point a flame graph, the top frames
by share of CPU, the top allocation sites, and the CPU per request by layer beside the measured
CPU per request (the layers sum to it); then differential views: each app's main mode against the
run's first profiled app, each extra mode against its app's main one, and each framework version
(app@version) against the version before it, which the report by version links from a change judged
slower (perflab compare A B --profile does the same for one app in two runs)."""

from __future__ import annotations

import itertools

from markupsafe import Markup

from perflab import results
from perflab.apps.versions import release_key, split_name
from perflab.errors import LabError
from perflab.present import charts
from perflab.present.charts import Chart
from perflab.present.fine_print import fine_print
from perflab.present.tables import TextTable
from perflab.present.templating import templates
from perflab.profiles import diff, flame, folded, merged
from perflab.profiles.layers import LAYER_TITLES
from perflab.profiles.merged import Profile

TOP = 15
JVM_NOTE = ("The Java threads' CPU is split by their samples' layers (innermost mapped frame); GC and JIT are their "
            "threads' CPU; 'other' holds unmapped frames and what the threads do not explain.")
GO_NOTE = ("The Go runtime's samples cover all of its CPU (its collector included): the measured CPU is split by "
           "their layers (innermost mapped frame).")


def _ms(x: float, sign: str = "") -> str:
    """ms/request to the microsecond, without a "-0.000" for a change that rounds to nothing."""
    x = round(x, 3) + 0.0
    return f"{x:{sign}.3f}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def layer_table(p: Profile, key: str) -> TextTable:
    rows = [[LAYER_TITLES[layer], _ms(ms), _pct(ms / p.measured_ms) if p.measured_ms else "-"]
            for layer, ms in p.layers_ms.items()]
    rows.append(["sum of the layers", _ms(sum(p.layers_ms.values())), ""])
    rows.append(["measured app CPU per request", _ms(p.measured_ms), "100 %"])
    return TextTable(key, f"{p.label}: CPU per request by layer", ["layer", "ms/request", "share"], rows,
                     note=f"{p.requests:,} requests in the measured windows of launch {', '.join(map(str, p.launches))}. "
                          + (GO_NOTE if p.profiler.startswith("Go") else JVM_NOTE))


def frames_table(stacks: folded.Stacks, key: str, title: str, what: str) -> TextTable:
    rows = [[frame, _pct(own), _pct(anywhere)] for frame, own, anywhere in folded.top_frames(stacks, TOP)]
    return TextTable(key, title, ["frame", f"self ({what})", f"total ({what})"], rows,
                     note="self: the frame was the innermost one; total: it was anywhere on the stack")


def change_table(d: diff.Difference, key: str, an: str, bn: str) -> TextTable | None:
    if not d.layers:
        return None
    rows = [[LAYER_TITLES[c.layer], _ms(c.a_ms), _ms(c.b_ms), _ms(c.change_ms, "+")] for c in d.layers]
    rows.append(["measured app CPU per request", _ms(d.a.measured_ms), _ms(d.b.measured_ms),
                 _ms(d.measured_change_ms, "+")])
    return TextTable(key, f"{bn} against {an}: ms/request gained (+) or lost (-) by layer",
                     ["layer", an, bn, "change"], rows)


def gap_sentence(d: diff.Difference, an: str, bn: str) -> str:
    gap = d.measured_change_ms
    if gap is None:
        return "a side has no CPU per request by layer"
    named = d.gap_layers()
    if not named or abs(gap) < 1e-9:
        return f"{bn} uses {gap:+.3f} ms/request of CPU against {an}"
    parts = ", ".join(f"{LAYER_TITLES[c.layer]} {c.change_ms:+.3f}" for c in named)
    return f"{bn} uses {gap:+.3f} ms/request of CPU against {an}; most of it: {parts} ms/request"


def pairs(profiles: list[Profile]) -> list[tuple[Profile, Profile]]:
    """(A, B) to compare: each framework version against the one before it (same app, mode and
    point); among the apps without versions, each other app's first profiled mode against the first
    profiled app's, at the same point, and each extra mode of an app against its first one."""
    versioned = [p for p in profiles if split_name(p.app)[1]]
    return consecutive_versions(versioned) + _across_apps(
        [p for p in profiles if not split_name(p.app)[1]])


def consecutive_versions(profiles: list[Profile]) -> list[tuple[Profile, Profile]]:
    series: dict[tuple[str, str, str], list[Profile]] = {}
    for p in profiles:
        series.setdefault((split_name(p.app)[0], p.mode, p.point), []).append(p)
    out = []
    for found in series.values():
        found.sort(key=lambda p: release_key(split_name(p.app)[1]))
        out += list(zip(found, found[1:]))
    return out


def diff_anchor(a_target: str, b_target: str) -> str:
    """The id of the differential view of B against A in the report (versions.html links to it)."""
    return "diff-" + "-".join(f"{a_target}-{b_target}".replace("/", "-").replace("@", "-").split())


def _across_apps(profiles: list[Profile]) -> list[tuple[Profile, Profile]]:
    first_mode: dict[str, Profile] = {}
    out = []
    for p in profiles:
        main = first_mode.setdefault(p.app + p.point, p)
        if main is not p:
            out.append((main, p))
    mains = list(first_mode.values())
    for p in mains[1:]:
        base = next((m for m in mains if m.point == p.point), None)
        if base is not None and base is not p:
            out.append((base, p))
    return out


def section(profiles: list[Profile], ids) -> dict | None:
    """What the template shows; None when the run has no profiles."""
    if not profiles:
        return None
    blocks = []
    for p in profiles:
        key = f"profile-{p.app}-{p.mode}-{p.point}".replace(" ", "-").replace("=", "")
        graph = flame.flame_graph(p.cpu, f"{p.label}: CPU flame graph ({p.profiler})")
        tables = [frames_table(p.cpu, key + "-top", f"{p.label}: top frames by share of CPU", "CPU")]
        if p.layers_ms is not None:
            tables.insert(0, layer_table(p, key + "-layers"))
        if p.alloc:
            tables.append(frames_table(p.alloc, key + "-alloc", f"{p.label}: top allocation sites", "bytes"))
        blocks.append({"title": p.label, "notes": p.notes, "tables": tables,
                       "charts": [(f"chart-{next(ids)}", Chart(key, f"{p.label} flame graph", graph,
                                                               note="click a frame to zoom in; the root is at the "
                                                                    "bottom"))] if graph else []})
    return {"blocks": blocks, "diffs": diff_views(pairs(profiles), ids)}


def diff_views(compared: list[tuple[Profile, Profile]], ids, a_name: str = "", b_name: str = "") -> list[dict]:
    """A differential flame graph and the per-layer changes of each pair. `a_name`/`b_name` tell
    two runs' profiles of one app/mode apart."""
    out = []
    for a, b in compared:
        d = diff.difference(a, b)
        key = f"diff-{a.app}-{a.mode}-{b.app}-{b.mode}".replace(" ", "-")
        an, bn = f"{a.target}{a_name}", f"{b.target}{b_name}"
        title = f"{b.label}{b_name} against {a.label}{a_name}"
        graph = flame.differential_graph(a.cpu, b.cpu, f"{title}: differential flame graph", an, bn)
        out.append({"title": title, "anchor": diff_anchor(a.target, b.target), "sentence": gap_sentence(d, an, bn),
                    "tables": [t for t in [change_table(d, key + "-layers", an, bn)] if t],
                    "charts": [(f"chart-{next(ids)}", Chart(key, title, graph,
                                                            note=f"{bn}'s stacks, red where a frame's share grew "
                                                                 f"against {an}, blue where it shrank"))]
                    if graph else []})
    return out


def across_runs(a: list[Profile], b: list[Profile]) -> list[tuple[Profile, Profile]]:
    """One app/mode and point profiled in both runs (a regression hunt), in run B's order."""
    first = {(p.app, p.mode, p.point): p for p in a}
    return [(first[(p.app, p.mode, p.point)], p) for p in b if (p.app, p.mode, p.point) in first]


def compare_runs(store, a_id: str, b_id: str, out_path) -> list[str]:
    """`perflab compare A B --profile`: the lines to print; writes the differential views of every
    app/mode both runs profiled to `out_path` (one self-contained HTML file)."""
    compared = across_runs(merged.load(store, a_id), merged.load(store, b_id))
    if not compared:
        raise LabError(f"runs {a_id} and {b_id} have no profile of the same app/mode and point",
                       fix="run both with --profile (perflab results show RUN lists a run's profiles)")
    views = diff_views(compared, itertools.count(1), f" ({a_id})", f" ({b_id})")
    lines = [f"profiles, {b_id} against {a_id} (ms/request of app CPU):"]
    for v in views:
        lines.append(f"  {v['title']}: {v['sentence']}")
        for t in v["tables"]:
            lines += [f"    {row[0]:<30} {row[1]:>9} {row[2]:>9} {row[3]:>9}" for row in t.rows]
    out_path.write_text(templates().get_template("profiles_compare.html.j2").render(
        a_id=a_id, b_id=b_id, profiles={"blocks": [], "diffs": views}, plotly_js=Markup(charts.plotly_js()),
        fine_print=fine_print([v for v in (results.load(store, a_id), results.load(store, b_id)) if v is not None])),
        encoding="utf-8")
    lines.append(f"profiles' HTML: {out_path}")
    return lines
