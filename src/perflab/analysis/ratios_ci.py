"""Confidence intervals for a ratio of two apps' figures, from their launch-level values, and how
many launches a wanted precision needs. Pure functions (SciPy's t distribution).

A ratio such as Quarkus / Spring Boot throughput is judged on the log scale: ln(A / B) is a
difference of logs, whose sampling distribution is close to symmetric where the ratio's is not.

- Paired by round (the interleaved design, perflab.rounds): each round has one launch of A and one
  of B close together in time, so a slow spell of the host lands on both. The interval is
  Student's t on the per-round log ratios (n - 1 degrees of freedom). With 2 rounds t is 12.7,
  which is what 2 pairs honestly allow; 5 rounds bring it to 2.8.
- Unpaired (launches not run in rounds, or rounds where one side failed): Welch's interval on the
  two samples of logs.
- Kalibera and Jones (ISMM 2013) choose the repetitions at each level from the variance measured
  there: ``two_levels`` splits a figure's variance into the launch-to-launch part and the part of
  the intervals within a launch, and gives the number of intervals per launch that buys the most
  precision per second (few, when launches differ far more than intervals do).
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np
from scipy import stats as sps

CONFIDENCE = 0.95


@functools.lru_cache(maxsize=4096)
def _t(q: float, df: float) -> float:
    """Student's t quantile; cached, since the rounds ask for the same few again and again."""
    return float(sps.t.ppf(q, df))


@functools.lru_cache(maxsize=4096)
def _chi2(q: float, df: float) -> float:
    return float(sps.chi2.ppf(q, df))


@dataclass(frozen=True)
class RatioInterval:
    estimate: float      # the ratio A / B (geometric mean of the per-round ratios when paired)
    low: float
    high: float
    n: int               # rounds (paired) or the smaller side's launches (unpaired)
    paired: bool
    sd_log: float        # the standard deviation behind the interval, on the log scale (per pair or pooled)
    confidence: float = CONFIDENCE
    df: float = 0.0      # the degrees of freedom of that spread (n - 1 paired, Welch's otherwise, more with a prior)
    se_log: float = 0.0  # the standard error of ln(estimate): what a difference of two ratios is judged by
    outliers: tuple[int, ...] = ()  # rounds left out: their ratio lay far outside the others' (OUTLIER_SDS)

    @property
    def half_width(self) -> float:
        """The interval's half-width relative to the estimate (the larger side: log intervals are
        not symmetric on the ratio scale)."""
        return max(self.high / self.estimate - 1, 1 - self.low / self.estimate)

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "half_width": self.half_width}


def _clean(values: Sequence[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and v > 0 and math.isfinite(v)]


@dataclass(frozen=True)
class Prior:
    """The round-to-round spread of a ratio's per-round log ratios known before a run: pooled from
    earlier runs of the same method on the same machine (Kalibera and Jones dimension an experiment
    from such a pilot). `df`: the degrees of freedom behind it (the sum of each run's rounds - 1)."""

    sd_log: float
    df: int
    runs: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def pool(groups: Sequence[Sequence[float]]) -> Prior | None:
    """The pooled spread of several runs' per-round log ratios: each run around its own mean (a run's
    level may move between runs; its round-to-round spread is what is pooled). None without at
    least one run of two rounds."""
    used = [np.asarray(g, dtype=float) for g in groups if len(g) >= 2]
    df = sum(len(g) - 1 for g in used)
    if df < 1:
        return None
    ss = float(sum(((g - g.mean()) ** 2).sum() for g in used))
    return Prior(math.sqrt(ss / df), df, len(used))


# Rounds whose log ratios stand apart from the others' are left out of the interval (Rosner's
# generalized extreme Studentized deviate test at 1 %, for up to a quarter of the rounds, from
# OUTLIER_FROM rounds on): a launch the host held back (it lost a quarter of its throughput now and
# then on a busy 2-core VM) pulls the mean to one side, and skewed noise is what Student's t does not
# allow for. At 1 % a run of normal rounds loses one in about a hundred runs, which costs the
# interval's coverage under a point (a rule of 5 robust sds cost 1-3 points at 6-8 rounds, the
# median deviation of so few being too rough); unlike Grubbs's test repeated, two held-back rounds
# do not hide each other (perflab.calibration).
OUTLIER_ALPHA = 0.01
OUTLIER_FROM = 6


def outlier_rounds(rounds: Sequence[int], logs: Sequence[float]) -> tuple[int, ...]:
    """The rounds the generalized ESD test finds apart from the rest (none below OUTLIER_FROM rounds)."""
    n = len(logs)
    if n < OUTLIER_FROM:
        return ()
    kept = list(zip(rounds, (float(v) for v in logs)))
    removed: list[int] = []
    found = 0
    for i in range(1, max(1, n // 4) + 1):
        x = np.array([v for _, v in kept])
        sd = float(np.std(x, ddof=1))
        if sd <= 0:
            break
        far = int(np.argmax(np.abs(x - x.mean())))
        r = abs(x[far] - x.mean()) / sd
        m = n - i + 1
        t = _t(1 - OUTLIER_ALPHA / (2 * m), m - 2)
        if r > (m - 1) * t / math.sqrt((m - 2 + t * t) * m):
            found = i
        removed.append(kept.pop(far)[0])
    return tuple(removed[:found])


REJECT = 0.20  # the F test's level at which this run's own spread rejects a prior: a prior kept wrongly
# costs coverage, one dropped wrongly only width (perflab.calibration)


def prior_rejected(own: RatioInterval | None, prior: Prior | None) -> bool:
    """Whether this run's own rounds (their interval without the prior) spread more than the prior
    allows: their variance beyond the prior's, F = s^2 / s_prior^2 above its 80 % point. A prior from
    runs of a quieter host would otherwise narrow the interval of a noisy run and call it settled
    (in a seeded simulation such intervals held the truth 39-55 % of the time). One-sided: a run
    quieter than its prior only widens its own interval by pooling."""
    if own is None or prior is None or not own.paired or own.df < 1 or prior.df < 1 or prior.sd_log <= 0:
        return False
    return (own.sd_log / prior.sd_log) ** 2 > float(sps.f.ppf(1 - REJECT, own.df, prior.df))


def paired(a_by_round: dict[int, float], b_by_round: dict[int, float],
           confidence: float = CONFIDENCE, prior: Prior | None = None) -> RatioInterval | None:
    """A / B from the rounds where both sides have a value (None with fewer than 2 such rounds),
    less the outlier rounds (outlier_rounds, named in the interval). With a `prior`, the spread is
    this run's pooled with the prior's (their degrees of freedom added): a few rounds then give an
    interval as honest as the prior's history allows."""
    rounds = sorted(r for r in a_by_round if r in b_by_round and a_by_round[r] > 0 and b_by_round[r] > 0)
    if len(rounds) < 2:
        return None
    d = np.log([a_by_round[r] for r in rounds]) - np.log([b_by_round[r] for r in rounds])
    out = outlier_rounds(rounds, d)
    if out:
        d = np.array([v for r, v in zip(rounds, d) if r not in out])
    n = len(d)
    mean, sd = float(np.mean(d)), float(np.std(d, ddof=1))
    df = n - 1
    if prior is not None and prior.df > 0:
        sd = math.sqrt((prior.df * prior.sd_log ** 2 + df * sd ** 2) / (prior.df + df))
        df += prior.df
    t = _t(0.5 + confidence / 2, df)
    se = sd / math.sqrt(n)
    half = t * se
    return RatioInterval(math.exp(mean), math.exp(mean - half), math.exp(mean + half), n, True, sd, confidence,
                         float(df), se, out)


def unpaired(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> RatioInterval | None:
    """A / B from two independent samples of launches (Welch; None with fewer than 2 a side)."""
    la, lb = np.log(_clean(a)), np.log(_clean(b))
    if len(la) < 2 or len(lb) < 2:
        return None
    va, vb = float(np.var(la, ddof=1)) / len(la), float(np.var(lb, ddof=1)) / len(lb)
    diff = float(np.mean(la) - np.mean(lb))
    se = math.sqrt(va + vb)
    if se == 0:
        return RatioInterval(math.exp(diff), math.exp(diff), math.exp(diff), min(len(la), len(lb)), False, 0.0,
                             confidence, float(len(la) + len(lb) - 2), 0.0)
    df = (va + vb) ** 2 / (va ** 2 / (len(la) - 1) + vb ** 2 / (len(lb) - 1))
    half = _t(0.5 + confidence / 2, df) * se
    pooled_sd = se * math.sqrt(min(len(la), len(lb)))
    return RatioInterval(math.exp(diff), math.exp(diff - half), math.exp(diff + half), min(len(la), len(lb)),
                         False, pooled_sd, confidence, float(df), se)


def interval(a_by_round: dict[int, float], b_by_round: dict[int, float], confidence: float = CONFIDENCE, *,
             in_rounds: bool = True, prior: Prior | None = None) -> RatioInterval | None:
    """Paired by round where the launches ran in rounds and at least two rounds pair up, else
    unpaired over all launches. Launches not run in rounds are never paired: two launches that
    merely share a number were not close in time, and pairing them would claim a precision the
    design did not buy."""
    found = paired(a_by_round, b_by_round, confidence, prior) if in_rounds else None
    return found or unpaired(list(a_by_round.values()), list(b_by_round.values()), confidence)


@dataclass(frozen=True)
class Difference:
    """Two estimates of one ratio (two runs, or a run against the runs before it) set against each
    other: the interval of their quotient, from the two standard errors (Welch's degrees of freedom)."""

    estimate: float   # first / second
    low: float
    high: float

    @property
    def differs(self) -> bool:
        return not self.low <= 1.0 <= self.high


def difference(first: RatioInterval, second: RatioInterval, confidence: float = CONFIDENCE,
               between_var: float = 0.0) -> Difference | None:
    """Whether two intervals of one ratio disagree, judged by the interval of their difference on the
    log scale, not by whether the two intervals overlap (two intervals of identical builds fail to
    overlap far less often than 5 % of the time, and fail to contain each other's estimate far more).
    `between_var`: the variance that two runs' estimates add beyond their own errors (twice the
    between-run variance, ln scale): without it, two runs of identical builds on a host whose runs
    move by a between-run sd of 0.03-0.05 were called different 57-71 % of the time."""
    if first.se_log <= 0 and second.se_log <= 0:
        return None
    v1, v2 = first.se_log ** 2, second.se_log ** 2
    terms = [v ** 2 / df for v, df in ((v1, first.df), (v2, second.df)) if v > 0 and df > 0]
    df = (v1 + v2) ** 2 / sum(terms) if terms else math.inf  # Welch-Satterthwaite
    diff = math.log(first.estimate) - math.log(second.estimate)
    half = _t(0.5 + confidence / 2, max(1.0, df)) * math.sqrt(v1 + v2 + max(0.0, between_var))
    return Difference(math.exp(diff), math.exp(diff - half), math.exp(diff + half))


UPPER = 0.80  # the spread's one-sided confidence that "about N rounds" plans for
SETTLE_UPPER = 0.90  # and the one a settled ratio's interval must fit at (perflab.calibration)


def settled(ci: RatioInterval | None, target: float, least: int) -> bool:
    """From at least `least` rounds (or launches a side), and within +-target even at the spread's
    80 % upper limit, not only at its point value. A rule that stops at the first narrow interval
    keeps, more often than its confidence says, the rounds that agreed by chance: asking the spread's
    90 % upper limit to fit too leaves such a run fewer chances, the more so the fewer its degrees of
    freedom (perflab.calibration measures how often a settled ratio's interval then holds the truth)."""
    if ci is None or ci.n < least or ci.half_width > target:
        return False
    if ci.se_log <= 0 or ci.df <= 0:
        return True
    upper = sd_upper(ci.sd_log, ci.df, SETTLE_UPPER) * ci.se_log / ci.sd_log if ci.sd_log > 0 else 0.0
    return math.expm1(_t(0.5 + ci.confidence / 2, ci.df) * upper) <= target


def sd_upper(sd_log: float, df: float, level: float = UPPER) -> float:
    """An upper confidence limit of a spread measured with `df` degrees of freedom (chi-square):
    from 2-4 rounds the point value is itself a guess, often half the true spread."""
    if df <= 0:
        return math.inf
    return sd_log * math.sqrt(df / _chi2(1 - level, df))


def rounds_needed(sd_log: float, target: float, confidence: float = CONFIDENCE, most: int = 1000,
                  least: int = 2, df: float | None = None, prior_df: int = 0) -> int | None:
    """Rounds whose paired interval would have a half-width of at most `target` (relative), and at
    least `least`; None when even `most` rounds would not do. With `df` (the degrees of freedom the
    spread was measured with) the spread planned for is its 80 % upper limit, not the point value;
    `prior_df`: degrees of freedom a prior adds to the interval's own."""
    if sd_log <= 0:
        return max(2, least)
    sd = sd_upper(sd_log, df) if df is not None else sd_log
    if not math.isfinite(sd):
        return None
    goal = math.log1p(target)
    for n in range(max(2, least), most + 1):
        if _t(0.5 + confidence / 2, n - 1 + prior_df) * sd / math.sqrt(n) <= goal:
            return n
    return None


@dataclass(frozen=True)
class BetweenRuns:
    """How much a ratio's estimate moves from run to run beyond what each run's own interval allows
    (the third level: the host, page cache, neighbours, the JIT's luck over a whole run)."""

    runs: int
    sd_log: float        # between-run standard deviation of ln(estimate), beyond the runs' own errors
    mean_log: float      # the runs' mean ln(estimate)
    spread_log: float    # the sd of the runs' ln(estimates), as observed
    sd_upper: float = 0.0  # the between-run sd's 95 % upper limit (from the spread's chi-square limit)

    @property
    def cut(self) -> bool:
        """The moments estimate came out at zero: the runs agree better than their own errors say."""
        return self.sd_log <= 0

    def sd_text(self) -> str:
        if self.cut:
            return f"not distinguishable from 0 (at most {self.sd_upper:.3f})"
        return f"{self.sd_log:.3f} (at most {self.sd_upper:.3f})"

    def next_run(self, se_next: float, confidence: float = CONFIDENCE) -> tuple[float, float]:
        """Where the next run's estimate may fall: around the runs' mean, with the mean's own
        uncertainty, the between-run variance and the next run's own error (t with the runs'
        degrees of freedom). Not around one run's estimate: that would leave out its own error."""
        t = _t(0.5 + confidence / 2, max(1, self.runs - 1))
        half = t * math.sqrt(self.sd_log ** 2 + se_next ** 2 + self.spread_log ** 2 / self.runs)
        return math.exp(self.mean_log - half), math.exp(self.mean_log + half)

    def expects(self, estimate: float, se_log: float, confidence: float = CONFIDENCE) -> tuple[float, float]:
        """Where a new run's estimate may fall given these runs: their mean, its uncertainty, the
        between-run spread and the new run's own error."""
        t = _t(0.5 + confidence / 2, max(1, self.runs - 1))
        half = t * math.sqrt(self.spread_log ** 2 * (1 + 1 / self.runs) + se_log ** 2)
        return math.exp(self.mean_log - half), math.exp(self.mean_log + half)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def between_runs(intervals: Sequence[RatioInterval]) -> BetweenRuns | None:
    """From at least three runs' intervals of one ratio: the between-run variance, the observed
    variance of their log estimates less the mean of their own squared standard errors (a
    random-effects estimate by moments; zero when the runs agree better than their errors say)."""
    used = [ci for ci in intervals if ci is not None and ci.estimate > 0]
    if len(used) < 3:
        return None
    logs = np.log([ci.estimate for ci in used])
    spread = float(np.std(logs, ddof=1))
    within = float(np.mean([ci.se_log ** 2 for ci in used]))
    k = len(used)
    spread_upper = spread * math.sqrt((k - 1) / _chi2(1 - CONFIDENCE, k - 1))
    return BetweenRuns(k, math.sqrt(max(0.0, spread ** 2 - within)), float(np.mean(logs)), spread,
                       math.sqrt(max(0.0, spread_upper ** 2 - within)))


def combined(intervals: Sequence[RatioInterval]) -> RatioInterval | None:
    """Several runs' intervals of one ratio as one: the mean of their log estimates with its
    standard error from theirs (equal weights, Welch-Satterthwaite degrees of freedom). What one
    run is tested against once, rather than against each earlier run in turn (each test its own
    5 % of false alarms)."""
    used = [ci for ci in intervals if ci is not None and ci.estimate > 0]
    if not used:
        return None
    k = len(used)
    mean = float(np.mean(np.log([ci.estimate for ci in used])))
    variances = [ci.se_log ** 2 / k ** 2 for ci in used]
    se = math.sqrt(sum(variances))
    terms = [v ** 2 / ci.df for v, ci in zip(variances, used) if v > 0 and ci.df > 0]
    df = sum(variances) ** 2 / sum(terms) if terms else 0.0
    half = _t(0.5 + CONFIDENCE / 2, max(1.0, df)) * se
    return RatioInterval(math.exp(mean), math.exp(mean - half), math.exp(mean + half), sum(ci.n for ci in used),
                         all(ci.paired for ci in used), se * math.sqrt(max(1, sum(ci.n for ci in used))),
                         CONFIDENCE, df, se)


@dataclass(frozen=True)
class AcrossRuns:
    """One ratio's answer from several runs of one plan and method on one machine, each run one
    observation of it (the runs are the experiment's units)."""

    runs: int
    estimate: float      # the geometric mean of the runs' estimates
    low: float
    high: float
    tau_log: float       # the between-run sd of ln(estimate) beyond the runs' own errors (by moments)
    confidence: float = CONFIDENCE

    @property
    def half_width(self) -> float:
        return max(self.high / self.estimate - 1, 1 - self.low / self.estimate)

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def settled(self, target: float) -> bool:
        return self.runs >= ACROSS_LEAST and self.half_width <= target

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


ACROSS_LEAST = 3  # with two runs the interval has one degree of freedom: t is 12.7


def across_runs(intervals: Sequence[RatioInterval], confidence: float = CONFIDENCE) -> AcrossRuns | None:
    """A ratio from at least three runs' estimates (None with fewer): Student's t on their logs, each
    run one observation of equal weight. The spread of the runs' estimates holds both each run's own
    error and the variance between runs that no run can see, so the interval needs neither. Runs are
    not weighted by their own intervals: from two or three rounds a run's standard error is itself
    too rough, and the run whose few rounds happened to agree would outweigh the rest (in a seeded
    simulation of such runs, inverse-variance weights with DerSimonian and Laird's between-run
    variance and Hartung and Knapp's interval covered 87-93 %; equal weights 94-99 %)."""
    used = [ci for ci in intervals if ci is not None and ci.estimate > 0]
    k = len(used)
    if k < ACROSS_LEAST:
        return None
    logs = np.log([ci.estimate for ci in used])
    mean, spread = float(np.mean(logs)), float(np.std(logs, ddof=1))
    half = _t(0.5 + confidence / 2, k - 1) * spread / math.sqrt(k)
    between = between_runs(used)
    return AcrossRuns(k, math.exp(mean), math.exp(mean - half), math.exp(mean + half),
                      between.sd_log if between else 0.0, confidence)


@dataclass(frozen=True)
class TwoLevels:
    """A figure's variance split into its two levels (Kalibera and Jones's T1^2 and T2^2)."""

    launches: int
    intervals_per_launch: float   # mean
    within: float                 # variance of the intervals within a launch, pooled (T1^2)
    between: float                # variance of the launch means beyond what the intervals explain (T2^2)
    optimal_intervals: int | None  # intervals per launch that buy the most precision per second

    @property
    def launch_share(self) -> float:
        """How much of one launch's value's variance is the launch's own (0..1)."""
        total = self.between + self.within / max(self.intervals_per_launch, 1)
        return self.between / total if total > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "launch_share": self.launch_share}


def two_levels(launches: Sequence[Sequence[float]], launch_cost_s: float, interval_cost_s: float) -> TwoLevels | None:
    """From each launch's interval values (at least 2 launches with at least 2 intervals each),
    the two variances and the optimal intervals per launch, r1 = ceil(sqrt(c2 T1^2 / (c1 T2^2))),
    where c2 is what a launch costs before its intervals (start, warm-up) and c1 one interval."""
    used = [np.asarray(v, dtype=float) for v in launches if len(v) >= 2]
    if len(used) < 2:
        return None
    within = float(np.mean([np.var(v, ddof=1) for v in used]))
    means = np.array([v.mean() for v in used])
    m = float(np.mean([len(v) for v in used]))
    between = max(0.0, float(np.var(means, ddof=1)) - within / m)
    optimal = None
    if between > 0 and interval_cost_s > 0:
        optimal = max(1, math.ceil(math.sqrt(launch_cost_s * within / (interval_cost_s * between))))
    return TwoLevels(len(used), m, within, between, optimal)
