"""How the steady scenario's figures are shown: its tables (every row labelled with its fresh
launches and the in-launch intervals behind each launch's value), and the stability lines quick
prints at its end: per headline figure its launch-to-launch CV, its launches, whether each reached
steady state, and for a miss its cause; then the Quarkus / Spring Boot ratio with the measured
evidence that explains it.

Whether a launch reached steady state is its outcome (part "<point> launch <n>", see launch_part):
its reason is the rule's own words, "not steady after ..." for a launch that never settled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perflab import headline
from perflab.present.tables import Table, by_point_table, by_target_table, count_range, fmt_value, points_in_order
from perflab.present.tables import label as metric_label
from perflab.results import Cell, RunView

NOT_STEADY = "not steady"  # how the reason of a launch that never settled begins


def launch_part(point: str, launch: int) -> str:
    """The outcome part of one launch at one point: its reason says whether it reached steady state."""
    return f"{point} launch {launch}"


def tables(view: RunView) -> list[Table]:
    out = []
    closed = [c for c in view.find("steady") if not c.params.get("open_loop")]
    apart = against_sweep(view)
    for label in points_in_order(closed):
        mine = [c for c in closed if c.point == label]
        t = by_target_table(view, f"steady-{label}", f"At steady state, {label} (median over fresh launches)", mine,
                            ["rps", "latency_p50_ms", "latency_p99_ms", "time_to_steady_ms", "requests_to_steady",
                             "precision_pct"],
                            note="rows: fresh launches x the in-launch intervals behind each launch's value (its "
                                 "measurement after warm-up until the steady-state rule held; a launch that never "
                                 "settled is counted 'not steady' and its figures marked)"
                                 + "".join(f". {x.text()}" for x in apart if x.steady.point == label))
        if t:
            out.append(_with_launches(view, t, label))
        t = by_target_table(view, f"steady-cost-{label}", f"Why: cost per request at steady state, {label}", mine,
                            ["app_cpu_ms_per_request", "db_cpu_ms_per_request", "sql_statements_per_request",
                             "db_transactions_per_request", "gc_ms_per_s", "jit_compilations", "jit_compile_ms_per_s"],
                            note="GC, JIT and SQL over the intervals measured after the steady window; JIT "
                                 "compilations there mean the JIT was still at work")
        if t:
            t.terminal = False
            out.append(_with_launches(view, t, label))
    opened = [c for c in view.find("steady") if c.params.get("open_loop")]
    shared = view.environment.get("open_loop_rates") or {}
    note = ("the versions of " + ", ".join(sorted({o.partition("@")[0] + "/" + o.partition("/")[2] for o in shared}))
            + ": every launch of every version offered one rate, that fraction of the oldest version's throughput "
            "(versions.html gives it)") if shared else ""
    common = common_rate(view)
    if common:
        note = f"{common_rate_text(common)}, so their CPU per request there is at equal load"
    for metric, what in (("latency_p99_ms", "p99 ms"), ("latency_p50_ms", "p50 ms"),
                         ("app_cpu_ms_per_request", "app CPU per request ms")):
        t = by_point_table(view, f"steady-open-{metric}", f"Open loop at a fraction of each launch's steady "
                           f"throughput: {what}", [c for c in opened if c.metric == metric], "point", note=note)
        if t:
            t.terminal = metric == "latency_p99_ms"
            out.append(t)
    return out


def common_rate(view: RunView) -> dict | None:
    """The one rate every app/mode's open-loop point was offered ([steady] open_loop_basis): the
    basis app/mode's label ("of"), the rate, the throughput it is a fraction of and in which launch;
    None when the run did not offer one."""
    shared = view.environment.get("open_loop_common") or {}
    return next((basis for basis in shared.values() if basis.get("rate")), None)


def common_rate_text(basis: dict) -> str:
    """What the common open-loop rate is: its value and what it is a fraction of."""
    return (f"{basis['rate']:,.0f} req/s offered to every app/mode, {basis.get('fraction', 0):.0%} of "
            f"{basis.get('of', '?')}'s steady throughput in its launch {basis.get('launch', '?')} "
            f"({basis.get('rps', 0):,.0f} req/s)")


APART_FROM_SWEEP = 0.10  # steady's and the sweep's throughput of one point further apart than this: said why


@dataclass(frozen=True)
class AgainstSweep:
    """Steady's and the sweep's throughput of one app/mode at one point (path, connections)."""
    steady: Cell
    sweep: Cell
    warmup_max_s: float

    @property
    def apart(self) -> float:
        """The sweep's median against steady's, as a share of steady's (+0.28: the sweep 28 % higher)."""
        return self.sweep.summary.median / self.steady.summary.median - 1

    def text(self) -> str:
        st, sw = self.steady.summary, self.sweep.summary
        return (f"{self.steady.target} {self.steady.params.get('path')} c={self.steady.params.get('connections')}: "
                f"steady {st.median:,.0f} req/s, the sweep {sw.median:,.0f} ({self.apart:+.0%}): two figures of one "
                f"point, of two states of the app: steady's are fresh launches, each measured after at most "
                f"{self.warmup_max_s:.0f} s of warm-up; the sweep's is one long-lived instance, loaded through its "
                f"other points and repeats before and after this one (further along in JIT compilation, heap and "
                f"caches)")


def against_sweep(view: RunView) -> list[AgainstSweep]:
    """Where a run has both a steady and a sweep figure of throughput for the same app/mode, path and
    connections, and they differ by more than APART_FROM_SWEEP."""
    sweep = {(c.target, c.params.get("path"), c.params.get("connections")): c for c in view.find("sweep", "rps")}
    cfg = view.plan.get("steady") or {}
    out = []
    for c in view.find("steady", "rps"):
        other = sweep.get((c.target, c.params.get("path"), c.params.get("connections")))
        if c.params.get("open_loop") or other is None or c.summary.median <= 0:
            continue
        own = next((p.get("warmup_max_s") for p in cfg.get("points") or []
                    if (p.get("path"), p.get("connections")) == (c.params.get("path"), c.params.get("connections"))),
                   None)
        found = AgainstSweep(c, other, own or cfg.get("warmup_max_s") or 120.0)
        if abs(found.apart) > APART_FROM_SWEEP:
            out.append(found)
    return out


def _cell(view: RunView, target: str, point: str, metric: str) -> Cell | None:
    return next((c for c in view.find("steady", metric, point) if c.target == target), None)


def _with_launches(view: RunView, t: Table, point: str) -> Table:
    """Each row labelled with its launches and in-launch intervals: "quarkus/jvm (2 launches x 10-14
    intervals)", and how many launches never reached steady state."""
    rows = []
    for target, cells in t.rows:
        rps, intervals = _cell(view, target, point, "rps"), _cell(view, target, point, "measured_intervals")
        n = rps.summary.n if rps else 0
        unsteady = sum(not x.steady for x in launch_states(view, target, point))
        text = _launches(n) + (f" x {count_range(intervals)} intervals" if intervals else "")
        rows.append((f"{target} ({text}{f', {unsteady} not steady' if unsteady else ''})", cells))
        if intervals is not None:
            t.annotated.append(intervals)
    t.rows = rows
    return t


@dataclass(frozen=True)
class LaunchState:
    number: int | None  # None: a run stored before each launch's state was (which one is not known)
    steady: bool
    why: str


def launch_states(view: RunView, target: str, point: str) -> list[LaunchState]:
    """Each launch of an app/mode at a point: whether it reached steady state, and why (not)."""
    part = re.compile(re.escape(f"steady:{point} launch ") + r"(\d+)")  # see launch_part
    found = [LaunchState(int(m.group(1)), not o["reason"].startswith(NOT_STEADY), o["reason"])
             for o in view.outcomes if f"{o['app']}/{o['mode']}" == target
             and (m := part.fullmatch(o["scenario"])) is not None]
    if found:
        return sorted(found, key=lambda x: x.number)
    rps = _cell(view, target, point, "rps")  # older runs: only the not-steady mark and the times to steady
    if rps is None:
        return []
    timed = _cell(view, target, point, "time_to_steady_ms")
    steady = rps.summary.n if "not-steady" not in rps.flags else (timed.summary.n if timed else 0)
    return [LaunchState(None, i < steady, "" if i < steady else "not steady (reason not recorded)")
            for i in range(rps.summary.n)]


HELD_BACK_NOTE = ("intervals in which the app used well under its usual CPU share, held back from outside it "
                  "(the load side, another process on its CPU, the host): a spread they cause is not the app's")
CONTENDED_NOTE = ("launches whose CPU the hypervisor stole time from (steal above 2 % of the measured window): "
                  "a spread they cause is the host's")
STABLE_CV = 0.05  # launch-to-launch CV the headline throughput of a JVM app should stay within
HEADLINE = ("rps", "latency_p50_ms", "latency_p99_ms", "time_to_steady_ms")


def stability(view: RunView) -> list[str]:
    """How stable each headline figure was across fresh launches: its CV, the launches behind it,
    whether each reached steady state, and for a miss its cause."""
    closed = [c for c in view.find("steady", "rps") if not c.params.get("open_loop")]
    if not closed:
        return []
    lines = [f"stability of the headline figures across fresh launches (target: launch-to-launch CV of throughput "
             f"<= {STABLE_CV:.0%} for JVM apps; other modes are a reference):"]
    if on_cluster(view) and view.find("steady", "interval_gap_ms"):
        lines.append(f"  {CLUSTER_GAP}")
    jvm = {t: headline.runs_on_jvm(view, t) for t in dict.fromkeys(c.target for c in closed)}  # the target is for JVM apps
    for c in closed:
        states = launch_states(view, c.target, c.point)
        intervals = _cell(view, c.target, c.point, "measured_intervals")
        each = ", ".join(f"#{x.number if x.number is not None else '?'} {'steady' if x.steady else 'NOT steady'}"
                         for x in states)
        lines.append(f"  {c.target} {c.point}: {_launches(c.summary.n)}"
                     + (f" x {count_range(intervals)} in-launch intervals" if intervals else "") + f" ({each})")
        precise = _cell(view, c.target, c.point, "precision_pct")
        for metric in HEADLINE:
            cell = _cell(view, c.target, c.point, metric)
            if cell is not None:
                lines.append(f"    {_figure_line(cell, states, jvm[c.target], precise)}")
        gap = gap_line(view, c.target, c.point)
        if gap:
            lines.append(f"    {gap}")
    by_target = headline.cells(view)
    for a, b in (("quarkus/jvm", "spring-boot/jvm"),):
        if a in by_target and b in by_target and by_target[b].summary.median > 0:
            ca, cb = by_target[a].summary, by_target[b].summary
            prior = view.prior(f"{a} / {b}")  # the findings' interval of this ratio, pooled alike
            ci = view.interval(by_target[a], by_target[b], prior)
            pooled = f", spread pooled with {prior.runs} earlier run(s)" if prior is not None and ci and ci.paired else ""
            spread = (f"95 % interval {ci.low:.2f}-{ci.high:.2f}x ({ci.n} {'rounds, paired' if ci.paired else 'a side'}"
                      f"{pooled})" if ci else "one launch a side: no interval")
            ratio = ci.estimate if ci else ca.median / cb.median  # the findings' estimate, paired by round
            lines.append(f"  {a} / {b}: {ratio:.2f}x, {spread} (the Quarkus team's lab publishes "
                         f"{PUBLISHED_GAP}x, measured {PUBLISHED_GAP_CONDITIONS}); "
                         + _ratio_steadiness(view, by_target[a], by_target[b]))
            lines += _gap(view, a, b, by_target[a].point, ratio)
    return lines


# Why steady's intervals have gaps on a cluster, and why no per-interval reporter closes them.
CLUSTER_GAP = ("on the cluster each in-launch interval is one oha run, started by an exec into the driver pod: oha "
               "reports only when it ends (its JSON or CSV report is written at exit) and the driver's image holds "
               "nothing else to report from, so no reporter runs inside one continuous load, as wrk's Lua hook "
               "does on one machine. Between two measured intervals no load is sent while the exec returns and "
               "the next starts; each app/mode's gap is stated below its figures")


def on_cluster(view: RunView) -> bool:
    return (view.plan.get("placement") or {}).get("kind") == "kubernetes"


def gap_line(view: RunView, target: str, point: str) -> str:
    """The time between measured intervals in which no load was sent, median and largest over the
    launches, and the share of the measured span it took ("" when the run did not record it)."""
    gap, most = _cell(view, target, point, "interval_gap_ms"), _cell(view, target, point, "interval_gap_max_ms")
    share = _cell(view, target, point, "unloaded_pct")
    if gap is None:
        return ""
    return (f"gaps between measured intervals (no load sent): median {fmt_value(gap.summary.median)} ms"
            + (f", largest {fmt_value(max(most.values))} ms" if most is not None else "")
            + (f", {share.summary.median:.1f} % of the measured span (median of the launches)" if share else ""))


def _figure_line(cell: Cell, states: list[LaunchState], jvm: bool, precision: Cell | None = None) -> str:
    """One figure's stability: CV, launches, steady in how many, and the verdict with its causes."""
    s = cell.summary
    unsteady = [x for x in states if not x.steady]
    head = (f"{metric_label(cell.metric)} {fmt_value(s.median)}: CV {s.cv:.1%} over {_launches(s.n)}, "
            f"steady in {len(states) - len(unsteady)} of {len(states)}")
    notes = [what for flag, what in (("driver-bound", "driver-bound intervals"), ("errors", "errors"),
                                     ("held-back", HELD_BACK_NOTE), ("contended", CONTENDED_NOTE))
             if flag in cell.flags]
    if cell.metric != "rps":  # no target: the launches' state says what the figure describes
        unsettled = f"; not steady in {', '.join(_name(x) for x in unsteady)}" if unsteady else ""
        return head + unsettled + "".join(f"; {n}" for n in notes) + " (no target)"
    causes = []
    if unsteady:
        causes.append("not steady: " + "; ".join(f"{_name(x)}: {x.why}" for x in unsteady))
    if s.n < 2:
        causes.append("one launch: no launch-to-launch spread")
    elif s.cv > STABLE_CV:
        causes.append(f"spread between launches (CV above {STABLE_CV:.0%})"
                      + ("" if unsteady else " with steady state reached in every launch")
                      + _against_precision(cell, precision))
    if not jvm:
        verdict = "reference, not a JVM app (the target is for JVM apps)" + (f": {'; '.join(causes)}" if causes else "")
    else:
        verdict = f"MISS: {'; '.join(causes)}" if causes else "ok"
    return f"{head}: {verdict}" + "".join(f"; also {n}" for n in notes)


def _against_precision(cell: Cell, precision: Cell | None) -> str:
    """Whether the launches differ by more than each launch's own value is known to: two launches
    whose 95 % intervals overlap may differ only by their measurement, not by how they settled."""
    if precision is None or not precision.values or cell.summary.median <= 0:
        return ""
    s, widths = cell.summary, sorted(precision.values)
    spread = 100 * (s.max - s.min) / s.median
    span = f"+-{widths[0]:.1f}-{widths[-1]:.1f} %" if widths[0] != widths[-1] else f"+-{widths[-1]:.1f} %"
    if spread <= sum(widths[-2:]):  # the two widest intervals still touch
        return (f"; the launches differ by {spread:.1f} %, within their own measurement's precision ({span}, 95 % CI "
                f"of each launch's mean): a longer measurement per launch would tell launch-to-launch spread "
                f"from measurement noise")
    return (f"; the launches differ by {spread:.1f} %, beyond their own measurement's precision ({span}): they "
            f"settled at different throughputs")


def _launches(n: int) -> str:
    return f"{n} launch{'' if n == 1 else 'es'}"


def _name(x: LaunchState) -> str:
    return f"launch {x.number}" if x.number is not None else "a launch"


def _ratio_steadiness(view: RunView, a: Cell, b: Cell) -> str:
    """Whether the ratio compares two steady states: which side was not steady in how many launches."""
    misses = []
    for c in (a, b):
        states = launch_states(view, c.target, c.point)
        unsteady = sum(not x.steady for x in states)
        if unsteady:
            misses.append(f"{c.target} not steady in {unsteady} of {len(states)} launches")
    # a side whose throughput the load side's CPU capped is a lower bound, and so is the ratio's end
    bounded = [c.target for c in (a, b) if "load-side-bound" in c.flags]
    bound = (f"; {' and '.join(bounded)} capped by the load side's CPU (a lower bound): the ratio is "
             + ("at least this" if bounded == [a.target] else "at most this" if bounded == [b.target] else "unclear")
             if bounded else "")
    if not misses:
        return f"both steady in every launch (CV {a.summary.cv:.1%} and {b.summary.cv:.1%})" + bound
    return "NOT a steady-state ratio: " + ", ".join(misses) + " (its figure includes warm-up)" + bound


def _gap(view: RunView, a: str, b: str, at: str, ratio: float) -> list[str]:
    """What the throughput gap between a and b goes with: CPU per request (app, DB), SQL
    statements per request, and whether either JIT was still compiling."""
    def med(target: str, metric: str) -> float | None:
        found = _cell(view, target, at, metric)
        return found.summary.median if found else None

    out = []
    for metric, what in (("app_cpu_ms_per_request", "app CPU ms/request"), ("db_cpu_ms_per_request", "DB CPU ms/request"),
                         ("sql_statements_per_request", "SQL statements/request"), ("gc_ms_per_s", "GC ms/s"),
                         ("jit_compile_ms_per_s", "JIT compile ms/s")):
        va, vb = med(a, metric), med(b, metric)
        if va is not None and vb is not None:
            times = f" ({vb / va:.1f}x)" if va > 0 and metric.endswith("per_request") else ""
            out.append(f"    {what}: {a} {va:,.3g}, {b} {vb:,.3g}{times}")
    out += _gap_reading(med, a, b, ratio)
    return out


PUBLISHED_GAP = 1.98  # the Quarkus team's lab: Quarkus JVM / Spring Boot JVM req/s, the same kind of app
PUBLISHED_GAP_CONDITIONS = "at 100 connections on 4 CPUs"
CLOSE = 0.25          # two ratios within 25 % of each other are taken as the same


def _gap_reading(med, a: str, b: str, ratio: float) -> list[str]:
    """Which of the measured causes explains the ratio, and how it stands against the published one.
    With both apps holding their one CPU, throughput goes as 1 / CPU per request: when the CPU
    ratio matches the throughput ratio, the gap is the work each request costs the app, and the
    SQL count, GC and JIT say where that work comes from."""
    lines = []
    off = ratio / PUBLISHED_GAP
    lines.append(f"    reading: {ratio:.2f}x is " + ("close to" if abs(off - 1) <= CLOSE else f"{off:.1f}x")
                 + f" the published {PUBLISHED_GAP}x (measured {PUBLISHED_GAP_CONDITIONS}: other conditions)")
    cpu_a, cpu_b = med(a, "app_cpu_ms_per_request"), med(b, "app_cpu_ms_per_request")
    if cpu_a and cpu_b:
        cpu = cpu_b / cpu_a
        follows = abs(cpu / ratio - 1) <= CLOSE
        lines.append(f"    the app's own CPU per request differs {cpu:.1f}x: "
                     + ("it explains the gap" if follows else "it does not explain the whole gap (the DB, the "
                                                               "driver or idle CPU take the rest)"))
    sql_a, sql_b = med(a, "sql_statements_per_request"), med(b, "sql_statements_per_request")
    if sql_a is not None and sql_b is not None and abs(sql_b - sql_a) > 0.2:
        lines.append(f"    the apps send different SQL per request ({sql_a:.2f} vs {sql_b:.2f}): a parity rule is "
                     f"broken and the app, not the figure, needs fixing")
    for t in (a, b):
        jit = med(t, "jit_compile_ms_per_s")
        if jit is not None and jit > 100:
            lines.append(f"    {t}'s JIT was still compiling {jit:,.0f} ms a second, which the one-CPU quota takes "
                         f"from the requests: part of the gap is warm-up, not the framework")
    gc_a, gc_b = med(a, "gc_ms_per_s"), med(b, "gc_ms_per_s")
    if gc_a is not None and gc_b is not None and abs(gc_b - gc_a) > 50:
        more = b if gc_b > gc_a else a
        lines.append(f"    {more} spends {abs(gc_b - gc_a):,.0f} ms a second more in GC")
    return lines
