"""Change points in a series of runs: where a figure measured again and again (one value per run,
oldest first) moved to another level and stayed there.

The points are found with Apache Otava's E-Divisive means (the Hunter variant: E-Divisive splits
in sliding windows, each split kept only when a Student t-test between its two sides is
significant, then weak points merged away; Fleming et al., ICPE 2023). It is deterministic, so a
CI gate gives the same verdict on the same runs, and it works on the short series a lab holds
(ten runs, not thousands). Each point gets its size, the median after over the median before
minus 1, and an interval for that size: a Student interval on the difference of the logs' means
on either side (pooled variance, as Otava's test assumes), so a single newest run after a
change still gets one from the spread of the runs before it.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats as sps

# Otava's default: the best split of a series is picked among all of them, and a page tests many
# series (each figure of each app/mode), so a lenient threshold would find steps in plain noise; even
# so about 2 % of flat series of a dozen runs show one (tests/unit/test_changepoints.py)
MAX_PVALUE = 0.001
CONFIDENCE = 0.95


@dataclass(frozen=True)
class ChangePoint:
    index: int          # position in the series of the first run at the new level
    run_before: str     # the last run before the change
    run_after: str      # the first run after it
    size: float         # median after / median before - 1
    low: float          # the size's interval
    high: float
    pvalue: float       # Otava's t-test between the two sides
    n_before: int       # runs on either side, up to the neighbouring change points
    n_after: int

    def worse(self, lower_is_better: bool) -> float:
        """How much worse the figure got, relative to before (negative: better)."""
        ratio = 1 + self.size
        return ratio - 1 if lower_is_better else 1 / ratio - 1

    def text(self) -> str:
        return (f"{self.size:+.1%} [{self.low:+.1%} to {self.high:+.1%}] from run {self.run_before} "
                f"to run {self.run_after} ({self.n_before} run(s) before, {self.n_after} after, p={self.pvalue:.1g})")


def size_interval(before: Sequence[float], after: Sequence[float],
                  confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The interval of after / before - 1 from the logs of the values: their difference of means with a
    pooled-variance Student interval; None without any spread to go by (one value a side)."""
    la, lb = np.log(np.asarray(before, dtype=float)), np.log(np.asarray(after, dtype=float))
    dof = len(la) + len(lb) - 2
    if dof < 1:
        return None
    ss = float(((la - la.mean()) ** 2).sum() + ((lb - lb.mean()) ** 2).sum())
    se = math.sqrt(ss / dof * (1 / len(la) + 1 / len(lb)))
    diff = float(lb.mean() - la.mean())
    t = float(sps.t.ppf(0.5 + confidence / 2, dof))
    return math.exp(diff - t * se) - 1, math.exp(diff + t * se) - 1


def find(series: Sequence[tuple[str, float]], max_pvalue: float = MAX_PVALUE,
         confidence: float = CONFIDENCE) -> list[ChangePoint]:
    """The change points of a series of (run id, value), oldest first. Values that are not positive
    and finite (a figure a run did not measure) are left out."""
    from otava.analysis import compute_change_points  # imported here: it loads its change-point kit

    kept = [(run, float(v)) for run, v in series if v is not None and math.isfinite(v) and v > 0]
    if len(kept) < 3:
        return []
    values = [v for _, v in kept]
    found, _ = compute_change_points([math.log(v) for v in values], max_pvalue=max_pvalue)
    bounds = [0] + sorted(int(c.index) for c in found) + [len(values)]
    out = []
    for k, cp in enumerate(sorted(found, key=lambda c: int(c.index))):
        i = int(cp.index)
        before, after = values[bounds[k]:i], values[i:bounds[k + 2]]
        ci = size_interval(before, after, confidence) or (math.nan, math.nan)
        out.append(ChangePoint(i, kept[i - 1][0], kept[i][0],
                               statistics.median(after) / statistics.median(before) - 1, ci[0], ci[1],
                               float(cp.stats.pvalue), len(before), len(after)))
    return out
