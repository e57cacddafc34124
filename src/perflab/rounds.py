"""Launch rounds: the experimental design that lets a comparison of apps survive a host whose
speed drifts (Abedi and Brecht, ICPE 2017: randomised multiple interleaved trials).

The fresh launches of steady (and startup's warm launches) run in rounds: one launch of every
app/mode per round, the order within a round drawn by a seed stored with the run from a design that
balances each app's place in the round and the app launched before it (`orders`), instead of all
of one app's launches and then the next app's. A slow spell of the host then lands on one round of
every app, not on one app, and a ratio of two apps is judged per round (perflab.analysis.ratios_ci.paired).

After the plan's launches, rounds are added while a headline ratio's 95 % interval is wider than
the plan's target or rests on fewer than its minimum of rounds (ratios_ci.settled), a round still
fits the time budget and the maximum is not reached; only the
app/modes of unsettled ratios take part in such an extra round. Where the plan's rounds outnumber
steady's launches (startup's warm launches, e.g. RT-2019's ten), steady launches in the later ones
only for the app/modes of a ratio not yet settled: a ratio settled within its launches costs no
launch more. What ended the rounds is stored.

Pure logic here (settings, order, the stopping rule; which ratios are headline is perflab.headline's);
the runner runs the rounds.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from perflab.analysis import ratios_ci
from perflab.apps.versions import version_series
from perflab.headline import Pair
from perflab.settings import Settings, setting

SETTLED, BUDGET, MAX_ROUNDS, PLANNED, NO_RATIO = "settled", "budget", "max-rounds", "planned", "no-ratio"


class RoundSettings(Settings):
    interleave: bool = setting(True, "run steady's launches (and startup's warm ones) in rounds: one launch of "
                                     "every app/mode per round, in a seeded order that balances each one's place and "
                                     "predecessor (false: app after app)")
    seed: int = setting(0, "the seed of the order within the rounds (0: drawn at the start, stored with the run)",
                        ge=0)
    target: float = setting(0.05, "add rounds until every headline ratio's 95 % interval is within +- this of it "
                                  "(0: the plan's launches only)", "ratio", ge=0, lt=1)
    min_rounds: int = setting(0, "a ratio counts as settled only from this many paired rounds (0: the least the "
                                 "simulation calibrated for the target, see least_rounds): with too few, stopping at "
                                 "the first narrow interval keeps rounds that agreed by chance", "rounds", ge=0)
    max_rounds: int = setting(10, "at most this many rounds in all (the plan's launches count)", "rounds", ge=1)
    budget_min: float = setting(0.0, "add no round that would end the run later than this many minutes after its "
                                     "first step (after the builds; 0: no budget)", "min", ge=0)
    headline: list[str] = setting([], "the headline ratios as 'APP/MODE:APP/MODE', the ratios the rounds settle "
                                      "(empty, or none of them in this run: the first JVM app's main mode against "
                                      "every other JVM app's main mode; with framework versions, each version "
                                      "against the one before it); the other app/modes launch in the planned "
                                      "rounds only")
    canary: bool = setting(True, "time a fixed CPU-bound canary on the app's and the load side's CPUs before and "
                                 "after every launch (the host's own speed)")
    host_slow: float = setting(0.05, "a launch whose canary took more than this longer than the run's median is "
                                     "flagged host-slow", "ratio", gt=0)


# With a budget of its own (--budget) the time decides how many rounds a run adds, not the plan's max_rounds.
BUDGET_MAX_ROUNDS = 100


def draw_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)


BALANCED = "williams"  # the design of `orders`, stored with a run's rounds (earlier runs' orders were plain shuffles)


def order_text(record: dict) -> str:
    """How a run's rounds were ordered, for its report."""
    how = "balanced (Williams design)" if record.get("design") == BALANCED else "shuffled"
    return f"order {how} with seed {record.get('seed')}"


def orders(seed: int, labels: list[str], rounds: int, first: str = "") -> list[list[str]]:
    """The order of the app/modes in each round, in blocks of a Williams design (Williams 1949, as
    crossover trials use): within a block each app/mode stands once in every position and follows
    every other one equally often, so neither an app's place in the round nor the app launched just
    before it (its teardown, the page cache it leaves) can favour one side of a ratio. The seed
    draws which app/mode takes which part of the design and the order of a block's rounds; the same
    seed gives the same orders, and a longer run starts with the same rounds as a shorter one.

    Of several versions of one app/mode, the oldest launches before the others in the first round:
    its throughput there sets the rate every version is offered at the open-loop point
    (perflab.scenarios.steady.open_loop_rate). The versions trade their parts of the design for
    that (a relabelling of the whole design, which keeps every balance above). `first`, the app/mode
    whose throughput sets every app/mode's open-loop rate ([steady] open_loop_basis), launches first
    in the first round, by the same kind of relabelling."""
    rng = random.Random(seed)
    out: list[list[str]] = []
    while len(out) < rounds:
        parts = list(labels)
        rng.shuffle(parts)
        block = [[parts[i] for i in row] for row in _williams(len(parts))]
        rng.shuffle(block)
        out += block
    out = out[:rounds]
    if not out:
        return out
    swap = {first: out[0][0], out[0][0]: first} if first in labels else _oldest_first(out[0])
    return [[swap.get(label, label) for label in row] for row in out]


def open_loop_bases(labels: list[str], basis: str = "") -> dict[str, str]:
    """Each label -> the label whose throughput sets its open-loop rate: with a basis, every label
    -> that basis (one rate for the whole run); else the versions' oldest (oldest_versions)."""
    return {label: basis for label in labels} if basis else oldest_versions(labels)


def oldest_versions(labels: list[str]) -> dict[str, str]:
    """Each label of an app/mode measured at two versions or more -> the label of its oldest version
    ("quarkus@3.37.1/jvm" -> "quarkus@3.33.2/jvm"); labels of an app/mode at one version are left out."""
    return {label: ordered[0] for ordered in version_series(labels) if len(ordered) > 1 for label in ordered}


def _oldest_first(first_round: list[str]) -> dict[str, str]:
    """The relabelling that puts each app/mode's versions in release order across the places they
    hold in the first round (so the oldest comes first among them); label -> its replacement."""
    swap: dict[str, str] = {}
    for ordered in version_series(first_round):
        swap.update(zip(sorted(ordered, key=first_round.index), ordered))  # the places they hold, first to last
    return swap


def _williams(n: int) -> list[list[int]]:
    """A Williams design on n symbols: n rows for an even n, 2n (the square and its mirror) for an odd one."""
    if n <= 1:
        return [list(range(n))]
    first = [0] + [(j + 1) // 2 if j % 2 else n - j // 2 for j in range(1, n)]  # 0, 1, n-1, 2, n-2, ...
    square = [[(x + shift) % n for x in first] for shift in range(n)]
    return square if n % 2 == 0 else square + [row[::-1] for row in square]


# The least rounds before a ratio may count as settled, per target, as perflab.calibration chose
# them (`python bench/stopping.py --calibrate`): the fewest with which the ratios the rule calls
# settled hold the truth in at least 90 % of the simulated runs wherever at least 5 % settle, at
# round-to-round spreads of 0.02 to 0.34, with launches held back now and then, and with a prior
# from another host state (tests/unit/test_stopping.py checks the choice).
CALIBRATED_LEAST = {0.05: 5, 0.10: 4}


def least_rounds(target: float, prior: ratios_ci.Prior | None = None, floor: int = 0) -> int:
    """The rounds a ratio needs before it may count as settled to +-target: the calibrated least
    for the nearest target as tight or tighter (CALIBRATED_LEAST), the same for every ratio, with
    a prior or without (a prior narrows the interval; it does not make the few rounds that agreed
    by chance any rarer). A plan's min_rounds, when set, is the floor. `prior` is kept for callers
    that state what they know; it does not change the least."""
    if target <= 0:
        return max(2, floor)
    tighter = [t for t in CALIBRATED_LEAST if t <= target + 1e-9]
    least = CALIBRATED_LEAST[max(tighter)] if tighter else max(CALIBRATED_LEAST.values())
    return max(least, floor)


def planned_from_prior(target: float, prior: ratios_ci.Prior, least: int, most: int) -> int:
    """Rounds to plan before a run from its prior (Kalibera and Jones: dimension the experiment from
    a pilot's variance, not from the run's own first rounds): enough that the pooled interval would
    be within +-target at the prior's 80 % upper spread, and at least `least`; at most `most`."""
    need = ratios_ci.rounds_needed(prior.sd_log, target, least=least, df=prior.df, prior_df=prior.df)
    return min(most, need if need is not None else most)


@dataclass
class RatioState:
    pair: Pair
    interval: ratios_ci.RatioInterval | None
    rounds_needed: int | None  # for the plan's target, from the spread measured so far
    least: int = 2             # the rounds it needs before it can count as settled
    prior: ratios_ci.Prior | None = None  # the prior pooled into its interval (None: none, or rejected)
    prior_rejected: bool = False          # this run's own spread rejected the prior it had

    def settled(self, target: float) -> bool:
        return ratios_ci.settled(self.interval, target, self.least)

    def to_dict(self) -> dict[str, Any]:
        return {"ratio": self.pair.label, "numerator": self.pair.numerator, "denominator": self.pair.denominator,
                "interval": self.interval.to_dict() if self.interval else None, "rounds_needed": self.rounds_needed,
                "least": self.least, "prior": self.prior.to_dict() if self.prior else None,
                "prior_rejected": self.prior_rejected}


def ratio_states(pairs: list[Pair], values: dict[str, dict[int, float]], target: float,
                 least: int | dict[str, int] = 2,
                 priors: dict[str, ratios_ci.Prior] | None = None, floor: int = 0) -> list[RatioState]:
    """`least`: the rounds a ratio needs before it can count as settled (per pair label, or one for
    all; never below `floor`, the plan's min_rounds); `priors`: each pair's spread known from
    earlier runs, pooled into its interval unless this run's own rounds reject it
    (ratios_ci.prior_rejected): a prior from a quieter host must not narrow a noisy run's interval."""
    out = []
    for pair in pairs:
        a, b = values.get(pair.numerator, {}), values.get(pair.denominator, {})
        prior = (priors or {}).get(pair.label)
        rejected = prior is not None and ratios_ci.prior_rejected(ratios_ci.interval(a, b), prior)
        if rejected:
            prior = None
        ci = ratios_ci.interval(a, b, prior=prior)
        need_least = max(least.get(pair.label, 2) if isinstance(least, dict) else least, floor)
        needed = (ratios_ci.rounds_needed(ci.sd_log, target, least=need_least, df=ci.df)
                  if ci is not None and target > 0 else None)
        out.append(RatioState(pair, ci, needed, need_least, prior, rejected))
    return out


def unsettled_labels(states: list[RatioState], target: float) -> set[str]:
    """The app/modes of the headline ratios not yet within the target (none without a target)."""
    if target <= 0:
        return set()
    return {label for s in states if not s.settled(target) for label in (s.pair.numerator, s.pair.denominator)}


@dataclass
class Decision:
    more: bool
    why: str           # one of SETTLED, BUDGET, MAX_ROUNDS, PLANNED, NO_RATIO (when not more), else "unsettled"
    who: list[str] = field(default_factory=list)  # the app/modes of the next round (when more)


def next_round(settings: RoundSettings, done: int, planned: int, states: list[RatioState],
               elapsed_s: float, round_s: dict[str, float]) -> Decision:
    """Whether to run round done + 1 and with whom. `round_s`: the expected seconds of one launch
    of each app/mode (from this run's rounds so far)."""
    if done < planned:
        return Decision(True, PLANNED, list(round_s))
    if settings.target <= 0:
        return Decision(False, PLANNED)
    if not states:
        return Decision(False, NO_RATIO)
    who = sorted(unsettled_labels(states, settings.target))
    if not who:
        return Decision(False, SETTLED)
    if done >= settings.max_rounds:
        return Decision(False, MAX_ROUNDS)
    cost = sum(round_s.get(label, 0.0) for label in who)
    if settings.budget_min > 0 and elapsed_s + cost > settings.budget_min * 60:
        return Decision(False, BUDGET)
    return Decision(True, "unsettled", who)


def ended_text(why: str, settings: RoundSettings, rounds: int) -> str:
    return {
        SETTLED: f"settled: every headline ratio (of steady's throughput) within +-{settings.target:.0%} after "
                 f"{rounds} rounds; other ratios carry their own intervals",
        BUDGET: f"the time budget ({settings.budget_min:g} min) left no room for round {rounds + 1}",
        MAX_ROUNDS: f"the maximum of {settings.max_rounds} rounds was reached"
                    + (f" (below min_rounds, {settings.min_rounds}: no ratio could settle)"
                       if settings.max_rounds < settings.min_rounds else ""),
        PLANNED: f"the plan's {rounds} rounds (no precision target)",
        NO_RATIO: f"{rounds} rounds; no headline ratio to settle",
    }.get(why, why)
