"""What chance alone would call a change: said beside the verdicts of a comparison of runs and of a
run's framework versions, with how likely it is that every call was chance."""

from __future__ import annotations

from perflab import results
from perflab.analysis.chance import Chance
from perflab.report import compare, versions as by_version
from perflab.report.version_changes import changes
from perflab.store import Store
from tests.unit.test_version_changes import _store_run


def test_no_call_needs_no_probability_and_one_test_needs_no_line():
    assert Chance(40, 0, 0.05).all_chance_p == 1.0
    assert "Called here: 0" in Chance(40, 0, 0.05).line() and "p =" not in Chance(40, 0, 0.05).line()
    assert Chance(1, 1, 0.05).line() == ""


def test_as_many_calls_as_chance_gives_are_said_to_be_possibly_all_noise():
    few = Chance(40, 2, 0.05)
    assert few.all_chance_p > 0.3
    assert "could all be noise" in few.line()


def test_far_more_calls_than_chance_gives_are_not():
    many = Chance(40, 12, 0.05)
    assert many.all_chance_p < 0.001
    assert "could all be noise" not in many.line()
    assert many.all_chance_p < Chance(40, 6, 0.05).all_chance_p < Chance(40, 3, 0.05).all_chance_p


def _run(store: Store, figures: dict[str, list[float]]) -> results.RunView:
    run = store.begin_run({"name": "cmp", "repeats": 5}, {"cpu_model": "Test CPU"})
    for point, values in figures.items():
        for r, v in enumerate(values):
            store.add_figure(run, "spring-boot", "jvm", "sweep", "rps", v, "req/s", point=point, repeat=r)
    store.finish_run(run, "complete")
    return results.load(store, run)


def test_a_comparison_of_runs_counts_the_figures_tested_and_those_called_changed(tmp_path):
    store = Store(tmp_path / "r.sqlite")
    noise = [100.0, 104.0, 97.0, 102.0, 99.0]
    a = _run(store, {f"c={c}": noise for c in range(1, 11)} | {"c=11": [100.0]})
    b = _run(store, {f"c={c}": [v * (1.5 if c <= 3 else 1.0) for v in reversed(noise)] for c in range(1, 11)}
             | {"c=11": [100.0]})
    cmp = compare.compare_runs(a, b)
    assert (cmp.chance().tested, cmp.chance().called) == (10, 3)  # c=11 has one value a side: no test
    line = next(x for x in compare.header_lines(cmp) if x.startswith("by chance"))
    assert "10 figures tested" in line and "Called here: 3" in line
    assert "by chance: 10 figures" in compare.render_html(cmp)
    store.close()


def test_a_runs_version_changes_say_it_too(workdir):
    store = Store()
    view = results.load(store, _store_run(store))
    assert (by_version.chance(changes(view)).tested, by_version.chance(changes(view)).called) == (2, 1)
    assert any(line.startswith("by chance: 2 changes tested") for line in by_version.text_lines(view))
    assert "by chance: 2 changes tested" in by_version.render(view)
