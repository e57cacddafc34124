"""`perflab site`: the static site of a results file built by the report's and the history's own
fixtures (two runs of the report's synthetic plan, four of the history's plan whose last changes
method): a page per run, per plan and per pair of consecutive runs of one series; every link
relative and leading to a file of the site; the index's row per headline ratio of each run, with
the run's machine and a script that sorts it; each plan's chart of its ratios; plotly.js once."""

from __future__ import annotations

import html as html_lib
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest

from perflab import cli, results
from perflab.report import findings, history, site as site_mod
from perflab.store import Store
from tests.unit.test_history import ENV as LAB_1, PLAN as WATCH, _add_run
from tests.unit.test_report import QJVM, SPRING, make_run
from tests.unit.test_results_export import _another_machines_runs


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


def _index_rows(index: str, run_id: str) -> list[dict[str, tuple[str, str | None]]]:
    """The index's rows of a run, each its cells by column header: (text, the data-value it sorts by)."""
    headers = [html_lib.unescape(h) for h in re.findall(r"<th(?: [^>]*)?>(.*?)</th>", index)]
    rows = []
    for row in re.findall(rf'<tr data-run="{re.escape(run_id)}">(.*?)</tr>', index, re.S):
        cells = re.findall(r"<td([^>]*)>(.*?)</td>", row, re.S)
        assert len(cells) == len(headers), row
        rows.append({h: (html_lib.unescape(re.sub(r"<[^>]+>", "", text)).strip(),
                         (m := re.search(r'data-value="([^"]*)"', attrs)) and m.group(1))
                     for h, (attrs, text) in zip(headers, cells)})
    assert rows, f"no row for {run_id}"
    return rows


def _check_run_rows(index: str, view: results.RunView) -> list[dict[str, tuple[str, str | None]]]:
    """The run's rows: one per headline ratio its report gives, each with the run's own columns and
    the ratio's estimate, interval and settled mark in columns of their own."""
    ratios = findings.ratio_findings(view)
    rows = _index_rows(index, view.id)
    assert ratios and len(rows) == len(ratios)
    for row, r in zip(rows, ratios):
        assert row["run"][0] == view.id and row["plan"][0] == view.plan["name"]
        assert float(row["started"][1]) == view.started_at
        assert row["machine"][0] == history.machine(view) and row["status"][0] == view.status
        assert row["git"][0] == view.environment["git"]["sha"][:10] and row["method"][0] == view.method_hash
        assert (row["ratio"][0], row["figure"][0]) == (f"{r.numerator} / {r.denominator}", r.what)
        ci = r.interval
        assert float(row["estimate"][1]) == ci.estimate and row["estimate"][0] == f"{ci.estimate:.2f}x"
        assert float(row["95 % interval"][1]) == ci.low and row["95 % interval"][0] == f"{ci.low:.2f}-{ci.high:.2f}"
        assert row["settled"][0] == ("settled" if r.settled else "not settled")
    return rows


def test_the_index_has_a_row_per_headline_ratio_of_each_run_with_its_estimate_interval_and_settled_mark(built):
    site, store, synthetic, watch = built
    index = site.index.read_text()
    for run_id in synthetic + watch:
        _check_run_rows(index, results.load(store, run_id))
    for run_id, k in zip(synthetic, (2.0, 4.0)):
        rows = _index_rows(index, run_id)
        assert {row["machine"][0] for row in rows} == {"? (Synthetic CPU 9000)"}  # ENV names no host
        # warm time to first response: 4000 / speed + 100 per launch after the first, Spring Boot over Quarkus
        ttfr = next(row for row in rows if row["ratio"][0] == "spring-boot/jvm / quarkus/jvm"
                    and row["figure"][0] == "time to first response (warm)")
        estimate, low = float(ttfr["estimate"][1]), float(ttfr["95 % interval"][1])
        spring, quarkus = [4000 + 100 * i for i in (1, 2, 3)], [4000 / k + 100 * i for i in (1, 2, 3)]
        assert min(spring) / max(quarkus) <= estimate <= max(spring) / min(quarkus)
        assert low <= estimate
    # the columns' own figures, not the runs' order: sorting the rows by estimate is sorting the ratios
    assert len({row["estimate"][1] for run_id in synthetic + watch for row in _index_rows(index, run_id)}) > 3


@pytest.fixture
def mixed(tmp_path):
    """A run of plan watch whose throughput ratio settled (a +-50 % target, 2 rounds stored as its
    least) while its start-up ratios, held to the calibrated least of rounds, did not; a run of lab-2
    imported; a run that failed before any figure; a run of one app/mode, which has no ratio."""
    store = Store(tmp_path / "results.sqlite")
    try:
        rng = np.random.default_rng(4)
        wide = _add_run(store, 0, rng, plan={**WATCH, "rounds": {"target": 0.5}})
        store.save_rounds(wide, {"ratios": [{"ratio": "quarkus/jvm / go-ref/jvm", "least": 2}]})
        imported = _another_machines_runs(store, tmp_path, rng, 1, 1)[0]
        failed = store.begin_run(WATCH, LAB_1)
        store.finish_run(failed, "failed")
        alone = store.begin_run({**WATCH, "apps": ["quarkus"]}, LAB_1)
        for r in range(3):
            store.add_figure(alone, "quarkus", "jvm", "startup", "ttfr_ms", 900.0 + r, "ms", point="warm", repeat=r)
        store.finish_run(alone, "done")
        yield site_mod.build(store, tmp_path / "site"), store, wide, imported, failed, alone
    finally:
        store.close()


def test_a_settled_ratio_is_marked_settled_and_one_that_is_not_is_marked_not_settled(mixed):
    site, store, wide = mixed[:3]
    view = results.load(store, wide)
    assert {r.settled for r in findings.ratio_findings(view)} == {True, False}  # both marks to be shown
    rows = _check_run_rows(site.index.read_text(), view)
    assert {row["settled"][0] for row in rows} == {"settled", "not settled"}


def test_an_imported_run_of_another_machine_shows_its_host_on_every_row(mixed):
    site, store, wide, imported = mixed[:4]
    index = site.index.read_text()
    rows = _check_run_rows(index, results.load(store, imported))
    assert all(row["machine"][0].startswith("lab-2 (") for row in rows)
    assert all(row["machine"][0].startswith("lab-1 (") for row in _index_rows(index, wide))


def test_a_run_without_a_headline_ratio_still_has_a_row_with_none_in_its_ratio_columns(mixed):
    site, store, *_, failed, alone = mixed
    index = site.index.read_text()
    for run_id, status in ((failed, "failed"), (alone, "done")):
        assert findings.ratio_findings(results.load(store, run_id)) == []
        [row] = _index_rows(index, run_id)
        assert row["status"][0] == status and row["machine"][0] == history.machine(results.load(store, run_id))
        assert row["ratio"][0] == "none"
        assert all(row[h] == ("", None) for h in ("figure", "estimate", "95 % interval", "settled"))


def test_the_index_sorts_by_a_click_on_a_header_with_numbers_read_from_the_cells_values(built):
    index = built[0].index.read_text()
    script = re.search(r"<script>(.*?)</script>", index, re.S).group(1)
    assert "<script src" not in index  # the script is inline: the index needs no file beside it, nor a network
    for what in ('querySelectorAll("table.sortable th[data-sort]")', '"click"', "cellIndex", "dataset.value",
                 "parseFloat", "localeCompare", "aria-sort"):
        assert what in script
    assert '<table class=sortable>' in index
    sorts = dict((html_lib.unescape(name), how)
                 for how, name in re.findall(r'<th(?: data-sort="(\w+)")?>(.*?)</th>', index))
    assert {h for h, how in sorts.items() if how == "num"} == {"started", "estimate", "95 % interval"}
    assert {h for h, how in sorts.items() if how == "text"} >= {"run", "plan", "machine", "ratio", "figure", "settled"}
    assert sorts["pages"] == ""  # links: nothing to sort by
    # every number a numeric column sorts by is in its cells, and parses
    for run_id in built[0].runs:
        for row in _index_rows(index, run_id):
            assert all(float(row[h][1]) > 0 for h in ("started", "estimate", "95 % interval"))


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
    for words in ("file system with no server", "a row per headline ratio", "sorted by a click", "charted across",
                  "change points", "--out DIR", "relative"):
        assert words in text
