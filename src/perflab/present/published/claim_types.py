"""What a claim is: a study's group of published figures, and where the lab keeps the figure it compares with."""

from __future__ import annotations

from dataclasses import dataclass

from perflab.present.published.studies import STUDIES


@dataclass(frozen=True)
class Where:
    """Where the lab keeps the figure a claim compares with.

    ``point`` is a point's exact label, or "*" for any. For sweeps, ``path`` selects the plan's
    series on that path and ``connections`` the point (both from the points' parameters); ``best`` takes the point with the best
    median (a study's "peak"). ``with_first``: the first (cold) launch joins the warm ones, for a
    study whose median included its first run."""

    scenario: str
    metric: str
    point: str = ""
    path: str = ""
    connections: int | None = None
    best: bool = False
    with_first: bool = False

    def describe(self) -> str:
        if self.path:
            at = (f"c={self.connections}" if self.connections
                  else "the best connection count" if self.best else "all points")
            return f"{self.scenario} {self.metric} on {self.path} at {at}"
        if self.with_first:
            return f"{self.scenario} {self.metric} over all launches, the first included"
        if self.point.endswith("=*"):
            return f"{self.scenario} {self.metric} at {self.point[:-1]}N (the plan's)"
        if self.point.endswith("*"):
            return f"{self.scenario} {self.metric}" + (f" at {self.point[:-1]}..." if self.point != "*" else "")
        if self.point.startswith("at "):  # a label that says where already ("at rest")
            return f"{self.scenario} {self.metric} {self.point}"
        return f"{self.scenario} {self.metric}" + (f" at {self.point}" if self.point else "")


@dataclass(frozen=True)
class Claim:
    """A group of published figures measured the same way, by one study.

    ``source``: where the study prints them (a table, a lab, the text); ``method``: how it
    measured them. ``stated``: ratios to the baseline as the study states them in words (they
    replace the ratios of the figures); ``raw``: every value the study lists behind a figure;
    ``printed``: a figure as printed where it differs from the one compared (its own raw values
    contradict it). ``ratios`` is False when the study draws no ratio from these figures.
    ``passage``: what to search the study's text for, in order, to find the figures."""

    key: str
    study: str
    what: str
    unit: str
    where: Where
    figures: tuple[tuple[str, float], ...]  # (the study's label, published value)
    higher_is_better: bool
    note: str = ""
    source: str = ""
    method: str = ""
    stated: tuple[tuple[str, float], ...] = ()
    raw: tuple[tuple[str, tuple[float, ...]], ...] = ()
    printed: tuple[tuple[str, float], ...] = ()
    ratios: bool = True
    base: str = ""  # the baseline's label where it is not the study's own (a variant of it)
    # where in the study's text the figures are read: strings found in order in its text (see
    # TEXTS), a heading first, then the lines holding the figures
    passage: tuple[str, ...] = ()

    @property
    def baseline(self) -> str:
        return self.base or STUDIES[self.study].baseline

    def value(self, label: str) -> float | None:
        return next((v for lbl, v in self.figures if lbl == label), None)

    def has_baseline(self) -> bool:
        return self.ratios and self.value(self.baseline) is not None

    def provenance(self) -> str:
        """Where the study prints the figures, how it measured them, and its raw values."""
        parts = [f"printed in: {self.source}"]
        if self.method:
            parts.append(f"method: {self.method}")
        for label, values in self.raw:
            parts.append(f"{label}'s runs as listed: " + ", ".join(f"{v:g}" for v in values))
        for label, value in self.printed:
            parts.append(f"{label} printed as {value:g} {self.unit}, compared as {self.value(label):g} (see the "
                         f"contradictions)")
        for label, ratio in self.stated:
            parts.append(f"{label} / {self.baseline} stated as {ratio:.1%}")
        return "; ".join(parts)

    def published_ratio(self, label: str) -> float | None:
        """The ratio label / baseline the study claims: as stated in words, else of its figures."""
        stated = dict(self.stated).get(label)
        if stated is not None:
            return stated
        base = self.value(self.baseline)
        value = self.value(label)
        return value / base if base and value is not None else None


def build(key, study, what, unit, where, figures, higher_is_better, note="", **more):
    """A Claim from its figures and its other tuples given as dicts (study order kept)."""
    tupled = {k: tuple(v.items()) for k, v in more.items() if isinstance(v, dict)}
    return Claim(key, study, what, unit, where, tuple(figures.items()), higher_is_better, note,
                 **{**more, **tupled})
