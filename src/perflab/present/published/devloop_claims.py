"""LAB-2020's developer-loop claims (scenarios 4.1.1-4.1.3, steps counted by hand) and the
verdict the measured run gives each: held, did not hold, or unclear (with why); and the steps
measured beside the steps LAB-2020 counted."""

from __future__ import annotations

from dataclasses import dataclass

from perflab.present.tables import TextTable, fmt_value
from perflab.results import Cell, RunView

from perflab.devloop.loops import DEV_MODE, DEVTOOLS, REBUILD
from perflab.devloop.roundtrip import EDITS, HELLO, MIXED_EDIT
from perflab.devloop.stream import BROKER_PATIENCE_S

SCENARIO = "devloop"
# what the lab does itself on every loop before its own steps: the change and the save
BY_HAND = ("change", "save")

# LAB-2020's step tables of labs 4.1.1 to 4.1.3 as they list them, in short words ("Framework A" is
# Spring Boot in the lab's mapping); 4.1.3 also has Framework A keep two projects, one per style
LAB_PUBLISHED_STEPS = {
    "4.1.1": {"Quarkus": ("change", "save"),
              "Framework A": ("change", "stop", "start", "test the change", "run the app", "test")},
    "4.1.2": {"Quarkus": ("change", "save"),
              "Framework A": ("stop the kafka server", "build", "restart", "check the changes")},
    "4.1.3": {"Quarkus": ("change", "save"),
              "Framework A": ("create a new project", "change", "save", "mvn clean compile test", "run the app", "test")},
}
PUBLISHED_STEPS = LAB_PUBLISHED_STEPS["4.1.1"]
# the steps LAB-2020 says Framework A needs to see a change that the lab could take itself: its
# "start the service" is a rebuild and a restart here (the study names no build step)
RESTART_STEPS = ("stop", "rebuild", "restart")
# the lab's own stop-rebuild-restart loop for Framework A: the change and the save by hand, then the
# restart steps; the study's tests and "run the app" are the probe that waits for the change
LAB_STEPS = {"Quarkus": BY_HAND, "Framework A": (*BY_HAND, *RESTART_STEPS)}


@dataclass(frozen=True)
class Claim:
    id: str
    text: str


CLAIMS = (
    Claim("4.1.1 Quarkus", "Quarkus shows a code change after two steps (change, save), without a restart"),
    Claim("4.1.1 Framework A", "Framework A needs more steps than Quarkus's two to see a change"),
    Claim("4.1.1 Framework A steps", "the steps Framework A needs include stopping and starting the service "
                                     "(here: stop, rebuild, restart)"),
    Claim("4.1.2", "a Kafka stream app is live-coded without stopping the Kafka broker"),
    Claim("4.1.2 Framework A", "Framework A needs the Kafka broker restarted to see a change of a stream app"),
    Claim("4.1.3", "reactive and imperative endpoints in one source file are live-coded together"),
)
_CLAIM = {c.id: c for c in CLAIMS}


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    verdict: str  # "held", "did not hold", "unclear"
    why: str


@dataclass(frozen=True)
class Trips:
    """One app/loop/edit's round trips as a verdict reads them: only repeats whose change showed
    are round trips (one that never did is stored at the timeout, flagged not-visible)."""

    app: str
    loop: str
    repeats: int
    shown: int | None      # repeats whose change showed; None: a run stored before that was counted
    median_s: float        # over all repeats: a round trip's only when every repeat showed
    steps: float | None
    after_save: tuple[str, ...] | None

    @property
    def all_shown(self) -> bool:
        return self.shown == self.repeats

    def steps_named(self) -> str:
        names = "" if self.after_save is None else f" ({', '.join([*BY_HAND, *self.after_save])})"
        return f"{self.steps:g} steps{names}" if self.steps is not None else "steps not stored"

    def not_shown(self) -> str:
        """Why these trips are no round trip to count (only when not all showed)."""
        if self.shown is None:
            return f"{self.app} {self.loop}: a repeat never showed the change (stored at the timeout)"
        if self.shown == 0:
            return f"{self.app} {self.loop} never showed the change within the timeout ({self.repeats} repeats)"
        return f"{self.app} {self.loop} showed the change in only {self.shown} of {self.repeats} repeats"


def _cell(view: RunView, app: str, loop: str, edit: str, metric: str) -> Cell | None:
    for c in view.find(SCENARIO, metric):
        if c.app == app and c.params.get("loop") == loop and c.params.get("edit") == edit:
            return c
    return None


def _trips(view: RunView, app: str, loop: str, edit: str = HELLO) -> Trips | None:
    seconds = _cell(view, app, loop, edit, "round_trip_s")
    if seconds is None:
        return None
    visible, steps = _cell(view, app, loop, edit, "visible"), _cell(view, app, loop, edit, "steps")
    if visible is not None:
        shown: int | None = round(sum(visible.values))
    else:
        shown = None if "not-visible" in seconds.flags else seconds.summary.n
    after = steps.params.get("after_save") if steps is not None else None
    return Trips(app, loop, seconds.summary.n, shown, seconds.summary.median,
                 steps.summary.median if steps is not None else None, None if after is None else tuple(after))


def _why_missing(view: RunView, app: str, loop: str) -> str:
    for o in view.outcomes:
        if o["app"] == app and o["scenario"] == f"{SCENARIO}:{loop}" and o["status"] != "ok":
            return f"{app} {loop}: {o['status']}: {o['reason']}"
    return f"{app} {loop} was not measured in this run"


def _quarkus(view: RunView) -> Verdict:
    claim = _CLAIM["4.1.1 Quarkus"]
    t = _trips(view, "quarkus", DEV_MODE)
    if t is None or t.steps is None:
        return Verdict(claim, "unclear", _why_missing(view, "quarkus", DEV_MODE))
    if t.shown == 0:
        return Verdict(claim, "did not hold", t.not_shown())
    if not t.all_shown:
        return Verdict(claim, "unclear", t.not_shown())
    if t.steps <= len(PUBLISHED_STEPS["Quarkus"]):
        return Verdict(claim, "held", f"dev mode showed the change after {t.steps_named()}, median {t.median_s:.1f} s "
                                      "from the save to the first response showing it")
    return Verdict(claim, "did not hold", f"the lab needed {t.steps_named()}")


def _spring_loops(view: RunView) -> tuple[list[Trips], list[str]]:
    """Spring Boot's loops whose change showed in every repeat, and a line per loop."""
    shown, lines = [], []
    for loop in (DEVTOOLS, REBUILD):
        t = _trips(view, "spring-boot", loop)
        if t is None:
            lines.append(_why_missing(view, "spring-boot", loop))
        elif not t.all_shown or t.steps is None:
            lines.append(t.not_shown() if not t.all_shown else f"spring-boot {loop}: steps not stored")
        else:
            shown.append(t)
            lines.append(f"{loop}: {t.steps_named()}, median {t.median_s:.1f} s")
    return shown, lines


def _framework_a(view: RunView) -> Verdict:
    """Compared on Spring Boot's loop with the fewest steps, against Quarkus's measured steps (or
    LAB-2020's 2 when dev mode was not measured)."""
    claim = _CLAIM["4.1.1 Framework A"]
    shown, lines = _spring_loops(view)
    if not shown:
        return Verdict(claim, "unclear", "no Spring Boot loop showed the change in every repeat: " + "; ".join(lines))
    quarkus = _trips(view, "quarkus", DEV_MODE)
    if quarkus is not None and quarkus.all_shown and quarkus.steps is not None:
        baseline, whose = quarkus.steps, "measured for Quarkus dev mode"
    else:
        baseline, whose = len(PUBLISHED_STEPS["Quarkus"]), "LAB-2020 gives Quarkus"
    fewest = min(shown, key=lambda t: t.steps)
    verdict = "held" if fewest.steps > baseline else "did not hold"
    why = (f"Spring Boot's fewest were {fewest.steps:g} ({fewest.loop}) against the {baseline:g} {whose}; "
           + "; ".join(lines))
    if fewest.after_save == ("compile",):
        why += ("; the compile is what an IDE does on save: with one that builds on save, the developer's own "
                "steps are the change and the save, as with Quarkus")
    return Verdict(claim, verdict, why)


def _framework_a_steps(view: RunView) -> Verdict:
    """Decided by DevTools, the loop that could do without them: the stop-rebuild-restart loop has
    them by construction, so it cannot decide this claim alone."""
    claim = _CLAIM["4.1.1 Framework A steps"]
    devtools, plain = _trips(view, "spring-boot", DEVTOOLS), _trips(view, "spring-boot", REBUILD)
    if devtools is not None and devtools.all_shown and devtools.after_save is not None:
        skipped = [s for s in RESTART_STEPS if s not in devtools.after_save]
        if skipped:
            return Verdict(claim, "did not hold", f"DevTools showed the change after {devtools.steps_named()}, with no "
                                                  f"{', '.join(skipped)}; median {devtools.median_s:.1f} s")
        return Verdict(claim, "held", f"even DevTools needed {devtools.steps_named()}")
    if devtools is not None and devtools.shown == 0 and plain is not None and plain.all_shown:
        return Verdict(claim, "held", f"{devtools.not_shown()}; only stop-rebuild-restart showed it, after "
                                      f"{plain.steps_named()}, median {plain.median_s:.1f} s")
    why = devtools.not_shown() if devtools is not None else _why_missing(view, "spring-boot", DEVTOOLS)
    return Verdict(claim, "unclear", why + "; stop-rebuild-restart has those steps by construction, so it cannot "
                                           "decide whether Spring Boot needs them")


def _restarts(view: RunView, app: str, loop: str) -> float | None:
    for c in view.find(SCENARIO, "broker_restarts"):
        if c.app == app and c.params.get("loop") == loop:
            return c.summary.max
    return None


def _stream_quarkus(view: RunView) -> Verdict:
    claim = _CLAIM["4.1.2"]
    t = _trips(view, "stream-quarkus", DEV_MODE)
    restarts = _restarts(view, "stream-quarkus", DEV_MODE)
    if t is None or restarts is None:
        plain = _restarts(view, "stream-quarkus", REBUILD)
        also = (f"; its stop-rebuild-restart loop needed {plain:g} broker restarts" if plain is not None else "")
        return Verdict(claim, "unclear", _why_missing(view, "stream-quarkus", DEV_MODE) + also)
    after = f", not even after {restarts:g} broker restarts" if restarts else ""
    if t.shown == 0:
        return Verdict(claim, "did not hold", t.not_shown() + after)
    if not t.all_shown:
        return Verdict(claim, "unclear", t.not_shown() + after)
    if restarts == 0:
        return Verdict(claim, "held", f"Quarkus dev mode showed the new transformation after {t.median_s:.1f} s "
                                      "(median) with the broker running throughout")
    return Verdict(claim, "did not hold", f"the broker had to be restarted {restarts:g} times before the change showed")


def _patience_s(view: RunView) -> float:
    """How long the run let a stream change take after the lab's steps before restarting the broker."""
    return float((view.plan.get("devloop") or {}).get("broker_restart_after_s", BROKER_PATIENCE_S))


def _stream_framework_a(view: RunView) -> Verdict:
    """Refuted by any loop that showed the change without a broker restart; held when one showed
    it only after one; a change that never showed, even after the restart, decides nothing."""
    claim = _CLAIM["4.1.2 Framework A"]
    needed, lines = [], []
    for loop in (DEVTOOLS, REBUILD):
        t, restarts = _trips(view, "stream-spring", loop), _restarts(view, "stream-spring", loop)
        if t is None or restarts is None:
            lines.append(_why_missing(view, "stream-spring", loop))
        elif not t.all_shown:
            lines.append(t.not_shown() + (f" (after {restarts:g} broker restarts)" if restarts else ""))
        elif restarts == 0:
            return Verdict(claim, "did not hold", f"Spring Boot's stream app ({loop}) showed the new transformation "
                                                  f"after {t.median_s:.1f} s (median) without a broker restart")
        else:
            needed.append(f"{loop}: the change had not shown {_patience_s(view):g} s after the lab's steps and showed "
                          f"only after {restarts:g} broker restarts (median {t.median_s:.1f} s from the save, the "
                          f"wait and the restart included; a longer devloop.broker_restart_after_s may show it "
                          f"without one)")
    if needed:
        return Verdict(claim, "held", "; ".join(needed + lines))
    return Verdict(claim, "unclear", "; ".join(lines))


def _mixed(view: RunView) -> Verdict:
    claim = _CLAIM["4.1.3"]
    t = _trips(view, "quarkus", DEV_MODE, MIXED_EDIT)
    if t is not None and t.all_shown:
        return Verdict(claim, "held", f"in dev mode both endpoints of the one file showed the change after "
                                      f"{t.median_s:.1f} s (median), after {t.steps_named()}")
    if t is not None:
        return Verdict(claim, "did not hold" if t.shown == 0 else "unclear", t.not_shown() + " in the mixed file")
    plain = _trips(view, "quarkus", REBUILD, MIXED_EDIT)
    also = (f"; with stop-rebuild-restart both showed it after {plain.median_s:.1f} s"
            if plain is not None and plain.all_shown else "")
    return Verdict(claim, "unclear", _why_missing(view, "quarkus", DEV_MODE) + also)


def verdicts(view: RunView) -> list[Verdict]:
    if not view.find(SCENARIO) and not any(o["scenario"].startswith(SCENARIO) for o in view.outcomes):
        return []
    return [_quarkus(view), _framework_a(view), _framework_a_steps(view), _stream_quarkus(view),
            _stream_framework_a(view), _mixed(view)]


def _published(app: str, edit: str = HELLO) -> str:
    """LAB-2020's steps for the framework of an app (by the lab's mapping), or "-" for others: lab
    4.1.2's for the stream apps, 4.1.3's for the file with both styles, 4.1.1's otherwise."""
    study = "Quarkus" if "quarkus" in app else "Framework A" if "spring" in app else ""
    if not study:
        return "-"
    lab = "4.1.2" if app.startswith("stream-") else "4.1.3" if edit == MIXED_EDIT else "4.1.1"
    steps = LAB_PUBLISHED_STEPS[lab][study]
    return f"{study}: {len(steps)} ({', '.join(steps)})" + ("" if lab == "4.1.1" else f" (lab {lab})")


def _spread(cell: Cell, fmt=fmt_value, unit: str = "", visible: Cell | None = None) -> str:
    """median [min-max] over the repeats (the median alone where they agree), and how many never
    showed (`visible`: 1/0 per repeat; runs stored before it was kept have the flag only)."""
    s = cell.summary
    text = fmt(s.median) + (f" [{fmt(s.min)}-{fmt(s.max)}]" if s.n > 1 and s.max > s.min else "")
    if "not-visible" not in cell.flags:
        return text + unit
    which = "in a repeat" if visible is None else f"in {s.n - round(sum(visible.values))} of {s.n} repeats"
    return text + unit + f" (not visible {which}: stored at the timeout)"


def _steps(cell: Cell | None) -> str:
    if cell is None:
        return "-"
    after = cell.params.get("after_save")  # runs stored before the names were kept have the count only
    return _spread(cell, lambda v: f"{v:g}") + ("" if after is None else f" ({', '.join([*BY_HAND, *after])})")


def _row_order(view: RunView):
    """The lab's order: app/modes as run, the dev loop before rebuild-restart, edits as scripted."""
    targets, loops, edits = view.targets(), (DEV_MODE, DEVTOOLS, REBUILD), EDITS

    def index(values, value) -> int:
        return values.index(value) if value in values else len(values)
    return lambda row: (index(targets, row[0]), index(loops, row[1]), index(edits, row[2]), row[2])


def step_table(view: RunView) -> list[TextTable]:
    """Per app, loop and edit: the measured steps by name beside LAB-2020's (its lab for that app and
    edit), and the time from the save to the change (or the broken build's error) visible."""
    rows = []
    for seconds in view.find(SCENARIO, "round_trip_s") + view.find(SCENARIO, "error_visible_s"):
        loop, edit = seconds.params.get("loop", ""), seconds.params.get("edit", "")
        steps, visible = (next((c for c in view.find(SCENARIO, metric, seconds.point) if c.target == seconds.target),
                               None) for metric in ("steps", "visible"))
        rows.append([seconds.target, loop, edit, _steps(steps), _published(seconds.app, edit),
                     _spread(seconds, unit=" s", visible=visible)])
    if not rows:
        return []
    rows.sort(key=_row_order(view))
    return [TextTable("devloop-steps", "Steps to see a change: measured beside LAB-2020 4.1.1 to 4.1.3",
                      ["app/mode", "loop", "edit", "steps measured (first repeat by name)", "LAB-2020 steps",
                       "save to visible, median [min-max]"], rows,
                      "Measured steps count the change and the save plus what the lab had to do before a request "
                      "showed the change (the request itself is not counted for anyone). The broken edit's time "
                      "is until its error was visible; a broker restart counts from the save, the wait before it "
                      "included.")]


def remarks(view: RunView) -> list[str]:
    return [f"LAB-2020 {v.claim.id} ({v.claim.text}): {v.verdict}: {v.why}." for v in verdicts(view)]
