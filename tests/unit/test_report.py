"""Reports rendered from a run built in a temporary store: the tables hold the store's numbers,
missing scenarios and modes are listed with their reasons, doubtful points are marked, limits
that did not hold are stated, and the published figures and ratios sit beside the tables.

``make_run`` (also used by the browser test) writes a synthetic run through Store: two app/modes
measured in every implemented scenario, a third one unavailable, a failed scenario, a scenario
not implemented, a driver-bound and an erroring point, and the RSS samples files.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass

import pytest

from perflab import results
from perflab.present import published
from perflab.present.tables import fmt_value
from perflab.report import facts, html, markdown, ratios, sections, write_report
from perflab.store import Store

SPRING, QJVM, QNATIVE = ("spring-boot", "jvm"), ("quarkus", "jvm"), ("quarkus", "native")

PLAN = {
    "name": "synthetic", "description": "", "apps": ["all"], "modes": ["all"], "repeats": 3,
    "scenarios": ["footprint", "startup", "memory", "sweep", "latency", "write", "density"],
    "reductions": ["short durations"], "cv_threshold": 0.10,
    "limits": {"cpus": 1, "memory_mb": 1024, "jvm_opts": ["-Xmx64m"], "jdk": 0},
    "topology": {"app_cpus": [], "driver_cpus": [], "db_cpus": []},
    "startup": {"runs": 4, "timeout_s": 180.0, "poll_ms": 5.0, "path": ""},
    "memory": {"rest_s": 5.0, "load_path": "/fruits", "load_connections": 10, "load_duration_s": 8.0,
               "warmup_s": 5.0, "sample_hz": 20.0},
    "sweep": {"series": [{"name": "fruits", "path": "/fruits", "connections": [1, 10, 40]},
                         {"name": "todos", "path": "/todos", "connections": [8, 32]}],
              "duration_s": 5.0, "warmup_s": 10.0, "threads": 0, "timeout_s": 2.0},
    "latency": {"path": "/fruits", "fractions": [0.25, 0.5], "duration_s": 5.0, "connections": 20, "warmup_s": 3.0},
    "write": {"connections": 10, "threads": 2, "duration_s": 5.0, "warmup_s": 3.0},
}
ENV = {"cpu_model": "Synthetic CPU 9000", "cpus_online": 2, "cpus_usable": 2, "memory_mb": 8000, "kernel": "6.1.0-test",
       "os": "Debian GNU/Linux 12 (bookworm)", "jdks": {"17": "17.0.15"}, "frameworks": {"spring-boot": "Spring Boot 4.1.1",
       "quarkus": "Quarkus 3.37.4"}, "drivers": {"wrk": "4.1.0"}, "postgres": "PostgreSQL 15.18", "cgroup": "v1",
       "git": {"sha": "a" * 40, "dirty": False},
       "topology": {"description": "2 CPUs: app alone on CPU 0; driver and DB share CPU 1", "shared": [], "reductions": []},
       "db_placement": "private, CPUs [1]"}


@dataclass
class Synthetic:
    store: Store
    run_id: str
    speed: dict  # (app, mode) -> factor applied to throughput (higher = faster)


def _spread(center: float, rel: float = 0.02) -> list[float]:
    return [center * (1 - rel), center, center * (1 + rel)]


def make_run(store: Store, *, speed: dict | None = None, plan: dict | None = None, extra_env: dict | None = None,
             quarkus_memory_enforced: bool = False) -> Synthetic:
    """A complete synthetic run; ``speed`` scales each app/mode's throughput (and inversely its
    latency), so tests can derive every expected figure from their own inputs."""
    speed = speed or {SPRING: 1.0, QJVM: 2.0}
    run = store.begin_run(plan or PLAN, {**ENV, **(extra_env or {})})
    store.db.execute("BEGIN")  # one transaction: thousands of autocommitted inserts are slow
    add = store.add_figure
    for app in ("spring-boot", "quarkus"):
        add(run, app, "all", "footprint", "artifact_mb", 20.0 + len(app), "MB", flags=["cached-build"])
        add(run, app, "all", "footprint", "build_s", 30.0, "s", flags=["cached-build"])
    store.add_outcome(run, "quarkus", "native", "startup", "unavailable", "no GraalVM native-image on this machine")
    for (app, mode), k in speed.items():
        enforced = {"cpu": True, "memory": not (app == "quarkus" and not quarkus_memory_enforced),
                    "reason": "cgroup v1 perflab/test" + ("" if app != "quarkus" or quarkus_memory_enforced
                                                           else "; no memory controller: memory limit not applied")}
        for i in range(4):
            point = "cold" if i == 0 else "warm"
            extra = {"limits_enforced": enforced}
            add(run, app, mode, "startup", "ttfr_ms", 4000.0 / k + 100 * i, "ms", point=point, repeat=i, extra=extra)
            add(run, app, mode, "startup", "framework_start_ms", 3000.0 / k + 50 * i, "ms", point=point, repeat=i, extra=extra)
            add(run, app, mode, "startup", "ready_ms", 4100.0 / k + 100 * i, "ms", point=point, repeat=i, extra=extra)
            add(run, app, mode, "startup", "rss_after_first_mb", 200.0 / k + i, "MB", point=point, repeat=i, extra=extra)
            add(run, app, mode, "startup", "rss_rest_mb", 220.0 / k + i, "MB", point=point, repeat=i, extra=extra)
        load = {"point": "load c=10", "params": {"path": "/fruits", "connections": 10}}
        for r, v in enumerate(_spread(300.0 / k)):
            add(run, app, mode, "memory", "rss_peak_mb", v, "MB", **load, repeat=r)
            add(run, app, mode, "memory", "rps", 3000.0 * k, "req/s", **load, repeat=r)
            add(run, app, mode, "memory", "rps_per_mb", 3000.0 * k / v, "req/s/MB", **load, repeat=r)
        for series, conns in (("fruits", [1, 10, 40]), ("todos", [8, 32])):
            for c in conns:
                point = f"{series} c={c}"
                at = {"point": point, "params": {"series": series, "path": f"/{series}", "connections": c}}
                flags = ["driver-bound"] if (series, c, app) == ("fruits", 40, "quarkus") else []
                flags += ["errors"] if (series, c, app) == ("todos", 32, "spring-boot") else []
                for r, rps in enumerate(_spread(1000.0 * k * min(c, 10))):
                    extra = {"driver_bound_reason": "wrk used 98% of its CPU"} if "driver-bound" in flags else {}
                    add(run, app, mode, "sweep", "rps", rps, "req/s", **at, repeat=r, flags=flags, extra=extra)
                    add(run, app, mode, "sweep", "latency_mean_ms", c / rps * 1000, "ms", **at, repeat=r, flags=flags)
                    add(run, app, mode, "sweep", "latency_max_ms", 40.0 / k, "ms", **at, repeat=r, flags=flags)
                    for p, f in (("50", 1.0), ("90", 2.0), ("99", 5.0), ("99.9", 9.0)):
                        add(run, app, mode, "sweep", f"latency_p{p}_ms", f * c / rps * 1000, "ms", **at,
                            repeat=r, flags=flags)
                    add(run, app, mode, "sweep", "errors", 5.0 if "errors" in flags else 0.0, "count", **at,
                        repeat=r, flags=flags)
        store.add_outcome(run, app, mode, "sweep:fruits", "ok")
        if (app, mode) == SPRING:
            add(run, app, mode, "latency", "max_rps_reference", 10000.0 * k, "req/s")
            for frac in (25, 50):
                point = f"{frac}% of max"
                at = {"point": point, "params": {"path": "/fruits", "fraction": frac / 100}}
                for r in range(3):
                    add(run, app, mode, "latency", "offered_rate", 100.0 * frac * k, "req/s", **at, repeat=r)
                    add(run, app, mode, "latency", "rps", 100.0 * frac * k, "req/s", **at, repeat=r)
                    for p, f in (("50", 1.0), ("90", 1.5), ("99", 4.0), ("99.9", 8.0)):
                        add(run, app, mode, "latency", f"latency_p{p}_ms", f * frac / 25 + 0.01 * r, "ms", **at,
                            repeat=r)
        else:
            store.add_outcome(run, app, mode, "latency", "failed", "the app ended: OOM-killed under the memory limit")
        for name, base in (("GET /data/{key}", 2000.0), ("POST /data", 1000.0)):
            at = {"point": name, "params": {"method": name.split()[0], "path": name.split()[1]}}
            for r, v in enumerate(_spread(base * k)):
                add(run, app, mode, "write", "rps", v, "req/s", **at, repeat=r)
                add(run, app, mode, "write", "latency_mean_ms", 10000.0 / v, "ms", **at, repeat=r)
        rows = ["t_s,t_ns,alive,procs,rss_bytes,cpu_s,cgroup_memory_bytes,cgroup_cpu_s"]
        for i in range(600):
            mb = 100.0 / k + (200.0 / k) * min(i, 300) / 300
            rows.append(f"{i * 0.05:.3f},{i},True,1,{int(mb * 1024 * 1024)},0.0,,")
        path = store.run_dir(run) / f"{app}-{mode}" / "samples-load-instance.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(rows) + "\n")
        store.db.execute("INSERT INTO files (run_id, app, mode, scenario, kind, path) VALUES (?,?,?,?,?,?)",
                         (run, app, mode, "memory", "samples", str(path.relative_to(store.path.parent))))
    store.db.execute("COMMIT")
    store.finish_run(run, "complete")
    return Synthetic(store, run, speed)


@pytest.fixture
def synthetic(tmp_path) -> Synthetic:
    store = Store(tmp_path / "results.sqlite")
    try:
        yield make_run(store)
    finally:
        store.close()


def _render(syn: Synthetic) -> tuple[results.RunView, str, str]:
    view = results.load(syn.store, syn.run_id)
    extras = facts.load_extras(syn.store, view.id)
    return view, html.render(view, extras), markdown.render(view, extras)


def _html_text(doc: str) -> str:
    """The visible text of the HTML (tags dropped, entities decoded)."""
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<(style|title)>.*?</\1>", " ", doc, flags=re.S)))


def _table(doc: str, key: str) -> str:
    m = re.search(rf'<table data-table="{re.escape(key)}">(.*?)</table>', doc, re.S)
    assert m, f"no table {key}"
    return m.group(1)


def _row(table_html: str, label: str) -> str:
    m = re.search(rf"<tr><th>{re.escape(html_lib.escape(label))}</th>(.*?)</tr>", table_html, re.S)
    assert m, f"no row {label}"
    return m.group(1)


def test_every_stored_figure_appears_in_a_table_with_its_median_and_spread(synthetic):
    view, doc, md = _render(synthetic)
    shown = {id(c) for s in sections.report_scenarios(view)
             for t in sections.scenario_tables(view, s) for c in t.cells()}
    assert {id(c) for c in view.cells} <= shown
    for cell in view.cells:
        if cell.summary.n > 1:
            spread = f"[{fmt_value(cell.summary.min)}-{fmt_value(cell.summary.max)}]"
            assert spread in md
            assert f'data-median="{cell.summary.median:g}"' in doc


def test_the_sweep_table_has_the_store_numbers_per_connection_count_and_app(synthetic):
    view, doc, _ = _render(synthetic)
    store_values = {(f.app, f.point): [] for f in synthetic.store.figures(synthetic.run_id)}
    for f in synthetic.store.figures(synthetic.run_id):
        if f.scenario == "sweep" and f.metric == "rps":
            store_values[(f.app, f.point)].append(f.value)
    table = _table(doc, "sweep-fruits-rps")
    header = re.search(r"<thead>(.*?)</thead>", table, re.S).group(1)
    assert header.index("spring-boot/jvm") < header.index("quarkus/jvm")
    for conns in (1, 10, 40):
        row = _row(table, str(conns))
        medians = re.findall(r'data-median="([^"]+)"', row)
        expected = [sorted(store_values[(app, f"fruits c={conns}")])[1] for app in ("spring-boot", "quarkus")]
        assert [float(m) for m in medians] == pytest.approx(expected)


def test_missing_modes_and_scenarios_are_listed_with_the_reason(synthetic):
    _, doc, md = _render(synthetic)
    missing = _html_text(_table(doc, "missing"))
    assert "quarkus/native" in missing and "no GraalVM native-image on this machine" in missing
    assert "density" in missing and "no figures and no outcome were recorded" in missing
    assert "OOM-killed under the memory limit" in missing
    assert "no GraalVM native-image on this machine" in md
    # scenarios with published figures the plan did not include are named with those figures
    assert "scaleup: LAB-2020" in md and "49,960" in md


def test_doubtful_points_are_marked_where_they_are_shown(synthetic):
    _, doc, md = _render(synthetic)
    row = _row(_table(doc, "sweep-fruits-rps"), "40")
    spring_td, quarkus_td = re.findall(r"<td.*?</td>", row, re.S)
    assert "driver-bound" in quarkus_td and "f-serious" in quarkus_td
    assert "driver-bound" not in spring_td
    assert "wrk used 98% of its CPU" in _html_text(doc)
    errors_row = _row(_table(doc, "sweep-todos-rps"), "32")
    assert "flag errors" in errors_row.split("</td>")[0]
    assert re.search(r"\| 40 \| [^|]+ \| \*\*[^|]+ D \|", md)  # the Markdown mark on the quarkus cell


def test_limits_that_did_not_hold_are_stated(tmp_path):
    store = Store(tmp_path / "r.sqlite")
    try:
        unenforced = make_run(store)
        enforced = make_run(store, quarkus_memory_enforced=True)
        _, doc, md = _render(unenforced)
        assert "Limits not enforced" in doc and "quarkus/jvm: memory limit not enforced" in _html_text(doc)
        assert "quarkus/jvm: memory limit not enforced" in md
        _, doc_ok, _ = _render(enforced)
        assert "Limits not enforced" not in doc_ok
    finally:
        store.close()


def test_published_figures_and_the_ratio_sit_beside_the_measured_table(synthetic):
    view, doc, md = _render(synthetic)
    startup = re.search(r'<section id="s-startup".*?</section>', doc, re.S).group(0)
    claim = re.search(r'data-claim="lab2020-ttfr">(.*?)</div>', startup, re.S).group(1)
    qrow = re.search(r'<tr data-label="Q-JVM">(.*?)</tr>', claim, re.S).group(1)
    # LAB-2020 3.1 probed the health endpoint: time to ready, over every launch, the first included
    spring = sorted(4100.0 + 100 * i for i in range(4))
    quarkus = sorted(2050.0 + 100 * i for i in range(4))
    expected = ((quarkus[1] + quarkus[2]) / 2) / ((spring[1] + spring[2]) / 2)
    assert f"{4455 / 9649:.2f}x" in qrow  # published Q-JVM / A
    assert f"{expected:.2f}x" in qrow and "all launches" in qrow
    # the ratio's 95 % interval from the launches: around the ratio, inside the widest range they allow
    low, high = map(float, re.search(rf"{expected:.2f}x \[([0-9.]+)x-([0-9.]+)x\]", qrow).groups())
    assert quarkus[0] / spring[3] - 0.005 <= low < expected < high <= quarkus[3] / spring[0] + 0.005
    assert "held" in qrow and "did not hold" not in qrow
    assert f"within ±25% ({expected / (4455 / 9649):.2f}x published)" in qrow
    # KT-2020 published Spring faster on GET /data: here quarkus is twice as fast, so it did not hold
    kt = re.search(r'data-claim="kt2020-get-write">(.*?)</div>', doc, re.S).group(1)
    assert "did not hold" in re.search(r'<tr data-label="Q-JVM">(.*?)</tr>', kt, re.S).group(1)
    assert "did not hold" in md
    # the verdicts count direction and size apart, in both reports
    counts = ratios.count(ratios.evaluate_all(view)).text()
    assert counts in _html_text(doc) and counts in md and "size (±25%)" in counts
    # and a line per study: its figures compared, held, and left out with why
    lines = [t.text() for t in ratios.by_study(ratios.evaluate_all(view))]
    assert len(lines) == len(published.STUDIES)
    assert all(line in _html_text(doc) and f"- {line}" in md for line in lines)


def test_the_studies_contradictions_are_listed_with_their_wording_and_the_value_compared(synthetic):
    _, doc, md = _render(synthetic)
    table = _table(doc, "contradictions")
    for c in published.CONTRADICTIONS:
        row = re.search(rf'<tr data-contradiction="{re.escape(c.key)}">(.*?)</tr>', table, re.S).group(1)
        text = html_lib.unescape(row)
        assert all(w in text for w in c.wordings) and c.compared in text and c.finding() in text
        assert c.wordings[0] in md
    assert "## What the studies contradict themselves on" in md
    for n in published.NOT_TRANSCRIBED:
        assert f"{n.what}: not transcribed: {n.why}" in md


def test_what_the_studies_state_in_words_is_listed_beside_what_their_figures_give(synthetic):
    _, doc, md = _render(synthetic)
    table = _table(doc, "worded")
    assert "### Stated in words" in md
    for w in published.worded.WORDED:
        row = html_lib.unescape(re.search(rf'<tr data-worded="{re.escape(w.key)}">(.*?)</tr>', table, re.S).group(1))
        assert w.wording in row and w.stated() in row and w.figures_give() in row
        assert f"| {w.wording} | {w.stated()} | {w.figures_give()} |" in md


def test_write_report_writes_both_files_for_the_last_run(synthetic, tmp_path):
    paths = write_report(synthetic.store, "last", tmp_path / "out")
    assert paths.run_id == synthetic.run_id
    assert paths.html.read_text().startswith("<!DOCTYPE html>")
    assert f"# perflab report: run {synthetic.run_id}" in paths.markdown.read_text()


def test_an_unknown_run_is_a_clear_error(synthetic, tmp_path):
    from perflab.errors import LabError

    with pytest.raises(LabError, match="no run 'nope'"):
        write_report(synthetic.store, "nope", tmp_path / "out")


def test_a_run_that_did_not_complete_says_so(tmp_path):
    store = Store(tmp_path / "r.sqlite")
    try:
        run = store.begin_run(PLAN, ENV)
        store.add_figure(run, "spring-boot", "jvm", "startup", "ttfr_ms", 900.0, "ms", point="cold")
        store.finish_run(run, "interrupted", note="SIGINT")
        view = results.load(store, run)
        doc = html.render(view, facts.load_extras(store, run))
        text = _html_text(doc)
        assert "did not complete (interrupted)" in text and "SIGINT" in text
        assert "sweep" in _html_text(_table(doc, "missing"))
    finally:
        store.close()


def test_environment_comes_first(synthetic):
    _, doc, md = _render(synthetic)
    assert doc.index("Synthetic CPU 9000") < doc.index('id="s-footprint"')
    assert md.index("Synthetic CPU 9000") < md.index("## Footprint")


def test_later_scenarios_get_tables_charts_and_their_published_figures(tmp_path):
    store = Store(tmp_path / "r.sqlite")
    try:
        plan = {**PLAN, "scenarios": ["density", "scaleup", "coldstart", "soak"]}
        run = store.begin_run(plan, ENV)
        for (app, mode), k in ((SPRING, 1.0), (QJVM, 2.0)):
            store.add_figure(run, app, mode, "density", "instances", 6 * k, "count", flags=["lower-bound"])
            store.add_figure(run, app, mode, "density", "rss_10_instances_mb", 2000 / k, "MB", point="10 instances")
            store.add_figure(run, app, mode, "density", "projected_rps", 50000 * k, "req/s", point="load")
            for i in range(4):
                store.add_figure(run, app, mode, "scaleup", "ready_ms", 3000 / k + i, "ms",
                                 point="cold" if i == 0 else "warm", repeat=i)
                store.add_figure(run, app, mode, "coldstart", "ttfr_minus_reference_ms", 1000 / k + i, "ms",
                                 point="pairs", repeat=i)
            for i in range(5):
                store.add_figure(run, app, mode, "soak", "rps", 900 * k + i, "req/s", point="interval", repeat=i)
            store.add_figure(run, app, mode, "soak", "rps", 900 * k + 2, "req/s")
        store.finish_run(run, "complete")
        view = results.load(store, run)
        doc = html.render(view, facts.load_extras(store, run))
        for scenario in ("density", "scaleup", "coldstart", "soak"):
            section = re.search(rf'<section id="s-{scenario}".*?</section>', doc, re.S).group(0)
            assert "<table" in section and 'class="published"' in section, scenario
        scaleup = re.search(r'data-claim="lab2020-scaleup">(.*?)</div>', doc, re.S).group(1)
        q = re.search(r'<tr data-label="Q-JVM">(.*?)</tr>', scaleup, re.S).group(1)
        # LAB-2020 2.1's median included the first run: all four launches
        assert f"{(1500 + 1.5) / (3000 + 1.5):.2f}x" in q and "held" in q
        assert "lower-bound" in re.search(r'<section id="s-density".*?</section>', doc, re.S).group(0)
        assert 'data-chart="soak-rps"' in doc
    finally:
        store.close()


def test_a_study_plans_report_sets_each_setting_against_the_studys_recorded_method(tmp_path):
    store = Store(tmp_path / "r.sqlite")
    try:
        plan = {**PLAN, "name": "lab2020", "reductions": ["limits.cpus: one core here"]}
        _, doc, md = _render(make_run(store, plan=plan))
        listed = _html_text(re.search(r'<ul class="plain" data-list="against-study">(.*?)</ul>', doc, re.S).group(1))
        assert "Settings against LAB-2020's recorded method" in md
        assert "limits.cpus: study 4" in listed and "differs, declared below" in listed
        assert "limits.jvm_opts: study -Xmx64m" in listed and "here -Xmx64m: as the study" in listed
        assert "limits.memory_mb: study 256" in md and "here 1024: differs, NOT declared" in md
    finally:
        store.close()
