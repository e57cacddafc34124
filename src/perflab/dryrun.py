"""The cost of a run before it starts: what runs (app/modes, scenarios, launches and rounds), what
cannot run here and why, and how long each app/mode and scenario is expected to take, with a total.

The steps are the run's own (perflab.schedule: target_steps, build_steps, round_steps: the list the run and
its progress display walk). A step is expected to take what it took in this machine's earlier
complete runs of the same plan and method (their median, the same record the progress display
starts from); a step without such a record takes the plan's estimate times this machine's pace for
that kind of step (a scenario, the rounds, a build: measured over estimated seconds of the kind's
steps in its latest runs of any plan), and the plan's estimate as it is for a kind never run here.

Nothing is built, started or installed: `perflab run PLAN --dry-run` only reads the plan, the
apps' descriptors and the results store. A run prints the short form of the same summary first,
and asks before a run estimated above a limit (`--max-hours`, PERFLAB_MAX_HOURS, default 4).
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from typing import Callable

from perflab import environment, headline, isolate, preflight, rounds, run_history, schedule
from perflab.analysis import ratios_ci
from perflab.errors import LabError
from perflab.migrate import open_store
from perflab.progress import Step, fmt_duration, step_kind
from perflab.settings import Plan
from perflab.sites.local import topology
from perflab.store import Store, method_hash
from perflab.targets import Target, select_targets

DEFAULT_MAX_HOURS = 4.0  # a working day's run on 2 cores; above it a run asks first
# a build's time when it was never built here (the lab's JVM builds take 1-4 minutes on 2 cores, a native image ~15)
FIRST_BUILD_S = {True: 240.0, False: 900.0}


@dataclass
class Part:
    label: str
    seconds: float
    measured: bool  # from this machine's earlier runs of the same plan and method
    from_launches: bool = False  # built from what this app/mode's launches took here (any plan)


@dataclass
class TargetCost:
    label: str
    unavailable: str
    parts: list[Part] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (scenario, why it does not apply here)
    elsewhere: list[tuple[str, str]] = field(default_factory=list)  # (scenario, the app/mode it runs on instead)
    round_launches: int = 0

    @property
    def seconds(self) -> float:
        return sum(p.seconds for p in self.parts)


@dataclass
class Cost:
    plan: str
    targets: list[TargetCost]
    builds: list[Part]
    rounds: int
    rounds_s: float
    max_extra_rounds: int
    paces: dict[str, float]  # the kinds of step estimated at this machine's pace, and that pace
    measured: str = ""  # the plan's own record of a whole run's duration where it was measured
    done_steps: int = 0  # a resumed run: the steps already finished (not in the estimate)
    added_rounds: int = 0  # rounds added to settle a ratio in earlier runs here (in the estimate)
    chasing: bool = False  # steady is counted in every planned round: the case where its ratios do not settle
    rounds_from_launches: bool = False  # the rounds' launches estimated from what they took here
    upper_s: float = 0.0   # the whole run if every round up to max_rounds runs
    settling: list[str] = field(default_factory=list)  # how each headline ratio's rounds are planned

    @property
    def total_s(self) -> float:
        return sum(b.seconds for b in self.builds) + sum(t.seconds for t in self.targets) + self.rounds_s

    @property
    def measured_share(self) -> float:
        parts = [p for t in self.targets for p in t.parts] + self.builds
        total = sum(p.seconds for p in parts)
        return sum(p.seconds for p in parts if p.measured) / total if total else 0.0


def plan_method(plan: Plan, targets: list[Target]) -> str:
    """The method hash this machine's run of the plan would have, found without installing or building."""
    setup = isolate.detect_cgroups()
    frameworks = {t.app.name: f"{t.app.framework} {t.app.framework_version}" for t in targets}
    env = environment.for_run(frameworks, setup, topology(plan), preflight.planned_jdks(plan, targets))
    return method_hash(plan.data, env)


def estimate(plan: Plan, targets: list[Target], store: Store, method: str,
             done: set[str] = frozenset()) -> Cost:
    """The plan's cost on this machine; `done`: steps a resumed run finished already."""
    schedule.recall(store, targets)  # as the runner does: launches take what they took here
    earlier = store.step_durations(plan.name, method)
    paces = store.paces()
    used: dict[str, float] = {}

    def part(step: Step, recall: bool = True) -> Part:
        took = earlier.get(step.label) if recall else None
        if took is not None:
            return Part(step.label, took, True)
        if step.measured:  # built from what launches took here: no pace of unmeasured estimates
            return Part(step.label, step.estimate_s, False, from_launches=True)
        kind = step_kind(step.label)
        if kind in paces and step.estimate_s > 0:
            used[kind] = paces[kind]
        return Part(step.label, step.estimate_s * paces.get(kind, 1.0), False)

    keys = list(dict.fromkeys(t.app.for_mode(t.mode).build_key for t in targets if not t.unavailable))
    builds = [part(s) for s in schedule.build_steps(plan, keys) if s.label not in done]
    builds += [Part(f"{v.build_key} build", FIRST_BUILD_S[not v.build_key.endswith("native")], False)
               for v in preflight.builds_to_do(targets)]
    costs = []
    for t in targets:
        cost = TargetCost(t.label, t.unavailable.removeprefix("unavailable: "))
        if not t.unavailable:
            cost.parts = [part(s) for s in schedule.target_steps(plan, t) if s.label not in done]
            cost.skipped = [(sc.name, sc.applies_why or "does not apply to this app")
                            for sc in schedule.not_applicable(plan, t)]
            cost.elsewhere = sorted(t.elsewhere.items())
            cost.round_launches = schedule.launches_in_rounds(plan, targets, t)
        costs.append(cost)
    rounds = schedule.planned_rounds(plan, targets)
    chasing = schedule.chases_precision(plan, targets)
    # the unsettled case from what the launches took: an earlier run whose ratios settled launched
    # steady in fewer rounds, so its rounds' durations would estimate the settled case instead
    round_parts = [part(s, recall=not (chasing and s.measured))
                   for s in schedule.round_steps(plan, targets, 1, rounds) if s.label not in done]
    settings = plan.settings("rounds")
    # max_rounds counts them all; a target of 0 adds none (the plan's launches only)
    extra = max(0, settings.max_rounds - rounds) if rounds and settings.target > 0 else 0
    # rounds added to settle a ratio: as many as the earlier runs of this plan and method here added
    added = [Part(f"round {n}", earlier[f"round {n}"], True) for n in range(rounds + 1, rounds + extra + 1)
             if f"round {n}" in earlier and f"round {n}" not in done]
    cost = Cost(plan.name, costs, builds, rounds, sum(p.seconds for p in round_parts + added), extra,
                dict(sorted(used.items())), plan["measured"], len(done), len(added), chasing,
                bool(round_parts) and all(p.from_launches or p.measured for p in round_parts))
    if round_parts and extra:
        per_round = sum(p.seconds for p in round_parts) / len(round_parts)
        cost.upper_s = cost.total_s + max(0, extra - len(added)) * per_round
        budget = settings.budget_min * 60
        if budget > 0:  # no round starts that would end the run after the budget (counted after the builds)
            cost.upper_s = max(cost.total_s, min(cost.upper_s, sum(b.seconds for b in builds) + budget))
    added_rounds = _headline_rounds(plan, targets, cost, round_parts)
    fits = (added_rounds.fits(settings.budget_min, settings.max_rounds)
            if added_rounds and settings.budget_min > 0 else None)
    cost.settling = settling_lines(plan, targets, store, method, fits, added_rounds)
    return cost


@dataclass
class HeadlineRounds:
    """What rounds of the headline app/modes alone cost after a run's planned rounds, here."""
    planned: int
    before_s: float     # from the run's first step (after the builds) to the end of its planned rounds
    per_round_s: float  # one added round of the headline app/modes

    def fits(self, budget_min: float, max_rounds: int) -> int:
        """How many rounds in all a run reaches within this budget and max_rounds."""
        left = budget_min * 60 - self.before_s
        extra = int(max(0.0, left) // self.per_round_s) if self.per_round_s > 0 else 0
        return min(max_rounds, self.planned + extra)

    def budget_for(self, rounds_in_all: int) -> int:
        """The whole minutes of budget within which a run reaches this many rounds."""
        return math.ceil((self.before_s + max(0, rounds_in_all - self.planned) * self.per_round_s) / 60)


def _headline_rounds(plan: Plan, targets: list[Target], cost: Cost, round_parts: list[Part]) -> HeadlineRounds | None:
    """The planned rounds, then rounds of the headline app/modes alone, each costing their share of
    a planned round (by the plan's launch estimates). None when the plan has no rounds."""
    if not round_parts:
        return None
    able = [t for t in targets if not t.unavailable]
    chasing = schedule.chasing_labels(plan, targets)
    share = {t.label: sum(schedule.launch_estimate_s(plan, t, sc) for sc in schedule.round_scenarios(plan, t)) for t in able}
    whole = sum(share.values())
    per_round = sum(p.seconds for p in round_parts) / len(round_parts)
    per_headline = per_round * (sum(v for k, v in share.items() if k in chasing) / whole if whole else 1.0)
    return HeadlineRounds(cost.rounds, cost.total_s - sum(b.seconds for b in cost.builds), per_headline)


def settling_lines(plan: Plan, targets: list[Target], store: Store, method: str,
                   fits: int | None = None, added_rounds: HeadlineRounds | None = None) -> list[str]:
    """How each headline ratio's rounds are planned: from the spread earlier runs of this plan and
    method on this machine measured (pooled, Kalibera and Jones), or, without them, the sequential
    rule with its minimum for the target. `fits`: the rounds the budget and max_rounds allow, so that
    a ratio this machine's spread cannot settle in them is said to be so before the run, with the
    --budget that would hold the rounds it needs (from `added_rounds`, what they cost here)."""
    cfg = plan.settings("rounds")
    if cfg.target <= 0 or not cfg.interleave:
        return []
    able = [t for t in targets if not t.unavailable]
    try:
        pairs = headline.pairs(cfg.headline, [(t.label, t.app.modes[t.mode].is_jvm, t.default_mode) for t in able])
    except ValueError:
        return []
    known = run_history.load_for(store, plan.name, method, os.uname().nodename)
    out = []
    for p in pairs:
        prior = known.prior(p.label)
        least = rounds.least_rounds(cfg.target, prior, cfg.min_rounds)
        if prior is None:
            out.append(f"{p.label}: no earlier run of this plan and method here: rounds are added one at a time "
                       f"until +-{cfg.target:.0%}, and it counts as settled from {least} rounds")
            continue
        planned = rounds.planned_from_prior(cfg.target, prior, least, cfg.max_rounds)
        need = ratios_ci.rounds_needed(prior.sd_log, cfg.target, least=least, df=prior.df, prior_df=prior.df,
                                       most=rounds.BUDGET_MAX_ROUNDS)
        line = (f"{p.label}: planned at {planned} rounds from {prior.runs} earlier run(s) here (round-to-round "
                f"sd {prior.sd_log:.3f}, {prior.df} degrees of freedom, pooled into its interval while this run's "
                f"own rounds do not reject it)")
        most = min(cfg.max_rounds, fits) if fits is not None else cfg.max_rounds
        if need is None or need > most:
            why = f"the {cfg.budget_min:g}-minute budget" if fits is not None and fits < cfg.max_rounds else \
                f"max_rounds ({cfg.max_rounds})"
            line += (f"; at this spread it needs about {need or f'more than {rounds.BUDGET_MAX_ROUNDS}'} rounds to "
                     f"settle to +-{cfg.target:.0%} (and {least} at least), and {why} allows {most}: it will NOT "
                     f"settle here; its estimate is shown with the interval its rounds give (more rounds, a wider "
                     f"rounds.target or a quieter machine would settle it")
            if added_rounds is not None and need is not None:
                line += f"; {need} rounds need about --budget {added_rounds.budget_for(need)} here"
            line += ")"
        else:
            line += f"; settled from {least} rounds"
        runs = len(known.intervals(p.label)) + 1
        if runs >= ratios_ci.ACROSS_LEAST:
            line += (f"; the findings will also give it across the {runs} runs here, this one included (each "
                     f"run one observation), which may settle where this run alone does not")
        out.append(line)
    return out


def _basis(cost: Cost) -> str:
    rest = "the plan's estimates"
    if cost.paces:
        rest += (", at this machine's pace where its earlier runs had the same kind of step ("
                 + ", ".join(f"{kind} x{pace:.2f}" for kind, pace in cost.paces.items()) + ")")
    launches = "; the rounds from what their launches took here" if cost.rounds_from_launches else ""
    return f"{cost.measured_share:.0%} from earlier runs of this plan and method here, the rest from {rest}{launches}"


def render(cost: Cost, short: bool = False) -> str:
    """The summary: every app/mode and scenario (short: app/modes and the total only)."""
    lines = [f"plan {cost.plan}: estimated {fmt_duration(cost.total_s)} ({_basis(cost)})"]
    if cost.measured:
        lines.append(f"  a whole run measured: {cost.measured}")
    if cost.done_steps:
        lines.append(f"  resuming: {cost.done_steps} step(s) finished before are kept and not run again")
    if cost.builds:
        lines.append(f"  builds and footprint: {fmt_duration(sum(b.seconds for b in cost.builds))}"
                     + ("" if short else " (" + ", ".join(f"{b.label} {fmt_duration(b.seconds)}" for b in cost.builds) + ")"))
    for t in cost.targets:
        if t.unavailable:
            why = t.unavailable.split("; ")[0] if short else t.unavailable  # the short form: its first clause
            lines.append(f"  {t.label}: unavailable here: {why}")
            continue
        head = f"  {t.label}: {fmt_duration(t.seconds)}"
        if t.round_launches:
            head += f" + {t.round_launches} launch(es) in the rounds"
        lines.append(head)
        if short:
            continue
        for p in t.parts:
            name = p.label.removeprefix(t.label + " ")
            lines.append(f"      {name:<28} {fmt_duration(p.seconds):>8}{'' if p.measured else '  (estimate)'}")
        for name, why in t.skipped:
            lines.append(f"      {name:<28} not run: {why}")
        for name, where in t.elsewhere:
            lines.append(f"      {name:<28} runs on {where} only (the plan's run_on)")
    if cost.rounds:
        more = (f"{cost.added_rounds} added as in earlier runs here" if cost.added_rounds
                else "none added in the estimate")
        lines.append(f"  rounds: {cost.rounds} planned, {more}, {fmt_duration(cost.rounds_s)}"
                     + (" (steady in each until its ratios settle: less if they settle sooner)" if cost.chasing else "")
                     + (f"; up to {cost.max_extra_rounds} more while a headline ratio is not settled"
                        if cost.max_extra_rounds else ""))
        if cost.max_extra_rounds and cost.upper_s > cost.total_s:
            lines.append(f"  at most {fmt_duration(cost.upper_s)} if no headline ratio settles: every round up to "
                         f"the plan's max_rounds ({cost.rounds + cost.max_extra_rounds}) or its time budget")
        lines += [f"  {x}" for x in cost.settling]
    return "\n".join(lines)


def max_hours(given: float | None) -> float:
    if given is not None:
        return given
    raw = os.environ.get("PERFLAB_MAX_HOURS")
    if not raw:
        return DEFAULT_MAX_HOURS
    try:
        return float(raw)
    except ValueError:
        raise LabError(f"PERFLAB_MAX_HOURS={raw!r} is not a number of hours", fix="e.g. PERFLAB_MAX_HOURS=6") from None


def gate(cost: Cost, limit_h: float, yes: bool, ask: Callable[[str], str] = input,
         interactive: bool | None = None) -> None:
    """Go on when the estimate is within the limit or the user said yes; on a terminal ask; without
    one (CI, a pipe) refuse with the reason."""
    if cost.total_s <= limit_h * 3600 or yes:
        return
    over = f"the run is estimated at {fmt_duration(cost.total_s)}, above the limit of {limit_h:g} h"
    interactive = sys.stdin.isatty() if interactive is None else interactive
    if not interactive:
        raise LabError(over, fix="add --yes to run it anyway, raise --max-hours (or PERFLAB_MAX_HOURS), "
                                 "or run a shorter plan")
    try:
        answer = ask(f"{over}. Run it? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        raise LabError(f"not started: {over}", fix="--max-hours H sets the limit; --yes skips this question")


def before_run(plan: Plan, apps_root, *, dry_run: bool, limit_h: float | None, yes: bool,
               say: Callable[[str], None], done: set[str] = frozenset()) -> bool:
    """Say what the run will cost (all of it for a dry run, else its short form as the run's first
    lines); False for a dry run (nothing more happens), else True once the limit allows the run."""
    if plan["placement"]["kind"] == "kubernetes":
        say(f"plan {plan.name}: no estimate for runs on Kubernetes")
        return not dry_run
    targets = select_targets(plan, apps_root)
    cost = estimate(plan, targets, open_store(), plan_method(plan, targets), done)
    say(render(cost, short=not dry_run))
    if dry_run:
        return False
    gate(cost, max_hours(limit_h), yes)
    return True
