"""LAB-2020 4.1 verdicts from stored devloop figures: what each measured case makes of a claim."""

from __future__ import annotations

from perflab.devloop import claims
from perflab.results import load
from perflab.store import Store


def _view(figures, outcomes=()):
    store = Store()
    run = store.begin_run({"name": "t"}, {})
    for app, loop, edit, metric, value in figures:
        params = {"loop": loop, **({"edit": edit} if edit else {})}
        store.add_figure(run, app, "jvm", "devloop", metric, value, "s", point=f"{loop} {edit}".strip(), params=params)
    for app, part, status, reason in outcomes:
        store.add_outcome(run, app, "jvm", f"devloop:{part}", status, reason)
    store.finish_run(run, "complete")
    return load(store, run)


def _verdict(view, claim_id):
    return next(v for v in claims.verdicts(view) if v.claim.id == claim_id)


def test_quarkus_dev_mode_with_no_steps_after_save_holds(workdir):
    view = _view([("quarkus", "dev-mode", "hello", "steps", 2), ("quarkus", "dev-mode", "hello", "round_trip_s", 1.5)])
    assert _verdict(view, "4.1.1 Quarkus").verdict == "held"


def test_an_unavailable_dev_mode_is_unclear_and_says_why(workdir):
    view = _view([("quarkus", "rebuild-restart", "hello", "steps", 5)],
                 [("quarkus", "dev-mode", "unavailable", "the registry lacks io.quarkus:quarkus-devui-spi")])
    v = _verdict(view, "4.1.1 Quarkus")
    assert v.verdict == "unclear" and "quarkus-devui-spi" in v.why


def test_devtools_with_one_compile_step_holds_against_two_but_names_the_compile(workdir):
    view = _view([("quarkus", "dev-mode", "hello", "steps", 2), ("quarkus", "dev-mode", "hello", "round_trip_s", 1.0),
                  ("spring-boot", "devtools", "hello", "steps", 3),
                  ("spring-boot", "devtools", "hello", "round_trip_s", 9.0)])
    v = _verdict(view, "4.1.1 Framework A")
    assert v.verdict == "held" and "compile" in v.why


def test_a_stream_change_without_a_broker_restart_refutes_framework_a_needing_one(workdir):
    view = _view([("stream-spring", "devtools", "hello", "round_trip_s", 20.0),
                  ("stream-spring", "devtools", "", "broker_restarts", 0)])
    assert _verdict(view, "4.1.2 Framework A").verdict == "did not hold"
    restarted = _view([("stream-spring", "devtools", "hello", "round_trip_s", 20.0),
                       ("stream-spring", "devtools", "", "broker_restarts", 1)])
    assert _verdict(restarted, "4.1.2 Framework A").verdict == "held"


def test_no_devloop_in_the_run_gives_no_verdicts(workdir):
    assert claims.verdicts(_view([])) == []


def test_the_mixed_file_claim_needs_dev_mode_and_reports_the_restart_figure_otherwise(workdir):
    view = _view([("quarkus", "rebuild-restart", "mixed", "round_trip_s", 40.0)],
                 [("quarkus", "dev-mode", "unavailable", "the registry lacks X")])
    v = _verdict(view, "4.1.3")
    assert v.verdict == "unclear" and "40.0 s" in v.why
    held = _view([("quarkus", "dev-mode", "mixed", "round_trip_s", 2.0)])
    assert _verdict(held, "4.1.3").verdict == "held"


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
    assert rows[("spring-boot/jvm", "devtools")][3:] == [
        "3 (change, save, compile)", "Framework A: 6 (change, save, stop, rebuild, restart, test)", "9.00 [8.00-11] s"]


def test_both_reports_show_the_step_table_and_each_claims_verdict_with_its_reason(workdir, tmp_path):
    from perflab.report import write_report

    store = Store()
    paths = write_report(store, _devloop_run(store), tmp_path / "report")
    html, md = paths.html.read_text(), paths.markdown.read_text()
    held = "4.1.1 Quarkus (Quarkus shows a code change after two steps (change, save), without a restart): held"
    unclear = "LAB-2020 4.1.2 (a Kafka stream app is live-coded without stopping the Kafka broker): unclear"
    assert held in md and unclear in md and "stream-quarkus dev-mode was not measured in this run" in md
    assert "| spring-boot/jvm | devtools | hello | 3 (change, save, compile) | Framework A: 6 " in md
    assert held in html and unclear in html
    steps = html[html.index('<table data-table="devloop-steps">'):]
    steps = steps[:steps.index("</table>")]
    assert "<td>3 (change, save, compile)</td><td>Framework A: 6 (change, save, stop, rebuild, restart, test)</td>" in steps
    assert "<td>1.50 [1.20-1.90] s</td>" in steps
