"""Inline SVG charts: one marker per measured point at the right place, doubtful points drawn
differently, axes that cover the data, and samples files read and thinned without losing peaks."""

from __future__ import annotations

import re

from perflab.report import charts


def _circles(svg: str) -> list[dict]:
    return [dict(re.findall(r'([\w-]+)="([^"]*)"', m)) for m in re.findall(r"<circle ([^>]*)>", svg)]


def test_every_point_is_a_marker_placed_by_its_value():
    series = [charts.Series("a", "#000", [charts.Point(1, 10), charts.Point(10, 20), charts.Point(40, 30)]),
              charts.Series("b", "#111", [charts.Point(1, 5, 4, 6), charts.Point(40, 15, 14, 16)])]
    svg = charts.line_chart("t", series, charts.Axis("x"), charts.Axis("y", zero=True))
    pts = [c for c in _circles(svg) if c.get("class") == "pt"]
    assert len(pts) == 5
    a = sorted((float(c["data-x"]), float(c["cy"])) for c in pts if c["data-series"] == "a")
    # higher values are drawn higher (smaller y in SVG), x in order of the data
    assert [y for _, y in a] == sorted([y for _, y in a], reverse=True)
    assert svg.count('class="whisker"') == 2
    assert svg.count("<polyline") == 2


def test_doubtful_points_look_different():
    pts = [charts.Point(1, 10), charts.Point(2, 11, flags=frozenset({"noisy"})),
           charts.Point(3, 12, flags=frozenset({"driver-bound"})), charts.Point(4, 13, flags=frozenset({"errors"}))]
    svg = charts.line_chart("t", [charts.Series("a", "#123456", pts)], charts.Axis("x"), charts.Axis("y"))
    circles = {c["data-x"]: c for c in _circles(svg) if c.get("class") == "pt"}
    assert circles["1"]["fill"] == "#123456" and circles["2"]["fill"] == "#fff"  # noisy: hollow
    assert svg.count('class="flag-driver-bound"') == 1 and svg.count('class="flag-errors"') == 1
    assert "dashed red ring: driver-bound" in svg and "hollow: noisy" in svg


def test_nothing_to_draw_gives_no_chart():
    assert charts.line_chart("t", [charts.Series("a", "#000", [])], charts.Axis("x"), charts.Axis("y")) is None


def test_axes_cover_the_data():
    lo, hi, ticks = charts.linear_ticks(3.0, 97.0)
    assert lo <= 3.0 and hi >= 97.0 and ticks[0] == lo and ticks[-1] == hi
    lo, hi, ticks = charts.log_ticks(0.4, 350.0)
    assert lo <= 0.4 and hi >= 350.0 and all(lo <= t <= hi for t in ticks)


def test_samples_are_read_and_thinned_keeping_the_peak(tmp_path):
    path = tmp_path / "samples.csv"
    rows = ["t_s,t_ns,alive,procs,rss_bytes,cpu_s,cgroup_memory_bytes,cgroup_cpu_s"]
    for i in range(2000):
        mb = 500 if i == 1234 else 100
        rows.append(f"{i / 10},{i},True,1,{mb * 1024 * 1024},0.0,,")
    rows.append("200.0,2000,False,0,,0.0,,")  # the process had ended: no RSS
    path.write_text("\n".join(rows))
    data = charts.read_samples(path)
    assert len(data) == 2000 and data[1234] == (123.4, 500.0)
    thin = charts.downsample(data, 100)
    assert len(thin) <= 100 and max(mb for _, mb in thin) == 500.0
    svg = charts.rss_chart({"quarkus/jvm": path}, {"quarkus/jvm": "#000"})
    peak = [c for c in _circles(svg) if c.get("class") == "pt"]
    assert len(peak) == 1 and float(peak[0]["data-y"]) == 500.0
    assert charts.rss_chart({"x/y": tmp_path / "missing.csv"}, {}) is None
