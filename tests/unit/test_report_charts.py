"""Plotly charts: every measured value is in its figure's data at its x and y with its min..max,
one trace per app/mode, doubtful points marked, axis titles with their units, log axes where the
values span decades; samples files read and thinned without losing peaks; and the page embeds
plotly.js once, each chart as JSON data, and loads nothing from elsewhere."""

from __future__ import annotations

import json
import re
import statistics
from html.parser import HTMLParser

import plotly.offline
import pytest

from perflab import results
from perflab.present import charts, published, rss_charts, scenario_charts
from perflab.present.published import curves as curves_module
from perflab.report import facts, html
from perflab.store import Store
from tests.unit.test_report import ENV, PLAN, make_run


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("charts") / "results.sqlite")
    try:
        syn = make_run(store)
        view = results.load(store, syn.run_id)
        yield syn, view, facts.load_extras(store, view.id)
    finally:
        store.close()


def _raw(syn, scenario: str, metric: str) -> dict[tuple[str, str], list[float]]:
    """The stored values straight from the store, by (app/mode, point)."""
    out: dict[tuple[str, str], list[float]] = {}
    for f in syn.store.figures(syn.run_id):
        if f.scenario == scenario and f.metric == metric:
            out.setdefault((f"{f.app}/{f.mode}", f.point), []).append(f.value)
    return out


def _shown(chart: charts.Chart) -> dict[str, dict]:
    """The traces with a legend entry (one per app/mode or series), by name."""
    return {t["name"]: t for t in chart.spec()["data"] if t.get("showlegend", True)}


def _traces(chart: charts.Chart, name: str) -> list[dict]:
    return [t for t in chart.spec()["data"] if t["name"] == name]


def _axis_title(chart: charts.Chart, axis: str) -> str:
    return chart.spec()["layout"][axis]["title"]["text"]


def test_every_point_is_a_marker_at_its_value_with_its_min_max():
    series = [charts.Series("a", "#000000", [charts.Point(40, 30), charts.Point(1, 10), charts.Point(10, 20)]),
              charts.Series("b", "#111111", [charts.Point(1, 5, 4, 7), charts.Point(40, 15, 14, 16)])]
    chart = charts.line_chart("a title", series, charts.Axis("x"), charts.Axis("y ms", zero=True), key="k")
    spec = chart.spec()
    assert chart.key == "k" and spec["layout"]["title"]["text"] == "a title"
    a, b = _shown(chart)["a"], _shown(chart)["b"]
    assert (a["x"], a["y"]) == ([1, 10, 40], [10, 20, 30])  # drawn in x order
    assert a["mode"] == "lines+markers" and "error_y" not in a  # no spread, no error bars
    assert (b["x"], b["y"]) == ([1, 40], [5, 15])
    assert b["error_y"]["array"] == [2, 1] and b["error_y"]["arrayminus"] == [1, 1]  # up to max, down to min
    assert spec["layout"]["yaxis"]["title"]["text"] == "y ms" and spec["layout"]["yaxis"]["rangemode"] == "tozero"
    assert b["hovertext"][0] == "b<br>1.00: 5.00<br>min-max 4.00-7.00"  # what hovering the point shows


def test_doubtful_points_look_different():
    pts = [charts.Point(1, 10), charts.Point(2, 11, flags=frozenset({"noisy"})),
           charts.Point(3, 12, flags=frozenset({"driver-bound"})), charts.Point(4, 13, flags=frozenset({"errors"}))]
    chart = charts.line_chart("t", [charts.Series("a", "#123456", pts)], charts.Axis("x"), charts.Axis("y"))
    a = _shown(chart)["a"]
    assert a["marker"]["symbol"] == ["circle", "circle-open", "circle", "circle"]  # noisy: hollow
    ring, cross = _traces(chart, "a: driver-bound"), _traces(chart, "a: errors")
    assert (ring[0]["x"], ring[0]["y"], ring[0]["marker"]["color"]) == ([3], [12], charts.FLAG_RED)
    assert (cross[0]["x"], cross[0]["y"]) == ([4], [13])
    assert ring[0]["legendgroup"] == cross[0]["legendgroup"] == a["legendgroup"]  # hidden with their series
    assert "red ring: driver-bound" in chart.note and "hollow: noisy" in chart.note


def test_nothing_to_draw_gives_no_chart():
    assert charts.line_chart("t", [charts.Series("a", "#000", [])], charts.Axis("x"), charts.Axis("y")) is None
    assert charts.strip_chart("t", [("a", "#000", [])], charts.Axis("x")) is None


def test_throughput_vs_connections_holds_each_app_modes_medians_and_ranges(synthetic):
    syn, view, _ = synthetic
    chart = {c.key: c for c in scenario_charts.sweep_charts(view, charts.colors_for(view))}["throughput-fruits"]
    assert chart.spec()["layout"]["title"]["text"] == "fruits /fruits: throughput vs connections"
    shown = {k: v for k, v in _shown(chart).items() if not k.endswith("(published)")}
    assert sorted(shown) == ["quarkus/jvm", "spring-boot/jvm"]  # one trace per app/mode
    raw = _raw(syn, "sweep", "rps")
    for target, trace in shown.items():
        values = [sorted(raw[(target, f"fruits c={c}")]) for c in (1, 10, 40)]
        assert trace["x"] == [1, 10, 40]
        assert trace["y"] == pytest.approx([v[1] for v in values])
        tops = [y + up for y, up in zip(trace["y"], trace["error_y"]["array"])]
        bottoms = [y - down for y, down in zip(trace["y"], trace["error_y"]["arrayminus"])]
        assert tops == pytest.approx([v[-1] for v in values]) and bottoms == pytest.approx([v[0] for v in values])
    assert _axis_title(chart, "xaxis") == "connections" and _axis_title(chart, "yaxis").startswith("req/s")
    ring = _traces(chart, "quarkus/jvm: driver-bound")  # quarkus was driver-bound at 40 connections
    assert ring and ring[0]["x"] == [40]


def test_latency_vs_connections_uses_a_log_axis_covering_the_values(synthetic):
    _, view, _ = synthetic
    chart = {c.key: c for c in scenario_charts.sweep_charts(view, charts.colors_for(view))}["latency-fruits"]
    shown = {k: v for k, v in _shown(chart).items() if not k.endswith("(published)")}
    assert sorted(shown) == ["quarkus/jvm mean", "quarkus/jvm p99", "spring-boot/jvm mean", "spring-boot/jvm p99"]
    assert shown["spring-boot/jvm p99"]["line"]["dash"] == "dash"
    assert shown["spring-boot/jvm mean"]["line"]["dash"] == "solid"
    yaxis = chart.spec()["layout"]["yaxis"]
    ys = [y for t in shown.values() for y in t["y"]]
    assert yaxis["type"] == "log" and yaxis["title"]["text"] == "latency ms (log)"
    assert min(yaxis["tickvals"]) <= min(ys) and max(yaxis["tickvals"]) >= max(ys)
    assert [t for v, t in zip(yaxis["tickvals"], yaxis["ticktext"]) if v == 10] == ["10"]


def test_published_curves_sit_on_a_second_axis_in_their_app_modes_colour(synthetic, monkeypatch):
    _, view, _ = synthetic
    colors = charts.colors_for(view)
    chart = {c.key: c for c in scenario_charts.sweep_charts(view, colors)}["throughput-fruits"]
    drawn = {k: v for k, v in _shown(chart).items() if k.endswith("(published)")}
    for label in ("Thorntail", "Q-JVM", "Q-native"):
        table = curves_module.rt2019_column("rps", label)
        trace = drawn[f"RT-2019 {label} (published)"]
        assert (trace["x"], trace["y"], trace["yaxis"]) == (sorted(table), [table[c] for c in sorted(table)], "y2")
        assert trace["x"][trace["y"].index(max(trace["y"]))] == curves_module.peak("rps", label)[0]
        expected = colors.get(published.target_of(label), scenario_charts.PUBLISHED_GREY)
        assert trace["line"]["color"] == expected and trace["line"]["dash"] == "dot"
    # the shapes the study describes: Thorntail falls after 25 connections, Quarkus JVM peaks at 35
    thorntail, qjvm = drawn["RT-2019 Thorntail (published)"], drawn["RT-2019 Q-JVM (published)"]
    assert thorntail["x"][thorntail["y"].index(max(thorntail["y"]))] == 25 and thorntail["y"][-1] < max(thorntail["y"])
    assert qjvm["x"][qjvm["y"].index(max(qjvm["y"]))] == 35
    layout = chart.spec()["layout"]
    assert layout["yaxis2"]["overlaying"] == "y" and layout["yaxis2"]["side"] == "right"
    assert "not drawn" not in chart.note
    # with only the claims' 40-connection row, the note says the shape is not drawn
    monkeypatch.delitem(curves_module.EXTRA_ROWS, ("RT-2019", "/fruits", "rps"))
    chart = {c.key: c for c in scenario_charts.sweep_charts(view, colors)}["throughput-fruits"]
    assert _shown(chart)["RT-2019 Q-JVM (published)"]["x"] == [40]
    assert "only its 40-connection row is transcribed" in chart.note


def test_max_latency_is_drawn_beside_rt2019s_table_2_maxima(synthetic):
    syn, view, _ = synthetic
    colors = charts.colors_for(view)
    chart = {c.key: c for c in scenario_charts.sweep_charts(view, colors)}["max-latency-fruits"]
    shown = _shown(chart)
    raw = _raw(syn, "sweep", "latency_max_ms")
    for target in ("quarkus/jvm", "spring-boot/jvm"):
        trace = shown[f"{target} max"]
        assert trace["x"] == [1, 10, 40] and trace["yaxis"] == "y"
        assert trace["y"] == pytest.approx([statistics.median(raw[(target, f"fruits c={c}")]) for c in (1, 10, 40)])
    for label in ("Thorntail", "Q-JVM", "Q-native"):
        table = curves_module.rt2019_column("latency_max_ms", label)
        trace = shown[f"RT-2019 {label} max (published)"]
        assert (trace["x"], trace["y"], trace["yaxis"]) == (sorted(table), [table[c] for c in sorted(table)], "y2")
        assert trace["line"]["color"] == colors.get(published.target_of(label), scenario_charts.PUBLISHED_GREY)
    # Thorntail's worst maximum is at 25 connections, as Table 2 prints it
    thorntail = shown["RT-2019 Thorntail max (published)"]
    assert thorntail["x"][thorntail["y"].index(max(thorntail["y"]))] == curves_module.peak("latency_max_ms", "Thorntail")[0] == 25
    assert _axis_title(chart, "yaxis").startswith("max latency ms")
    assert _axis_title(chart, "yaxis2") == "published max latency ms (the study's hardware)"
    assert "right axis: the study's published figures" in chart.note


def test_published_figures_alone_give_no_chart():
    lonely = charts.Series("p", "#000", [charts.Point(40, 1.0)], axis="y2")
    assert charts.line_chart("t", [lonely], charts.Axis("x"), charts.Axis("y"), y2=charts.Axis("p")) is None


def test_startup_strip_shows_every_launch_and_the_warm_median(synthetic):
    syn, view, _ = synthetic
    chart = scenario_charts.startup_chart(view, charts.colors_for(view))
    assert chart.key == "startup-ttfr_ms" and _axis_title(chart, "xaxis") == "time to first response ms"
    raw = _raw(syn, "startup", "ttfr_ms")
    assert chart.spec()["layout"]["yaxis"]["ticktext"] == ["spring-boot/jvm", "quarkus/jvm"]
    for target in ("spring-boot/jvm", "quarkus/jvm"):
        dots = _traces(chart, target)[0]
        cold, warm = raw[(target, "cold")], raw[(target, "warm")]
        assert sorted(dots["x"]) == sorted(cold + warm)
        hollow = sorted(x for x, s in zip(dots["x"], dots["marker"]["symbol"]) if s == "circle-open")
        assert hollow == cold
        assert _traces(chart, f"{target} median")[0]["x"] == [statistics.median(warm)]


def test_open_loop_percentiles_on_a_nines_axis(synthetic):
    syn, view, _ = synthetic
    drawn = scenario_charts.percentile_charts(view, charts.colors_for(view))
    chart = {c.key: c for c in drawn}["percentiles-25% of max"]
    (name, trace), = _shown(chart).items()  # quarkus/jvm's open-loop run failed: only spring-boot/jvm
    assert name.startswith("spring-boot/jvm @ ") and name.endswith(" req/s")
    xaxis = chart.spec()["layout"]["xaxis"]
    assert xaxis["ticktext"] == ["p50", "p90", "p99", "p99.9"] and trace["x"] == pytest.approx(xaxis["tickvals"])
    expected = [statistics.median(_raw(syn, "latency", f"latency_p{p}_ms")[("spring-boot/jvm", "25% of max")])
                for p in ("50", "90", "99", "99.9")]
    assert trace["y"] == pytest.approx(expected)
    assert _axis_title(chart, "yaxis").startswith("latency ms")


def test_samples_are_read_and_thinned_keeping_the_peak(tmp_path):
    path = tmp_path / "samples.csv"
    rows = ["t_s,t_ns,alive,procs,rss_bytes,cpu_s,cgroup_memory_bytes,cgroup_cpu_s"]
    for i in range(2000):
        mb = 500 if i == 1234 else 100
        rows.append(f"{i / 10},{i},True,1,{mb * 1024 * 1024},0.0,,")
    rows.append("200.0,2000,False,0,,0.0,,")  # the process had ended: no RSS
    path.write_text("\n".join(rows))
    data = rss_charts.read_samples(path)
    assert len(data) == 2000 and data[1234] == (123.4, 500.0)
    thin = rss_charts.downsample(data, 100)
    assert len(thin) <= 100 and max(mb for _, mb in thin) == 500.0
    chart = rss_charts.rss_chart({"quarkus/jvm": path}, {"quarkus/jvm": "#000000"})
    line = _shown(chart)["quarkus/jvm (peak 500 MB)"]
    assert line["mode"] == "lines" and len(line["x"]) <= rss_charts.MAX_LINE_POINTS and max(line["y"]) == 500.0
    peak = _traces(chart, "quarkus/jvm peak")[0]
    assert (peak["x"], peak["y"]) == ([123.4], [500.0])
    assert _axis_title(chart, "xaxis") == "seconds since launch" and _axis_title(chart, "yaxis") == "RSS MB"
    assert rss_charts.rss_chart({"x/y": tmp_path / "missing.csv"}, {}) is None


def test_soak_intervals_in_time_order(tmp_path):
    store = Store(tmp_path / "r.sqlite")
    try:
        run = store.begin_run({**PLAN, "scenarios": ["soak"]}, ENV)
        values = [900.0, 905.0, 880.0, 910.0, 870.0]
        for i, v in enumerate(values):
            store.add_figure(run, "quarkus", "jvm", "soak", "rps", v, "req/s", point="interval", repeat=i)
        store.finish_run(run, "complete")
        view = results.load(store, run)
        (chart,) = scenario_charts.interval_charts(view, "soak", charts.colors_for(view))
    finally:
        store.close()
    trace = _shown(chart)["quarkus/jvm"]
    assert chart.key == "soak-rps" and (trace["x"], trace["y"]) == ([1, 2, 3, 4, 5], values)
    assert _axis_title(chart, "xaxis") == "interval" and _axis_title(chart, "yaxis") == "req/s"


class _Page(HTMLParser):
    """The page's scripts, figures (with their plot divs) and any element that loads a resource."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict, str]] = []
        self.figures: list[dict] = []
        self.plots: set[str] = set()
        self.loads: list[tuple[str, dict]] = []
        self._script: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self._script = a
            self.scripts.append((a, ""))
        elif tag == "figure":
            self.figures.append(a)
        elif tag == "div" and "plot" in (a.get("class") or "").split():
            self.plots.add(a.get("id"))
        if tag in ("link", "img", "iframe", "object", "embed") or (tag == "script" and "src" in a):
            self.loads.append((tag, a))

    def handle_data(self, data):
        if self._script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None


def _page(doc: str) -> _Page:
    page = _Page()
    page.feed(doc)
    return page


def test_the_page_embeds_plotly_once_and_every_chart_as_data(synthetic):
    _, view, extras = synthetic
    doc = html.render(view, extras)
    page = _page(doc)
    bundle = plotly.offline.get_plotlyjs()
    assert doc.count(bundle[:2000]) == 1  # plotly.js, inline, exactly once
    assert page.loads == []  # no script src, stylesheet link, image or frame
    style = re.search(r"<style>(.*?)</style>", doc, re.S).group(1)
    assert "@import" not in style and "url(" not in style
    outside_bundle = doc.replace(bundle, "")
    assert not re.search(r"https?://", outside_bundle)  # no address to fetch anywhere but inside plotly.js
    specs = {a["data-for"]: json.loads(text) for a, text in page.scripts if a.get("class") == "chart-spec"}
    assert len(specs) == len(page.figures) and set(specs) == page.plots
    keys = {f["data-chart"] for f in page.figures}
    for expected in ("startup-ttfr_ms", "startup-framework_start_ms", "rss", "throughput-fruits", "latency-fruits",
                     "throughput-todos", "latency-todos", "percentiles-25% of max", "percentiles-50% of max"):
        assert expected in keys
    titles = sorted(s["layout"]["title"]["text"] for s in specs.values())
    assert titles == sorted(f["aria-label"] for f in page.figures)  # every chart is labelled with its title


def test_a_page_without_charts_carries_no_plotly(tmp_path):
    store = Store(tmp_path / "r.sqlite")
    try:
        run = store.begin_run({**PLAN, "scenarios": ["footprint"]}, ENV)
        store.add_figure(run, "quarkus", "all", "footprint", "artifact_mb", 20.0, "MB")
        store.finish_run(run, "complete")
        view = results.load(store, run)
        doc = html.render(view, facts.load_extras(store, run))
    finally:
        store.close()
    assert 'class="chart"' not in doc and "<script" not in doc and len(doc) < 200_000


def test_names_cannot_break_out_of_the_chart_data(tmp_path):
    app = 'x</script><img src=y onerror="alert(1)">'
    store = Store(tmp_path / "r.sqlite")
    try:
        run = store.begin_run({**PLAN, "scenarios": ["startup"]}, ENV)
        for i in range(3):
            store.add_figure(run, app, "jvm", "startup", "ttfr_ms", 1000.0 + i, "ms",
                             point="cold" if i == 0 else "warm", repeat=i)
        store.finish_run(run, "complete")
        view = results.load(store, run)
        doc = html.render(view, facts.load_extras(store, run))
    finally:
        store.close()
    page = _page(doc)
    assert "<img" not in doc and all(tag != "img" for tag, _ in page.loads)
    (spec,) = [json.loads(text) for a, text in page.scripts if a.get("class") == "chart-spec"]
    assert spec["layout"]["yaxis"]["ticktext"] == [f"{app}/jvm"]  # the name survives, as data
