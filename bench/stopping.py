"""Does the rounds' stopping rule keep its promise? A seeded simulation of each built-in plan's
rounds settings (target, max_rounds, min_rounds, planned launches), run through the lab's own
decision (perflab.rounds.next_round on perflab.rounds.ratio_states): per-round log ratios are drawn
with a known true ratio, the rule adds rounds until it stops, and the final 95 % interval is checked
against the truth. Printed per plan and spread:

- coverage: how often the interval contains the true ratio, over all runs and over the runs whose
  ratio the rule called settled (stopping at the first narrow interval can make the second lower);
- bias: the mean error of a settled ratio's log estimate, in units of its own standard error;
- how often the ratio settled and after how many rounds on average.

With `--prior`, each simulated run first has a history of earlier runs of the same spread, pooled
into a prior as the runner does (perflab.run_history), so the rounds are planned from it.

The spreads are the round-to-round sd of ln(Quarkus / Spring Boot throughput) measured on a
2-core VM: 0.018 and 0.072 in two quick runs, 0.045 between them.

    .venv/bin/python bench/stopping.py [--reps 2000] [--seed 1] [--prior]

A benchmark of the lab's statistics: it prints figures, it asserts nothing (tests/unit/test_stopping.py does).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

import numpy as np

from perflab import headline, plan as plans, rounds
from perflab.analysis import ratios_ci

SPREADS = (0.018, 0.045, 0.072)
TRUE_RATIO = 1.5
PAIR = headline.Pair("a/jvm", "b/jvm")


@dataclass(frozen=True)
class Outcome:
    coverage: float           # over every simulated run
    settled_coverage: float | None  # over the runs whose ratio settled (None: none did)
    settled_share: float
    mean_rounds: float        # of the settled runs
    bias_se: float            # mean (ln estimate - ln truth) / se of the settled runs


def plan_settings(name: str) -> tuple[rounds.RoundSettings, int]:
    """A built-in plan's rounds settings and the steady launches it plans (the planned rounds of a ratio)."""
    loaded = plans.load(name)
    return loaded.settings("rounds"), loaded.settings("steady").launches


def _history(rng: np.random.Generator, sd: float, runs: int, rounds_each: int) -> ratios_ci.Prior | None:
    return ratios_ci.pool([rng.normal(0.0, sd, rounds_each) for _ in range(runs)])


def simulate(cfg: rounds.RoundSettings, planned: int, sd: float, reps: int, seed: int,
             prior_runs: int = 0, prior_rounds: int = 4, fixed_least: int | None = None) -> Outcome:
    """`fixed_least`: the rule before the minimum depended on the target (a fixed min_rounds)."""
    rng = np.random.default_rng(seed)
    truth = math.log(TRUE_RATIO)
    covered = covered_settled = settled = 0
    used, errors = [], []
    for _ in range(reps):
        prior = _history(rng, sd, prior_runs, prior_rounds) if prior_runs else None
        priors = {PAIR.label: prior} if prior else {}
        least = {PAIR.label: fixed_least or rounds.least_rounds(cfg.target, prior, cfg.min_rounds)}
        values: dict[str, dict[int, float]] = {PAIR.numerator: {}, PAIR.denominator: {}}
        n = 0
        while True:
            states = rounds.ratio_states([PAIR], values, cfg.target, least, priors, cfg.min_rounds)
            if not rounds.next_round(cfg, n, planned, states, 0.0, {PAIR.numerator: 0.0, PAIR.denominator: 0.0}).more:
                break
            n += 1
            values[PAIR.numerator][n] = math.exp(truth + rng.normal(0.0, sd))
            values[PAIR.denominator][n] = 1.0
        [state] = states
        ci = state.interval
        hit = ci is not None and ci.contains(TRUE_RATIO)
        covered += hit
        if state.settled(cfg.target):
            settled += 1
            covered_settled += hit
            used.append(n)
            errors.append((math.log(ci.estimate) - truth) / ci.se_log if ci.se_log > 0 else 0.0)
    return Outcome(covered / reps, covered_settled / settled if settled else None, settled / reps,
                   float(np.mean(used)) if used else 0.0, float(np.mean(errors)) if errors else 0.0)


def builtin_groups() -> dict[tuple, list[str]]:
    """The built-in plans grouped by the rounds settings that decide the stopping."""
    groups: dict[tuple, list[str]] = {}
    for name in plans.builtin_names():
        cfg, planned = plan_settings(name)
        if not cfg.interleave or cfg.target <= 0:
            continue
        groups.setdefault((cfg.target, cfg.max_rounds, cfg.min_rounds, planned), []).append(name)
    return groups


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--prior", action="store_true", help="two earlier runs of four rounds each as the prior")
    args = ap.parse_args(argv)
    print(f"{'plans':32} {'target':>6} {'max':>4} {'planned':>7} {'sd':>6} {'coverage':>8} {'settled':>8} "
          f"{'cov|set':>7} {'rounds':>6} {'bias/se':>7}")
    for (target, most, least, planned), names in builtin_groups().items():
        cfg = rounds.RoundSettings(target=target, max_rounds=most, min_rounds=least)
        for sd in SPREADS:
            o = simulate(cfg, planned, sd, args.reps, args.seed, prior_runs=2 if args.prior else 0)
            cov_set = f"{o.settled_coverage:.3f}" if o.settled_coverage is not None else "-"
            print(f"{', '.join(names)[:32]:32} {target:>6.0%} {most:>4} {planned:>7} {sd:>6.3f} {o.coverage:>8.3f} "
                  f"{o.settled_share:>8.1%} {cov_set:>7} {o.mean_rounds:>6.1f} {o.bias_se:>+7.2f}")


if __name__ == "__main__":
    main()
