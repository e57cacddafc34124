"""The Quarkus / Spring Boot reading under quick's steady tables: the ratio against the published
1.98x, and which measured cause goes with it (CPU per request, SQL per request, JIT, GC)."""

from __future__ import annotations

import pytest

from perflab import results
from perflab.scenarios import steady
from perflab.store import Store
from tests.unit.test_report import ENV, PLAN

POINT, PARAMS = "fruits c=40", {"path": "/fruits", "connections": 40}


def _view(tmp_path, figures: dict[str, dict[str, list[float]]]):
    store = Store(tmp_path / "results.sqlite")
    run = store.begin_run({**PLAN, "scenarios": ["steady"]}, ENV)
    for target, metrics in figures.items():
        app, mode = target.split("/")
        for metric, values in metrics.items():
            for k, v in enumerate(values):
                store.add_figure(run, app, mode, "steady", metric, v, "", point=POINT, params=PARAMS, repeat=k)
    store.finish_run(run, "complete")
    view = results.load(store, run)
    store.close()
    return view


def _reading(lines: list[str]) -> str:
    return "\n".join(lines[lines.index(next(x for x in lines if "reading:" in x)):])


def test_a_gap_that_follows_cpu_per_request_says_so_and_how_far_it_is_from_the_published(tmp_path):
    view = _view(tmp_path, {
        "quarkus/jvm": {"rps": [8000, 8100], "app_cpu_ms_per_request": [0.12, 0.12],
                        "sql_statements_per_request": [1.0, 1.0], "jit_compile_ms_per_s": [10, 12]},
        "spring-boot/jvm": {"rps": [2000, 2020], "app_cpu_ms_per_request": [0.48, 0.47],
                            "sql_statements_per_request": [1.0, 1.0], "jit_compile_ms_per_s": [20, 30]}})
    text = _reading(steady.stability(view))
    assert "4.00x is 2.0x the published 1.98x" in text
    assert "differs 4.0x: it explains the gap" in text
    assert "SQL" not in text and "JIT" not in text and "GC" not in text


def test_more_sql_per_request_a_compiling_jit_and_gc_are_each_named(tmp_path):
    view = _view(tmp_path, {
        "quarkus/jvm": {"rps": [4000, 4000], "app_cpu_ms_per_request": [0.2, 0.2],
                        "sql_statements_per_request": [1.0, 1.0], "gc_ms_per_s": [10, 10]},
        "spring-boot/jvm": {"rps": [2000, 2000], "app_cpu_ms_per_request": [0.2, 0.2],
                            "sql_statements_per_request": [2.04, 2.0], "jit_compile_ms_per_s": [900, 1000],
                            "gc_ms_per_s": [150, 150]}})
    text = _reading(steady.stability(view))
    assert "2.00x is close to the published 1.98x" in text
    assert "does not explain the whole gap" in text
    assert "different SQL per request (1.00 vs 2.02)" in text
    assert "spring-boot/jvm's JIT was still compiling 950 ms a second" in text
    assert "spring-boot/jvm spends 140 ms a second more in GC" in text


@pytest.mark.parametrize("missing", ["quarkus/jvm", "spring-boot/jvm"])
def test_no_reading_without_both_apps(tmp_path, missing):
    figures = {"quarkus/jvm": {"rps": [8000, 8100]}, "spring-boot/jvm": {"rps": [2000, 2020]}}
    del figures[missing]
    assert not any("reading:" in line for line in steady.stability(_view(tmp_path, figures)))
