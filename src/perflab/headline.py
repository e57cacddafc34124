"""The headline choice, in one place: which cells are compared (each app/mode's closed-loop
throughput at its most connections), which pairs of app/modes are the headline ratios, and whether an
app/mode runs on a JVM as the run recorded it. The rounds settle these pairs while a run goes on; the
findings, compare and the report read them back from the stored run.
"""

from __future__ import annotations

from dataclasses import dataclass

from perflab.apps.versions import version_series
from perflab.results import Cell, RunView


@dataclass(frozen=True)
class Pair:
    numerator: str    # "app/mode"
    denominator: str

    @property
    def label(self) -> str:
        return f"{self.numerator} / {self.denominator}"


def pairs(named: list[str], targets: list[tuple[str, bool, bool]]) -> list[Pair]:
    """The ratios that must settle. `named`: the plan's rounds.headline ('APP/MODE:APP/MODE' each);
    `targets`: (label, is a JVM mode, is its app's main mode), in plan order. Named ones must be among
    the targets; by default the first JVM main mode against
    every other JVM main mode (a native reference such as the Go app is not a framework compared)."""
    labels = [t[0] for t in targets]
    if named:
        chosen = []
        for text in named:
            num, _, den = text.partition(":")
            if not den or "/" not in num or "/" not in den:
                raise ValueError(f"rounds.headline {text!r}: expected 'APP/MODE:APP/MODE' of this plan's "
                                 f"app/modes ({', '.join(labels)})")
            if num in labels and den in labels:  # a named pair of apps left out of this run (--apps) is skipped
                chosen.append(Pair(num, den))
        if chosen:
            return chosen
    upgrades = version_pairs(labels)
    if upgrades:  # an upgrade plan compares each version with the one before it
        return upgrades
    main_jvm = [label for label, jvm, main in targets if jvm and main]
    return [Pair(main_jvm[0], other) for other in main_jvm[1:]]


def version_pairs(labels: list[str]) -> list[Pair]:
    """Consecutive versions of one app/mode ("quarkus@3.37.1/jvm" / "quarkus@3.33.2/jvm"), newer over
    older, in release order."""
    pairs = []
    for ordered in version_series(labels):
        pairs += [Pair(new, old) for old, new in zip(ordered, ordered[1:])]
    return pairs


def cells(view: RunView) -> dict[str, Cell]:
    """Each app/mode's closed-loop throughput at its most connections, the first such point when
    several share that count (the others are further request shapes on the warm launch): the figure
    compared across apps (a plan's first point at a few connections is also the JIT's warm-up)."""
    best: dict[str, Cell] = {}
    for c in view.find("steady", "rps"):
        if c.params.get("open_loop"):
            continue
        held = best.get(c.target)
        if held is None or (c.params.get("connections") or 0) > (held.params.get("connections") or 0):
            best[c.target] = c
    return best


def shape_cells(view: RunView) -> dict[str, dict[str, Cell]]:
    """The closed-loop throughput cells of each further request shape (a steady point other than an
    app/mode's headline point), by point, in the order measured."""
    points = {t: c.point for t, c in cells(view).items()}
    out: dict[str, dict[str, Cell]] = {}
    for c in view.find("steady", "rps"):
        if not c.params.get("open_loop") and points.get(c.target) not in (None, c.point):
            out.setdefault(c.point, {})[c.target] = c
    return out


def runs_on_jvm(view: RunView, target: str) -> bool:
    """Whether an app/mode runs on a JVM, as the run stored it from the app's descriptor; for a
    run stored before it did, by its mode's name."""
    known = next((jvm for label, jvm, _ in view.app_modes if label == target), None)
    return known if known is not None else target.partition("/")[2] != "native"


def of_run(view: RunView, targets: list[str]) -> list[tuple[str, str]]:
    """The headline ratios among `targets` (the app/modes with the figure compared): those the rounds
    settled, as they stored them; for a run not in rounds, `pairs` on the app/modes as the run stored
    them (plan order, JVM or not, main mode or not), with the plan's headline setting. A run stored
    before its app/modes were has them in `targets`' order, each counted a main mode and a JVM one
    unless its mode is native."""
    named = (view.rounds or {}).get("headline") or []
    stored_pairs = [tuple(x.split(" / ", 1)) for x in named if " / " in x]
    stored_pairs = [(a, b) for a, b in stored_pairs if a in targets and b in targets]
    if stored_pairs:
        return stored_pairs
    stored = {label: (jvm, main) for label, jvm, main in view.app_modes}
    known = [(t, *stored[t]) for t in stored if t in targets] + \
        [(t, runs_on_jvm(view, t), None) for t in targets if t not in stored]
    try:
        chosen = pairs(list((view.plan.get("rounds") or {}).get("headline") or []),
                       [(t, jvm, True if main is None else main) for t, jvm, main in known])
    except ValueError:  # a malformed named pair
        return []
    return [(p.numerator, p.denominator) for p in chosen]
