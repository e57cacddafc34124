"""Timelines of fresh launches in the report: the timeline files are read (a file that cannot be read
is left out and named, never failing the report), and the `steady` section shows per point the
warm-up curve (req/s of every interval against the seconds from launch, one legend group per
app/mode, the steady window's start where the scenario's time_to_steady_ms puts it) and the first
launch's p50 and p99 over time.

``make_steady_run`` writes a run through Store the way the scenario does: a JVM-like app/mode that
climbs for half a minute, a native-like one flat from its first interval, two points, two launches
each, their figures, a malformed and a missing timeline file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pytest

from perflab import registry, results
from perflab.present.timeline_charts import steady_charts
from perflab.present.timelines import COLUMNS, MalformedTimeline, parse_timeline
from perflab.report import facts, html
from perflab.scenario import Phase, Scenario
from perflab.settings import Settings
from perflab.store import Store
from tests.unit.test_report import ENV, PLAN
from tests.unit.test_report_charts import _page

JVM, NATIVE = "quarkus/jvm", "quarkus/native"
POINTS = {"fruits c=40": {"path": "/fruits", "connections": 40}, "hello c=10": {"path": "/hello", "connections": 10}}


@dataclass
class Launch:
    target: str
    launch: int
    point: str
    rows: list[dict]
    steady_ms: float


def _launch(target: str, launch: int, point: str) -> Launch:
    """One launch's intervals: the JVM is ready after 3.2 s and climbs to its rate over ~30 s (its
    steady window starts at 28.2 s, measurement at 33.2 s); native is ready after 0.04 s and flat (steady
    window from 1.04 s, measurement from 4.04 s). Later launches and the second point differ a little."""
    jvm = target == JVM
    scale = (1.0 if point.startswith("fruits") else 0.5) * (1 + 0.03 * (launch - 1))
    ready, warmup, steady_at = (3.2, 30, 25) if jvm else (0.04, 4, 1)
    rows = []
    for i in range(warmup + 10):
        rps = (2000.0 * (1 - math.exp(-i / 6)) if jvm else 1500.0 + (i % 3) * 5) * scale
        p50 = 40000.0 / rps if rps else None
        rows.append({"launch": launch, "point": point, "phase": "warmup" if i < warmup else "measure",
                     "t_s": round(ready + i + 1, 3), "duration_s": 1.0, "requests": round(rps), "rps": rps,
                     "errors": 3 if jvm and i == 0 else 0, "latency_mean_ms": p50, "latency_p50_ms": p50,
                     "latency_p90_ms": None if p50 is None else 2 * p50,
                     "latency_p99_ms": None if p50 is None else (20 if jvm and i < 10 else 4) * p50,
                     "latency_max_ms": None if p50 is None else 30 * p50,
                     "app_cpu_share": 0.95 if jvm else 0.6})
    return Launch(target, launch, point, rows, (ready + steady_at) * 1000)


def _csv(rows: list[dict]) -> str:
    lines = [",".join(COLUMNS)]
    for r in rows:
        lines.append(",".join("" if r[c] is None else str(r[c]) for c in COLUMNS))
    return "\n".join(lines) + "\n"


def make_steady_run(store: Store) -> tuple[str, list[Launch]]:
    run = store.begin_run({**PLAN, "scenarios": ["steady"], "steady": {"points": list(POINTS)}}, ENV)
    launches = []
    for target in (JVM, NATIVE):
        app, mode = target.split("/")
        for k, point in enumerate(["fruits c=40", "fruits c=40", "hello c=10", "hello c=10"], start=1):
            one = _launch(target, k, point)
            launches.append(one)
            store.add_file(run, app, mode, "steady", "timeline", f"timeline-launch{k}.csv", _csv(one.rows))
            unsettled = ["not-steady"] if (target, k) == (JVM, 4) else []  # a launch whose warm-up never settled
            at = {"point": point, "params": POINTS[point], "repeat": k - 1, "flags": unsettled}
            measured = [r for r in one.rows if r["phase"] == "measure"]
            store.add_figure(run, app, mode, "steady", "rps", sum(r["rps"] for r in measured) / len(measured),
                             "req/s", **at)
            store.add_figure(run, app, mode, "steady", "time_to_steady_ms", one.steady_ms, "ms", **at)
            store.add_figure(run, app, mode, "steady", "requests_to_steady",
                             sum(r["requests"] for r in one.rows if r["t_s"] * 1000 <= one.steady_ms), "count", **at)
    broken = _launch(NATIVE, 9, "fruits c=40").rows
    broken[0]["rps"] = "fast"
    store.add_file(run, "quarkus", "native", "steady", "timeline", "timeline-launch9.csv", _csv(broken))
    gone = store.add_file(run, "quarkus", "jvm", "steady", "timeline", "timeline-launch8.csv", "")
    gone.unlink()
    store.finish_run(run, "complete")
    return run, launches


@pytest.fixture
def steady_scenario(monkeypatch):
    """The `steady` scenario as the registry lists it, with the charts it declares; a stand-in
    declaring steady_charts while it is not registered yet."""
    if registry.get("steady") is None:
        stand_in = Scenario(name="steady", title="Steady state from fresh launches", phase=Phase.OWN_AFTER,
                            settings=Settings, run=lambda ctx: None, estimate_s=lambda e: 0.0, charts=steady_charts)
        registered = registry.all_scenarios()
        monkeypatch.setattr(registry, "all_scenarios", lambda: (*registered, stand_in))
    return registry.get("steady")


@pytest.fixture
def steady(tmp_path, steady_scenario):
    store = Store(tmp_path / "results.sqlite")
    try:
        run, launches = make_steady_run(store)
        view = results.load(store, run)
        extras = facts.load_extras(store, run)
        yield view, extras, launches, html.render(view, extras)
    finally:
        store.close()


def _charts(doc: str) -> dict[str, dict]:
    """The page's charts as drawn: key -> Plotly figure (data, layout) and its caption."""
    page = _page(doc)
    specs = [json.loads(text) for a, text in page.scripts if a.get("class") == "chart-spec"]
    assert len(specs) == len(page.figures)
    out = {f["data-chart"]: spec for f, spec in zip(page.figures, specs)}
    for key, spec in out.items():
        start = doc.index(f'data-chart="{key}"')
        caption = doc[start:doc.index("</figure>", start)]
        spec["caption"] = caption.split("<figcaption>")[1].split("</figcaption>")[0] if "<figcaption>" in caption else ""
    return out


def _named(chart: dict, name: str) -> dict:
    (trace,) = [t for t in chart["data"] if t["name"] == name]
    return trace


def _first(launches: list[Launch], target: str, point: str) -> Launch:
    return min((x for x in launches if x.target == target and x.point == point), key=lambda x: x.launch)


def test_the_warm_up_curve_per_point_holds_every_launchs_intervals(steady):
    _, _, launches, doc = steady
    drawn = _charts(doc)
    section = doc[doc.index('<section id="s-steady"'):]
    section = section[:section.index("</section>")]
    for point in POINTS:
        chart = drawn[f"warmup-{point}"]
        assert f'data-chart="warmup-{point}"' in section  # in the scenario's own section
        assert chart["layout"]["title"]["text"] == f"Throughput from launch: {point}"
        assert chart["layout"]["xaxis"]["type"] == "linear" and chart["layout"]["xaxis"]["title"]["text"].startswith(
            "seconds from launch")
        assert chart["layout"]["yaxis"]["title"]["text"] == "req/s per interval"
        named = {t["name"].removesuffix(" (not steady)"): t for t in chart["data"] if t.get("showlegend", True)}
        assert sorted(named) == [JVM, NATIVE]  # one legend entry per app/mode ...
        assert {t["legendgroup"] for t in chart["data"]} == {JVM, NATIVE}  # ... grouping all its traces
        for one in (x for x in launches if x.point == point):
            first = one.launch == _first(launches, one.target, point).launch
            trace = named[one.target] if first else _named(chart, f"{one.target} launch {one.launch}")
            assert trace["x"] == pytest.approx([r["t_s"] for r in one.rows])
            assert trace["y"] == pytest.approx([r["rps"] for r in one.rows])
            assert trace["line"]["color"] == named[one.target]["line"]["color"]  # same colour for all launches
            assert (trace["line"]["dash"], trace["line"]["width"]) == (("solid", 2) if first else ("dot", 1))
            dots = [x for x, size in zip(trace["x"], trace["marker"]["size"]) if size]
            assert dots == pytest.approx([r["t_s"] for r in one.rows if r["phase"] == "measure"])


def test_the_climb_and_the_flat_line_are_what_the_files_say(steady):
    _, _, launches, doc = steady
    chart = _charts(doc)["warmup-fruits c=40"]
    jvm, native = _named(chart, JVM), _named(chart, NATIVE)
    assert jvm["x"][0] > 4 and native["x"][0] < 1.1  # the start-up before the first interval
    assert jvm["y"][0] < 0.1 * max(jvm["y"]) and max(jvm["y"][-10:]) > 0.9 * max(jvm["y"])  # it climbs
    assert min(native["y"]) > 0.95 * max(native["y"])  # flat from the start
    crosses = _named(chart, f"{JVM}: errors")  # the first interval of each launch had errors
    assert crosses["x"] == [x.rows[0]["t_s"] for x in launches if x.target == JVM and x.point == "fruits c=40"]


def test_a_warm_up_that_never_settled_is_named(steady):
    _, _, _, doc = steady
    drawn = _charts(doc)
    settled, unsettled = drawn["warmup-fruits c=40"], drawn["warmup-hello c=10"]  # JVM launch 4 was at hello
    assert _named(settled, JVM) and "not steady" not in settled["caption"]
    assert _named(unsettled, f"{JVM} (not steady)") and _named(unsettled, NATIVE)
    assert f"(not steady): the warm-up did not settle in a launch of {JVM}" in unsettled["caption"]


def test_the_steady_window_starts_at_time_to_steady(steady):
    _, _, launches, doc = steady
    drawn = _charts(doc)
    for point in POINTS:
        for target in (JVM, NATIVE):
            one = _first(launches, target, point)
            first_measure = next(r["t_s"] - r["duration_s"] for r in one.rows if r["phase"] == "measure")
            assert first_measure != pytest.approx(one.steady_ms / 1000)  # the marker shows the figure, not the phase
            for key in (f"warmup-{point}", f"latency-over-time-{point}"):
                line = _named(drawn[key], f"{target}: steady window")
                assert line["x"] == pytest.approx([one.steady_ms / 1000] * 2)
                assert line["legendgroup"] == target
                ys = [y for t in drawn[key]["data"] if t["name"] != line["name"] for y in t["y"]]
                assert min(line["y"]) <= min(ys) and max(line["y"]) >= max(ys)  # it spans the plot


def test_latency_over_time_has_p50_and_p99_of_the_first_launch(steady):
    _, _, launches, doc = steady
    for point in POINTS:
        chart = _charts(doc)[f"latency-over-time-{point}"]
        assert chart["layout"]["title"]["text"] == f"Latency from launch: {point}"
        assert chart["layout"]["yaxis"]["title"]["text"].startswith("latency ms")
        assert "first launch" in chart["caption"]
        shown = sorted(t["name"] for t in chart["data"] if t.get("showlegend", True))
        assert shown == [f"{JVM} p50", f"{JVM} p99", f"{NATIVE} p50", f"{NATIVE} p99"]
        for target in (JVM, NATIVE):
            one = _first(launches, target, point)
            for pct, dash in (("p50", "solid"), ("p99", "dash")):
                trace = _named(chart, f"{target} {pct}")
                rows = [r for r in one.rows if r[f"latency_{pct}_ms"] is not None]  # an empty interval has none
                assert trace["x"] == pytest.approx([r["t_s"] for r in rows])
                assert trace["y"] == pytest.approx([r[f"latency_{pct}_ms"] for r in rows])
                assert trace["line"]["dash"] == dash and f"launch {one.launch}<br>" in trace["hovertext"][0]
    jvm = _named(_charts(doc)["latency-over-time-fruits c=40"], f"{JVM} p99")
    assert len(jvm["x"]) == len(_first(launches, JVM, "fruits c=40").rows) - 1  # the first interval had no responses


def test_a_timeline_file_that_cannot_be_read_is_left_out_and_named(steady):
    _, extras, launches, doc = steady
    read = {(t, r.launch) for t, rows in extras.timelines["steady"].items() for r in rows}
    assert read == {(x.target, x.launch) for x in launches}  # launch 9 (malformed) and 8 (missing) are not there
    unread = " ".join(extras.unread["steady"])
    assert f"{NATIVE} timeline-launch9.csv: line 2: rps 'fast'" in unread
    assert f"{JVM} timeline-launch8.csv: the file is missing" in unread
    caption = _charts(doc)["warmup-fruits c=40"]["caption"]
    assert "timeline-launch9.csv" in caption and "timeline-launch8.csv" in caption


def test_other_scenarios_have_no_timelines_and_keep_their_charts(steady):
    view, extras, _, _ = steady
    assert extras.chart_inputs("memory").timelines == {} and extras.chart_inputs("memory").unread == []
    assert steady_charts(view, extras.chart_inputs("memory"), {}) == []


def test_timeline_rows_parse_with_empty_optional_columns():
    text = _csv(_launch(NATIVE, 1, "fruits c=40").rows[:2])
    text = text.replace(",0.6\n", ",\n", 1)  # no CPU share for the first interval
    first, second = parse_timeline(text)
    assert (first.launch, first.point, first.phase, first.t_s, first.requests) == (1, "fruits c=40", "warmup", 1.04,
                                                                                   1500)
    assert first.app_cpu_share is None and second.app_cpu_share == 0.6
    assert first.start_s == pytest.approx(0.04) and not first.measuring


@pytest.mark.parametrize("change, why", [
    (lambda t: t.replace("latency_p99_ms,", "", 1), "no column latency_p99_ms"),
    (lambda t: t.replace(",warmup,", ",warming,", 1), "line 2: phase 'warming'"),
    (lambda t: t.replace(",1500,", ",1500.5,", 1), "line 2: requests '1500.5' is not a whole number"),
    (lambda t: t.replace(",1.0,", ",0,", 1), "line 2: duration_s '0' is not a positive number"),
    (lambda t: t + "1,fruits c=40,measure,9.0\n", "line 4: duration_s is empty"),
    (lambda t: t.replace("\n1,", "\n0,", 1), "line 2: launch 0 is not 1-based"),
    (lambda t: t.splitlines()[0] + "\n", "no intervals"),
])
def test_a_malformed_timeline_says_where(change, why):
    text = _csv(_launch(NATIVE, 1, "fruits c=40").rows[:2])
    parse_timeline(text)  # the unchanged text parses
    with pytest.raises(MalformedTimeline, match="^" + why.replace("(", r"\(").replace(".", r"\.")):
        parse_timeline(change(text))
