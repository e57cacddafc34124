"""The summary's one-line readings and the report's charts for capacity, efficiency and memneeds,
from a run written through the scenarios' own recording code where it is pure (memneeds' steps
and judgement) and through the store where it needs a live app (capacity, efficiency): an
excluded step is named with its cause and never sets the line, an answer within noise says so,
and an app that could not hold a rate is named with the rate."""

from __future__ import annotations

import io
import tomllib
from types import SimpleNamespace

import pytest

from perflab import plan, registry, results
from perflab.analysis import memory_need
from perflab.lab import Lab
from perflab.present import charts as plot
from perflab.present.chart_inputs import ChartInputs
from perflab.progress import Progress
from perflab.report import summary, write_report
from perflab.scenario import Context
from perflab.scenarios import memneeds
from perflab.store import Store

PLAN = """
name = "sizing-test"
apps = ["all"]
scenarios = ["capacity", "efficiency", "memneeds"]
[efficiency]
rates = [250, 1000]
"""

QUARKUS = [memory_need.Step(704, 512, 1000.0, 10.0, requests=10000),
           memory_need.Step(448, 256, 950.0, 10.0, requests=9500),
           memory_need.Step(320, 128, 905.0, 20.0, requests=9050),     # 5 req/s above the line, +-20
           memory_need.Step(240, 48, 1500.0, 5.0, requests=15000, errors=9000)]  # fails fast with 503s
GO = [memory_need.Step(256, None, 5000.0, 50.0, requests=50000), memory_need.Step(64, None, 4900.0, 50.0,
                                                                                   requests=49000)]


def _memneeds(lab: Lab, app: str, mode: str, steps: list[memory_need.Step]) -> None:
    """What memneeds.run records after its launches, for steps as measured."""
    ctx = Context(lab, registry.get("memneeds"), SimpleNamespace(name=app), mode, lab.plan.settings("memneeds"))
    for s in steps:
        memneeds._record_step(ctx, s, {"rps": (s.rps, "req/s"), "precision_pct": (100 * s.half_width / s.rps, "%"),
                                       "errors": (s.errors, "count")}, {})
    j = memory_need.judge(steps, ctx.settings.keep, ctx.settings.max_error_share)
    memneeds._record_judgement(ctx, j)
    ctx.outcome("ok", memneeds._outcome_note(j, []))


def _efficiency(s: Store, run: str, app: str, held: dict[float, float], cpu_ms: float) -> None:
    for rate, achieved in held.items():
        flags = [] if achieved >= 0.97 * rate else ["not-held"]
        kw = dict(point=f"{rate:,.0f} req/s", params={"rate": rate, "path": "/fruits"}, flags=flags)
        s.add_figure(run, app, "jvm", "efficiency", "rps", achieved, "req/s", **kw)
        s.add_figure(run, app, "jvm", "efficiency", "app_cpu_ms_per_request", cpu_ms * rate / achieved, "ms", **kw)


def _new_run(tmp_path) -> tuple[Store, str, Lab]:
    the_plan = plan.validate(tomllib.loads(PLAN), "test")
    s = Store(tmp_path / "r.sqlite")
    run = s.begin_run(the_plan.data, {})
    lab = Lab(s, run, the_plan, None, SimpleNamespace(usable=True), None, None,
              Progress([], stream=io.StringIO(), live=False), tmp_path)
    return s, run, lab


@pytest.fixture
def stored(tmp_path):
    s, run, lab = _new_run(tmp_path)
    _memneeds(lab, "quarkus", "jvm", QUARKUS)
    _memneeds(lab, "go-reference", "native", GO)
    _efficiency(s, run, "quarkus", {250: 250.0, 1000: 1000.0}, 0.4)
    _efficiency(s, run, "spring-boot", {250: 249.0, 1000: 870.0}, 0.9)
    s.add_figure(run, "quarkus", "jvm", "capacity", "capacity_rps", 1800.0, "req/s", point="p99 <= 25 ms",
                 params={"objective_ms": 25.0, "ended_by": "app"})
    s.finish_run(run, "complete")
    yield s, run
    s.close()


@pytest.fixture
def view(stored):
    return results.load(*stored)


def test_the_summary_reads_each_of_the_three(view):
    text = summary.render(view, width=400)
    assert ("memory needed to keep >= 90% of the best clean throughput: go-reference/native 64 MB or less, "
            "quarkus/jvm 320 MB (heap 128 MB, within noise of the line)") in text
    assert "quarkus/jvm not counted: 240 MB (heap 48 MB) (errors)" in text
    # spring-boot held 250 only: the CPU is compared there, and the rate it could not hold is named
    assert "app CPU ms per request at 250 req/s: quarkus/jvm 0.40, spring-boot/jvm 0.90" in text
    assert "not held: spring-boot/jvm 1,000 req/s (achieved 870)" in text
    assert "quarkus/jvm: 1,800 req/s at p99 <= 25 ms (search ended by the app's limit)" in text


def test_the_outcome_names_the_excluded_step_and_why(view):
    [note] = [o["reason"] for o in view.outcomes if o["app"] == "quarkus" and o["scenario"] == "memneeds"]
    assert "not counted: 240 MB (heap 48 MB): 9,000 errors in 15,000 requests" in note
    assert "320 MB (heap 128 MB) is within the steps' noise of the 90% line" in note


def test_the_memory_curve_has_each_steps_noise_and_the_line_from_clean_steps(view):
    colors = plot.colors_for(view)
    [chart] = memneeds.charts(view, ChartInputs({}, {}, []), colors)
    traces = {t.name: t for t in chart.figure.data}
    quarkus = traces["quarkus/jvm"]
    at = dict(zip(quarkus.x, zip(quarkus.y, quarkus.error_y.array)))
    assert at[704] == pytest.approx((1000.0, 10.0)) and at[320] == pytest.approx((905.0, 20.0))
    line = traces["quarkus/jvm 90% of best"]
    assert list(line.y) == pytest.approx([900.0, 900.0])  # 90 % of the best clean step, not of the erroring 1,500


def test_the_report_draws_the_three_scenarios_charts(stored, tmp_path):
    html = write_report(*stored, out_dir=tmp_path / "report").html.read_text()
    for key in ("memneeds-curve", "efficiency-app_cpu_ms_per_request"):
        assert key in html, key
    assert "memory needed to keep &gt;= 90% of the best clean throughput" in html


LOAD_SIDE = "the driver and the database used 97% of CPU 1 while the app used 60% of its CPU"
# the best step capped by the load side: the line drawn from it may be too low
CAPPED_BEST = [memory_need.Step(704, 512, 1000.0, 10.0, requests=10000, load_side=LOAD_SIDE),
               memory_need.Step(448, 256, 950.0, 10.0, requests=9500),
               memory_need.Step(320, 128, 700.0, 10.0, requests=7000)]
# only a step below the one needed was capped: the line and the answer stand
CAPPED_BELOW = [memory_need.Step(256, None, 5000.0, 50.0, requests=50000),
                memory_need.Step(128, None, 4900.0, 50.0, requests=49000),
                memory_need.Step(64, None, 3000.0, 50.0, requests=30000, load_side=LOAD_SIDE)]


@pytest.fixture
def capped(tmp_path):
    s, run, lab = _new_run(tmp_path)
    _memneeds(lab, "quarkus", "jvm", CAPPED_BEST)
    _memneeds(lab, "go-reference", "native", CAPPED_BELOW)
    s.finish_run(run, "complete")
    yield s, run
    s.close()


def _needed(s: Store, run: str, app: str):
    [f] = [f for f in s.figures(run) if f.app == app and f.metric == "memory_needed_mb"]
    return f


def test_a_load_side_capped_best_step_flags_the_memory_needed(capped):
    s, run = capped
    needed = _needed(s, run, "quarkus")
    assert needed.value == 448 and "load-side-bound" in needed.flags
    assert needed.extra["load_side"] == [f"704 MB (heap 512 MB): {LOAD_SIDE}"]
    [note] = [o["reason"] for o in s.outcomes(run) if o["app"] == "quarkus"]
    assert "the load side capped the throughput at 704 MB (heap 512 MB) (the best" in note
    assert "line may be too low" in note
    text = summary.render(results.load(s, run), width=400)
    [line] = [x for x in text.splitlines() if "memory needed to keep" in x]
    assert "quarkus/jvm 448 MB (heap 256 MB, the load side capped" in line


def test_a_load_side_step_below_the_one_needed_still_counts_and_leaves_the_answer_unflagged(capped):
    s, run = capped
    needed = _needed(s, run, "go-reference")
    assert needed.value == 128 and "load-side-bound" not in needed.flags and needed.extra["load_side"] == []
    [note] = [o["reason"] for o in s.outcomes(run) if o["app"] == "go-reference"]
    assert "load side" not in note
    [step] = [f for f in s.figures(run)
              if f.app == "go-reference" and f.metric == "rps" and f.params["memory_mb"] == 64]
    assert "load-side-bound" in step.flags and "excluded" not in step.flags


def test_a_capped_needed_step_or_a_driver_bound_best_flags_the_judgement():
    needed_capped = [memory_need.Step(512, None, 1000.0, 10.0, requests=10000),
                     memory_need.Step(256, None, 950.0, 10.0, requests=9500, load_side=LOAD_SIDE),
                     memory_need.Step(128, None, 500.0, 10.0, requests=5000)]
    j = memory_need.judge(needed_capped, 0.9, 0.001)
    assert [s.limit_mb for s in j.capped] == [256] and j.needed.limit_mb == 256
    assert "(needed: " in memneeds._outcome_note(j, [])
    driver_best = [memory_need.Step(512, None, 1000.0, 10.0, requests=10000, driver_bound="driver CPU 99%"),
                   memory_need.Step(128, None, 500.0, 10.0, requests=5000)]
    j = memory_need.judge(driver_best, 0.9, 0.001)
    assert [s.limit_mb for s in j.capped] == [512] and "driver CPU 99%" in memneeds._outcome_note(j, [])
    # the capped step is a lower bound, not excluded: it still sets the line
    assert j.best.limit_mb == 512 and not j.excluded


def test_the_step_table_shows_the_apps_cpu(tmp_path):
    s, run, lab = _new_run(tmp_path)
    ctx = Context(lab, registry.get("memneeds"), SimpleNamespace(name="quarkus"), "jvm", lab.plan.settings("memneeds"))
    for step, cpu in zip(CAPPED_BEST, (60.0, 70.0, 80.0)):
        memneeds._record_step(ctx, step, {"rps": (step.rps, "req/s"), "app_cpu_pct": (cpu, "%")}, {})
    s.finish_run(run, "complete")
    [table] = [t for t in memneeds.tables(results.load(s, run)) if t.key == "memneeds-quarkus/jvm"]
    column = table.columns.index("app CPU %")
    assert [row[column].summary.median for _, row in table.rows] == [60.0, 70.0, 80.0]
    assert "load-side-bound" in table.note
    s.close()


@pytest.fixture
def two_shapes(tmp_path):
    """Capacity and efficiency on /fruits and on a further path: the apps compared on one path at a time."""
    s, run, lab = _new_run(tmp_path)
    for app, fruits, prices in (("quarkus", 1800.0, 900.0), ("spring-boot", 1200.0, 400.0)):
        for path, value in (("/fruits", fruits), ("/fruit-prices", prices)):
            s.add_figure(run, app, "jvm", "capacity", "capacity_rps", value, "req/s",
                         point="p99 <= 25 ms" + ("" if path == "/fruits" else f" {path}"),
                         params={"objective_ms": 25.0, "ended_by": "app", "path": path})
    for app, cpu_fruits, cpu_prices, achieved_prices in (("quarkus", 0.4, 1.0, 500.0), ("spring-boot", 0.9, 2.5, 380.0)):
        for path, cpu, achieved in (("/fruits", cpu_fruits, 500.0), ("/fruit-prices", cpu_prices, achieved_prices)):
            kw = dict(point="500 req/s" + ("" if path == "/fruits" else f" {path}"),
                      params={"rate": 500.0, "path": path}, flags=[] if achieved >= 485 else ["not-held"])
            s.add_figure(run, app, "jvm", "efficiency", "rps", achieved, "req/s", **kw)
            s.add_figure(run, app, "jvm", "efficiency", "app_cpu_ms_per_request", cpu, "ms", **kw)
    s.finish_run(run, "complete")
    yield results.load(s, run)
    s.close()


def test_capacity_and_efficiency_on_two_paths_compare_the_apps_path_by_path(two_shapes):
    titles = [t.title for t in registry.get("capacity").tables(two_shapes) if t.key.startswith("capacity")
              and not t.key.startswith("capacity-steps")]
    assert titles == ["Capacity at the latency objective (open loop, at steady state): /fruits",
                      "Capacity at the latency objective (open loop, at steady state): /fruit-prices"]
    lines = registry.get("capacity").remarks(two_shapes)
    assert sum("reading: quarkus/jvm serves the most" in line for line in lines) == 2
    assert any(line.endswith("size by these rates, not by closed-loop maximum throughput") and "on /fruit-prices" in line
               for line in lines)
    text = "\n".join(registry.get("efficiency").remarks(two_shapes))
    # on /fruits both held 500 req/s; on /fruit-prices Spring Boot did not, so it is not compared there
    assert "app CPU ms per request at 500 req/s: quarkus/jvm 0.40, spring-boot/jvm 0.90" in text
    assert ("app CPU ms per request at 500 req/s on /fruit-prices: quarkus/jvm 1.00; "
            "not held: spring-boot/jvm 500 req/s (achieved 380)") in text
    colors = plot.colors_for(two_shapes)
    [cpu_chart] = [c for c in registry.get("efficiency").charts(two_shapes, ChartInputs({}, {}, []), colors)
                   if c is not None and c.key == "efficiency-app_cpu_ms_per_request"]
    assert {t.name for t in cpu_chart.figure.data} >= {"quarkus/jvm", "quarkus/jvm /fruit-prices"}
