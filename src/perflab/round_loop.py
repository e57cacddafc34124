"""The launch rounds as a run walks them: one launch of every app/mode per round in a balanced order,
then further rounds while a headline ratio is not settled (the rules are perflab.rounds'; the
steps and their costs perflab.schedule's). Each app/mode in the rounds has one state record (Entrant);
the rounds' record (seed, orders, launches with their canary readings, why the rounds ended) is
saved to the store after every round, so a resumed run goes on from the last round that ended.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from perflab import headline, resume, rounds, run_history
from perflab.analysis import host_speed, ratios_ci, stats
from perflab.errors import AppFailed, LabError, RunStopped
from perflab.lab import Lab
from perflab.placements import LOCAL
from perflab.probes import canary
from perflab.progress import Step
from perflab.scenario import LaunchResult
from perflab.schedule import launch_estimate_s, planned_rounds, round_scenarios, takes_part
from perflab.store import Point
from perflab.target_run import TargetState, context, done_before, use_database
from perflab.targets import Target


@dataclass
class Entrant:
    """One app/mode in the rounds and what its launches gave so far."""

    target: Target
    state: TargetState
    values: dict[int, float] = field(default_factory=dict)  # round -> the launch's headline value, once steady
    warming: dict[int, float] = field(default_factory=dict)  # round -> the value of a launch still warming up
    failures: list[str] = field(default_factory=list)
    failed: bool = False  # its first launch failed: it takes no further part
    done: int = 0  # the last round whose launch ran through
    took: list[float] = field(default_factory=list)  # seconds per launch, canary included
    launched: list[LaunchResult] = field(default_factory=list)
    cap: int | None = None  # intervals worth measuring per launch (None: as the plan says)
    ran: Counter = field(default_factory=Counter)  # launches per scenario

    @property
    def label(self) -> str:
        return self.target.label


class RoundsLoop:
    """The rounds scenarios' launches of the app/modes that came through their own steps.
    `earlier`: the rounds' record of the run being resumed; its finished rounds are kept, the rest run."""

    def __init__(self, lab: Lab, targets: list[Target], states: dict[str, TargetState], earlier: dict | None = None):
        self.lab, self.plan = lab, lab.plan
        in_rounds = [t for t in targets if round_scenarios(self.plan, t)]
        self.entrants = {t.label: Entrant(t, states[t.label]) for t in in_rounds}
        self.cfg: rounds.RoundSettings = self.plan.settings("rounds")
        self.earlier = earlier
        self.use_canary = self.cfg.canary and lab.placement.kind == LOCAL  # the canary times this machine's CPUs

    def run(self) -> None:
        if not self.entrants:
            return
        cfg, plan, lab = self.cfg, self.plan, self.lab
        earlier = self.earlier
        labels = list(self.entrants)
        seed = earlier["seed"] if earlier else (cfg.seed or rounds.draw_seed())
        self.pairs = headline.pairs(cfg.headline, [(e.label, e.target.app.modes[e.target.mode].is_jvm,
                                                    e.target.default_mode) for e in self.entrants.values()])
        self.chasing = {label for p in self.pairs for label in (p.numerator, p.denominator)} if cfg.target > 0 else set()
        self.planned = planned_rounds(plan, [e.target for e in self.entrants.values()])
        order = rounds.orders(seed, labels, cfg.max_rounds + self.planned, plan.settings("steady").open_loop_basis)
        design = earlier.get("design", "") if earlier else rounds.BALANCED  # a run resumed keeps its own
        known = run_history.load(lab.store, lab.run_id) if cfg.target > 0 else run_history.History()
        self.known = known
        # before the first canary reading the host's state is unknown: the rounds are planned from
        # every earlier run; from then on only runs in this run's state are pooled (_ratio_states)
        self.priors = {p.label: prior for p in self.pairs if (prior := known.prior(p.label)) is not None}
        self.least = {p.label: rounds.least_rounds(cfg.target, self.priors.get(p.label), cfg.min_rounds)
                      for p in self.pairs}
        self.record = {"seed": seed, "design": design, "orders": [], "headline": [p.label for p in self.pairs],
                       "target": cfg.target, "ended": "", "ended_why": "", "ratios": [], "round_s": [],
                       "launches": [], "least": self.least,
                       "history": history_record(known, self.pairs, self.priors, cfg, self.least)}
        if self.use_canary:
            canary.ensure(log=lab.progress.message)
        n = self._restore()
        for e in self.entrants.values():
            e.cap = intervals_worth_measuring(plan, e.launched)[0]
        while True:
            states_now = self._ratio_states()
            expected = {e.label: stats.mean(e.took) if e.took else sum(
                launch_estimate_s(plan, e.target, sc) for sc in round_scenarios(plan, e.target))
                for e in self.entrants.values() if not e.failed}
            decision = rounds.next_round(cfg, n, self.planned, states_now, lab.progress.elapsed_s(), expected)
            self.record["ratios"] = [s.to_dict() for s in states_now]
            if not decision.more:
                self.record["ended"], self.record["ended_why"] = decision.why, rounds.ended_text(decision.why, cfg, n)
                break
            n += 1
            who = [label for label in order[n - 1] if label in decision.who and not self.entrants[label].failed]
            if not who:
                self.record["ended"], self.record["ended_why"] = "failed", "every app/mode of the rounds failed"
                break
            unsettled = rounds.unsettled_labels(states_now, cfg.target)
            if n > self.planned:
                lab.progress.steps.append(Step(f"round {n}", sum(expected[label] for label in who)))
                lab.progress.message(f"round {n}: " + "; ".join(
                    f"{s.pair.label} +-{s.interval.half_width:.1%}" if s.interval is not None else
                    f"{s.pair.label} no interval yet (fewer than two rounds with both launches steady)"
                    for s in states_now) + f" (target +-{cfg.target:.0%}): {', '.join(who)} again")
            else:
                settled = [self.entrants[label].target for label in who
                           if label in self.chasing and label not in unsettled]
                settled_out_of_round(lab, n, settled)
            self._round(n, who, unsettled)
        self.record["ratios"] = [s.to_dict() for s in self._ratio_states()]
        self.record["rounds"] = n
        lab.store.save_rounds(lab.run_id, self.record)
        lab.progress.message(f"rounds: {self.record['ended_why']}")
        for e in self.entrants.values():
            if e.failed:
                continue
            for sc in round_scenarios(plan, e.target):
                sc.after_launches(context(lab, e.target, sc, e.state), e.ran[sc.name], e.failures)
        if self.use_canary:
            flag_host_slow(lab, cfg)

    def _ratio_states(self) -> list[rounds.RatioState]:
        values = {e.label: e.values for e in self.entrants.values()}
        host = run_history.medians_of_readings(self.record["launches"])
        priors = self.priors if not host else {
            p.label: prior for p in self.pairs if (prior := self.known.prior(p.label, host)) is not None}
        return rounds.ratio_states(self.pairs, values, self.cfg.target, self.least, priors, self.cfg.min_rounds)

    def _round(self, n: int, who: list[str], unsettled: set[str]) -> None:
        """Round n: one launch of each app/mode in `who`, in that order; stored once it ended."""
        lab = self.lab
        self.record["orders"].append(who)
        lab.store.save_rounds(lab.run_id, self.record)
        lab.progress.start(f"round {n}")
        round_started = time.monotonic()
        entries = []
        for position, label in enumerate(who, 1):
            lab.progress.update(f"{position}/{len(who)} {label}")
            entries.append(self._launch(self.entrants[label], n, position, label in unsettled))
        self.record["round_s"].append(round(time.monotonic() - round_started, 1))
        self.record["launches"] += entries  # what a resumed run needs of this round, stored before the round counts as done
        lab.store.save_rounds(lab.run_id, self.record)
        for label in who:  # how long the next rounds measure each app/mode, from the variances so far
            e = self.entrants[label]
            e.cap, self.record.setdefault("two_levels", {})[label] = intervals_worth_measuring(self.plan, e.launched)
        lab.progress.finish()

    def _launch(self, e: Entrant, n: int, position: int, unsettled: bool) -> dict:
        """The app/mode's launch in round n (each of its rounds scenarios that takes part), between
        two canary readings; its entry in the rounds' record."""
        lab, target = self.lab, e.target
        entry = {"round": n, "place": position, "label": e.label, "value": None, "failed": "", "launched": []}
        started = time.monotonic()
        use_database(lab, target.app)
        readings: dict = {}
        if self.use_canary:
            _canary(lab, target, n, "before", readings)
        for sc in round_scenarios(self.plan, target):
            if not takes_part(self.plan, sc, n, unsettled):
                continue
            try:
                got = sc.launch(context(lab, target, sc, e.state, measure_intervals=e.cap), n)
            except RunStopped:  # not this launch's failure (a dead database): the whole run stops
                raise
            except (AppFailed, LabError, OSError, RuntimeError, ValueError) as exc:
                reason = str(exc) if isinstance(exc, AppFailed) else getattr(exc, "message", str(exc))
                e.failures.append(f"launch {n}: {reason}")
                entry["failed"] = reason
                if e.done == 0:
                    e.failed = True
                    lab.outcome(target.app.name, target.mode, "run", "failed", reason)
                break
            e.ran[sc.name] += 1
            entry["launched"].append(sc.name)
            if got is not None and got.value:
                # a launch still warming up gives the rounds no pair: its round counts as one more
                # the ratio lacks, so the rounds add another while the budget allows
                (e.values if got.steady else e.warming)[n] = got.value
                e.launched.append(got)
                entry.update(value=got.value, intervals=list(got.intervals), before_s=got.before_s,
                             steady=got.steady)
        else:
            e.done = n
        if self.use_canary:
            _canary(lab, target, n, "after", readings)
        e.took.append(time.monotonic() - started)
        return {**entry, "took_s": e.took[-1], **({"canary": readings} if readings else {})}

    def _restore(self) -> int:
        """A resumed run's rounds as they stood after the last round that ended; returns its number."""
        lab, earlier = self.lab, self.earlier
        kept = resume.kept_launches(earlier, lab.done_steps)
        n = max((entry["round"] for entry in kept), default=0)
        for entry in kept:
            e = self.entrants.get(entry["label"])
            if e is None:
                continue
            e.took.append(entry["took_s"])
            # a record that does not list the scenarios a launch ran: those that took part in its round
            e.ran.update(entry["launched"] if "launched" in entry else
                         [sc.name for sc in round_scenarios(self.plan, e.target)
                          if takes_part(self.plan, sc, entry["round"], True)])
            if entry["value"]:
                (e.values if entry.get("steady", True) else e.warming)[entry["round"]] = entry["value"]
                e.launched.append(resume.launch_result(entry))
            if not entry["failed"]:
                e.done = entry["round"]
                continue
            e.failures.append(f"launch {entry['round']}: {entry['failed']}")
            if e.done == 0:
                e.failed = True
        if n:
            self.record.update(orders=earlier["orders"][:n], round_s=earlier["round_s"][:n], launches=kept)
        for k in range(1, n + 1):
            if k > self.planned:  # a round added to settle a ratio: not among the planned steps
                lab.progress.steps.append(Step(f"round {k}", 0.0))
            done_before(lab, f"round {k}")
        return n


def _canary(lab: Lab, target: Target, n: int, when: str, readings: dict) -> None:
    """The host's speed on the app's CPU and on the load side's, stored per launch as figures and
    in `readings` (metric -> when -> ms, the launch's entry in the rounds)."""
    for side, cpus in (("app", lab.topology.app), ("load", lab.topology.driver)):
        try:
            reading = canary.measure(list(cpus))
        except (LabError, OSError, RuntimeError) as exc:
            lab.warn(f"host-speed canary: {exc}")
            return
        readings.setdefault(f"{side}_cpu_ms", {})[when] = reading.alu_ms
        readings.setdefault(f"{side}_cache_ms", {})[when] = reading.mem_ms
        # the integer chain is the CPU's speed (its repetitions agree to ~2 %); the pointer chase also
        # feels what neighbours do to the shared cache (CV 30-60 % on a busy host): kept beside it
        extra = {"round": n, "cpus": list(cpus), **reading.to_dict()}
        at = Point(when, {"when": when})
        lab.record(target.app.name, target.mode, "canary", f"{side}_cpu_ms", reading.alu_ms, "ms", point=at,
                   repeat=n, extra=extra)
        lab.record(target.app.name, target.mode, "canary", f"{side}_cache_ms", reading.mem_ms, "ms", point=at,
                   repeat=n, extra=extra)


def settled_out_of_round(lab: Lab, n: int, settled: list[Target]) -> None:
    """Planned round n costs less than estimated where steady no longer launches past its own
    launches (the ratios of its app/mode settled): the round's estimate loses those launches."""
    less = sum(launch_estimate_s(lab.plan, t, sc) for t in settled for sc in round_scenarios(lab.plan, t)
               if sc.rounds_only and n > sc.planned_launches(lab.plan.settings(sc.name)))
    step = next((s for s in lab.progress.steps if s.label == f"round {n}"), None)
    if step is not None and less:
        step.estimate_s = max(0.0, step.estimate_s - less)


def intervals_worth_measuring(plan, launched: list[LaunchResult]) -> tuple[int | None, dict]:
    """From the launches so far, the intervals per launch that buy the most precision per second
    (Kalibera and Jones): when launches differ far more than intervals do, a launch's time is better
    spent on the next launch. None (measure as the plan says) until two launches have intervals."""
    interval_s = plan.settings("steady").interval_s if "steady" in plan["scenarios"] else 1
    before = [x.before_s for x in launched if x.intervals]
    two = ratios_ci.two_levels([x.intervals for x in launched], sum(before) / len(before) if before else 0.0,
                               interval_s) if before else None
    if two is None:
        return None, {}
    return two.optimal_intervals, two.to_dict()


def history_record(known: run_history.History, pairs: list[headline.Pair], priors: dict[str, ratios_ci.Prior],
                   cfg: rounds.RoundSettings, least: dict[str, int]) -> dict:
    """What earlier runs of this plan, method and machine knew, stored with the run: each headline
    ratio's earlier intervals, the prior pooled from their rounds and the rounds it plans; each earlier
    run's host state (its canary medians)."""
    out: dict = {"runs": known.runs, "ratios": {}, "hosts": known.hosts}
    for p in pairs:
        prior = priors.get(p.label)
        out["ratios"][p.label] = {
            "earlier": [x.to_dict() for x in known.ratios.get(p.label, [])],
            "prior": prior.to_dict() if prior else None,
            "planned": rounds.planned_from_prior(cfg.target, prior, least[p.label], cfg.max_rounds) if prior else None}
    return out


def flag_host_slow(lab: Lab, cfg: rounds.RoundSettings) -> None:
    """Flag every figure of a launch whose canary ran more than cfg.host_slow slower than the run's
    median on the same CPU (known only once every launch has run)."""
    readings = [f for f in lab.store.figures(lab.run_id) if f.scenario == "canary"]
    slow: set[tuple[str, str, int]] = set()
    for metric in ("app_cpu_ms", "load_cpu_ms"):
        ms = [f.value for f in readings if f.metric == metric]
        if len(ms) < 3:
            continue
        middle = sorted(ms)[len(ms) // 2]
        slow |= {(f.app, f.mode, f.repeat) for f in readings if f.metric == metric
                 and host_speed.slow(f.value, middle, cfg.host_slow)}
    startup = lab.plan.settings("startup")
    fed = lab.plan["steady"]["startup_figures"] and "startup" in lab.plan["scenarios"]
    for app, mode, n in sorted(slow):
        lab.store.add_flag(lab.run_id, app, mode, "steady", n, "host-slow")
        if n < startup.runs:
            lab.store.add_flag(lab.run_id, app, mode, "startup", n, "host-slow")
        if fed:
            lab.store.add_flag(lab.run_id, app, mode, "startup", startup.runs - 1 + n, "host-slow")
