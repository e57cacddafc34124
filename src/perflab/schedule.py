"""A run's schedule, worked out before anything runs: what runs for each app/mode (its scenarios,
in the order they run), what the rounds launch, and each step with its estimated cost. Pure: it
reads the plan, the apps' descriptors and what earlier runs here took (recall), and starts nothing.

The runner walks these steps, the progress display counts them, `--dry-run` prices them and
`--resume` checks a run's finished steps against them: one list, so the four cannot drift apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from perflab import headline, registry
from perflab.progress import Step
from perflab.scenario import Estimate, Phase, Scenario
from perflab.settings import Plan
from perflab.store import Store

if TYPE_CHECKING:
    from perflab.targets import Target

LAUNCH = "launch + verify"  # the step that starts the shared load instance


def target_scenarios(plan: Plan, target: Target) -> list[Scenario]:
    """What runs for an app/mode, in the order it runs: its PREPARE scenarios when the mode needs
    them, then the planned ones phase by phase (BUILD scenarios run per build, not here)."""
    planned = set(plan.scenarios_for(target.mode, target.default_mode)) - set(target.elsewhere)
    order = [Phase.PREPARE, Phase.OWN_BEFORE, Phase.ON_LOAD, Phase.OWN_AFTER]
    out = []
    for phase in order:
        for sc in registry.in_phase(phase):
            if sc.why_not_on(plan["placement"]["kind"]):
                continue  # recorded as unavailable there, with the scenario's reason (not_on_placement)
            if phase is Phase.PREPARE:
                if sc.applies is not None and sc.applies(target.app, target.mode):
                    out.append(sc)
            elif sc.name in planned and (sc.applies is None or sc.applies(target.app, target.mode)):
                out.append(sc)
    return out


def not_on_placement(plan: Plan, target: Target) -> list[Scenario]:
    """Planned scenarios the plan's placement cannot run (each declares why: Scenario.not_on)."""
    planned = set(plan.scenarios_for(target.mode, target.default_mode))
    return [sc for sc in registry.all_scenarios() if sc.name in planned
            and sc.why_not_on(plan["placement"]["kind"])]


def not_applicable(plan: Plan, target: Target) -> list[Scenario]:
    """Planned scenarios that do not apply to this app/mode (e.g. ones that send the contract's
    requests, for an app with an API of its own)."""
    planned = set(plan.scenarios_for(target.mode, target.default_mode))
    return [sc for sc in registry.all_scenarios() if sc.name in planned and sc.phase is not Phase.PREPARE
            and sc.applies is not None and not sc.applies(target.app, target.mode)]


def recall(store: Store, targets: list[Target]) -> None:
    """What earlier runs here measured of each app/mode that the estimates use: a launch's time to
    ready, its time to steady state per point, its RSS at rest."""
    for t in targets:
        t.ready_s = store.typical_ready_s(t.app.name, t.mode)
        t.steady_s = store.typical_steady_s(t.app.name, t.mode)
        t.measure_s = store.typical_measure_s(t.app.name, t.mode)
        t.rest_mb = store.typical_rest_mb(t.app.name, t.mode)


def _estimate_start_s(target: Target) -> float:
    """A launch's time, for the estimates: as earlier runs here measured it, else a JVM's typical one."""
    if target.ready_s is not None:
        return target.ready_s
    return 12.0 if target.app.modes[target.mode].is_jvm else 1.0


def interleaved(plan: Plan) -> bool:
    return plan["rounds"]["interleave"]


def round_scenarios(plan: Plan, target: Target) -> list[Scenario]:
    """The scenarios whose launches run in the rounds for this app/mode (none when not interleaving)."""
    if not interleaved(plan) or target.unavailable:
        return []
    return [sc for sc in target_scenarios(plan, target)
            if sc.launch is not None and sc.planned_launches(plan.settings(sc.name)) > 0]


def _estimate(plan: Plan, target: Target, sc: Scenario) -> Estimate:
    return Estimate(plan.settings(sc.name), plan.repeats, _estimate_start_s(target),
                    target.app.modes[target.mode].is_jvm, target.app, target.steady_s, target.rest_mb,
                    start_measured=target.ready_s is not None, measure_s=target.measure_s)


def launch_estimate_s(plan: Plan, target: Target, sc: Scenario) -> float:
    """One launch of a rounds scenario: its whole estimate over its planned launches."""
    return sc.estimate_s(_estimate(plan, target, sc)) / max(1, sc.planned_launches(plan.settings(sc.name)))


def planned_rounds(plan: Plan, targets: list[Target]) -> int:
    return max((sc.planned_launches(plan.settings(sc.name)) for t in targets for sc in round_scenarios(plan, t)),
               default=0)


def round_steps(plan: Plan, targets: list[Target], first: int, last: int) -> list[Step]:
    """The planned rounds' steps. With a precision target, a headline app/mode's steady launches in
    every planned round until its ratios settle (takes_part): counted in each, the estimate is the
    unsettled case, and the run takes those launches out of the rounds left once they settle
    (the rounds loop's settled_out_of_round)."""
    chasing = set(chasing_labels(plan, targets))
    steps = []
    for n in range(first, last + 1):
        launches = [(t, sc) for t in targets for sc in round_scenarios(plan, t) if takes_part(plan, sc, n, t.label in chasing)]
        steps.append(Step(f"round {n}", sum(launch_estimate_s(plan, t, sc) for t, sc in launches),
                          measured=bool(launches) and all(_launch_measured(plan, t, sc) for t, sc in launches)))
    return steps


def _launch_measured(plan: Plan, target: Target, sc: Scenario) -> bool:
    return sc.estimate_measured is not None and sc.estimate_measured(_estimate(plan, target, sc))


def launches_in_rounds(plan: Plan, targets: list[Target], target: Target) -> int:
    """The launches `target`'s rounds scenarios make in the planned rounds, as the estimate counts them."""
    chasing = target.label in chasing_labels(plan, targets)
    return sum(1 for n in range(1, planned_rounds(plan, targets) + 1) for sc in round_scenarios(plan, target)
               if takes_part(plan, sc, n, chasing))


def chases_precision(plan: Plan, targets: list[Target]) -> bool:
    """Whether steady launches in every planned round until its ratios settle (the estimate's case)."""
    return bool(chasing_labels(plan, targets)) and any(sc.rounds_only for t in targets for sc in round_scenarios(plan, t))


def chasing_labels(plan: Plan, targets: list[Target]) -> list[str]:
    """The app/modes of the headline ratios a precision target asks to settle (none without a target)."""
    cfg = plan.settings("rounds")
    if cfg.target <= 0:
        return []
    able = [t for t in targets if not t.unavailable]
    try:
        pairs = headline.pairs(cfg.headline, [(t.label, t.app.modes[t.mode].is_jvm, t.default_mode) for t in able])
    except ValueError:  # a named pair with an app/mode unavailable here: the rounds say so when they start
        return []
    return [label for p in pairs for label in (p.numerator, p.denominator)]


def target_steps(plan: Plan, target: Target) -> list[Step]:
    label = target.label
    if target.unavailable:
        return [Step(f"{label} unavailable", 0)]
    start = _estimate_start_s(target)
    steps = []
    for sc in target_scenarios(plan, target):
        if sc.rounds_only and interleaved(plan):
            continue
        if sc.phase is Phase.ON_LOAD and not any(s.label == f"{label} {LAUNCH}" for s in steps):
            steps.append(Step(f"{label} {LAUNCH}", start + 2))
        seconds = sc.estimate_s(_estimate(plan, target, sc))
        if sc in round_scenarios(plan, target):  # only what runs outside the rounds
            seconds -= launch_estimate_s(plan, target, sc) * sc.planned_launches(plan.settings(sc.name))
        steps.append(Step(f"{label} {sc.name}", round(max(0.0, seconds), 6)))  # no float residue of the subtraction
    return steps


def planned_parts(plan: Plan, target: Target) -> tuple[set[str], list[Scenario]]:
    """The labels of a target's own steps and its scenarios in this plan (what a resumed run checks
    against the steps it finished)."""
    return {s.label for s in target_steps(plan, target)}, target_scenarios(plan, target)


def build_steps(plan: Plan, build_keys: list[str]) -> list[Step]:
    steps = []
    for sc in registry.in_phase(Phase.BUILD):
        if sc.name in plan["scenarios"]:
            steps += [Step(f"{key} {sc.name}", sc.estimate_s(Estimate(plan.settings(sc.name), plan.repeats, 0)))
                      for key in build_keys]
    return steps


def takes_part(plan: Plan, sc: Scenario, n: int, unsettled: bool) -> bool:
    """A scenario's launch n runs in round n while n is within its planned launches; past them only
    the scenario whose values the ratios are of (steady) launches, and only while a headline ratio
    of its app/mode is `unsettled`."""
    return n <= sc.planned_launches(plan.settings(sc.name)) or (sc.rounds_only and unsettled)


def run_steps(plan: Plan, targets: list[Target], build_keys: list[str]) -> list[Step]:
    """Every planned step of a run, in the order it runs: the builds, each app/mode's own steps,
    then the planned rounds (rounds added to settle a ratio are appended as the run adds them)."""
    return (build_steps(plan, build_keys) + [s for t in targets for s in target_steps(plan, t)]
            + round_steps(plan, targets, 1, planned_rounds(plan, targets)))
