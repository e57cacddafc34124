"""Two runs side by side: for every figure both measured, the change of the medians and whether it
is beyond the noise of the repeats (exact Mann-Whitney U, perflab.analysis.stats.compare).

Runs whose method differs (plan, limits, topology, versions: the store's method hash) are not
comparable: compare refuses them unless forced, and a forced comparison says so on every line.
Where the rank test cannot reach significance (3 vs 3: its smallest p is 0.1) Welch's t-test on
the launch values decides and the line says so, from 3 values a side on: with 2 its variance rests
on a single difference, and two launches that happen to agree closely would make any small
run-to-run shift "significant". Fewer values than that give no verdict: such lines say "too few
launches" (or repeats) and whether the two ranges at least do not overlap, never "no change".

Figures that describe the method rather than the app (how long a point was measured, the
precision reached, how many intervals it took, the rate an open-loop point was offered) differ
between two runs by construction: they are shown, marked "not judged", and never called better or
worse.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from html import escape

from perflab.analysis import host_speed, ratios_ci, stats
from perflab.analysis.chance import Chance
from perflab.errors import LabError
from perflab.present.tables import cell_order, fmt_value, label
from perflab.report import contention, findings
from perflab.results import Cell, RunView

BETTER, WORSE, WITHIN_NOISE, TOO_FEW, TOO_FEW_LAUNCHES, HIGHER, LOWER, NOT_JUDGED = (
    "better", "worse", "within noise", "too few repeats", "too few launches", "higher", "lower", "not judged")
HIGHER_IS_BETTER = {"rps", "rps_per_mb", "instances", "aggregate_rps", "projected_rps", "max_rps_reference"}
NEUTRAL = {"requests", "offered_rate", "driver_cpu_util", "app_cpu_share", "db_cpu_s",  # context, not merit
           "steal_pct", "runqueue_wait_ms_per_s", "runqueue_wait_pct", "canary_window_ms"}
# the method's own figures: set by the plan's stopping rules, not by the app (jit_compilations is
# counted over a measurement whose length the precision rule sets)
METHOD = {"measured_s", "precision_pct", "measured_intervals", "warmup_intervals", "warmup_s", "jit_compilations",
          "interval_gap_ms", "interval_gap_max_ms", "unloaded_pct"}  # the driver's turnaround between intervals
DOUBT_FLAGS = ("noisy", "driver-bound", "errors", "no-responses", "not-steady", "held-back", "contended")
LAUNCH_SCENARIOS = {"steady", "startup"}  # each repeat is a fresh launch of the app
WELCH_MIN_VALUES = 3  # Welch's t-test decides from this many values a side on

Key = tuple[str, str, str, str, str]  # app, mode, scenario, point, metric


def direction(metric: str) -> str:
    """"higher" or "lower" is better, or "neutral" (a figure that explains, not one to improve)."""
    if metric in HIGHER_IS_BETTER:
        return "higher"
    if metric in NEUTRAL:
        return "neutral"
    return "lower"  # times, latencies, memory, sizes, errors


def describes_method(cell: Cell) -> bool:
    """A figure the method sets: its stopping rules' own figures, and the throughput of an open-loop
    point (what was offered: a fraction of the launch's own closed-loop throughput)."""
    return cell.metric in METHOD or (cell.metric == "rps" and bool(cell.params.get("open_loop")))


@dataclass
class FigureChange:
    key: Key
    unit: str
    a: Cell
    b: Cell
    result: stats.Comparison
    verdict: str
    ranges_overlap: bool
    doubts: list[str] = field(default_factory=list)  # flags of either side that weaken the verdict

    @property
    def name(self) -> str:
        app, mode, scenario, point, metric = self.key
        return f"{app}/{mode} {scenario}{' ' + point if point else ''} {label(metric)}"


@dataclass
class RunComparison:
    a: RunView
    b: RunView
    method_differs: bool
    alpha: float
    changes: list[FigureChange]
    only_a: list[Key]
    only_b: list[Key]

    def chance(self) -> Chance:
        """How many of the verdicts chance alone would give (figures with a test only)."""
        tested = [c for c in self.changes if c.verdict in (BETTER, WORSE, WITHIN_NOISE, HIGHER, LOWER)]
        return Chance(len(tested), sum(c.verdict != WITHIN_NOISE for c in tested), self.alpha)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.changes:
            out[c.verdict] = out.get(c.verdict, 0) + 1
        return out


def _key(c: Cell) -> Key:
    return (c.app, c.mode, c.scenario, c.point, c.metric)


def _sorted(keys: set[Key], cells: dict[Key, Cell]) -> list[Key]:
    return sorted(keys, key=lambda k: (k[0], k[1], k[2], cell_order(cells[k]), k[4]))


def figure_change(a: Cell, b: Cell, alpha: float = 0.05) -> FigureChange:
    d = direction(a.metric)
    result = stats.compare(a.values, b.values, higher_is_better=(d != "lower"), alpha=alpha)
    overlap = not (a.summary.max < b.summary.min or b.summary.max < a.summary.min)
    fewest = min(a.summary.n, b.summary.n)
    rank_test_too_weak = stats.smallest_p(a.summary.n, b.summary.n) > alpha
    if describes_method(a):
        verdict = NOT_JUDGED
    elif rank_test_too_weak and fewest < WELCH_MIN_VALUES:
        verdict = TOO_FEW_LAUNCHES if a.scenario in LAUNCH_SCENARIOS else TOO_FEW
    elif result.significant:
        if d == "neutral":
            verdict = HIGHER if result.relative_change > 0 else LOWER
        else:
            verdict = BETTER if result.verdict == stats.FASTER else WORSE
    else:
        verdict = WITHIN_NOISE
    doubts = sorted({f for f in a.flags | b.flags if f in DOUBT_FLAGS})
    return FigureChange(_key(a), a.unit, a, b, result, verdict, overlap, doubts)


def compare_runs(a: RunView, b: RunView, *, force: bool = False, alpha: float = 0.05) -> RunComparison:
    """B against A (A is the baseline). Raises LabError for different methods unless forced."""
    differs = a.method_hash != b.method_hash
    if differs and not force:
        raise LabError(f"runs {a.id} and {b.id} were measured with different methods "
                       f"(method {a.method_hash} vs {b.method_hash}: plan, limits, topology or versions differ)",
                       fix="compare runs of the same plan on the same machine, or pass --force to compare anyway "
                           "(every line is then marked)")
    cells_a = {_key(c): c for c in a.cells}
    cells_b = {_key(c): c for c in b.cells}
    both = _sorted(set(cells_a) & set(cells_b), cells_a)
    changes = [figure_change(cells_a[k], cells_b[k], alpha) for k in both]
    return RunComparison(a, b, differs, alpha, changes, _sorted(set(cells_a) - set(cells_b), cells_a),
                         _sorted(set(cells_b) - set(cells_a), cells_b))


# --- rendering --------------------------------------------------------------------------------------

def _key_text(k: Key) -> str:
    return " ".join(x for x in (f"{k[0]}/{k[1]}", k[2], k[3], k[4]) if x)


def _summary(cell: Cell) -> str:
    s = cell.summary
    return fmt_value(s.median) + (f" [{fmt_value(s.min)}-{fmt_value(s.max)}] n={s.n}" if s.n > 1 else " n=1")


def _change(c: FigureChange) -> str:
    rc = c.result.relative_change
    return "n/a" if rc in (float("inf"), float("-inf")) else f"{rc * 100:+.1f}%"


def _verdict_text(c: FigureChange) -> str:
    text = c.verdict
    if c.verdict == NOT_JUDGED:
        text += ": the method sets it"
    elif c.verdict in (TOO_FEW, TOO_FEW_LAUNCHES):
        # no test possible: whether the repeats' ranges are apart is the only evidence left
        text += f": ranges apart, B {_side(c)}" if not c.ranges_overlap else ": ranges overlap"
    elif c.result.significant or c.verdict == WITHIN_NOISE:
        text += f" (p={c.result.p_value:.3f})"
    return text


def _side(c: FigureChange) -> str:
    up = c.result.relative_change > 0
    d = direction(c.key[4])
    if d == "neutral":
        return HIGHER if up else LOWER
    return BETTER if up == (d == "higher") else WORSE


def _notes(c: FigureChange, cmp: RunComparison) -> str:
    notes = []
    if cmp.method_differs:
        notes.append("METHOD DIFFERS")
    if c.doubts:
        notes.append("flags: " + ", ".join(c.doubts))
    return "; ".join(notes)


def header_lines(cmp: RunComparison) -> list[str]:
    a, b = cmp.a, cmp.b
    lines = [f"compare: A = {a.id} (plan {a.plan.get('name')}, method {a.method_hash})",
             f"         B = {b.id} (plan {b.plan.get('name')}, method {b.method_hash})",
             f"change = (median B - median A) / median A; verdict from the exact Mann-Whitney U test on the "
             f"repeats at alpha {cmp.alpha} (Welch's t-test, from {WELCH_MIN_VALUES} values a side, where the rank test "
             f"cannot reach it); figures the method sets are shown, not judged"]
    if cmp.method_differs:
        lines.append("WARNING: the runs' methods differ (plan, limits, topology or versions); compared only "
                     "because forced: every line is marked METHOD DIFFERS")
    judged = [c for c in cmp.changes if c.verdict != NOT_JUDGED]
    smallest = min((c.result.min_p_possible for c in judged), default=0.0)
    if smallest > cmp.alpha:
        lines.append(f"note: with these repeat counts the smallest possible p is {smallest:.3f} > {cmp.alpha}: "
                     f"no change can be called significant; measure at least {WELCH_MIN_VALUES} launches or repeats on each side")
    few = [c for c in judged if c.verdict in (TOO_FEW, TOO_FEW_LAUNCHES)]
    if few and smallest <= cmp.alpha:
        lines.append(f"note: {len(few)} figures have too few launches or repeats on a side for any test (the rank "
                     f"test needs 4 a side, Welch's t-test {WELCH_MIN_VALUES}): they are compared by their ranges "
                     f"only; measure at least {WELCH_MIN_VALUES} launches a side")
    lines += host_lines(cmp.a, cmp.b) + ratio_lines(cmp.a, cmp.b)
    by_chance = cmp.chance().line()
    lines += [by_chance] if by_chance else []
    counts = cmp.counts()
    if counts:
        lines.append("verdicts: " + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
    return lines


CACHE_ALPHA = 0.01  # the chase's readings of two runs differ: a rank test at 1 %, as it is read for every comparison


def _canary(view: RunView, metric: str) -> list[float]:
    return [v for c in view.find("canary", metric) for v in c.values]


def host_lines(a: RunView, b: RunView) -> list[str]:
    """The two runs' host speed (the canary), before any figure is judged: a host that ran slower
    in one run moves every CPU-bound figure of it."""
    out = []
    for metric, where in (("app_cpu_ms", "the app's CPU"), ("load_cpu_ms", "the load side's CPU")):
        va, vb = _canary(a, metric), _canary(b, metric)
        if not va or not vb:
            continue
        ma, mb = statistics.median(va), statistics.median(vb)
        change = mb / ma - 1
        out.append(f"host: canary on {where}: A {ma:.1f} ms [{min(va):.1f}-{max(va):.1f}], B {mb:.1f} ms "
                   f"[{min(vb):.1f}-{max(vb):.1f}]: the host ran {abs(change):.1%} "
                   + ("slower" if change > 0 else "faster") + " in B"
                   + (" (beyond 5 %: CPU-bound figures move with it)" if abs(change) > 0.05 else ""))
    for metric, side in host_speed.CACHE_SIDES:
        where = f"the {side}"
        va, vb = _canary(a, metric), _canary(b, metric)
        if len(va) < 2 or len(vb) < 2:
            continue
        ma, mb = statistics.median(va), statistics.median(vb)
        change = mb / ma - 1
        _, p = stats.mann_whitney_u(va, vb)
        # the chase varies 30-60 % within a run on a busy host: a rank test of the two runs' readings, and a
        # move as large as the one that tells two host states apart elsewhere (host_speed.APART), not 13 %
        moved = p < CACHE_ALPHA and abs(change) > host_speed.APART
        out.append(f"host: shared cache (the canary's pointer chase) on {where}: A {ma:.1f} ms [{min(va):.1f}-{max(va):.1f}], "
                   f"B {mb:.1f} ms [{min(vb):.1f}-{max(vb):.1f}]: {abs(change):.0%} "
                   + ("slower" if change > 0 else "faster") + f" in B (rank test p={p:.2g}"
                   + ("; the host's neighbours contended for its cache differently, which the integer chain does not "
                      "see: memory-bound figures (the JIT's code, the database, the load driver) move with it)"
                      if moved else f": not beyond the chase's own noise, p < {CACHE_ALPHA:g} and "
                      f"{host_speed.APART:.0%} apart needed)"))
    if not out and (a.find("canary") or b.find("canary")):
        out.append("host: only one run has canary readings: the host's speed cannot be compared")
    steal = contention.compare_line(a, b)
    return out + ([steal] if steal else [])


def runs_between(a: RunView, ra: findings.RatioFinding, b: RunView,
                 rb: findings.RatioFinding) -> ratios_ci.BetweenRuns | None:
    """The between-run spread of one ratio from the runs of the two runs' method on this machine:
    the runs each knew before it and the two runs themselves, each once (the later run knew the
    earlier one as one of its earlier runs), None before three."""
    seen: dict[str, ratios_ci.RatioInterval] = dict(ra.earlier) | dict(rb.earlier)
    seen.update({run.id: x for run, x in ((a, ra.interval), (b, rb.interval)) if x is not None})
    return ratios_ci.between_runs(list(seen.values()))


def ratio_lines(a: RunView, b: RunView) -> list[str]:
    """Each headline ratio in both runs with its 95 % interval, and whether the runs differ: judged by
    the 95 % interval of the quotient of the two estimates (ratios_ci.difference), not by whether two
    intervals overlap, whose error rate is not the 5 % each interval promises."""
    found_b = {(r.numerator, r.denominator, r.what): r for r in findings.ratio_findings(b)}
    out = []
    for ra in findings.ratio_findings(a):
        rb = found_b.get((ra.numerator, ra.denominator, ra.what))
        if rb is None or ra.interval is None or rb.interval is None:
            continue
        ia, ib = ra.interval, rb.interval
        between = runs_between(a, ra, b, rb)
        d = ratios_ci.difference(ib, ia, between_var=2 * between.sd_upper ** 2 if between else 0.0)
        if d is None:
            verdict = "no spread to judge by"
        else:
            verdict = (f"B / A {d.estimate:.3f} [{d.low:.3f}-{d.high:.3f}]: "
                       + ("DIFFER (the interval of the difference excludes 1)" if d.differs else "agree (within noise)"))
            verdict += (f"; with the variance between runs of this method here ({between.runs} runs: sd at most "
                        f"{between.sd_upper:.3f}, log) added for each run" if between else
                        "; fewer than three runs of this method here: the variance between runs is not known and "
                        "not added (the verdict may call runs different that only the host moved apart)")
        out.append(f"ratio: {ra.numerator} / {ra.denominator} {ra.what}: A {ia.estimate:.2f}x [{ia.low:.2f}-"
                   f"{ia.high:.2f}], B {ib.estimate:.2f}x [{ib.low:.2f}-{ib.high:.2f}]: {verdict}")
    return out


def render_text(cmp: RunComparison) -> str:
    rows = [[c.name, _summary(c.a), _summary(c.b), _change(c), _verdict_text(c), _notes(c, cmp)] for c in cmp.changes]
    headers = ["figure", "A", "B", "change", "verdict", "notes"]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    fmt = lambda cols: "  ".join(x.ljust(w) for x, w in zip(cols, widths)).rstrip()  # noqa: E731
    out = header_lines(cmp) + ["", fmt(headers), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]
    for what, keys in (("only in A", cmp.only_a), ("only in B", cmp.only_b)):
        if keys:
            out += ["", f"{what} ({len(keys)} figures):"]
            out += [f"  {_key_text(k)}" for k in keys]
    return "\n".join(out)


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1200px;
padding:0 16px;color:#1d1d1f}
table{border-collapse:collapse;margin:12px 0;font-size:13px}th,td{border:1px solid #ddd;padding:4px 8px;
text-align:left;vertical-align:top}th{background:#f4f5f7}td.num{text-align:right;font-variant-numeric:tabular-nums}
.better{background:#e6f4ea}.worse{background:#fce8e6}.higher,.lower{background:#eef3fb}
.warn{background:#fff4ce;border:1px solid #e0c36b;padding:8px 12px;border-radius:4px}
.method{color:#b00020;font-weight:600}.doubt{color:#8a5a00}
"""


def render_html(cmp: RunComparison) -> str:
    head = header_lines(cmp)
    warn = "".join(f'<p class="warn">{escape(x)}</p>' for x in head[3:]
                   if x.startswith(("WARNING", "note", "by chance")))
    warn += "".join(f"<p>{escape(x)}</p>" for x in head[3:] if x.startswith(("host:", "ratio:")))
    rows = []
    for c in cmp.changes:
        rows.append(
            f'<tr class="{escape(c.verdict.replace(" ", "-"))}"><td>{escape(c.name)}</td>'
            f'<td class="num">{escape(_summary(c.a))}</td><td class="num">{escape(_summary(c.b))}</td>'
            f'<td class="num">{escape(_change(c))}</td>'
            f'<td class="{escape(c.verdict.split()[0])}">{escape(_verdict_text(c))}</td>'
            f'<td>{"<span class=method>METHOD DIFFERS</span> " if cmp.method_differs else ""}'
            f'<span class="doubt">{escape(", ".join(c.doubts))}</span></td></tr>')
    only = ""
    for what, keys in (("Only in A", cmp.only_a), ("Only in B", cmp.only_b)):
        if keys:
            items = "".join(f"<li>{escape(_key_text(k))}</li>" for k in keys)
            only += f"<h2>{what}</h2><ul>{items}</ul>"
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>perflab compare {escape(cmp.a.id)} vs '
            f'{escape(cmp.b.id)}</title><style>{_CSS}</style></head><body>'
            f'<h1>Run comparison</h1><p>{"<br>".join(escape(x) for x in head[:3])}</p>{warn}'
            f'<p>{escape(head[-1]) if head[-1].startswith("verdicts") else ""}</p>'
            f'<table><thead><tr><th>figure</th><th>A: median [min-max] n</th><th>B</th><th>change</th>'
            f'<th>verdict</th><th>notes</th></tr></thead><tbody>{"".join(rows)}</tbody></table>{only}</body></html>')
