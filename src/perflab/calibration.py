"""Whether the rounds' verdicts keep their promise, by simulation through the lab's own rule.

A run adds rounds until a ratio's 95 % interval lies within +-target (perflab.rounds): a rule that
stops on its own data keeps, more often than its confidence says, the rounds that happened to
agree, and the interval of such a run covers the truth less often than 95 %. How much less depends
on the round-to-round spread, on noise that is not normal (a launch held back by the host now and
then: one side loses a share of its throughput), and on a prior from earlier runs that were in
another host state. This module draws such runs with a known true ratio, walks them through
perflab.rounds' own decision, and counts how often the final interval covers the truth, among all
runs and among those the rule called settled; the least rounds a ratio needs before it may count as
settled (rounds.least_rounds) is chosen from it (`calibrate`), and the unit tier checks the choice.

The spreads are those measured on 2-core VMs: 0.02 and 0.07 (quick runs of quiet evenings), 0.19
and 0.34 (runs whose JVM launches did not all settle in 120 s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perflab import headline, rounds
from perflab.analysis import ratios_ci

SPREADS = (0.02, 0.07, 0.19, 0.34)
TRUE_LOG = math.log(1.5)


@dataclass(frozen=True)
class Noise:
    """How one round's ln(A / B) strays from the truth: normal with `sd`, and with probability
    `held_back` the round's B launch lost `cost` of its throughput (the ratio rises: skewed noise)."""

    sd: float
    held_back: float = 0.0
    cost: float = 0.25

    def draw(self, rng: np.random.Generator) -> float:
        x = rng.normal(0.0, self.sd)
        if self.held_back and rng.random() < self.held_back:
            x -= math.log1p(-self.cost)
        return x


@dataclass(frozen=True)
class History:
    """Earlier runs pooled into a prior: `runs` of `rounds` each, drawn with `sd` (another host
    state than the run's when it differs from the run's spread)."""

    runs: int
    rounds: int
    sd: float

    def prior(self, rng: np.random.Generator) -> ratios_ci.Prior | None:
        return ratios_ci.pool([rng.normal(0.0, self.sd, self.rounds) for _ in range(self.runs)])


@dataclass(frozen=True)
class Outcome:
    coverage: float                  # over every simulated run
    settled_coverage: float | None   # over the runs the rule called settled (None: none did)
    settled_share: float
    mean_rounds: float               # of the settled runs
    bias_se: float                   # mean (ln estimate - ln truth) / its standard error, settled runs
    reps: int

    def keeps_promise(self, least_share: float = 0.05, least_coverage: float = 0.90) -> bool:
        """Coverage among the settled runs at least `least_coverage` wherever at least `least_share`
        of the runs settle, within the simulation's own error: a share counted over N settled runs
        strays by sqrt(p (1 - p) / N), and two of those below the promise are allowed (a rule whose
        true coverage is 0.90 shows less than 0.90 in half of its simulations)."""
        if self.settled_share < least_share:
            return True
        settled = self.settled_share * self.reps
        allowance = 2 * math.sqrt(least_coverage * (1 - least_coverage) / settled)
        return (self.settled_coverage or 0.0) >= least_coverage - allowance


def simulate(target: float, max_rounds: int, planned: int, noise: Noise, reps: int, seed: int, *,
             least: int | None = None, history: History | None = None) -> Outcome:
    """`reps` runs of one ratio through perflab.rounds' decision. `least`: the rounds a ratio needs
    (None: rounds.least_rounds decides, as a run does)."""
    pair = headline.Pair("a/jvm", "b/jvm")
    cfg = rounds.RoundSettings(target=target, max_rounds=max_rounds)
    rng = np.random.default_rng(seed)
    truth = math.exp(TRUE_LOG)
    covered = covered_settled = settled = 0
    used, errors = [], []
    zero = {pair.numerator: 0.0, pair.denominator: 0.0}
    for _ in range(reps):
        prior = history.prior(rng) if history else None
        priors = {pair.label: prior} if prior else {}
        need = {pair.label: least if least is not None else rounds.least_rounds(target, prior)}
        values: dict[str, dict[int, float]] = {pair.numerator: {}, pair.denominator: {}}
        n = 0
        while True:
            states = rounds.ratio_states([pair], values, target, need, priors)
            if not rounds.next_round(cfg, n, planned, states, 0.0, zero).more:
                break
            n += 1
            values[pair.numerator][n] = math.exp(TRUE_LOG + noise.draw(rng))
            values[pair.denominator][n] = 1.0
        [state] = states
        ci = state.interval
        hit = ci is not None and ci.contains(truth)
        covered += hit
        if state.settled(target):
            settled += 1
            covered_settled += hit
            used.append(n)
            errors.append((math.log(ci.estimate) - TRUE_LOG) / ci.se_log if ci.se_log > 0 else 0.0)
    return Outcome(covered / reps, covered_settled / settled if settled else None, settled / reps,
                   float(np.mean(used)) if used else 0.0, float(np.mean(errors)) if errors else 0.0, reps)


@dataclass(frozen=True)
class Case:
    """One condition a settled verdict must hold under: a noise, and earlier runs or none."""

    noise: Noise
    history: History | None = None

    @property
    def name(self) -> str:
        text = f"sd {self.noise.sd:g}"
        if self.noise.held_back:
            text += f", {self.noise.held_back:.0%} of rounds held back by {self.noise.cost:.0%}"
        if self.history is not None:
            text += f", prior of {self.history.runs}x{self.history.rounds} rounds at sd {self.history.sd:g}"
        return text


HELD_BACK = Noise(0.0, held_back=0.05, cost=0.25)  # a launch held back now and then
OTHER_STATE = History(3, 4, 0.034)  # earlier runs of a quiet host (0.034: the quiet evening's quick run)

# The conditions the least rounds are chosen under. Held-back launches are among them where they
# stand out from the rounds' spread (0.02, 0.07); at 0.19 and 0.34 a quarter lost in one round of
# twenty is within the spread, no estimator of the throughputs alone can tell it, and the settled
# runs' coverage falls to about 0.86-0.90 (SHORTFALL: printed by bench/stopping.py, not promised).
CASES = tuple([Case(Noise(sd)) for sd in SPREADS]
              + [Case(Noise(sd, HELD_BACK.held_back, HELD_BACK.cost)) for sd in SPREADS[:2]]
              + [Case(Noise(sd), OTHER_STATE) for sd in SPREADS])
SHORTFALL = tuple(Case(Noise(sd, HELD_BACK.held_back, HELD_BACK.cost)) for sd in SPREADS[2:])

# The rounds a run may reach while it chases a ratio: quick with --budget adds up to 100, a round of
# two JVM apps takes 4-5 minutes on a 2-core VM, so 30 rounds is a two-hour run.
SIMULATED_MAX_ROUNDS = 30


def calibrate(target: float, reps: int = 400, seed: int = 1, planned: int = 2,
              candidates: range = range(3, 13)) -> tuple[int | None, dict[int, dict[str, Outcome]]]:
    """The fewest rounds from which a ratio may count as settled to +-target such that every case
    keeps the promise (Outcome.keeps_promise), with the outcomes tried; None when no candidate does."""
    tried: dict[int, dict[str, Outcome]] = {}
    for least in candidates:
        tried[least] = {c.name: simulate(target, SIMULATED_MAX_ROUNDS, planned, c.noise, reps, seed, least=least,
                                         history=c.history) for c in CASES}
        if all(o.keeps_promise() for o in tried[least].values()):
            return least, tried
    return None, tried
