"""The site of `perflab site` in a real browser: Debian's chromium, headless and offline, opens the
index from the file system (file://, no server), and the links it holds there lead to a run's report
and a plan's history, which chromium opens in turn: each draws its charts with plotly.js loaded from
the site's assets folder, with no console errors. The links are taken from the DOM chromium dumped
and resolved against the page's own file:// address, as a click on them would be."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

import numpy as np
import pytest

from perflab.report import site as site_mod
from perflab.store import Store
from tests.browser.test_report_render import OFFLINE, SETTLE, chromium_binary, console_messages, run_chromium
from tests.unit.test_history import PLAN as WATCH, _add_run
from tests.unit.test_report import QJVM, SPRING, make_run


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[tuple[str, str]] = []  # (href, text)
        self._href: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._href = dict(attrs).get("href")
            self.anchors.append((self._href or "", ""))

    def handle_data(self, data):
        if self._href is not None:
            self.anchors[-1] = (self.anchors[-1][0], self.anchors[-1][1] + data)

    def handle_endtag(self, tag):
        if tag == "a":
            self._href = None


def _anchors(dom: str) -> list[tuple[str, str]]:
    parser = _Anchors()
    parser.feed(dom)
    return parser.anchors


def _drawn(dom: str) -> int:
    """How many places Plotly made a plot of (it classes each js-plotly-plot)."""
    return len(re.findall(r'class="[^"]*\bjs-plotly-plot\b', dom))


@pytest.fixture(scope="module")
def browser() -> str:
    return chromium_binary()


@pytest.fixture
def site(tmp_path):
    store = Store(tmp_path / "results.sqlite")
    try:
        runs = [make_run(store, speed={SPRING: 1.0, QJVM: k}).run_id for k in (2.0, 3.0)]
        rng = np.random.default_rng(5)
        for n in range(3):
            _add_run(store, n, rng)
        return site_mod.build(store, tmp_path / "site"), runs
    finally:
        store.close()


def _open(browser: str, tmp_path, url: str, name: str) -> str:
    done = run_chromium(browser, tmp_path / f"profile-{name}", url, OFFLINE, SETTLE, "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_messages(done.stderr) == [], f"{url}: console errors"
    return done.stdout


def test_the_index_opens_from_disk_and_its_links_lead_to_a_drawn_report_and_history(browser, site, tmp_path):
    built, runs = site
    index_url = built.index.as_uri()
    assert index_url.startswith("file://")
    index = _open(browser, tmp_path, index_url, "index")
    anchors = _anchors(index)
    assert {a[1] for a in anchors if a[1] in built.runs} == set(built.runs)  # every run is named by a link

    report_href = next(href for href, text in anchors if text == runs[-1])
    report_url = urljoin(index_url, report_href)
    report = _open(browser, tmp_path, report_url, "report")
    assert f"run {runs[-1]}" in report
    plots = _drawn(report)
    assert plots > 0 and plots == len(re.findall(r'<figure class="chart"', report))  # every chart was drawn
    assert report.count('class="fineprint"') == plots
    # its own links lead on: back to the index, and to its plan's history
    back = dict((text, href) for href, text in _anchors(report))
    assert urljoin(report_url, back["all runs"]) == index_url

    history_href = next(href for href, text in anchors if text == WATCH["name"])
    history_url = urljoin(index_url, history_href)
    history = _open(browser, tmp_path, history_url, "history")
    assert f"History of plan {WATCH['name']}" in history
    drawn = _drawn(history)
    assert drawn > 0 and drawn == len(re.findall(r'<div id="hchart-\d+"', history))
    assert "main-svg" in history  # Plotly drew SVG, so plotly.js came from assets/ over file://


def _estimates(dom: str) -> list[float | None]:
    """The estimate each row of the index sorts by, in the rows' order (None: a row without one)."""
    headers = re.findall(r"<th(?: [^>]*)?>(.*?)</th>", dom)
    at = headers.index("estimate")
    out = []
    for row in re.findall(r"<tr data-run=.*?</tr>", dom, re.S):
        value = re.search(r'data-value="([^"]*)"', re.findall(r"<td([^>]*)>", row)[at])
        out.append(float(value.group(1)) if value else None)
    return out


def test_a_click_on_the_estimate_s_header_sorts_the_index_by_it_as_numbers(browser, site, tmp_path):
    built, _ = site
    written = built.index.read_text()
    before = _estimates(written)
    assert before != sorted(before, key=lambda v: (v is None, v))  # newest first is not already that order
    # the same index, and a script that clicks the header as a reader would
    click = '<script>[...document.querySelectorAll("th")].find(th => th.textContent === "estimate").click()</script>'
    clicked = built.index.with_name("index-clicked.html")
    clicked.write_text(written.replace("</body>", click + "</body>"), encoding="utf-8")
    dom = _open(browser, tmp_path, clicked.as_uri(), "clicked")
    after = _estimates(dom)
    assert sorted(after, key=lambda v: (v is None, v)) == after and sorted(before, key=str) == sorted(after, key=str)
    assert re.search(r'<th data-sort="num" aria-sort="ascending">estimate</th>', dom)
