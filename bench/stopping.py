"""Does the rounds' stopping rule keep its promise? A seeded simulation (perflab.calibration) of
runs whose per-round log ratios are drawn with a known true ratio, walked through the lab's own
decision (perflab.rounds.next_round on perflab.rounds.ratio_states) until it stops; the final 95 %
interval is checked against the truth. Printed per condition (perflab.calibration.CASES: the
round-to-round spreads measured on 2-core VMs, 0.02 to 0.34; launches held back now and then; a
prior from earlier runs of a quieter host) and per built-in plan's target:

- coverage: how often the interval holds the true ratio, over all runs and over the runs the rule
  called settled (stopping at the first narrow interval makes the second the lower);
- how often the ratio settled and after how many rounds on average;
- bias: the mean error of a settled ratio's log estimate, in units of its own standard error.

The conditions the rule cannot keep its promise under (perflab.calibration.SHORTFALL) are printed
after them. With --calibrate, the least rounds are searched again for each target
(perflab.calibration.calibrate): perflab.rounds.CALIBRATED_LEAST holds what it found.

    .venv/bin/python bench/stopping.py [--reps 1000] [--seed 1] [--calibrate]

A benchmark of the lab's statistics: it prints figures, it asserts nothing (tests/unit/test_stopping.py does).
"""

from __future__ import annotations

import argparse

from perflab import calibration, plan as plans, rounds


def targets() -> dict[float, list[str]]:
    """The built-in plans with a precision target, by target."""
    out: dict[float, list[str]] = {}
    for name in plans.builtin_names():
        cfg = plans.load(name).settings("rounds")
        if cfg.interleave and cfg.target > 0:
            out.setdefault(cfg.target, []).append(name)
    return out


def _row(label: str, o: calibration.Outcome) -> str:
    cov_set = f"{o.settled_coverage:.3f}" if o.settled_coverage is not None else "-"
    return (f"{label:78} {o.coverage:>8.3f} {o.settled_share:>8.1%} {cov_set:>7} {o.mean_rounds:>6.1f} "
            f"{o.bias_se:>+7.2f} {'' if o.keeps_promise() else 'SHORT'}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--calibrate", action="store_true", help="search the least rounds again for each target")
    args = ap.parse_args(argv)
    print(f"{'target, least rounds, condition (plans)':78} {'coverage':>8} {'settled':>8} {'cov|set':>7} "
          f"{'rounds':>6} {'bias/se':>7}")
    for target, names in sorted(targets().items()):
        if args.calibrate:
            found, _ = calibration.calibrate(target, reps=args.reps, seed=args.seed)
            print(f"+-{target:.0%}: calibrated least rounds {found} (perflab.rounds.CALIBRATED_LEAST says "
                  f"{rounds.least_rounds(target)})")
        least = rounds.least_rounds(target)
        for case in calibration.CASES + calibration.SHORTFALL:
            o = calibration.simulate(target, calibration.SIMULATED_MAX_ROUNDS, 2, case.noise, args.reps, args.seed,
                                     history=case.history)
            shortfall = " [not promised]" if case in calibration.SHORTFALL else ""
            print(_row(f"+-{target:.0%}, {least}, {case.name}{shortfall} ({', '.join(names)})"[:78], o))


if __name__ == "__main__":
    main()
