"""The headline ratios of a run, each with its 95 % interval, whether it is settled, and the earlier
runs of its plan and method beside it.

A ratio is judged from the launch-level values (perflab.analysis.ratios_ci): paired by round when the
launches ran in rounds (each launch's repeat number is its round), else Welch on the two samples;
with the spread that earlier runs of the same method on this machine measured pooled in, when the
run had such a prior. Each ratio is set beside those earlier runs: an estimate outside what they
allow is said first, and from three runs on the interval to expect of the next run is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from perflab import headline, rounds, run_history
from perflab.analysis import ratios_ci
from perflab.results import Cell, RunView

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
