"""What chance alone would call a change. Each figure judged at level alpha reads better or worse
with probability alpha when nothing changed, so a comparison of forty figures calls about two of
them changed even between two runs of one build. Said beside the verdicts (a warning as output, not
a footnote), with how likely it is that every change called was chance, so that one "worse" among
many is not read as a regression on its own."""

from __future__ import annotations

from dataclasses import dataclass

import scipy.stats as sps


@dataclass(frozen=True)
class Chance:
    tested: int    # figures or changes that got a test (not those with too few values)
    called: int    # of them, judged changed (better, worse, faster, slower, higher, lower)
    alpha: float   # each test's level: 1 - the interval's confidence

    @property
    def expected(self) -> float:
        """Changes called, on average, when nothing changed."""
        return self.tested * self.alpha

    @property
    def all_chance_p(self) -> float:
        """The probability of `called` or more calls among `tested` if nothing changed (the tests
        taken as independent)."""
        return 1.0 if self.called == 0 else float(sps.binom.sf(self.called - 1, self.tested, self.alpha))

    def line(self, what: str = "figures") -> str:
        """One line for the terminal and the report ("" with fewer than two tests: nothing to add)."""
        if self.tested < 2:
            return ""
        text = (f"by chance: {self.tested} {what} tested at {self.alpha:g} each; had nothing changed, about "
                f"{self.expected:.1f} would still be called changed. Called here: {self.called}")
        if self.called == 0:
            return text
        p = self.all_chance_p
        return text + (f"; {self.called} or more by chance alone: p = {p:.2g}"
                       + (" (these calls could all be noise: repeat the comparison before acting on one)"
                          if p > 0.05 else ""))
