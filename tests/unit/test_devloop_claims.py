"""LAB-2020 4.1 verdicts from devloop figures stored the way the scenario stores them: what each
measured case makes of a claim, and that a change that never showed is never a round trip."""

from __future__ import annotations

import pytest

from perflab.devloop.roundtrip import LoopResult, Trip
from perflab.devloop.stream import BROKER_RESTART
from perflab.present.published import devloop_claims as claims
from perflab.results import load
from perflab.scenarios import devloop
from perflab.store import Store

STEPS = {"dev-mode": [], "devtools": ["compile"], "rebuild-restart": ["stop", "rebuild", "restart"]}


class _Recorder:
    """What devloop's _record needs of a Context: its settings and record(), into a real store."""

    def __init__(self, store: Store, run: str, app: str):
        self.store, self.run, self.app = store, run, app
        self.settings = devloop.DevloopSettings()

    def record(self, metric, value, unit, *, at, repeat=0, flags=(), extra=None):
        if value is not None:
            self.store.add_figure(self.run, self.app, "jvm", "devloop", metric, value, unit, point=at.label,
                                  params=dict(at.params), repeat=repeat, flags=flags, extra=extra)


def _loop(app: str, loop: str, seconds, edit: str = "hello", broker_restarts=None):
    """(app, result): one trip per entry of `seconds` (None: never showed); `broker_restarts`
    gives the repeats whose change needed a broker restart (a stream app's)."""
    trips = [Trip(edit, r, s, [*STEPS[loop], *([BROKER_RESTART] if r in (broker_restarts or ()) else [])],
                  state_kept=False if loop != "dev-mode" or s is None else None)
             for r, s in enumerate(seconds)]
    return app, LoopResult(loop, 10.0, 300.0, trips=trips), broker_restarts is not None


def _view(*loops, outcomes=()):
    store = Store()
    run = store.begin_run({"name": "t"}, {})
    for app, result, stream in loops:
        devloop._record(_Recorder(store, run, app), result, stream)
    for app, part, status, reason in outcomes:
        store.add_outcome(run, app, "jvm", f"devloop:{part}", status, reason)
    store.finish_run(run, "complete")
    return load(store, run)


def _verdict(view, claim_id):
    return next(v for v in claims.verdicts(view) if v.claim.id == claim_id)


def test_quarkus_dev_mode_with_no_steps_after_save_holds(workdir):
    v = _verdict(_view(_loop("quarkus", "dev-mode", [1.2, 1.5, 1.9])), "4.1.1 Quarkus")
    assert v.verdict == "held" and "1.5 s" in v.why and "(change, save)" in v.why


def test_a_dev_mode_change_that_never_showed_is_no_round_trip(workdir):
    never = _verdict(_view(_loop("quarkus", "dev-mode", [None, None, None])), "4.1.1 Quarkus")
    assert never.verdict == "did not hold" and "never showed" in never.why and "300" not in never.why
    partly = _verdict(_view(_loop("quarkus", "dev-mode", [1.2, None, 1.4])), "4.1.1 Quarkus")
    assert partly.verdict == "unclear" and "2 of 3" in partly.why


def test_an_unavailable_dev_mode_is_unclear_and_says_why(workdir):
    view = _view(_loop("quarkus", "rebuild-restart", [40.0]),
                 outcomes=[("quarkus", "dev-mode", "unavailable", "the registry lacks io.quarkus:quarkus-devui-spi")])
    v = _verdict(view, "4.1.1 Quarkus")
    assert v.verdict == "unclear" and "quarkus-devui-spi" in v.why


def test_devtools_has_more_steps_than_quarkus_but_not_the_stop_rebuild_restart_lab_2020_lists(workdir):
    view = _view(_loop("quarkus", "dev-mode", [1.0, 1.1]), _loop("spring-boot", "devtools", [9.0, 8.0]),
                 _loop("spring-boot", "rebuild-restart", [40.0, 42.0]))
    more = _verdict(view, "4.1.1 Framework A")
    assert more.verdict == "held"
    assert "3 (devtools) against the 2 measured for Quarkus" in more.why and "IDE" in more.why
    assert "rebuild-restart: 5 steps (change, save, stop, rebuild, restart)" in more.why
    which = _verdict(view, "4.1.1 Framework A steps")
    assert which.verdict == "did not hold" and "with no stop, rebuild, restart" in which.why


def test_without_devtools_the_plain_loop_is_compared_and_never_held_unseen(workdir):
    no_devtools = ("spring-boot", "devtools", "unavailable", "the registry lacks spring-boot-devtools")
    view = _view(_loop("spring-boot", "rebuild-restart", [40.0]), outcomes=[no_devtools])
    more = _verdict(view, "4.1.1 Framework A")
    assert more.verdict == "held" and "against the 2 LAB-2020 gives Quarkus" in more.why
    assert "spring-boot-devtools" in more.why
    which = _verdict(view, "4.1.1 Framework A steps")
    assert which.verdict == "unclear" and "by construction" in which.why
    # a plain loop whose change never showed is no comparison at all
    unseen = _verdict(_view(_loop("spring-boot", "rebuild-restart", [None]), outcomes=[no_devtools]),
                      "4.1.1 Framework A")
    assert unseen.verdict == "unclear" and "never showed" in unseen.why


def test_devtools_that_never_showed_the_change_leaves_stop_rebuild_restart_as_the_way(workdir):
    view = _view(_loop("spring-boot", "devtools", [None, None]), _loop("spring-boot", "rebuild-restart", [40.0, 41.0]))
    assert _verdict(view, "4.1.1 Framework A steps").verdict == "held"


def test_a_stream_change_without_a_broker_restart_refutes_framework_a_needing_one(workdir):
    view = _view(_loop("stream-spring", "devtools", [20.0, 18.0], broker_restarts=()))
    assert _verdict(view, "4.1.2 Framework A").verdict == "did not hold"
    restarted = _view(_loop("stream-spring", "devtools", [80.0, 18.0], broker_restarts=(0,)))
    v = _verdict(restarted, "4.1.2 Framework A")
    assert v.verdict == "held" and "only after 1 broker restarts" in v.why and "not shown 60 s after" in v.why


def test_a_broker_restart_after_which_the_change_never_showed_decides_nothing(workdir):
    view = _view(_loop("stream-spring", "devtools", [None], broker_restarts=(0,)))
    v = _verdict(view, "4.1.2 Framework A")
    assert v.verdict == "unclear" and "never showed" in v.why and "after 1 broker restarts" in v.why
    quarkus = _view(_loop("stream-quarkus", "dev-mode", [None], broker_restarts=()))
    assert _verdict(quarkus, "4.1.2").verdict == "did not hold"


def test_no_devloop_in_the_run_gives_no_verdicts(workdir):
    assert claims.verdicts(_view()) == []


def test_the_mixed_file_claim_needs_dev_mode_and_reports_the_restart_figure_otherwise(workdir):
    view = _view(_loop("quarkus", "rebuild-restart", [40.0], edit="mixed"),
                 outcomes=[("quarkus", "dev-mode", "unavailable", "the registry lacks X")])
    v = _verdict(view, "4.1.3")
    assert v.verdict == "unclear" and "40.0 s" in v.why
    assert _verdict(_view(_loop("quarkus", "dev-mode", [2.0], edit="mixed")), "4.1.3").verdict == "held"
    assert _verdict(_view(_loop("quarkus", "dev-mode", [None], edit="mixed")), "4.1.3").verdict == "did not hold"


def test_the_step_table_says_how_many_repeats_never_showed_and_flags_a_broker_restart(workdir):
    view = _view(_loop("quarkus", "dev-mode", [1.2, None, 1.4]),
                 _loop("stream-spring", "devtools", [75.0], broker_restarts=(0,)))
    (table,) = claims.step_table(view)
    rows = {(r[0], r[1]): r for r in table.rows}
    assert rows[("quarkus/jvm", "dev-mode")][5].endswith("(not visible in 1 of 3 repeats: stored at the timeout)")
    assert rows[("stream-spring/jvm", "devtools")][3] == "4 (change, save, compile, broker restart)"
    (restarted,) = [c for c in view.find("devloop", "round_trip_s") if c.app == "stream-spring"]
    assert "broker-restarted" in restarted.flags


def _devloop_run(store: Store) -> str:
    """Quarkus dev mode (no step after the save) and Spring Boot DevTools (a compile), three repeats
    each; Spring Boot's rebuild-restart loop failed to build."""
    run = store.begin_run({"name": "t", "scenarios": ["devloop"]}, {})
    for app, loop, after, seconds in (("quarkus", "dev-mode", [], (1.2, 1.5, 1.9)),
                                      ("spring-boot", "devtools", ["compile"], (8.0, 9.0, 11.0))):
        for repeat, value in enumerate(seconds):
            at = {"point": f"{loop} hello", "repeat": repeat}
            params = {"loop": loop, "edit": "hello"}
            store.add_figure(run, app, "jvm", "devloop", "round_trip_s", value, "s", params=params, **at)
            store.add_figure(run, app, "jvm", "devloop", "steps", 2 + len(after), "steps",
                             params={**params, "after_save": after}, **at)
    store.add_outcome(run, "spring-boot", "jvm", "devloop:rebuild-restart", "failed",
                      "devloop: building spring-boot in its working copy failed (exit 1)")
    store.finish_run(run, "complete")
    return run


def test_the_step_table_names_the_measured_steps_beside_the_published_ones(workdir):
    store = Store()
    (table,) = claims.step_table(load(store, _devloop_run(store)))
    rows = {(r[0], r[1]): r for r in table.rows}
    assert rows[("quarkus/jvm", "dev-mode")][3:] == ["2 (change, save)", "Quarkus: 2 (change, save)", "1.50 [1.20-1.90] s"]
    assert rows[("spring-boot/jvm", "devtools")][3:] == ["3 (change, save, compile)", _FRAMEWORK_A, "9.00 [8.00-11] s"]


_STEPS = claims.PUBLISHED_STEPS["Framework A"]
_FRAMEWORK_A = f"Framework A: {len(_STEPS)} ({', '.join(_STEPS)})"


@pytest.mark.parametrize("lab, end", [("4.1.1", "Quarkus requires"), ("4.1.2", "By using Quarkus"),
                                      ("4.1.3", "Why It Matters")])
def test_each_labs_published_steps_are_the_ones_its_table_lists_in_its_order(lab, end, study_text):
    """Labs 4.1.1 to 4.1.3 list each framework's round trip as bullets; the transcription keeps their
    number and order (in short words: every word of ours is in the bullet)."""
    text = " ".join(study_text("LAB-2020").split())
    start = -1
    for _ in range(("4.1.1", "4.1.2", "4.1.3").index(lab) + 1):  # the labs' tables, in the text's order
        start = text.index("Developer round trip", start + 1)
    row = text[start:text.index(end, start)]
    quarkus_cell, framework_a_cell = row.split("> 2 steps:", 1)
    for cell, study in ((quarkus_cell, "Quarkus"), (framework_a_cell, "Framework A")):
        listed = [b.split("<")[0].strip().lower() for b in cell.split("•")[1:]]
        steps = claims.LAB_PUBLISHED_STEPS[lab][study]
        assert len(listed) == len(steps), (study, listed)
        for mine, theirs in zip(steps, listed):
            assert all(word in theirs for word in mine.replace("the app", "").split()), (mine, theirs)


def test_both_reports_show_the_step_table_and_each_claims_verdict_with_its_reason(workdir, tmp_path):
    from perflab.report import write_report

    store = Store()
    paths = write_report(store, _devloop_run(store), tmp_path / "report")
    html, md = paths.html.read_text(), paths.markdown.read_text()
    held = "4.1.1 Quarkus (Quarkus shows a code change after two steps (change, save), without a restart): held"
    unclear = "LAB-2020 4.1.2 (a Kafka stream app is live-coded without stopping the Kafka broker): unclear"
    assert held in md and unclear in md and "stream-quarkus dev-mode was not measured in this run" in md
    assert f"| spring-boot/jvm | devtools | hello | 3 (change, save, compile) | {_FRAMEWORK_A} " in md
    assert held in html and unclear in html
    steps = html[html.index('<table data-table="devloop-steps">'):]
    steps = steps[:steps.index("</table>")]
    assert f"<td>3 (change, save, compile)</td><td>{_FRAMEWORK_A}</td>" in steps
    assert "<td>1.50 [1.20-1.90] s</td>" in steps
