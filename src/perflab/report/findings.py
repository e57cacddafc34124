"""What a run found, first: the headline ratios with their 95 % intervals and whether each is
settled, the conditions they hold under, the figures behind them, how the rounds ended and how
fast the host itself was. The terminal summary ends with it; the HTML and Markdown reports begin
with it.

A ratio is judged from the launch-level values (perflab.analysis.ratios_ci): paired by round when the
launches ran in rounds (each launch's repeat number is its round), else Welch on the two samples;
with the spread that earlier runs of the same method on this machine measured pooled in, when the
run had such a prior. Each ratio is set beside those earlier runs: an estimate outside what they
allow is said first, and from three runs on the interval to expect of the next run is given.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from perflab import headline, rounds, run_history
from perflab.analysis import host_speed, ratios_ci, stats
from perflab.apps.launching import HEAP_OPTIONS
from perflab.present.charts import Axis, Chart, Point, Series, line_chart
from perflab.report import contention, frameworks
from perflab.results import Cell, RunView
from perflab.scenarios.steady_report import PUBLISHED_GAP, PUBLISHED_GAP_CONDITIONS, against_sweep

DEFAULT_TARGET = 0.05
EARLIER_SHOWN = 4  # earlier runs whose estimates a ratio's line lists by name (the answer across runs holds them all)


@dataclass
class RatioFinding:
    what: str                 # "throughput at /fruits c=4"
    numerator: str
    denominator: str
    a: Cell
    b: Cell
    interval: ratios_ci.RatioInterval | None
    target: float
    per_round: list[tuple[int, float]] = field(default_factory=list)
    least: int = 2            # rounds before a ratio can count as settled (the plan's min_rounds)
    with_warming: ratios_ci.RatioInterval | None = None  # with the launches still warming up, when any were
    not_steady: int = 0       # rounds with a launch still warming up (marked not-steady) on either side
    rounds: int = 0           # rounds with a launch of both sides, steady or not
    dropped: int = 0          # launches left out of the pairing: their round was missing or repeated
    earlier: list[tuple[str, ratios_ci.RatioInterval]] = field(default_factory=list)  # earlier runs' intervals
    prior: ratios_ci.Prior | None = None
    sql: str = ""             # the two apps' SQL work per request beside a throughput ratio (sql_parity)

    @property
    def settled(self) -> bool:
        return ratios_ci.settled(self.interval, self.target, self.least)

    @property
    def rounds_needed(self) -> int | None:
        if not self.interval:
            return None
        return ratios_ci.rounds_needed(self.interval.sd_log, self.target, least=self.least, df=self.interval.df,
                                       prior_df=self.prior.df if self.prior else 0)

    def state(self) -> str:
        """Settled or not, and what it lacks."""
        ci = self.interval
        if ci is None:
            if self.not_steady:
                return "NOT settled (fewer than two rounds in which both launches reached steady state)"
            return "NOT settled (one launch a side)"
        if self.settled:
            return f"settled (within +-{self.target:.0%})"
        if ci.half_width <= self.target:
            return f"NOT settled (+-{ci.half_width:.0%} but {ci.n} of the {self.least} rounds a ratio needs)"
        return f"NOT settled (+-{ci.half_width:.0%}, target +-{self.target:.0%})"

    def text(self) -> str:
        name = f"{self.numerator} / {self.denominator} {self.what}"
        if self.interval is None:
            if self.not_steady:
                return name + ": " + self.state() + self.warming_text()
            return (f"{name}: {self.a.summary.median / self.b.summary.median:.2f}x from one launch a side: no interval "
                    f"(two launches a side are the least that give one)")
        ci = self.interval
        how = f"{ci.n} rounds, paired" if ci.paired else f"{ci.n}+ launches a side, unpaired"
        if self.prior is not None and ci.paired:
            how += f", spread pooled with {self.prior.runs} earlier run(s)"
        text = f"{name}: {ci.estimate:.2f}x, 95 % interval {ci.low:.2f}-{ci.high:.2f}x ({how}): {self.state()}"
        text += self.warming_text()
        if ci.outliers:
            text += (f"; round(s) {', '.join(map(str, ci.outliers))} left out: their ratio stood apart from the "
                     f"other rounds' (generalized ESD test at {ratios_ci.OUTLIER_ALPHA:.0%}: a launch held back)")
        if self.dropped:
            text += (f"; not paired by round: {self.dropped} launch value(s) have a round number missing or "
                     f"repeated (Welch on all launches instead)")
        return text + self.bound_text()

    def warming_text(self) -> str:
        """The rounds left out because a launch in them was still warming up, and the ratio with them."""
        if not self.not_steady:
            return ""
        text = (f"; rests on {self.interval.n if self.interval else 0} of {self.rounds or self.not_steady} rounds: "
                f"{self.not_steady} had a launch still warming up (never steady within the warm-up's maximum), left "
                f"out as not a steady-state figure")
        if (w := self.with_warming) is not None:
            text += f" (with them {w.estimate:.2f}x [{w.low:.2f}-{w.high:.2f}])"
        return text

    def bound_text(self) -> str:
        """A throughput the load side capped is a lower bound, and so one side of the ratio is."""
        if not self.what.startswith("throughput"):
            return ""
        capped = [c.target for c in (self.a, self.b) if "load-side-bound" in c.flags]
        if not capped:
            return ""
        which = (" and ".join(capped) + "'s throughputs are lower bounds" if len(capped) == 2 else
                 f"{capped[0]}'s throughput is a lower bound")
        direction = {(self.a.target,): "the ratio is at least this", (self.b.target,): "the ratio is at most this"}
        return (f"; {which} (the load driver and the database, sharing a CPU, were the limit in some launches): "
                + direction.get(tuple(capped), "the ratio itself is bounded in neither direction"))

    def _runs(self) -> list[ratios_ci.RatioInterval]:
        """The earlier runs' intervals and this run's, oldest first (none without this run's)."""
        return [ci for _, ci in self.earlier] + [self.interval] if self.interval is not None else []

    @property
    def between(self) -> ratios_ci.BetweenRuns | None:
        """The between-run spread from the earlier runs and this one (None before three runs)."""
        return ratios_ci.between_runs(self._runs())

    def against_earlier(self) -> str:
        """Whether this run's estimate lies where the earlier runs of its plan, method and machine
        allow, in one test: from three earlier runs, around their mean with the between-run
        variance and this run's own error (BetweenRuns.next_run); with one or two, against the
        earlier runs pooled into one interval (ratios_ci.combined), not against each in turn.
        Empty when it does."""
        ci = self.interval
        if ci is None or not self.earlier:
            return ""
        name = f"{self.numerator} / {self.denominator} {self.what}"
        before = ratios_ci.between_runs([x for _, x in self.earlier])
        if before is not None:
            low, high = before.next_run(ci.se_log)
            if low <= ci.estimate <= high:
                return ""
            return (f"THIS RUN DISAGREES WITH THE EARLIER ONES: {name} {ci.estimate:.2f}x lies outside "
                    f"{low:.2f}-{high:.2f}x, where {len(self.earlier)} earlier runs of this plan and method on this "
                    f"machine put the next run's estimate (95 %)")
        pooled = ratios_ci.combined([x for _, x in self.earlier])
        d = ratios_ci.difference(ci, pooled) if pooled is not None else None
        if d is None or not d.differs:
            return ""
        which = (f"run {self.earlier[0][0]}" if len(self.earlier) == 1 else
                 f"the {len(self.earlier)} earlier runs pooled ({', '.join(run for run, _ in self.earlier)})")
        return (f"THIS RUN DISAGREES WITH {'AN EARLIER ONE' if len(self.earlier) == 1 else 'THE EARLIER ONES'}: "
                f"{name} {ci.estimate:.2f}x against {pooled.estimate:.2f}x [{pooled.low:.2f}-{pooled.high:.2f}] in "
                f"{which}: their quotient {d.estimate:.2f} [{d.low:.2f}-{d.high:.2f}] excludes 1")

    @property
    def across(self) -> ratios_ci.AcrossRuns | None:
        """The ratio from this run and the earlier ones together (None before three runs)."""
        return ratios_ci.across_runs(self._runs())

    def across_text(self) -> str:
        """The answer of all the runs of this plan and method on this machine so far, this one
        included: what a short run cannot settle alone, its runs together may."""
        pooled = self.across
        if pooled is None:
            return ""
        state = (f"settled (within +-{self.target:.0%})" if pooled.settled(self.target) else
                 f"NOT settled (+-{pooled.half_width:.0%}, target +-{self.target:.0%})")
        return (f"{self.numerator} / {self.denominator} {self.what} across the {pooled.runs} runs of this plan and "
                f"method on this machine (this one and {pooled.runs - 1} before it): {pooled.estimate:.2f}x, 95 % "
                f"interval {pooled.low:.2f}-{pooled.high:.2f}x (each run one observation: the spread of their "
                f"estimates holds the between-run variance, its sd on the log scale beyond the runs' own errors "
                f"{self.between.sd_text() if self.between else f'{pooled.tau_log:.3f}'}): {state}")

    def history_text(self) -> str:
        """This ratio beside the earlier runs, and the interval to expect of the next run."""
        ci = self.interval
        if ci is None or not self.earlier:
            return ""
        shown = self.earlier[-EARLIER_SHOWN:]
        past = ", ".join(f"{x.estimate:.2f}x [{x.low:.2f}-{x.high:.2f}]" for _, x in shown)
        which = f" (the last {len(shown)}, oldest first)" if len(shown) < len(self.earlier) else ""
        text = (f"{self.numerator} / {self.denominator} {self.what} in the {len(self.earlier)} earlier run(s) of this "
                f"plan and method on this machine{which}: {past}")
        between = self.between
        if between is not None:
            low, high = between.next_run(ci.se_log)
            text += (f"; between runs the estimate moves by an sd (log) {between.sd_text()} beyond each run's own "
                     f"error, so expect the next run's estimate within {low:.2f}-{high:.2f}x (around the "
                     f"{between.runs} runs' mean, with the next run's own error)")
        return text


@dataclass
class Findings:
    conditions: str
    ratios: list[RatioFinding]
    behind: list[str]         # the figures behind the ratios, one line per app/mode
    rounds: str               # how the launches were scheduled and how the rounds ended
    host: str                 # the canary: how much the host's speed moved
    advice: list[str]         # what budget would settle an unsettled ratio
    published: str            # a published figure beside the headline, with the differences stated
    levels: list[str] = field(default_factory=list)  # where the variance is: launches or intervals
    failures: list[str] = field(default_factory=list)  # app/modes that failed under the plan's heap flags
    frameworks: list[str] = field(default_factory=list)  # a headline ratio not given; frameworks never published
    cache: str = ""           # the canary's pointer chase, beside the earlier runs'
    host_differs: str = ""    # the host's shared cache beyond every earlier run's: why figures may have moved
    contention: str = ""      # steal and run-queue wait over the steady launches' measured windows

    def warnings(self) -> list[str]:
        """What must be read before the ratios: an estimate the earlier runs do not allow, and then
        whether the host itself was in another state than in all of them."""
        disagree = [w for r in self.ratios if (w := r.against_earlier())]
        return disagree + ([f"beside it: {self.host_differs}"] if disagree and self.host_differs else [])

    def notes(self) -> list[str]:
        across = [t for r in self.ratios if (t := r.history_text())]
        return [x for x in (*across, self.rounds, *self.levels, self.host, self.contention, self.cache, *self.advice, self.published,
                            *self.frameworks) if x]

    def lines(self) -> list[str]:
        out = ["what this run found", *(f"  {w}" for w in self.warnings()), f"  conditions: {self.conditions}"]
        out += [f"  {x}" for x in self.failures]
        for r in self.ratios:
            out += [f"  {r.text()}"] + [f"    {x}" for x in (r.across_text(), r.sql) if x]
        out += [f"    {line}" for line in self.behind]
        out += [f"  {x}" for x in self.notes()]
        return out


def _target(view: RunView) -> float:
    rounds = view.plan.get("rounds") or {}
    return rounds.get("target") or DEFAULT_TARGET


def _least(view: RunView, label: str) -> int:
    """The rounds a ratio needed to count as settled in this run: as the rounds recorded it, else the
    plan's min_rounds (2 for runs stored before min_rounds)."""
    record = view.rounds or {}
    final = next((s.get("least") for s in record.get("ratios") or [] if s.get("ratio") == label), None)
    recorded = final or (record.get("least") or {}).get(label)  # as the last round judged it, else at the start
    # every other ratio needs as many rounds as the headline ratios do: settling is one rule
    return recorded or rounds.least_rounds(_target(view), floor=(view.plan.get("rounds") or {}).get("min_rounds") or 0)


def _known(view: RunView, label: str) -> tuple[ratios_ci.Prior | None, list[tuple[str, ratios_ci.RatioInterval]]]:
    """The prior the rounds pooled into this ratio and the earlier runs' intervals, as stored with the run."""
    known = (((view.rounds or {}).get("history") or {}).get("ratios") or {}).get(label) or {}
    prior = view.prior(label)
    earlier = [(e["run"], run_history.interval_from_dict(e["interval"])) for e in known.get("earlier") or []]
    return prior, earlier


def _conditions(view: RunView, cell: Cell | None) -> str:
    limits = view.plan.get("limits", {})
    heap = " ".join(limits.get("jvm_opts") or []) or "the frameworks' default heap"
    load = (f"{cell.params.get('path')} at {cell.params.get('connections')} connections (closed loop), "
            if cell is not None else "")
    return f"{load}the app on {limits.get('cpus')} CPU(s) with {limits.get('memory_mb')} MB, {heap}"


def _ratio(view: RunView, what: str, a: Cell, b: Cell, target: float, *, pooled: bool = False) -> RatioFinding:
    """One ratio of two cells. `pooled`: the ratio the rounds chased (steady's throughput), whose
    interval pools the prior the run had and is set beside the earlier runs."""
    in_rounds = view.in_rounds(a)
    label = f"{a.target} / {b.target}"
    prior, earlier = _known(view, label) if pooled else (None, [])
    # a launch still warming up is not a steady-state figure: its round stays out of the ratio
    warming = frozenset(a.warming() | b.warming())
    ra, rb = ({r: v for r, v in c.by_repeat().items() if v > 0} for c in (a, b))
    per_round = sorted((r, ra[r] / rb[r]) for r in ra if r in rb and r not in warming) if in_rounds else []
    found = RatioFinding(what, a.target, b.target, a, b, view.interval(a, b, prior, without=warming), target,
                         per_round, _least(view, label) if pooled else _least(view, ""),
                         dropped=a.unpairable() + b.unpairable() if in_rounds else 0, earlier=earlier, prior=prior,
                         rounds=len([r for r in ra if r in rb]))
    if warming:
        found.not_steady = len(warming)
        found.with_warming = view.interval(a, b, prior)
    return found


SQL_APART = 0.10  # two apps' SQL work per request more than 10 % apart: not the same work


def sql_parity(view: RunView, a: Cell, b: Cell) -> str:
    """Whether the two apps of a throughput ratio did the same database work per request at its
    point: SQL statements per request when the run counted them (a profiling run), else
    transactions per request (pg_stat_database, counted in every run). Apart by more than
    SQL_APART, the ratio compares two amounts of work, not two frameworks, and the line says so
    with both figures; else the parity is stated. Empty when the run did not measure either."""
    for metric, what in (("sql_statements_per_request", "SQL statement"), ("db_transactions_per_request", "SQL transaction")):
        got = {c.target: c.summary.median for c in view.find("steady", metric, a.point)}
        if a.target in got and b.target in got:
            break
    else:
        return ""
    va, vb = got[a.target], got[b.target]
    low, high = sorted((va, vb))
    plural = lambda v: f"{what}{'' if f'{v:.1f}' == '1.0' else 's'}"  # noqa: E731
    if high == low or (low > 0 and high / low - 1 <= SQL_APART):
        if f"{va:.1f}" == f"{vb:.1f}":
            return f"SQL parity: {va:.1f} {plural(va)} per request each"
        return f"SQL parity (within {SQL_APART:.0%}): {a.target} {va:.2f}, {b.target} {vb:.2f} {what}s per request"
    return (f"{a.target} does {va:.1f} {plural(va)} per request, {b.target} {vb:.1f}: the ratio compares two "
            f"amounts of database work, not two frameworks")


HEAP_RAN_OUT = ("outofmemoryerror", "java heap space", "out of memory", "ran out of heap")


def heap_flags(view: RunView, target: str) -> list[str]:
    """The heap options the plan gave an app/mode (as perflab.apps.launching.mode_jvm_opts does):
    a native mode the plan's native_heap_opts, else the heap sizes of jvm_opts; a JVM mode the
    heap sizes of jvm_opts."""
    limits = view.plan.get("limits") or {}
    jvm = [o for o in limits.get("jvm_opts") or [] if o.startswith(HEAP_OPTIONS)]
    if not headline.runs_on_jvm(view, target):
        return list(limits.get("native_heap_opts") or []) or jvm
    return jvm


def heap_failures(view: RunView) -> list[str]:
    """Each app/mode that failed in a run whose plan sets its heap (LAB-2020's -Xmx64m, its native
    image's -Xms32m -Xmx64m -Xmn32m): a finding of the run, with the flags it ran with, its first
    failure's reason, and whether that reason says the heap ran out."""
    failed: dict[str, list[dict]] = {}
    for o in view.outcomes:
        if o["status"] == "failed":
            failed.setdefault(f"{o['app']}/{o['mode']}", []).append(o)
    out = []
    for target, said in failed.items():
        flags = heap_flags(view, target)
        if not flags:
            continue
        reasons = [o["reason"] for o in said if o["reason"]]
        ran_out = any(sign in r.lower() for r in reasons for sign in HEAP_RAN_OUT)
        where = "as a whole" if any(o["scenario"] == "run" for o in said) else \
            "in " + ", ".join(dict.fromkeys(o["scenario"] for o in said))
        out.append(f"FAILED under the plan's heap flags {' '.join(flags)} ({view.plan.get('name')}): {target} failed "
                   f"{where}" + (": its heap ran out" if ran_out else ": its reason does not name the heap")
                   + (f" ({reasons[0]})" if reasons else "")
                   + (f"; {len(said) - 1} more failure(s)" if len(said) > 1 else ""))
    return out


def _startup_cells(view: RunView, metric: str) -> dict[str, Cell]:
    return {c.target: c for c in view.find("startup", metric, point="warm")}


def other_sql_figure(view: RunView, a: Cell, b: Cell) -> str:
    """Beside sql_parity's figure, the other one: both apps' SQL transactions per request when it
    judged by statements (a profiling run counted them), else why statements are missing."""
    def per_request(metric: str) -> dict[str, float]:
        return {c.target: c.summary.median for c in view.find("steady", metric, a.point)}
    statements, transactions = per_request("sql_statements_per_request"), per_request("db_transactions_per_request")
    if not {a.target, b.target} <= set(statements):
        return "SQL statements per request: counted in a profiling run only (--profile)"
    if {a.target, b.target} <= set(transactions):
        return (f"SQL transactions per request: {a.target} {transactions[a.target]:.1f}, "
                f"{b.target} {transactions[b.target]:.1f}")
    return ""


def _throughput(view: RunView, a: Cell, b: Cell, target: float, *, pooled: bool = False) -> RatioFinding:
    """The throughput ratio at the two cells' point, with the two apps' SQL work beside it."""
    found = _ratio(view, f"throughput at {a.params.get('path')} c={a.params.get('connections')}", a, b, target,
                   pooled=pooled)
    found.sql = sql_parity(view, a, b)
    return found


def ratio_findings(view: RunView) -> list[RatioFinding]:
    steady = headline.cells(view)
    shapes = headline.shape_cells(view)
    targets = list(steady) or list(_startup_cells(view, "ttfr_ms"))
    target = _target(view)
    out = []
    for a, b in headline.of_run(view, targets):
        if a in steady and b in steady:
            out.append(_throughput(view, steady[a], steady[b], target, pooled=True))
            # the other request shapes on the same launches: each its own ratio, with each app's SQL
            # work per request beside it (which part of a ratio is different database work)
            for at_point in shapes.values():
                if a in at_point and b in at_point:
                    out.append(_throughput(view, at_point[a], at_point[b], target))
                    out[-1].sql = "; ".join(x for x in (out[-1].sql, other_sql_figure(view, at_point[a], at_point[b]))
                                            if x)
        for metric, what in (("ttfr_ms", "time to first response (warm)"),
                             ("rss_after_first_mb", "RSS after the first response (warm)")):
            cells = _startup_cells(view, metric)
            if a in cells and b in cells:
                out.append(_ratio(view, what, cells[a], cells[b], target))
    return out


def _behind(view: RunView, ratios: list[RatioFinding]) -> list[str]:
    seen, out = set(), []
    swept = {(x.steady.target, x.steady.point): x for x in against_sweep(view)}
    for r in ratios:
        if not r.what.startswith("throughput"):
            continue
        for cell in (r.a, r.b):
            if cell.target in seen:
                continue
            seen.add(cell.target)
            flagged = sorted(cell.flags & {"host-slow", "held-back", "contended", "driver-bound", "errors"})
            steady, warming = cell.steady_values(), cell.warming_values()
            if steady:
                s = stats.summarize(steady)
                out.append(f"{cell.target}: {s.median:,.0f} req/s median [{s.min:,.0f}-{s.max:,.0f}], CV {s.cv:.1%}, "
                           f"{s.n} steady launch(es)")
            else:
                out.append(f"{cell.target}: no launch reached steady state")
            if warming:
                out[-1] += (f"; still warming up: {len(warming)} launch(es), {statistics.median(warming):,.0f} req/s "
                            f"median [{min(warming):,.0f}-{max(warming):,.0f}] (not steady-state figures)")
            out[-1] += f"; marks: {', '.join(flagged)}" if flagged else ""
            if (x := swept.get((cell.target, cell.point))) is not None:
                out[-1] += (f"; the sweep at this point: {x.sweep.summary.median:,.0f} req/s ({x.apart:+.0%}), one "
                            f"long-lived instance against fresh launches of at most {x.warmup_max_s:.0f} s warm-up")
    return out


def _rounds_line(view: RunView) -> str:
    rec = view.rounds
    if not rec:
        return "launches: app after app (not in rounds): a slow spell of the host lands on one app"
    count = rec.get("rounds", len(rec.get("orders", [])))
    return (f"launches in {count} interleaved rounds, {rounds.order_text(rec)}; "
            f"ended: {rec.get('ended_why') or rec.get('ended') or 'not recorded'}")


def level_lines(view: RunView) -> list[str]:
    """Per app/mode in the rounds, how much of a launch's value varies from launch to launch rather
    than from interval to interval, and what the rounds made of it (Kalibera and Jones)."""
    out = []
    for label, two in sorted(((view.rounds or {}).get("two_levels") or {}).items()):
        if not two:
            continue
        cap = two.get("optimal_intervals")
        out.append(f"where the variance is, {label}: {two.get('launch_share', 0):.0%} of a launch's value varies "
                   f"between launches ({two.get('launches')} launches, {two.get('intervals_per_launch', 0):.0f} "
                   f"intervals each)" + (f"; about {cap} interval(s) per launch buy the most precision per second"
                                         if cap else ""))
    return out


def host_line(view: RunView) -> str:
    """How far the canary's integer chain moved over the run, on the app's CPU and on the load
    side's, and how many readings were slow enough to flag their launches host-slow."""
    slow_share = (view.plan.get("rounds") or {}).get("host_slow", 0.05)
    parts, slow = [], 0
    for metric, where in (("app_cpu_ms", "app's CPU"), ("load_cpu_ms", "load side's CPU")):
        values = [v for c in view.find("canary", metric) for v in c.values]
        if len(values) < 2:
            continue
        middle = statistics.median(values)
        slow += sum(1 for v in values if v > middle * (1 + slow_share))
        parts.append(f"{where} median {middle:.2f} ms, {min(values) / middle - 1:+.1%} to "
                     f"{max(values) / middle - 1:+.1%} ({len(values)} readings)")
    if not parts:
        return "host speed: not measured (no canary readings)" if view.rounds else ""
    return (f"host speed (the canary's integer chain before and after each launch): {'; '.join(parts)}; "
            f"{slow} reading(s) more than {slow_share:.0%} slow"
            + ("" if not slow else " (their launches are flagged host-slow)"))


def cache_lines(view: RunView) -> tuple[str, str]:
    """The canary's pointer chase over the run (the shared cache, which neighbours on the host
    contend for and the integer chain does not see) beside the earlier runs of its plan, method and
    machine, as stored with the run; and, when this run's median lies beyond every earlier run's on
    some side, what that means for comparing its figures with theirs (else "")."""
    earlier = ((view.rounds or {}).get("history") or {}).get("hosts") or {}
    medians = view.canary_medians()
    parts, beyond = [], []
    for metric, where in host_speed.CACHE_SIDES:
        if sum(len(c.values) for c in view.find("canary", metric)) < 2:
            continue
        now = medians[metric]
        text = f"{where} median {now:.1f} ms"
        past = [h[metric] for h in earlier.values() if h.get(metric)]
        if past:
            text += f" (earlier runs here {min(past):.1f}-{max(past):.1f} ms)"
            moved = host_speed.against_earlier(now, past)
            if moved:
                beyond.append(f"{abs(moved):.0%} {'slower' if moved > 0 else 'faster'} on the {where}")
        parts.append(text)
    if not parts:
        return "", ""
    line = ("shared cache (the canary's pointer chase, which the host's neighbours contend for and the integer chain "
            f"does not see): {'; '.join(parts)}")
    if not beyond:
        return line, ""
    runs = len([h for h in earlier.values() if h])
    differs = (f"the host's shared cache was in another state than in every one of the {runs} earlier run(s) here "
               f"({', '.join(beyond)} than the nearest of them): memory-bound work (the JIT's compiled code, the "
               f"database, the load driver) ran at another speed, so this run's req/s and latencies compare with "
               f"theirs only as ratios of apps measured in the same rounds")
    return line + "; " + differs, differs


def _added_round_s(rec: dict, labels: tuple[str, str]) -> float | None:
    """What a round of just these two app/modes took in this run (the median of each one's launches,
    added): the round the lab adds to settle their ratio, not a planned round of every app/mode."""
    took: dict[str, list[float]] = {}
    for launch in rec.get("launches") or []:
        if launch.get("took_s"):
            took.setdefault(launch["label"], []).append(launch["took_s"])
    if not all(took.get(label) for label in labels):
        return None
    return sum(statistics.median(took[label]) for label in labels)


def _advice(view: RunView, ratios: list[RatioFinding]) -> list[str]:
    rec = view.rounds or {}
    seconds = rec.get("round_s") or []
    done = rec.get("rounds") or len(seconds)
    out = []
    for r in ratios:
        if r.settled or r.interval is None or not r.what.startswith("throughput"):
            continue
        need = r.rounds_needed
        if need is None:
            out.append(f"{r.numerator} / {r.denominator} {r.what}: no affordable number of rounds reaches "
                       f"+-{r.target:.0%} at the spread measured")
            continue
        added = _added_round_s(rec, (r.numerator, r.denominator))
        if added:
            cost = (f" (about {max(0, need - done) * added / 60:.0f} min more: a round of {r.numerator} and "
                    f"{r.denominator} takes about {added / 60:.1f} min here; --budget gives a run the time)")
        elif seconds:
            cost = f" (about {need * statistics.mean(seconds) / 60:.0f} min of rounds at this run's pace)"
        else:
            cost = ""
        out.append(f"to settle {r.numerator} / {r.denominator} {r.what} to +-{r.target:.0%}: about {need} rounds{cost}, from "
                   f"the round-to-round spread measured (sd of the log ratio {r.interval.sd_log:.3f}, planned at its "
                   f"80 % upper limit {ratios_ci.sd_upper(r.interval.sd_log, r.interval.df):.3f}: "
                   f"{r.interval.df:.0f} degrees of freedom)")
    return out


def _published(view: RunView, ratios: list[RatioFinding]) -> str:
    for r in ratios:
        if (r.numerator, r.denominator) == ("quarkus/jvm", "spring-boot/jvm") and r.what.startswith("throughput"):
            conns, cpus = r.a.params.get("connections"), view.plan.get("limits", {}).get("cpus")
            return (f"beside it: the Quarkus team's lab publishes {PUBLISHED_GAP}x for Quarkus / Spring Boot "
                    f"throughput, measured {PUBLISHED_GAP_CONDITIONS}; here {conns} connections on {cpus} CPU(s): "
                    f"other conditions, so a reference, not a check")
    return ""


def findings(view: RunView) -> Findings | None:
    ratios = ratio_findings(view)
    failures = heap_failures(view)
    if not ratios:  # no headline ratio: a failure under the plan's heap flags is still a finding
        return Findings(_conditions(view, None), [], [], "", "", [], "", failures=failures) if failures else None
    steady = next((r.a for r in ratios if r.what.startswith("throughput")), None)
    cache, differs = cache_lines(view)
    return Findings(_conditions(view, steady), ratios, _behind(view, ratios), _rounds_line(view), host_line(view),
                    _advice(view, ratios), _published(view, ratios), level_lines(view), failures,
                    frameworks.finding_lines(view, [(r.numerator, r.denominator) for r in ratios]), cache, differs,
                    contention.findings_line(view))


def ratio_chart(found: Findings) -> Chart | None:
    """Each throughput ratio per round, with its interval as a band: a ratio that wanders from
    round to round is what an interval this wide means."""
    series = []
    palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7"]
    for i, r in enumerate(x for x in found.ratios if x.what.startswith("throughput") and x.per_round):
        color = palette[i % len(palette)]
        name = f"{r.numerator} / {r.denominator}"
        series.append(Series(name, color, [Point(n, v) for n, v in r.per_round]))
        if r.interval is not None:
            xs = [n for n, _ in r.per_round]
            for edge, value in (("low", r.interval.low), ("high", r.interval.high)):
                series.append(Series(f"{name} 95 % {edge}", color, [Point(x, value) for x in (min(xs), max(xs))],
                                     dash="dot", markers=False, legend=False, group=name))
    if not series:
        return None
    rounds = sorted({p.x for s in series for p in s.points})
    return line_chart("Throughput ratio per round (dotted: its 95 % interval)", series,
                      Axis("round", ticks=[(n, f"{n:g}") for n in rounds]), Axis("ratio (x)"),
                      key="findings-ratio-per-round")
