"""`perflab ab`'s verdicts and gate, read from a stored run of APP@base and APP@head (its revisions
and the run itself: tests/lab/test_ab.py)."""

from __future__ import annotations

import pytest

from perflab import plan as plans, results
from perflab.report import ab_verdicts
from perflab.report.version_changes import also_changed
from perflab.results import NOT_STEADY_FLAG
from perflab.store import Store

# a host whose speed swings from round to round far more than the changes judged below
HOST = {1: 10000.0, 2: 15000.0, 3: 21000.0, 4: 12000.0, 5: 18000.0, 6: 14000.0}
JITTER = {1: 1.004, 2: 0.997, 3: 1.002, 4: 0.998, 5: 1.001, 6: 0.999}


def _ab_run(store: Store, head_factor: float, n_rounds: int, target: float = 0.05,
            warming: dict[int, float] | None = None, head_dir: str = "/h") -> results.RunView:
    """A stored A/B run: throughput and CPU per request per round for base and head, head's
    throughput `head_factor` times base's (its CPU per request the inverse); `warming`: rounds whose
    head launch was still warming up, with the factor it measured."""
    plan = plans.load("quick").data
    run = store.begin_run({**plan, "name": "ab-quick", "rounds": {**plan["rounds"], "target": target},
                           "ab": {"base": {"dir": "/b", "rev": "main", "sha": "a" * 40, "dirty": False},
                                  "head": {"dir": head_dir, "rev": "", "sha": "b" * 40, "dirty": True}}}, {})
    store.save_rounds(run, {"seed": 1, "orders": []})
    for side, factor in (("base", 1.0), ("head", head_factor)):
        for r in range(1, n_rounds + 1):
            f = (warming or {}).get(r, factor) if side == "head" else factor
            flags = [NOT_STEADY_FLAG] if side == "head" and r in (warming or {}) else []
            rps = HOST[r] * f * JITTER[r]
            for metric, value, unit in (("rps", rps, "req/s"), ("app_cpu_ms_per_request", 1000 / rps, "ms")):
                store.add_figure(run, f"svc@{side}", "jvm", "steady", metric, value, unit, point="fruits c=4",
                                 params={"path": "/fruits", "connections": 4}, repeat=r, flags=flags)
    store.finish_run(run, "complete")
    return results.load(store, run)


def _by_figure(view) -> dict[str, ab_verdicts.ABVerdict]:
    return {v.change.headline.key: v for v in ab_verdicts.verdicts(view)}


def test_a_slower_head_is_slower_on_the_whole_interval_and_fails_a_gate_below_its_size(workdir):
    view = _ab_run(Store(), 0.85, 6)
    found = _by_figure(view)
    assert found["throughput"].verdict == ab_verdicts.SLOWER and found["cpu"].verdict == ab_verdicts.SLOWER
    assert found["throughput"].interval.high < 0.9
    lines, failed = ab_verdicts.gate_lines(list(found.values()), 5)
    assert failed and "throughput" in "\n".join(lines)
    assert not ab_verdicts.gate_lines(list(found.values()), 30)[1]  # 15 % worse is within a 30 % gate
    assert "main (aaaaaaaaaaaa)" in ab_verdicts.revisions_line(view) and "changes no commit holds" in \
        ab_verdicts.revisions_line(view)


def test_a_faster_head_passes_any_gate(workdir):
    found = _by_figure(_ab_run(Store(), 1.2, 6))
    assert found["throughput"].verdict == ab_verdicts.FASTER and found["cpu"].verdict == ab_verdicts.FASTER
    assert not ab_verdicts.gate_lines(list(found.values()), 1)[1]


def test_no_change_needs_the_rounds_the_rule_asks_and_an_interval_within_the_target(workdir):
    settled = _by_figure(_ab_run(Store(), 1.0, 6, target=0.05))["throughput"]
    assert settled.verdict == ab_verdicts.NO_CHANGE and "no change within +-5%" in settled.text()
    few = _by_figure(_ab_run(Store(), 1.0, 2, target=0.05))["throughput"]
    assert few.verdict == ab_verdicts.NOT_SETTLED and "of the 5 rounds a verdict needs" in few.text()
    assert "not settled" in ab_verdicts.gate_lines([few], 5)[0][0]


def test_a_round_whose_head_was_still_warming_up_is_left_out_of_the_verdict(workdir):
    # head equal to base once steady; in round 2 it measured a warm-up at 0.6x: the verdict is on steady rounds
    view = _ab_run(Store(), 1.0, 6, target=0.05, warming={2: 0.6})
    found = _by_figure(view)["throughput"]
    assert found.interval.n == 5 and found.verdict == ab_verdicts.NO_CHANGE
    page = ab_verdicts.markdown(view, list(_by_figure(view).values()), 5)
    assert "| svc/jvm | steady-state throughput |" in page and "gate: passed" in page


def test_an_aa_run_of_one_build_is_not_said_to_lack_its_libraries(workdir):
    [one] = also_changed(_ab_run(Store(), 1.0, 2, head_dir="/b"))
    assert "one build of one commit" in one.text()
    [apart] = also_changed(_ab_run(Store(), 1.0, 2))
    assert "one build" not in apart.text()
