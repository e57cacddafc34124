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

from perflab import memory_need, plan, registry, results
from perflab.lab import Lab
from perflab.progress import Progress
from perflab.report import charts as plot
from perflab.report import facts, summary, write_report
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


@pytest.fixture
def stored(tmp_path):
    the_plan = plan.validate(tomllib.loads(PLAN), "test")
    s = Store(tmp_path / "r.sqlite")
    run = s.begin_run(the_plan.data, {})
    lab = Lab(s, run, the_plan, None, SimpleNamespace(usable=True), None, None,
              Progress([], stream=io.StringIO(), live=False), tmp_path)
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
    [chart] = memneeds.charts(view, facts.ChartInputs({}, {}, []), colors)
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
