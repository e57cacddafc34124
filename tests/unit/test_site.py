"""`perflab site`: the static site of a results file built by the report's and the history's own
fixtures (two runs of the report's synthetic plan, four of the history's plan whose last changes
method): a page per run, per plan and per pair of consecutive runs of one series; every link
relative and leading to a file of the site; the headline ratios in the index; plotly.js once."""

from __future__ import annotations

import html as html_lib
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest

from perflab import cli, results
from perflab.report import findings, site as site_mod
from perflab.store import Store
from tests.unit.test_history import PLAN as WATCH, _add_run
from tests.unit.test_report import ENV, QJVM, SPRING, make_run


@pytest.fixture
def built(tmp_path):
    """The site of two synthetic runs (Quarkus twice, then four times Spring Boot's speed) and four runs
    of plan "watch", the last of another method."""
    store = Store(tmp_path / "results.sqlite")
    try:
        synthetic = [make_run(store, speed={SPRING: 1.0, QJVM: k}).run_id for k in (2.0, 4.0)]
        rng = np.random.default_rng(3)
        watch = [_add_run(store, n, rng, plan=WATCH if n < 3 else {**WATCH, "repeats": 5}) for n in range(4)]
        site = site_mod.build(store, tmp_path / "site")
        yield site, store, synthetic, watch
    finally:
        store.close()


def _pages(root: Path) -> list[Path]:
    return sorted(root.rglob("*.html"))


def _links(doc: str) -> list[str]:
    return [html_lib.unescape(x) for x in re.findall(r'(?:href|src)="([^"]*)"', doc)]


def test_the_site_has_a_page_per_run_per_plan_and_per_consecutive_pair_of_a_series(built):
    site, store, synthetic, watch = built
    root = site.index.parent
    assert set(site.runs) == set(synthetic + watch)
    for run_id in site.runs:
        assert (root / site_mod.report_page(run_id)).is_file()
    assert set(site.plans) == {"synthetic", WATCH["name"]}
    assert all((root / site_mod.history_page(p)).is_file() for p in site.plans)
    # the fourth watch run has another method: it starts a series of its own, so nothing is compared with it
    assert sorted(site.comparisons) == sorted([tuple(synthetic), (watch[0], watch[1]), (watch[1], watch[2])])
    for a, b in site.comparisons:
        page = (root / site_mod.compare_page(a, b)).read_text()
        assert f"A = {a}" in page and f"B = {b}" in page and "METHOD DIFFERS" not in page


def test_every_link_is_relative_and_leads_to_a_file_of_the_site(built):
    site = built[0]
    root = site.index.parent
    followed = 0
    for page in _pages(root):
        for link in _links(page.read_text(encoding="utf-8")):
            parts = urlsplit(link)
            assert not parts.scheme and not parts.netloc and not link.startswith("/"), f"{page}: {link}"
            if parts.path:
                target = (page.parent / parts.path).resolve()
                assert target.is_file() and root.resolve() in target.parents, f"{page}: {link} leads nowhere"
                followed += 1
    assert followed > 3 * len(site.runs)  # the index's and every page's links were there to follow


def test_every_page_leads_back_to_the_index_and_the_report_to_its_plan_s_history(built):
    site, _, synthetic, _ = built
    root = site.index.parent
    for page in _pages(root):
        if page != site.index:
            back = [x for x in _links(page.read_text(encoding="utf-8")) if x.endswith("index.html")]
            assert back and (page.parent / back[0]).resolve() == site.index.resolve(), page
    report = (root / site_mod.report_page(synthetic[1])).read_text()
    assert f'href="../../{site_mod.history_page("synthetic")}"' in report
    assert f'href="../../{site_mod.compare_page(*synthetic)}"' in report


def _index_row(index: str, run_id: str) -> str:
    m = re.search(rf'<tr data-run="{re.escape(run_id)}">(.*?)</tr>', index, re.S)
    assert m, f"no row for {run_id}"
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", m.group(1)))


def test_the_index_gives_each_run_s_plan_git_method_machine_status_and_its_own_headline_ratio(built):
    site, store, synthetic, watch = built
    index = site.index.read_text()
    for run_id, k in zip(synthetic, (2.0, 4.0)):
        row = _index_row(index, run_id)
        view = results.load(store, run_id)
        for shown in ("synthetic", ENV["git"]["sha"][:10], view.method_hash, "Synthetic CPU 9000", "complete"):
            assert shown in row
        # warm time to first response: 4000 / speed + 100 per launch after the first, Spring Boot over Quarkus
        m = re.search(r"spring-boot/jvm / quarkus/jvm time to first response \(warm\): ([\d.]+)x "
                      r"\[([\d.]+)-([\d.]+)\]", row)
        assert m, row
        estimate, low, high = map(float, m.groups())
        spring, quarkus = [4000 + 100 * i for i in (1, 2, 3)], [4000 / k + 100 * i for i in (1, 2, 3)]
        assert min(spring) / max(quarkus) <= estimate <= max(spring) / min(quarkus)
        assert low <= estimate <= high
    assert "watch" in _index_row(index, watch[0]) and "done" in _index_row(index, watch[0])


def test_plotly_is_written_once_beside_the_pages_and_no_page_inlines_it(built):
    site = built[0]
    root = site.index.parent
    script = (root / site_mod.PLOTLY).read_text()
    assert "Plotly" in script and len(script) > 1_000_000
    drawing = 0
    for page in _pages(root):
        doc = page.read_text(encoding="utf-8")
        assert len(doc) < len(script) / 2, f"{page} holds plotly.js"
        if "Plotly.newPlot" in doc or "chart-spec" in doc:
            drawing += 1
            assert f'src="{"../" * (len(page.relative_to(root).parts) - 1)}{site_mod.PLOTLY}"' in doc, page
    assert drawing >= len(built[2]) + len(site.plans)  # the synthetic runs' reports and the histories draw charts


def _ratio_chart(page: str) -> dict | None:
    """The history page's chart of the headline ratios, from the specs it draws its charts from."""
    m = re.search(r"const specs = (.*?);specs\.forEach", page, re.S)
    return next((c for c in json.loads(m.group(1)) if c["layout"]["title"]["text"] == "headline ratios"), None)


def test_each_plan_s_history_charts_every_run_s_headline_ratios_with_their_intervals_oldest_first(built):
    site, store, synthetic, watch = built
    root = site.index.parent
    for plan, ids in (("synthetic", synthetic), (WATCH["name"], watch)):
        chart = _ratio_chart((root / site_mod.history_page(plan)).read_text())
        assert chart, plan
        found = {run_id: {f"{r.numerator} / {r.denominator} {r.what}": r
                          for r in findings.ratio_findings(results.load(store, run_id))} for run_id in ids}
        lines = [t for t in chart["data"] if t.get("showlegend") is not False]
        assert {t["name"] for t in lines} == {label for by_label in found.values() for label in by_label}
        for line in lines:
            runs = [re.search(r"run (\S+) \(", tip).group(1) for tip in line["hovertext"]]
            assert runs == ids  # a point per run, oldest first
            ratios = [found[run_id][line["name"]] for run_id in runs]
            assert [round(x) for x in line["x"]] == list(range(len(ids)))
            assert line["y"] == pytest.approx([r.interval.estimate for r in ratios])
            bars = line["error_y"]
            assert [y + up for y, up in zip(line["y"], bars["array"])] == pytest.approx(
                [r.interval.high for r in ratios])
            assert [y - down for y, down in zip(line["y"], bars["arrayminus"])] == pytest.approx(
                [r.interval.low for r in ratios])
            assert all(("not settled" in tip) != r.settled for tip, r in zip(line["hovertext"], ratios))


def test_perflab_site_writes_to_out_and_says_where(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PERFLAB_WORKDIR", str(tmp_path / "work"))
    store = Store()
    try:
        run = make_run(store).run_id
    finally:
        store.close()
    out = tmp_path / "published"
    assert cli.main(["site", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "site of 1 run(s), 1 plan history(ies), 0 comparison(s)" in said
    assert (out / "index.html").as_uri() in said
    assert (out / site_mod.report_page(run)).is_file()
    # one run is no history: its plan's page draws no chart of the headline ratios
    assert _ratio_chart((out / site_mod.history_page("synthetic")).read_text()) is None


def test_site_help_says_what_the_site_holds(capsys):
    with pytest.raises(SystemExit):
        cli.main(["site", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("file system with no server", "headline ratios", "change points", "--out DIR", "relative"):
        assert words in text
