"""LAB-2020's developer-loop claims (scenarios 4.1.1-4.1.3, steps counted by hand) and the
verdict the measured run gives each: held, did not hold, or unclear (with why); and the steps
measured beside the steps LAB-2020 counted."""

from __future__ import annotations

from dataclasses import dataclass

from perflab.report.tables import fmt_value
from perflab.results import Cell, RunView
from perflab.scenario import TextTable

from .loops import DEV_MODE, DEVTOOLS, REBUILD
from .roundtrip import BROKEN, FIX, FRUITS_EDIT, HELLO, MIXED_EDIT

SCENARIO = "devloop"
# what the lab does itself on every loop before its own steps: the change and the save
BY_HAND = ("change", "save")

# LAB-2020 4.1.1's step table ("Framework A" is Spring Boot in the lab's mapping)
PUBLISHED_STEPS = {
    "Quarkus": ("change", "save"),
    "Framework A": ("change", "save", "stop", "rebuild", "restart", "test"),
}


@dataclass(frozen=True)
class Claim:
    id: str
    text: str


CLAIMS = (
    Claim("4.1.1 Quarkus", "Quarkus shows a code change after two steps (change, save), without a restart"),
    Claim("4.1.1 Framework A", "Framework A needs more steps to see a change (stop, rebuild, restart, test)"),
    Claim("4.1.2", "a Kafka stream app is live-coded without stopping the Kafka broker"),
    Claim("4.1.2 Framework A", "Framework A needs the Kafka broker restarted to see a change of a stream app"),
    Claim("4.1.3", "reactive and imperative endpoints in one source file are live-coded together"),
)


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    verdict: str  # "held", "did not hold", "unclear"
    why: str


def _median(view: RunView, app_prefix: str, loop: str, edit: str, metric: str) -> float | None:
    for c in view.find(SCENARIO, metric):
        if c.app.startswith(app_prefix) and c.params.get("loop") == loop and c.params.get("edit") == edit:
            return c.summary.median
    return None


def _why_missing(view: RunView, app: str, loop: str) -> str:
    for o in view.outcomes:
        if o["app"] == app and o["scenario"] == f"{SCENARIO}:{loop}" and o["status"] != "ok":
            return f"{app} {loop}: {o['status']}: {o['reason']}"
    return f"{app} {loop} was not measured in this run"


def _quarkus(view: RunView) -> Verdict:
    claim = CLAIMS[0]
    steps = _median(view, "quarkus", DEV_MODE, "hello", "steps")
    seconds = _median(view, "quarkus", DEV_MODE, "hello", "round_trip_s")
    if steps is None or seconds is None:
        return Verdict(claim, "unclear", _why_missing(view, "quarkus", DEV_MODE))
    if steps <= len(PUBLISHED_STEPS["Quarkus"]):
        return Verdict(claim, "held", f"dev mode showed the change after {steps:g} steps, median {seconds:.1f} s "
                                      "from the save to the first response showing it")
    return Verdict(claim, "did not hold", f"the lab needed {steps:g} steps")


def _framework_a(view: RunView) -> Verdict:
    claim = CLAIMS[1]
    quarkus = _median(view, "quarkus", DEV_MODE, "hello", "steps")
    devtools = _median(view, "spring-boot", DEVTOOLS, "hello", "steps")
    plain = _median(view, "spring-boot", REBUILD, "hello", "steps")
    shown = _median(view, "spring-boot", DEVTOOLS, "hello", "round_trip_s")
    if devtools is not None and shown is not None:
        baseline = quarkus if quarkus is not None else len(PUBLISHED_STEPS["Quarkus"])
        whose = "measured for Quarkus" if quarkus is not None else "LAB-2020 gives Quarkus"
        if devtools > baseline:
            return Verdict(claim, "held", f"with DevTools Spring Boot took {devtools:g} steps (change, save, compile: "
                                          f"the compile an IDE does on save), no stop and no rebuild; "
                                          f"median {shown:.1f} s. Fewer than LAB-2020's "
                                          f"{len(PUBLISHED_STEPS['Framework A'])}, more than the {baseline:g} {whose}")
        return Verdict(claim, "did not hold", f"with DevTools Spring Boot took {devtools:g} steps, as few as Quarkus")
    if plain is not None:
        return Verdict(claim, "held", f"DevTools was not measured ({_why_missing(view, 'spring-boot', DEVTOOLS)}); "
                                      f"stop-rebuild-restart took {plain:g} steps")
    return Verdict(claim, "unclear", _why_missing(view, "spring-boot", DEVTOOLS))


def _restarts(view: RunView, app: str, loop: str) -> float | None:
    for c in view.find(SCENARIO, "broker_restarts"):
        if c.app == app and c.params.get("loop") == loop:
            return c.summary.max
    return None


def _stream_quarkus(view: RunView) -> Verdict:
    claim = CLAIMS[2]
    shown = _median(view, "stream-quarkus", DEV_MODE, "hello", "round_trip_s")
    restarts = _restarts(view, "stream-quarkus", DEV_MODE)
    if shown is None or restarts is None:
        plain = _restarts(view, "stream-quarkus", REBUILD)
        also = (f"; its stop-rebuild-restart loop needed {plain:g} broker restarts" if plain is not None else "")
        return Verdict(claim, "unclear", _why_missing(view, "stream-quarkus", DEV_MODE) + also)
    if restarts == 0:
        return Verdict(claim, "held", f"Quarkus dev mode showed the new transformation after {shown:.1f} s (median) "
                                      "with the broker running throughout")
    return Verdict(claim, "did not hold", f"the broker had to be restarted {restarts:g} times")


def _stream_framework_a(view: RunView) -> Verdict:
    claim = CLAIMS[3]
    for loop in (DEVTOOLS, REBUILD):
        shown = _median(view, "stream-spring", loop, "hello", "round_trip_s")
        restarts = _restarts(view, "stream-spring", loop)
        if shown is not None and restarts is not None:
            if restarts == 0:
                return Verdict(claim, "did not hold", f"Spring Boot's stream app ({loop}) showed the new transformation "
                                                      f"after {shown:.1f} s (median) without a broker restart")
            return Verdict(claim, "held", f"with {loop} the broker had to be restarted {restarts:g} times")
    return Verdict(claim, "unclear", _why_missing(view, "stream-spring", DEVTOOLS))


def _mixed(view: RunView) -> Verdict:
    claim = CLAIMS[4]
    shown = _median(view, "quarkus", DEV_MODE, "mixed", "round_trip_s")
    if shown is not None:
        return Verdict(claim, "held", f"in dev mode both endpoints of the one file showed the change after "
                                      f"{shown:.1f} s (median), with no step after the save")
    plain = _median(view, "quarkus", REBUILD, "mixed", "round_trip_s")
    also = f"; with stop-rebuild-restart both showed it after {plain:.1f} s" if plain is not None else ""
    return Verdict(claim, "unclear", _why_missing(view, "quarkus", DEV_MODE) + also)


def verdicts(view: RunView) -> list[Verdict]:
    if not view.find(SCENARIO) and not any(o["scenario"].startswith(SCENARIO) for o in view.outcomes):
        return []
    return [_quarkus(view), _framework_a(view), _stream_quarkus(view), _stream_framework_a(view), _mixed(view)]


def _published(app: str) -> str:
    """LAB-2020's steps for the framework of an app (by the lab's mapping), or "-" for others."""
    study = "Quarkus" if "quarkus" in app else "Framework A" if "spring" in app else ""
    if not study:
        return "-"
    steps = PUBLISHED_STEPS[study]
    return f"{study}: {len(steps)} ({', '.join(steps)})"


def _spread(cell: Cell, fmt=fmt_value, unit: str = "") -> str:
    """median [min-max] over the repeats (the median alone where they agree)."""
    s = cell.summary
    text = fmt(s.median) + (f" [{fmt(s.min)}-{fmt(s.max)}]" if s.n > 1 and s.max > s.min else "")
    return text + unit + (" (not visible in a repeat: stored at the timeout)" if "not-visible" in cell.flags else "")


def _steps(cell: Cell | None) -> str:
    if cell is None:
        return "-"
    after = cell.params.get("after_save")  # runs stored before the names were kept have the count only
    return _spread(cell, lambda v: f"{v:g}") + ("" if after is None else f" ({', '.join([*BY_HAND, *after])})")


def _row_order(view: RunView):
    """The lab's order: app/modes as run, the dev loop before rebuild-restart, edits as scripted."""
    targets, loops, edits = view.targets(), (DEV_MODE, DEVTOOLS, REBUILD), (HELLO, BROKEN, FIX, FRUITS_EDIT, MIXED_EDIT)

    def index(values, value) -> int:
        return values.index(value) if value in values else len(values)
    return lambda row: (index(targets, row[0]), index(loops, row[1]), index(edits, row[2]), row[2])


def step_table(view: RunView) -> list[TextTable]:
    """Per app, loop and edit: the measured steps by name beside LAB-2020's, and the time from the
    save to the change (or the broken build's error) visible."""
    rows = []
    for seconds in view.find(SCENARIO, "round_trip_s") + view.find(SCENARIO, "error_visible_s"):
        loop, edit = seconds.params.get("loop", ""), seconds.params.get("edit", "")
        steps = next((c for c in view.find(SCENARIO, "steps", seconds.point) if c.target == seconds.target), None)
        rows.append([seconds.target, loop, edit, _steps(steps), _published(seconds.app), _spread(seconds, unit=" s")])
    if not rows:
        return []
    rows.sort(key=_row_order(view))
    return [TextTable("devloop-steps", "Steps to see a change: measured beside LAB-2020 4.1.1",
                      ["app/mode", "loop", "edit", "steps measured (first repeat by name)", "LAB-2020 steps",
                       "save to visible, median [min-max]"], rows,
                      "Measured steps count the change and the save plus what the lab had to do before a request "
                      "showed the change (the request itself is not counted for anyone). The broken edit's time "
                      "is until its error was visible.")]


def remarks(view: RunView) -> list[str]:
    return [f"LAB-2020 {v.claim.id} ({v.claim.text}): {v.verdict}: {v.why}." for v in verdicts(view)]
