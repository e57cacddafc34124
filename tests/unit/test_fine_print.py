"""The fine print under every chart: the report's, the history's and by version's charts each say
which runs they show, when, on which machine, under which limits, with which frameworks, JDKs and
connections. The runs come from the report's and the history's own fixtures."""

from __future__ import annotations

import html as html_lib
import re

import numpy as np

from perflab import results
from perflab.present.fine_print import fine_print
from perflab.report import history, write_report
from perflab.store import Store
from tests.unit.test_history import PLAN as WATCH, _add_run
from tests.unit.test_report import ENV, make_run


def _fine_prints(doc: str) -> list[str]:
    return [html_lib.unescape(x) for x in re.findall(r'<p class="fineprint">(.*?)</p>', doc, re.S)]


def test_every_chart_of_the_report_carries_the_run_s_fine_print(tmp_path):
    store = Store(tmp_path / "results.sqlite")
    try:
        run = make_run(store).run_id
        doc = write_report(store, run, tmp_path / "report").html.read_text()
    finally:
        store.close()
    fine = _fine_prints(doc)
    assert len(fine) == doc.count('<figure class="chart"') > 0
    for text in fine:
        for shown in (f"run {run}, started", "Synthetic CPU 9000, 2 CPUs, 8000 MB", "each app on 1 CPU(s) with 1024 MB",
                      "Spring Boot 4.1.1", "Quarkus 3.37.4", "JDK 17.0.15"):
            assert shown in text, (shown, text)
        # the sweep's connections and the memory scenario's load; the latency and write points give none
        assert "1, 8, 10, 32, 40 connection(s)" in text


def test_every_history_chart_names_the_runs_and_each_machine_they_ran_on(tmp_path):
    store = Store(tmp_path / "results.sqlite")
    try:
        rng = np.random.default_rng(4)
        for n in range(4):
            _add_run(store, n, rng, env={**ENV, "hostname": "lab-1" if n < 2 else "lab-2", "cpu_model": "Test CPU 1"})
        views = history.runs_of(store, WATCH["name"])
        doc = history.render(WATCH["name"], views)
    finally:
        store.close()
    fine = _fine_prints(doc)
    assert len(fine) == doc.count('class="chart"') > 0
    for text in fine:
        assert text.startswith("4 runs, started") and "lab-1 (Test CPU 1" in text and "; lab-2 (Test CPU 1" in text
        assert "32 connection(s)" in text and "Quarkus 3.37.4" in text


def test_a_run_of_several_versions_names_the_versions_it_measured(tmp_path):
    store = Store(tmp_path / "results.sqlite")
    try:
        run = store.begin_run({"name": "upgrade", "apps": ["quarkus"], "modes": ["jvm"]}, ENV)
        for version in ("3.33.2", "3.37.1"):
            store.add_figure(run, f"quarkus@{version}", "jvm", "startup", "ttfr_ms", 900.0, "ms", point="warm")
        store.finish_run(run, "complete")
        text = fine_print([results.load(store, run)])
    finally:
        store.close()
    assert "quarkus@3.33.2, quarkus@3.37.1" in text and "Quarkus 3.37.4" not in text
