"""The HTML report in a real browser: Debian's chromium, headless, opens the file from disk with
every host name unresolvable (so nothing can come from the network), runs plotly.js and draws
every chart with no console errors: the dumped DOM holds Plotly's plots with the markers at the
right places, and a screenshot shows the charts' colours, which the same page without
JavaScript does not.

Console errors are read from chromium's log (--enable-logging=stderr): every console message is
logged as "CONSOLE"; a control page that throws proves the check sees errors at all.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from perflab.present import charts
from perflab.report import write_report
from perflab.store import Store
from tests.unit.test_report import make_run
from tests.conftest import require

BROWSER_TIMEOUT_S = 60
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND"  # every host name fails to resolve: no network at all
SETTLE = "--virtual-time-budget=15000"  # let the page's scripts run before the DOM is dumped or the shot taken


def chromium_binary() -> str:
    """Debian's chromium: found, or installed with apt-get when root; else the test is skipped."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    if os.geteuid() != 0:
        require(False, "chromium is not installed and installing it needs root (apt-get install chromium)")
    if not shutil.which("apt-get"):
        require(False, "chromium is not installed and there is no apt-get to install Debian's chromium")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
    done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:  # a stale package index: refresh once
        subprocess.run(["apt-get", "update"], env=env, capture_output=True, timeout=600)
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=900)
    found = shutil.which("chromium")
    if done.returncode != 0 or not found:
        require(False, f"could not install Debian's chromium: {done.stderr.strip()[-300:]}")
    return found


def run_chromium(binary: str, profile: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    argv = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *extra, url]
    # a process group of its own: on a timeout the whole browser (renderer, GPU process) is killed
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=BROWSER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        pytest.fail(f"chromium did not finish within {BROWSER_TIMEOUT_S} s")
    finally:
        try:
            os.killpg(proc.pid, 9)  # helpers left behind by the browser, if any
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


class _RenderedCharts(HTMLParser):
    """Per chart (figure.chart) in the DOM Chromium dumped after running the page's scripts: its
    data-chart key, whether Plotly made it a plot with an SVG, per trace the pixel positions of its
    markers and its drawn lines and error bars, and the texts of its title, axis titles and legend."""

    TEXTS = ("gtitle", "xtitle", "ytitle", "legendtext")

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[dict] = []
        self._text: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "figure" and "chart" in classes:
            self.charts.append({"key": a.get("data-chart"), "plots": 0, "svgs": 0, "traces": [], "traces_done": False,
                                **{t: [] for t in self.TEXTS}})
            return
        if not self.charts:
            return
        chart = self.charts[-1]
        if tag == "g" and "infolayer" in classes:  # titles and legend: no data trace from here on
            chart["traces_done"] = True
        if tag == "div" and "js-plotly-plot" in classes:
            chart["plots"] += 1
        elif tag == "svg" and "main-svg" in classes:
            chart["svgs"] += 1
        elif tag == "g" and {"trace", "scatter"} <= set(classes) and not chart["traces_done"]:
            chart["traces"].append({"points": [], "lines": 0, "error_bars": 0})
        elif tag == "path" and chart["traces"] and not chart["traces_done"]:
            trace = chart["traces"][-1]
            if "point" in classes:
                x, y = re.match(r"translate\(([-\d.]+),\s*([-\d.]+)\)", a.get("transform", "")).groups()
                trace["points"].append((float(x), float(y)))
            elif "js-line" in classes and a.get("d"):
                trace["lines"] += 1
            elif "yerror" in classes and a.get("d"):
                trace["error_bars"] += 1
        elif tag == "text":
            self._text = next((t for t in self.TEXTS if t in classes), None)
            if self._text:
                chart[self._text].append("")

    def handle_data(self, data):
        if self._text and self.charts:
            self.charts[-1][self._text][-1] += data

    def handle_endtag(self, tag):
        if tag == "text":
            self._text = None


def rendered_charts(dom: str) -> dict[str, dict]:
    parser = _RenderedCharts()
    parser.feed(dom)
    return {c["key"]: c for c in parser.charts}


def png_colors(path: Path) -> Counter:
    """How many pixels of each (r, g, b) colour an 8-bit, non-interlaced RGB or RGBA PNG (what
    Chromium writes) holds: the rows are inflated and unfiltered as the PNG specification says."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        pos += 12 + size
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    width, height, depth, color_type, _, _, interlace = header
    assert depth == 8 and color_type in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    bpp = 3 if color_type == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), width * bpp
    prior, colors = bytearray(stride), Counter()
    for r in range(height):
        kind, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        if kind == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:  # Up
            line = bytearray((a + b) & 255 for a, b in zip(line, prior))
        elif kind == 3:  # Average
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prior[i]) // 2) & 255
        elif kind == 4:  # Paeth
            for i in range(stride):
                a, b, c = (line[i - bpp] if i >= bpp else 0), prior[i], (prior[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        colors.update(zip(line[0::bpp], line[1::bpp], line[2::bpp]))
        prior = line
    return colors


@pytest.fixture(scope="module")
def browser() -> str:
    return chromium_binary()


@pytest.fixture
def report(tmp_path) -> Path:
    store = Store(tmp_path / "results.sqlite")
    try:
        run = make_run(store)
        return write_report(store, run.run_id, tmp_path / "report").html
    finally:
        store.close()


def test_the_console_check_sees_errors(browser, tmp_path):
    page = tmp_path / "throws.html"
    page.write_text('<!DOCTYPE html><p>x</p><script>throw new Error("deliberate")</script>')
    done = run_chromium(browser, tmp_path / "profile", page.as_uri(), "--dump-dom")
    assert any("deliberate" in m for m in console_messages(done.stderr))


def test_plotly_draws_every_chart_offline_with_no_console_errors(browser, report, tmp_path):
    done = run_chromium(browser, tmp_path / "profile", report.as_uri(), OFFLINE, SETTLE, "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_messages(done.stderr) == []
    found = rendered_charts(done.stdout)
    for expected in ("throughput-fruits", "latency-fruits", "throughput-todos", "latency-todos", "rss",
                     "startup-ttfr_ms", "startup-framework_start_ms", "percentiles-25% of max"):
        assert expected in found, f"chart {expected} missing from the rendered DOM"
    for key, chart in found.items():
        assert chart["plots"] == 1 and chart["svgs"] >= 1, f"Plotly drew no plot for {key}"
        assert chart["gtitle"] and chart["gtitle"][0].strip(), f"{key} has no title"
        assert any(t["points"] or t["lines"] for t in chart["traces"]), f"{key} shows no data"
    fruits = found["throughput-fruits"]
    measured = [t for t in fruits["legendtext"] if not t.endswith("(published)")]
    assert measured == ["spring-boot/jvm", "quarkus/jvm"]
    # RT-2019's published curves (Table 1: 1..40 connections in steps of 5), on the second axis
    assert [t for t in fruits["legendtext"] if t.endswith("(published)")] == [
        "RT-2019 Thorntail (published)", "RT-2019 Q-JVM (published)", "RT-2019 Q-native (published)"]
    assert fruits["xtitle"] == ["connections"] and fruits["ytitle"][0].startswith("req/s")
    spring, quarkus, ring = fruits["traces"][:3]
    assert [len(t["points"]) for t in fruits["traces"][3:]] == [9, 9, 9]
    assert len(spring["points"]) == len(quarkus["points"]) == 3 and spring["lines"] == quarkus["lines"] == 1
    assert spring["error_bars"] == quarkus["error_bars"] == 3  # every point has its min..max
    xs = [x for x, _ in spring["points"]]  # 1, 10 and 40 connections on a linear axis
    assert xs[0] < xs[1] < xs[2] and (xs[2] - xs[1]) / (xs[1] - xs[0]) == pytest.approx(30 / 9, rel=0.02)
    # quarkus/jvm has twice the throughput: drawn higher (smaller SVG y) at every connection count
    assert all(q[1] < s[1] for q, s in zip(quarkus["points"], spring["points"]))
    assert ring["points"] == [quarkus["points"][2]]  # the driver-bound mark sits on quarkus/jvm at 40
    rss = found["rss"]
    assert [len(t["points"]) for t in rss["traces"]] == [0, 1, 0, 1]  # a line per app/mode, then its peak
    assert rss["traces"][0]["lines"] == rss["traces"][2]["lines"] == 1
    startup = found["startup-ttfr_ms"]
    assert [len(t["points"]) for t in startup["traces"]] == [4, 1, 4, 1]  # 4 launches and the median, per app


def _chart_pixels(colors: Counter, rgb: tuple[int, int, int], tolerance: int = 12) -> int:
    return sum(n for c, n in colors.items() if all(abs(a - b) <= tolerance for a, b in zip(c, rgb)))


def test_the_screenshot_shows_the_charts(browser, report, tmp_path):
    """The lines and markers are in the palette's colours, which nothing else on the page uses: a
    screenshot of the page has many such pixels, one of the page without its scripts has none."""
    palette = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in charts.PALETTE[:2]]
    bare_page = tmp_path / "no-script.html"  # the same page with its scripts left out
    bare_page.write_text(re.sub(r"<script\b.*?</script>", "", report.read_text(), flags=re.S))
    shots = {}
    for name, page in (("charts", report), ("no-script", bare_page)):
        shot = tmp_path / f"{name}.png"
        done = run_chromium(browser, tmp_path / f"profile-{name}", page.as_uri(), OFFLINE, SETTLE,
                            f"--screenshot={shot}", "--window-size=1280,16000", "--hide-scrollbars")
        assert shot.exists(), done.stderr[-2000:]
        assert console_messages(done.stderr) == []
        shots[name] = png_colors(shot)
    drawn, bare = shots["charts"], shots["no-script"]
    assert len(drawn) > 300  # text, tables and charts: far from a blank page
    for rgb in palette:  # the first two app/modes' colours
        assert _chart_pixels(drawn, rgb) > 200, f"too few pixels of {rgb}: the charts were not drawn"
        assert _chart_pixels(bare, rgb) < 50, f"{rgb} without JavaScript: the check does not isolate the charts"
